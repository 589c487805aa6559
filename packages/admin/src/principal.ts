import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { bearerCredential, type Authenticator, type Principal } from '@fw/runtime';

/**
 * Finds who is calling from the request (headers, query, client certificate, a session cookie…).
 * Returns undefined for an anonymous request. `url` carries the query (`?access_token=`). Kept as
 * the admin plane's name for the runtime's {@link Authenticator}.
 */
export type PrincipalResolver = Authenticator;

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
export function bearerTokenResolver(token: string, options: { allowQuery: boolean }): PrincipalResolver {
  const auth = adminTokenAuthenticator(token);
  return (req, url) => auth(req, url, { socket: options.allowQuery });
}

/** Finds the client's address: the service `'client-address'` when there is one, else the socket's peer. */
export type ClientAddress = (req: IncomingMessage) => string | undefined;

/** The runtime's loopback test (IPv4 127/8, IPv6 ::1 with brackets and zone ids, IPv4-mapped). */
export { isLoopback } from '@fw/runtime';
