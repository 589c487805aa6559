/** URLs of an fw endpoint for each transport, and the query parameters of docs/protocol.md. */

/** Resolves what the app passed (absolute http(s)/ws(s) URL, or a path in a browser page). */
export function resolveEndpoint(url: string | URL): URL {
  const base = (globalThis as { location?: { href: string } }).location?.href;
  const u = new URL(String(url), base);
  if (!/^(https?|wss?):$/.test(u.protocol)) throw new TypeError(`fw endpoint must be an http(s) or ws(s) URL: ${u.href}`);
  return u;
}

/** The same endpoint with the scheme a transport needs and the given query parameters added. */
export function endpointUrl(base: URL, scheme: 'http' | 'ws', params: Record<string, string | undefined>): string {
  const u = new URL(base.href);
  const secure = u.protocol === 'https:' || u.protocol === 'wss:';
  u.protocol = scheme === 'ws' ? (secure ? 'wss:' : 'ws:') : secure ? 'https:' : 'http:';
  u.hash = '';
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.href;
}

/**
 * `since`: base64url(JSON {broadcasterId: lastBroadcasterMessageId}), UTF-8 safe. Cursors are
 * left out oldest first (map order) until the value fits `maxLength`.
 */
export function encodeSince(cursors: ReadonlyMap<string, number>, maxLength = Infinity): string {
  let entries = [...cursors];
  for (;;) {
    const bytes = new TextEncoder().encode(JSON.stringify(Object.fromEntries(entries)));
    let binary = '';
    for (const b of bytes) binary += String.fromCharCode(b);
    const value = btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    if (value.length <= maxLength || entries.length === 0) return value;
    entries = entries.slice(Math.max(1, Math.floor(entries.length / 8)));
  }
}
