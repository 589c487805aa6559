import { readFileSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { FrameworkOptions } from './framework.js';
import { fallbackLogger } from './logging/default-logger.js';

/**
 * Typed configuration. Every module declares its keys (`fw.admin.enabled`, …) with a type, a
 * default and a description; values come, later wins, from the defaults, an optional
 * `fw.config.json`, the environment (`fw.admin.mcp-write-tools` ↔ `FW_ADMIN_MCP_WRITE_TOOLS`) and
 * the options passed to `new Framework()` (an option set to `undefined` counts as not given).
 * Unknown `fw.*` keys are warned about once all modules have declared theirs.
 */
export type ConfigType = 'boolean' | 'number' | 'string' | 'duration';

/** The value `get` returns for a key of each type (durations in milliseconds). */
export type ConfigValue<T extends ConfigType> = T extends 'boolean' ? boolean : T extends 'string' ? string : number;

/** What an option, the file or a default may give for each type (durations also as `'30s'`). */
export type ConfigInput<T extends ConfigType> = T extends 'duration' ? number | string : ConfigValue<T>;

export interface ConfigKey<T extends ConfigType = ConfigType> {
  type: T;
  default: ConfigInput<T>;
  description: string;
  /**
   * Conventional environment variables read when the key's own (`FW_…`) is not set, in order:
   * `fw.port` also honours `PORT`, which platforms (Heroku, Cloud Run, Render…) set.
   */
  envAliases?: readonly string[];
  /** How docs/configuration.md shows a default that is derived at start (`<hostname>-<pid>`). */
  shownDefault?: string;
}

/** A module's keys; `defineConfig` checks each default against its type. */
export type ConfigSchema = { readonly [key: string]: ConfigKey };

/**
 * Every declared key and its type, filled in by each module with module augmentation:
 *
 * ```ts
 * export const MY_CONFIG = defineConfig({ 'fw.my.limit': { type: 'number', default: 10, description: '…' } });
 * declare module '@fw/runtime' { interface FwConfigKeys extends ConfigTypes<typeof MY_CONFIG> {} }
 * ```
 *
 * `fw.config.get('fw.my.limit')` is then a `number`, and `new Framework({ 'fw.my.limt': 1 })`
 * does not compile.
 */
export interface FwConfigKeys {}

/** The key → type map of one schema, for `interface FwConfigKeys extends ConfigTypes<typeof X> {}`. */
export type ConfigTypes<S extends ConfigSchema> = { -readonly [K in keyof S]: S[K]['type'] };

/** The options form of every declared key: each optional, `undefined` meaning "not given". */
export type ConfigOptions = { [K in keyof FwConfigKeys]?: ConfigInput<FwConfigKeys[K]> | undefined };

/**
 * Declares a module's keys in one place: key, type, default, description (the environment name is
 * derived from the key, plus `envAliases`). Returns the schema unchanged, typed precisely so
 * `ConfigTypes<typeof schema>` knows each key's type; a default of the wrong type does not compile.
 */
export function defineConfig<const S extends { [K in keyof S]: ConfigKeyOf<S[K]> }>(schema: S): S {
  return schema;
}

/** Checks one entry: its `default` must fit its `type`. */
type ConfigKeyOf<E> = E extends { type: infer T extends ConfigType } ? ConfigKey<T> : ConfigKey;

export type ConfigSource = Record<string, unknown>;

export class ConfigError extends Error {
  readonly code = 'invalid_config';
}

/** `fw.admin.mcp-write-tools` → `FW_ADMIN_MCP_WRITE_TOOLS` */
export function envName(key: string): string {
  return key.replace(/[.-]/g, '_').toUpperCase();
}

export class Config {
  private readonly schema = new Map<string, ConfigKey>();
  private readonly explicit: ConfigSource;
  /** Option keys given as `undefined`: not values, but still checked for misspellings. */
  private readonly unset: string[] = [];
  private readonly file: ConfigSource;
  private readonly env: NodeJS.ProcessEnv;
  private readonly warned = new Set<string>();
  warn: (message: string) => void = (m) => fallbackLogger().warn({}, m);

  constructor(options: ConfigSource = {}, opts: { env?: NodeJS.ProcessEnv; configFile?: string | false } = {}) {
    this.explicit = flatten(options, '', this.unset);
    this.env = opts.env ?? process.env;
    const file = opts.configFile === false ? undefined : resolve(opts.configFile ?? 'fw.config.json');
    this.file = file && existsSync(file) ? flatten(JSON.parse(readFileSync(file, 'utf8')) as ConfigSource) : {};
  }

  /** Declares keys; a module calls this before reading them. Re-declaring the same key is allowed. */
  declare(schema: ConfigSchema): void {
    for (const [key, def] of Object.entries(schema)) this.schema.set(key, def);
  }

  has(key: string): boolean {
    return this.schema.has(key);
  }

  /** The effective value of a declared key, typed from its declaration (`FwConfigKeys`). */
  get<K extends keyof FwConfigKeys>(key: K): ConfigValue<FwConfigKeys[K]>;
  get(key: string): unknown {
    return this.read(key);
  }

  private read(key: string): unknown {
    const def = this.schema.get(key);
    if (!def) throw new ConfigError(`configuration key '${key}' was never declared`);
    const fromEnv = this.fromEnv(key, def);
    const raw =
      key in this.explicit ? this.explicit[key] : fromEnv !== undefined ? fromEnv : key in this.file ? this.file[key] : def.default;
    return coerce(key, def.type, raw);
  }

  /** The key's own variable wins over its aliases (`FW_PORT` over `PORT`). */
  private fromEnv(key: string, def: ConfigKey): string | undefined {
    for (const name of [envName(key), ...(def.envAliases ?? [])]) {
      const value = this.env[name];
      if (value !== undefined) return value;
    }
    return undefined;
  }

  /**
   * Whether the key was given a value (an option, the environment or fw.config.json) rather than
   * left at its default: for a default that depends on other settings (`fw.metrics.allow-loopback`).
   */
  isSet(key: keyof FwConfigKeys): boolean {
    const def = this.schema.get(key);
    if (!def) throw new ConfigError(`configuration key '${key}' was never declared`);
    return key in this.explicit || this.fromEnv(key, def) !== undefined || key in this.file;
  }

  /** Explicit option values that are not fw.* keys (objects such as authorizers). */
  option<K extends Exclude<keyof FrameworkOptions, keyof ConfigOptions>>(key: K): FrameworkOptions[K] | undefined {
    return this.explicit[key as string] as FrameworkOptions[K] | undefined;
  }

  /** Warns once per unknown `fw.*` key seen in options or the config file. */
  warnUnknown(): string[] {
    const unknown = [...Object.keys(this.explicit), ...this.unset, ...Object.keys(this.file)].filter(
      (k) => k.startsWith('fw.') && !this.schema.has(k) && !this.warned.has(k),
    );
    for (const k of unknown) {
      this.warned.add(k);
      this.warn(`unknown configuration key '${k}' (ignored)`);
    }
    return unknown;
  }

  /** Every declared key with its effective value, for docs and the admin plane. */
  entries(): { key: string; value: unknown; default: unknown; type: ConfigType; description: string }[] {
    return [...this.schema.entries()].map(([key, def]) => ({
      key,
      value: this.read(key),
      default: def.default,
      type: def.type,
      description: def.description,
    }));
  }
}

/**
 * Accepts both flat (`{'fw.admin.enabled': true}`) and nested (`{fw: {admin: {enabled: true}}}`) forms.
 * An option whose value is `undefined` is left out, so `{ 'fw.admin.auth.token': process.env.X }`
 * with X unset falls through to the environment, the config file and the default instead of
 * overriding them with nothing.
 */
function flatten(source: ConfigSource, prefix = '', unset: string[] = []): ConfigSource {
  const out: ConfigSource = {};
  for (const [k, v] of Object.entries(source)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v === undefined) {
      unset.push(key);
      continue;
    }
    if (
      (key === 'fw' || key.startsWith('fw.')) &&
      v !== null &&
      typeof v === 'object' &&
      !Array.isArray(v) &&
      Object.getPrototypeOf(v) === Object.prototype
    ) {
      Object.assign(out, flatten(v as ConfigSource, key, unset));
    } else {
      out[key] = v;
    }
  }
  return out;
}

function coerce(key: string, type: ConfigType, raw: unknown): unknown {
  switch (type) {
    case 'boolean':
      if (typeof raw === 'boolean') return raw;
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0' || raw === '') return false;
      break;
    case 'number': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
      if (Number.isFinite(n)) return n;
      break;
    }
    case 'string':
      if (typeof raw === 'string') return raw;
      if (raw === undefined || raw === null) return '';
      break;
    case 'duration': {
      const ms = parseDuration(raw);
      if (ms !== undefined) return ms;
      break;
    }
  }
  throw new ConfigError(`configuration key '${key}' must be a ${type}, got ${JSON.stringify(raw)}`);
}

/** Durations in milliseconds: a number, or a string like `250ms`, `30s`, `5m`, `1h`. */
export function parseDuration(raw: unknown): number | undefined {
  if (typeof raw === 'number' && Number.isFinite(raw) && raw >= 0) return raw;
  if (typeof raw !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(raw);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = m[2] ?? 'ms';
  return n * (unit === 'h' ? 3_600_000 : unit === 'm' ? 60_000 : unit === 's' ? 1000 : 1);
}
