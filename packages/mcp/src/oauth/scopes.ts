import { ConfigError, type Principal } from '@fw/runtime';

/** RFC 6749 §3.3 scope-token: printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** A space-separated scope list (`a b c`), checked against RFC 6749 §3.3. */
export function parseScopes(text: string, key = 'fw.mcp.oauth.scopes'): string[] {
  const scopes = text.split(/\s+/).filter(Boolean);
  for (const s of scopes) {
    if (!SCOPE_TOKEN.test(s)) throw new ConfigError(`${key}: '${s}' is not a valid OAuth scope (RFC 6749 §3.3)`);
  }
  return [...new Set(scopes)];
}

/** `fw.mcp.oauth.tool-scopes`: comma-separated `tool=scope scope` entries. */
export function parseToolScopes(text: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const raw of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = raw.indexOf('=');
    const tool = eq < 0 ? '' : raw.slice(0, eq).trim();
    if (!tool) throw new ConfigError(`fw.mcp.oauth.tool-scopes: '${raw}' is not tool=scope [scope…]`);
    if (map.has(tool)) throw new ConfigError(`fw.mcp.oauth.tool-scopes: the tool '${tool}' is listed twice`);
    const scopes = parseScopes(raw.slice(eq + 1), 'fw.mcp.oauth.tool-scopes');
    if (scopes.length === 0) throw new ConfigError(`fw.mcp.oauth.tool-scopes: the entry of '${tool}' names no scope`);
    map.set(tool, scopes);
  }
  return map;
}

/**
 * The scopes an access token grants: `scope` (a space-separated string, RFC 9068 §2.2.3 and
 * RFC 8693 §4.2) or `scp` (an array or a string, as some authorization servers issue it).
 */
export function grantedScopes(principal: Principal | undefined): Set<string> {
  const claims = principal as (Principal & { scope?: unknown; scp?: unknown }) | undefined;
  const out = new Set<string>();
  for (const claim of [claims?.scope, claims?.scp]) {
    if (typeof claim === 'string') for (const s of claim.split(/\s+/)) if (s) out.add(s);
    if (Array.isArray(claim)) for (const s of claim) if (typeof s === 'string' && s) out.add(s);
  }
  return out;
}

/**
 * The required scopes a token lacks. A scope grants exactly itself: fw defines no hierarchy, so
 * an authorization server that has one must put the implied scopes in the token.
 */
export function missingScopes(granted: ReadonlySet<string>, required: readonly string[]): string[] {
  return required.filter((s) => !granted.has(s));
}
