import type { IncomingMessage } from 'node:http';
import { FwError } from '../errors.js';
import type { Principal } from '../model.js';

/** What the surface asking tells an authenticator about the request. */
export interface AuthContext {
  /**
   * The request opens a socket or a stream (WebSocket, SSE, long-polling): browsers cannot set
   * headers there, so `?access_token=` is accepted. Plain HTTP requests must use the header, so
   * that a token never lands in access logs or a Referer by accident.
   */
  socket?: boolean;
  /**
   * The resource the request is addressed to (RFC 8707), when the surface is an OAuth resource
   * server with one audience per endpoint (MCP, docs/mcp.md "OAuth"): a JWT must then name it in
   * `aud`, instead of the authenticator's configured audience.
   */
  audience?: string;
}

/**
 * Finds who makes a request. Returns undefined when the request carries no credential this
 * authenticator understands; throws an {@link AuthenticationError} when it carries one that is
 * wrong (a bad signature, an expired token), so the caller answers 401 with the reason.
 */
export type Authenticator = (
  req: IncomingMessage,
  url: URL,
  context?: AuthContext,
) => Principal | undefined | Promise<Principal | undefined>;

/** A credential was presented and is not valid (401). */
export class AuthenticationError extends FwError {
  constructor(detail: string) {
    super('unauthorized', detail, 401);
  }
}

/**
 * `Authorization: Bearer <token>`; on sockets (`context.socket`) also `?access_token=<token>`.
 * Undefined when neither is present.
 */
export function bearerCredential(req: IncomingMessage, url: URL, context?: AuthContext): string | undefined {
  const header = req.headers.authorization;
  const m = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header.trim()) : null;
  if (m?.[1]) return m[1];
  if (context?.socket) return url.searchParams.get('access_token') ?? undefined;
  return undefined;
}

/**
 * Asks each authenticator in turn; the first principal wins. When none finds a principal but one
 * rejected a presented credential, that rejection is thrown (a wrong JWT is a 401 with its reason,
 * not an anonymous request). A non-FwError thrown by an authenticator is a 401 too: a broken
 * custom function never lets anyone in.
 */
export function chainAuthenticators(authenticators: readonly Authenticator[]): Authenticator {
  const list = [...authenticators];
  return async (req, url, context) => {
    let rejection: FwError | undefined;
    for (const authenticate of list) {
      try {
        const principal = await authenticate(req, url, context);
        if (principal) return principal;
      } catch (err) {
        rejection ??= err instanceof FwError ? err : new AuthenticationError('the credential could not be verified');
      }
    }
    if (rejection) throw rejection;
    return undefined;
  };
}
