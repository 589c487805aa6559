import { createHash, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../config.js';
import type { Principal } from '../model.js';
import { bearerCredential, type Authenticator } from './authenticator.js';
import { MIN_TOKEN_LENGTH, tokenWeakness } from './token-strength.js';

export { MIN_TOKEN_LENGTH };

/** One static credential: the principal `name` with `roles`, presented as a bearer `token`. */
export interface StaticToken {
  name: string;
  roles: readonly string[];
  token: string;
}

/**
 * Parses `fw.auth.tokens`: comma-separated `name:role[+role]:token` entries, e.g.
 * `ops:operator:3f0c…,ci:viewer:9ab1…`. The token is everything after the second colon.
 */
export function parseTokenEntries(text: string): StaticToken[] {
  const entries: StaticToken[] = [];
  for (const raw of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const first = raw.indexOf(':');
    const second = first < 0 ? -1 : raw.indexOf(':', first + 1);
    if (first <= 0 || second < 0) throw new ConfigError(`fw.auth.tokens: '${raw.split(':')[0]}…' is not name:role[+role]:token`);
    const name = raw.slice(0, first);
    const roles = raw
      .slice(first + 1, second)
      .split('+')
      .map((r) => r.trim())
      .filter(Boolean);
    const token = raw.slice(second + 1);
    if (roles.length === 0) throw new ConfigError(`fw.auth.tokens: the entry of '${name}' names no role`);
    entries.push({ name, roles, token });
  }
  return entries;
}

/**
 * Bearer tokens mapped to named principals. Tokens are compared as SHA-256 digests in constant
 * time, against every entry, so neither a match nor its position shows in the timing.
 */
export function staticTokens(entries: readonly StaticToken[]): Authenticator {
  const known = entries.map((e) => {
    const weak = tokenWeakness(e.token);
    if (weak) throw new ConfigError(`the token of '${e.name}' ${weak}`);
    const principal: Principal = Object.freeze({ id: e.name, roles: Object.freeze([...e.roles]) });
    return { digest: digest(e.token), principal };
  });
  const names = new Set<string>();
  for (const e of entries) {
    if (names.has(e.name)) throw new ConfigError(`two static tokens are named '${e.name}'`);
    names.add(e.name);
  }
  return (req, url, context) => {
    const given = bearerCredential(req, url, context);
    if (given === undefined) return undefined;
    const d = digest(given);
    let found: Principal | undefined;
    for (const k of known) if (timingSafeEqual(d, k.digest)) found ??= k.principal;
    return found;
  };
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}
