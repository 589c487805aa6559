/** JSON schemas for tool inputs and prompt arguments, generated from parameter declarations. */
export type JsonSchema = Record<string, unknown>;

export type ParamType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';

/** One declared parameter: from `@McpParam` or a programmatic entry. */
export interface ParamSpec {
  name: string;
  description?: string;
  /** Default true. */
  required?: boolean;
  /** Shorthand for `{type}`; ignored when `schema` is given. */
  type?: ParamType;
  /** A full JSON schema for this parameter. */
  schema?: JsonSchema;
}

export interface ResolvedParam {
  name: string;
  description: string;
  required: boolean;
  schema: JsonSchema;
}

export function resolveParam(p: ParamSpec): ResolvedParam {
  const base: JsonSchema = p.schema ? { ...p.schema } : p.type ? { type: p.type } : {};
  if (p.description && base.description === undefined) base.description = p.description;
  return { name: p.name, description: p.description ?? '', required: p.required ?? true, schema: base };
}

export function objectSchema(params: readonly ResolvedParam[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const p of params) properties[p.name] = p.schema;
  const required = params.filter((p) => p.required).map((p) => p.name);
  return required.length ? { type: 'object', properties, required } : { type: 'object', properties };
}

/** Maps a `design:paramtypes` constructor (only present under some compilers) to a JSON type. */
export function typeFromConstructor(ctor: unknown): ParamType | undefined {
  if (ctor === String) return 'string';
  if (ctor === Number) return 'number';
  if (ctor === Boolean) return 'boolean';
  if (ctor === Array) return 'array';
  if (ctor === Object) return 'object';
  return undefined;
}

/**
 * Checks one argument against the simple `type` of its schema. Returns what is wrong, or
 * undefined. Deeper validation is the tool's business: fw only guards the binding.
 */
export function checkType(value: unknown, schema: JsonSchema): string | undefined {
  const t = schema.type;
  if (typeof t !== 'string') return undefined;
  const ok =
    t === 'string' ? typeof value === 'string'
    : t === 'integer' ? typeof value === 'number' && Number.isInteger(value)
    : t === 'number' ? typeof value === 'number' && Number.isFinite(value)
    : t === 'boolean' ? typeof value === 'boolean'
    : t === 'array' ? Array.isArray(value)
    : t === 'object' ? value !== null && typeof value === 'object' && !Array.isArray(value)
    : t === 'null' ? value === null
    : true;
  return ok ? undefined : `expected ${t}, got ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}`;
}
