import { AuthenticationError } from '../auth/authenticator.js';
import { frameworkAuthenticator } from '../auth/config.js';
import type { Framework } from '../framework.js';
import type { Interceptor } from '../model.js';

export interface AuthenticateOptions {
  /** Refuse a connection without a credential (401). Default true; false lets anonymous clients in. */
  required?: boolean;
}

/**
 * Authenticates real-time connections with the framework's authenticator chain (the app's
 * function, `fw.auth.tokens`, JWT: docs/security.md): `Authorization: Bearer`, or on these
 * sockets and streams `?access_token=` (a browser cannot set a WebSocket's headers). The
 * principal owns the resource, and the connection closes when its credential expires or is
 * revoked (`fw.credentials`; docs/runtime.md, *Credentials on open connections*). Every poll,
 * message POST and resume is authenticated again.
 *
 *   fw.handle('/chat/{room}', handler, { interceptors: [authenticate(fw)] });
 */
export function authenticate(fw: Framework, options: AuthenticateOptions = {}): Interceptor {
  const required = options.required ?? true;
  return {
    name: 'authenticate',
    async connect(ctx) {
      // Built on first use: the modules that add authenticators install before connections come.
      const authenticator = frameworkAuthenticator(fw);
      const principal = authenticator ? await authenticator(ctx.req, ctx.url, { socket: true }) : undefined;
      if (principal) ctx.principal = principal;
      else if (required) throw new AuthenticationError('a credential is required (Authorization: Bearer, or ?access_token= on a socket)');
    },
  };
}
