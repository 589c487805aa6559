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
