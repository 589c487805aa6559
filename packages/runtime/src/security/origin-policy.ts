import { ConfigError } from '../config.js';

/**
 * Which browser origins may use fw's routes (`fw.security.allowed-origins`, `fw.public-url`).
 * A request without `Origin` is not a cross-origin browser request (a non-browser client, or a
 * same-origin GET) and passes; so does one whose Origin names the host it was sent to (the
 * same origin: the Host check already ran, so that host is one fw answers for), the public
 * URL's origin, or a listed origin. `*` allows any origin. Anything else, `null` included, is
 * refused: browsers always send Origin on cross-origin POSTs and WebSocket handshakes, so a page
 * on another site can neither post a form or `text/plain` body nor open a socket here.
 */
export class OriginPolicy {
  private readonly any: boolean;
  private readonly allowed = new Set<string>();

  constructor(entries: readonly string[], publicUrl: URL | undefined) {
    const list = entries.map((e) => e.trim()).filter(Boolean);
    this.any = list.includes('*');
    for (const e of list) {
      if (e === '*') continue;
      if (!isOrigin(e))
        throw new ConfigError(
          `fw.security.allowed-origins: '${e}' is not an origin (scheme://host[:port], e.g. 'https://app.example.com')`,
        );
      this.allowed.add(normalizeOrigin(e));
    }
    if (publicUrl) this.allowed.add(publicUrl.origin.toLowerCase());
  }

  get allowsAny(): boolean {
    return this.any;
  }

  /** `effectiveHost`: the Host the request was sent to (`X-Forwarded-Host` from a trusted proxy). */
  allows(origin: string | undefined, effectiveHost: string | undefined): boolean {
    if (origin === undefined) return true;
    if (this.any) return true;
    const o = normalizeOrigin(origin);
    if (this.allowed.has(o)) return true;
    if (o === 'null' || effectiveHost === undefined) return false;
    // Same origin: `scheme://<the Host the request was sent to>` (an origin has no path or userinfo).
    const sep = o.indexOf('://');
    return sep > 0 && o.slice(sep + 3) === effectiveHost && /^[a-z][a-z0-9+.-]*$/.test(o.slice(0, sep));
  }
}

/** `HTTPS://App.Example/` → `https://app.example` (origins compare case-insensitively, without a trailing slash). */
function normalizeOrigin(origin: string): string {
  return origin.trim().toLowerCase().replace(/\/+$/, '');
}

/** `scheme://host[:port]` and nothing else (no path, query or credentials); `null` too. */
function isOrigin(value: string): boolean {
  const v = normalizeOrigin(value);
  if (v === 'null') return true;
  try {
    return new URL(v).origin === v;
  } catch {
    return false;
  }
}
