import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from './config-error.js';
import { readConfigFile, type TextPosition } from './config-file.js';
import type { FrameworkOptions } from './framework.js';
import { fallbackLogger } from './logging/default-logger.js';

export { ConfigError };

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

/**
 * Where a key's effective value came from, so that an error about the value can say where to fix
 * it: an option of `new Framework()`, an environment variable, `fw.config.json` (with the value's
 * line and column), or the declared default.
 */
export type ConfigOrigin =
  | { kind: 'option' }
  | { kind: 'environment'; variable: string }
  | { kind: 'file'; file: string; line: number; column: number }
  | { kind: 'default' };

/** `the environment variable FW_PORT`, `fw.config.json, line 3, column 13`, … */
export function describeOrigin(key: string, origin: ConfigOrigin): string {
  switch (origin.kind) {
    case 'option':
      return `the option '${key}' given to new Framework()`;
    case 'environment':
      return `the environment variable ${origin.variable}`;
    case 'file':
      return `${origin.file}, line ${origin.line}, column ${origin.column}`;
    case 'default':
      return 'its default';
  }
}

/**
 * Variables that start with `FW_` but are not configuration keys, read by fw's own tools: the
 * stdio bridge (`fw-mcp-stdio-bridge`) runs in a shell that often starts the server too.
 */
const NOT_CONFIGURATION = new Set(['FW_MCP_BRIDGE_TOKEN', 'FW_MCP_BRIDGE_HEADERS']);

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
  /** Where each flattened key of `fw.config.json` has its value, and the file's name as shown. */
  private readonly fileLocations = new Map<string, TextPosition>();
  private fileShown = 'fw.config.json';
  private readonly env: NodeJS.ProcessEnv;
  private readonly warned = new Set<string>();
  /** Each key's environment variable names, made once. */
  private readonly envNames = new Map<string, readonly string[]>();
  warn: (message: string) => void = (m) => fallbackLogger().warn({}, m);

  constructor(options: ConfigSource = {}, opts: { env?: NodeJS.ProcessEnv; configFile?: string | false } = {}) {
    this.explicit = flatten(options, '', this.unset);
    this.env = opts.env ?? process.env;
    const file = opts.configFile === false ? undefined : resolve(opts.configFile ?? 'fw.config.json');
    this.file = {};
    if (file && existsSync(file)) {
      const contents = readConfigFile(file);
      this.fileShown = contents.shown;
      this.file = flatten(contents.root, '', [], { positions: contents.positions, out: this.fileLocations });
    }
  }

  /** Declares keys; a module calls this before reading them. Re-declaring the same key is allowed. */
  declare(schema: ConfigSchema): void {
    for (const [key, def] of Object.entries(schema)) {
      this.schema.set(key, def);
      this.envNames.delete(key);
    }
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
    const raw = this.rawValue(key, def);
    const value = coerce(def.type, raw);
    if (value === INVALID) {
      throw new ConfigError(
        `configuration key '${key}' must be a ${def.type}, got ${JSON.stringify(raw)} (from ${describeOrigin(key, this.lookup(key).origin)})`,
      );
    }
    return value;
  }

  /**
   * `lookup(key).raw` without the origin: keys are read per connection (the shares of
   * `fw.connections.*`), and the origin is only wanted when a value is refused.
   */
  private rawValue(key: string, def: ConfigKey): unknown {
    if (key in this.explicit) return this.explicit[key];
    const variable = this.envVariable(key, def);
    if (variable !== undefined) return this.env[variable];
    return key in this.file ? this.file[key] : def.default;
  }

  /** The raw value of a declared key and where it came from (option > environment > file > default). */
  private lookup(key: string): { raw: unknown; origin: ConfigOrigin; def: ConfigKey } {
    const def = this.schema.get(key);
    if (!def) throw new ConfigError(`configuration key '${key}' was never declared`);
    if (key in this.explicit) return { raw: this.explicit[key], origin: { kind: 'option' }, def };
    const variable = this.envVariable(key, def);
    if (variable !== undefined) return { raw: this.env[variable], origin: { kind: 'environment', variable }, def };
    if (key in this.file) {
      const at = this.fileLocations.get(key) ?? { line: 1, column: 1 };
      return { raw: this.file[key], origin: { kind: 'file', file: this.fileShown, ...at }, def };
    }
    return { raw: def.default, origin: { kind: 'default' }, def };
  }

  /** The variable that sets the key: its own wins over its aliases (`FW_PORT` over `PORT`). */
  private envVariable(key: string, def: ConfigKey): string | undefined {
    // The environment is read on every access (a limit read at each open follows it), the names
    // are not made again: keys are read per connection, and building the names was most of it.
    let names = this.envNames.get(key);
    if (names === undefined) this.envNames.set(key, (names = [envName(key), ...(def.envAliases ?? [])]));
    for (const name of names) if (this.env[name] !== undefined) return name;
    return undefined;
  }

  /** Where the effective value of a declared key came from. */
  origin(key: keyof FwConfigKeys | (string & {})): ConfigOrigin {
    return this.lookup(key).origin;
  }

  /**
   * An error about a declared key's value that says where the value came from, for checks beyond
   * its type: `config.invalid('fw.admin.auth.token', 'must be at least 16 characters')`.
   */
  invalid(key: keyof FwConfigKeys | (string & {}), problem: string): ConfigError {
    return new ConfigError(`${key} ${problem} (from ${describeOrigin(key, this.origin(key))})`);
  }

  /**
   * Whether the key was given a value (an option, the environment or fw.config.json) rather than
   * left at its default: for a default that depends on other settings (`fw.metrics.allow-loopback`).
   */
  isSet(key: keyof FwConfigKeys): boolean {
    if (!this.schema.has(key)) throw new ConfigError(`configuration key '${key}' was never declared`);
    return this.origin(key).kind !== 'default';
  }

  /** Explicit option values that are not fw.* keys (objects such as authorizers). */
  option<K extends Exclude<keyof FrameworkOptions, keyof ConfigOptions>>(key: K): FrameworkOptions[K] | undefined {
    return this.explicit[key as string] as FrameworkOptions[K] | undefined;
  }

  /**
   * Warns once per unknown `fw.*` key seen in the options or the config file, and per `FW_*`
   * environment variable that no declared key reads, with the closest declared name when one is
   * near (a misspelling). Returns what it warned about.
   */
  warnUnknown(): string[] {
    const declared = [...this.schema.keys()];
    const fileKeys = new Set(Object.keys(this.file));
    const unknown = [...Object.keys(this.explicit), ...this.unset, ...fileKeys].filter(
      (k) => k.startsWith('fw.') && !this.schema.has(k) && !this.warned.has(k),
    );
    for (const k of new Set(unknown)) {
      this.warned.add(k);
      const at = this.fileLocations.get(k);
      const where =
        !(k in this.explicit) && !this.unset.includes(k) && at ? ` in ${this.fileShown}, line ${at.line}, column ${at.column}` : '';
      this.warn(`unknown configuration key '${k}'${where} (ignored${didYouMean(k, declared, (d) => `'${d}'`)})`);
    }
    const variables = new Set(declared.flatMap((k) => [envName(k), ...(this.schema.get(k)?.envAliases ?? [])]));
    const unknownEnv = Object.keys(this.env).filter(
      (name) => name.startsWith('FW_') && !variables.has(name) && !NOT_CONFIGURATION.has(name) && !this.warned.has(name),
    );
    for (const name of unknownEnv) {
      this.warned.add(name);
      this.warn(
        `unknown environment variable '${name}' (ignored${didYouMean(
          name,
          [...variables].filter((v) => v.startsWith('FW_')),
          (d) => d,
        )})`,
      );
    }
    return [...new Set(unknown), ...unknownEnv];
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

/** `; did you mean 'fw.port'?` when a declared name is one or two edits away, else nothing. */
function didYouMean(name: string, candidates: readonly string[], show: (candidate: string) => string): string {
  let best: string | undefined;
  let bestDistance = 3;
  for (const c of candidates) {
    if (Math.abs(c.length - name.length) >= bestDistance) continue;
    const d = editDistance(name, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best === undefined ? '' : `; did you mean ${show(best)}?`;
}

/** Levenshtein distance (the names are short: two rows of at most ~60 cells). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * Accepts both flat (`{'fw.admin.enabled': true}`) and nested (`{fw: {admin: {enabled: true}}}`) forms.
 * An option whose value is `undefined` is left out, so `{ 'fw.admin.auth.token': process.env.X }`
 * with X unset falls through to the environment, the config file and the default instead of
 * overriding them with nothing. For the config file, `located` maps each flattened key to the
 * position of its value.
 */
function flatten(
  source: ConfigSource,
  prefix = '',
  unset: string[] = [],
  located?: { positions: WeakMap<object, Map<string, TextPosition>>; out: Map<string, TextPosition> },
): ConfigSource {
  const out: ConfigSource = {};
  const here = located?.positions.get(source);
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
      Object.assign(out, flatten(v as ConfigSource, key, unset, located));
    } else {
      out[key] = v;
      const at = here?.get(k);
      if (at) located?.out.set(key, at);
    }
  }
  return out;
}

/** What `coerce` returns for a value that does not fit the key's type. */
const INVALID = Symbol('invalid');

function coerce(type: ConfigType, raw: unknown): unknown {
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
  return INVALID;
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
