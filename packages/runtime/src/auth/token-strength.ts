import type { Config, FwConfigKeys } from '../config.js';

/** Shortest token accepted: a guessable token is worse than none. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * The one rule every secret fw accepts as a bearer token follows (`fw.auth.tokens` entries,
 * `fw.admin.auth.token`, `fw.metrics.token`): at least 16 characters, none of them whitespace or
 * a control character (such a token cannot be sent as `Authorization: Bearer <token>`). Returns
 * what is wrong, or undefined for a token that passes.
 */
export function tokenWeakness(token: string): string | undefined {
  if (token.length < MIN_TOKEN_LENGTH) return `is shorter than ${MIN_TOKEN_LENGTH} characters (${token.length})`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this looks for
  if (/[\s\u0000-\u001f\u007f]/.test(token)) return 'contains whitespace or a control character';
  return undefined;
}

/**
 * Reads a token key and refuses a weak value with an error naming where it came from (the
 * option, the environment variable or fw.config.json's line). Empty means "not configured".
 */
export function tokenFromConfig(
  config: Config,
  key: { [K in keyof FwConfigKeys]: FwConfigKeys[K] extends 'string' ? K : never }[keyof FwConfigKeys],
): string {
  const token = config.get(key) as string;
  if (token === '') return token;
  const weak = tokenWeakness(token);
  if (weak) throw config.invalid(key, `${weak}: use a random secret, e.g. \`openssl rand -hex 24\``);
  return token;
}
