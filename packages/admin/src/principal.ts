import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Principal } from '@fw/runtime';

/**
 * Finds who is calling from the request (headers, query, client certificate, a session cookie…).
 * Returns undefined for an anonymous request. `url` carries the query (`?access_token=`).
 */
export type PrincipalResolver = (req: IncomingMessage, url: URL) => Principal | undefined | Promise<Principal | undefined>;

/** The principal a valid `fw.admin.auth.token` stands for. */
export const TOKEN_PRINCIPAL: Principal = Object.freeze({ id: 'admin', roles: Object.freeze(['admin']) });

/**
 * The built-in resolver: `Authorization: Bearer <token>`, and on sockets (browsers cannot set
 * WebSocket headers) also `?access_token=<token>`. Compared in constant time.
 */
export function bearerTokenResolver(token: string, options: { allowQuery: boolean }): PrincipalResolver {
  const expected = digest(token);
  return (req, url) => {
    const header = req.headers.authorization;
    const m = typeof header === 'string' ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
    const given = m?.[1] ?? (options.allowQuery ? url.searchParams.get('access_token') : null);
    if (given === null || given === undefined) return undefined;
    return timingSafeEqual(digest(given), expected) ? TOKEN_PRINCIPAL : undefined;
  };
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** The runtime's loopback test (IPv4 127/8, IPv6 ::1 with brackets and zone ids, IPv4-mapped). */
export { isLoopback } from '@fw/runtime';
