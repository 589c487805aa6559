/** JSON schemas for tool inputs and prompt arguments, generated from parameter declarations. */
export type JsonSchema = Record<string, unknown>;

export type ParamType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';

/**
 * Suggests values for a prompt argument or a resource-template variable (`completion/complete`):
 * gets what the user typed so far and the arguments already resolved, returns candidates, best
 * first (fw sends at most 100).
 */
export type Completer = (value: string, context: { arguments: Record<string, string> }) => readonly string[] | Promise<readonly string[]>;

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
  /** Completion of prompt arguments and resource-template variables. */
  complete?: Completer;
}

export interface ResolvedParam {
  name: string;
  description: string;
  required: boolean;
  schema: JsonSchema;
  complete?: Completer | undefined;
}

export function resolveParam(p: ParamSpec): ResolvedParam {
  const base: JsonSchema = p.schema ? { ...p.schema } : p.type ? { type: p.type } : {};
  if (p.description && base.description === undefined) base.description = p.description;
  return {
    name: p.name,
    description: p.description ?? '',
    required: p.required ?? true,
    schema: base,
    ...(p.complete ? { complete: p.complete } : {}),
  };
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
