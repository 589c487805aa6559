import { createHash, timingSafeEqual } from 'node:crypto';
import { bearerCredential, type Authenticator, type FwServices, type Principal } from '@fw/runtime';

/** The principal a valid `fw.admin.auth.token` stands for. */
export const TOKEN_PRINCIPAL: Principal = Object.freeze({ id: 'admin', roles: Object.freeze(['admin']) });

/**
 * `fw.admin.auth.token`: `Authorization: Bearer <token>`, and on sockets (browsers cannot set
 * WebSocket or EventSource headers) also `?access_token=<token>`; the `admin` principal.
 */
export function adminTokenAuthenticator(token: string): Authenticator {
  const expected = digest(token);
  return (req, url, context) => {
    const given = bearerCredential(req, url, context);
    if (given === undefined) return undefined;
    return timingSafeEqual(digest(given), expected) ? TOKEN_PRINCIPAL : undefined;
  };
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** @deprecated the pre-roles name: a resolver for `token` (query accepted only with `allowQuery`). */
export function bearerTokenResolver(token: string, options: { allowQuery: boolean }): Authenticator {
  const auth = adminTokenAuthenticator(token);
  return (req, url) => auth(req, url, { socket: options.allowQuery });
}

/** Finds the client's address: the service `'client-address'` when there is one, else the runtime's. */
export type ClientAddress = FwServices['client-address'];

/** The runtime's loopback test (IPv4 127/8, IPv6 ::1 with brackets and zone ids, IPv4-mapped). */
export { isLoopback } from '@fw/runtime';
