import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import Ajv2020Module, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import AjvDraft07Module from 'ajv';
import type { JsonSchema } from './schema.js';

/**
 * Enforces what a tool declares (MCP 2025-06-18+ server/tools: "Servers MUST validate all tool
 * inputs"; outputSchema: "Servers MUST provide structured results that conform to this schema"):
 * JSON Schema 2020-12 through Ajv (draft-07 when a schema says so), or any Standard Schema
 * (zod 4, valibot, arktype…) through its own `~standard.validate` — fw depends on none of them.
 */

// ajv is CommonJS: under NodeNext its default import is the module object.
type AjvClass = typeof Ajv2020Module.default;
const Ajv2020 = ((Ajv2020Module as unknown as { default?: AjvClass }).default ?? Ajv2020Module) as AjvClass;
const AjvDraft07 = ((AjvDraft07Module as unknown as { default?: AjvClass }).default ?? AjvDraft07Module) as AjvClass;

/** A schema object that implements Standard Schema v1. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
  const std = (value as { '~standard'?: { version?: unknown; validate?: unknown } })['~standard'];
  return !!std && std.version === 1 && typeof std.validate === 'function';
}

/** The JSON Schema a Standard Schema publishes (Standard JSON Schema v1), if its library offers one. */
export function standardJsonSchema(schema: StandardSchemaV1, io: 'input' | 'output'): JsonSchema | undefined {
  const converter = (schema as unknown as Partial<StandardJSONSchemaV1>)['~standard']?.jsonSchema;
  if (!converter) return undefined;
  try {
    return converter[io]({ target: 'draft-2020-12' });
  } catch {
    return undefined;
  }
}

/** An application declared a schema Ajv cannot compile: a programming error, reported as such. */
export class InvalidSchemaError extends Error {}

const ajv2020 = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
const ajv07 = new AjvDraft07({ allErrors: true, strict: false, validateFormats: false });
const compiled = new WeakMap<object, ValidateFunction>();

function validator(schema: JsonSchema): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    const draft07 = typeof schema.$schema === 'string' && /draft-0[4-7]/.test(schema.$schema);
    try {
      fn = (draft07 ? ajv07 : ajv2020).compile(schema);
    } catch (err) {
      throw new InvalidSchemaError((err as Error).message);
    }
    compiled.set(schema, fn);
  }
  return fn;
}

/** What is wrong with `value` under a JSON Schema, one readable line per problem; empty when valid. */
export function jsonSchemaProblems(schema: JsonSchema, value: unknown, what = 'argument'): string[] {
  const fn = validator(schema);
  if (fn(value)) return [];
  return dedupe((fn.errors ?? []).filter((e) => !COMPOSITE.has(e.keyword) || (fn.errors ?? []).length === 1).map((e) => describe(e, what)));
}

/** Standard Schema validation: the parsed value, or one readable line per issue. */
export async function standardProblems(
  schema: StandardSchemaV1,
  value: unknown,
  what = 'argument',
): Promise<{ value: unknown } | { problems: string[] }> {
  const result = await schema['~standard'].validate(value);
  if (!result.issues) return { value: result.value };
  return {
    problems: dedupe(
      result.issues.map((i) => {
        const path = (i.path ?? []).map((p) => String(typeof p === 'object' && p !== null && 'key' in p ? p.key : p)).join('.');
        return path ? `${what} '${path}': ${i.message}` : i.message;
      }),
    ),
  };
}

/** A tool's input as declared: the JSON Schema clients and models are shown, and the Standard Schema that parses, if any. */
export interface ToolInputSchema {
  inputSchema: JsonSchema;
  inputValidator?: StandardSchemaV1 | undefined;
}

/** A tool's declared input (Standard Schema, JSON Schema, or nothing: `fallback`) as shown and as checked. */
export function toolInputSchema(input: StandardSchemaV1 | JsonSchema | undefined, fallback: JsonSchema): ToolInputSchema {
  if (isStandardSchema(input)) return { inputSchema: standardJsonSchema(input, 'input') ?? fallback, inputValidator: input };
  return { inputSchema: input ?? fallback };
}

/**
 * Checks a tool's arguments before its handler runs, the same way for an MCP client and for a
 * model calling an agent's tool: the arguments to call it with (a Standard Schema's parsed value),
 * or one readable line per problem. Throws InvalidSchemaError when the declared schema is broken.
 */
export async function checkToolArguments(
  tool: ToolInputSchema,
  raw: Record<string, unknown>,
): Promise<{ args: Record<string, unknown> } | { problems: string[] }> {
  if (tool.inputValidator) {
    const checked = await standardProblems(tool.inputValidator, raw);
    if ('problems' in checked) return checked;
    const value = checked.value;
    return { args: value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : raw };
  }
  const problems = jsonSchemaProblems(tool.inputSchema, raw);
  return problems.length ? { problems } : { args: raw };
}

/** Wrapper keywords whose sub-errors already say what is wrong. */
const COMPOSITE = new Set(['if', 'anyOf', 'oneOf', 'allOf']);

function describe(e: ErrorObject, what: string): string {
  const path = e.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'required') return `${what} '${[...path, String(params.missingProperty)].join('.')}' is required`;
  if (e.keyword === 'additionalProperties') return `${what} '${[...path, String(params.additionalProperty)].join('.')}' is not allowed`;
  const subject = path.length ? `${what} '${path.join('.')}'` : `the ${what}s`;
  if (e.keyword === 'enum')
    return `${subject} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  return `${subject} ${e.message ?? 'is invalid'}`;
}

function dedupe(lines: string[]): string[] {
  return [...new Set(lines)];
}
