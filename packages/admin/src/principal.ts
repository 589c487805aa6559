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

/**
 * True for loopback addresses (127.0.0.0/8, ::1, and their IPv4-mapped IPv6 forms). While no
 * authentication is configured, only these may use the admin plane.
 */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.toLowerCase().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (a === '::1' || a === '0:0:0:0:0:0:0:1') return true;
  const v4 = a.startsWith('::ffff:') ? a.slice(7) : a;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}
