/** A parsed `Host` header (or `X-Forwarded-Host`): the name as written (IPv6 in brackets) and the port if any. */
export interface HostHeader {
  /** Lower-cased host name; IPv6 literals keep their brackets (`[::1]`). */
  hostname: string;
  port: string | undefined;
  /** `hostname[:port]`, lower-cased. */
  host: string;
}

/**
 * Parses an authority as a Host header carries it (RFC 9110 §7.2: `uri-host [ ":" port ]`).
 * Undefined for anything else: an empty value, userinfo, paths, spaces, a bad port.
 */
export function parseHostHeader(value: string | undefined): HostHeader | undefined {
  if (!value) return undefined;
  const h = value.trim().toLowerCase();
  let hostname: string;
  let rest: string;
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    if (end < 0) return undefined;
    hostname = h.slice(0, end + 1);
    if (!/^\[[0-9a-f:.]+(%[0-9a-z._~-]+)?\]$/.test(hostname)) return undefined;
    rest = h.slice(end + 1);
  } else {
    const colon = h.indexOf(':');
    hostname = colon >= 0 ? h.slice(0, colon) : h;
    rest = colon >= 0 ? h.slice(colon) : '';
    // reg-name / IPv4: letters, digits, '-', '.', '_' (no userinfo, no path, no percent tricks).
    if (!/^[a-z0-9._-]+$/.test(hostname)) return undefined;
  }
  let port: string | undefined;
  if (rest !== '') {
    if (!/^:\d{1,5}$/.test(rest) || Number(rest.slice(1)) > 65535) return undefined;
    port = rest.slice(1);
  }
  // A trailing dot names the same host (`localhost.`): compare without it.
  if (hostname.endsWith('.') && hostname.length > 1) hostname = hostname.slice(0, -1);
  return { hostname, port, host: port === undefined ? hostname : `${hostname}:${port}` };
}
