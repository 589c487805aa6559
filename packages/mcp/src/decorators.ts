import type { McpContext } from './context.js';
import { ToolRegistry, type ToolTaskOptions } from './registry.js';
import { typeFromConstructor, type JsonSchema, type ParamSpec } from './schema.js';
import type { StandardSchemaV1 } from '@standard-schema/spec';

export interface McpServerOptions {
  name: string;
  /** Default `1.0.0`. */
  version?: string;
  /** Default `/mcp`; the HTTP and the WebSocket endpoint. */
  path?: string;
  /** Optional `instructions` returned at initialize. */
  instructions?: string;
}

export interface McpToolOptions {
  name: string;
  description?: string;
  title?: string;
  /** A complete input schema, when the one generated from the `@McpParam`s is not enough. */
  /** JSON Schema or Standard Schema (zod 4, valibot, arktype…): see ToolDefinition.inputSchema. */
  inputSchema?: JsonSchema | StandardSchemaV1;
  outputSchema?: JsonSchema | StandardSchemaV1;
  annotations?: Record<string, unknown>;
  /** OAuth scopes a call needs (see ToolDefinition.scopes). */
  scopes?: readonly string[];
  /** Long-running: runs as a task for clients that declared the tasks extension (ToolTaskOptions). */
  task?: ToolTaskOptions;
}

export interface McpResourceOptions {
  /** URI or URI template (`fw://rooms/{roomId}`); template variables bind to `@McpParam`s by name. */
  uri: string;
  name?: string;
  description?: string;
  /** Default `text/plain`. */
  mimeType?: string;
}

export interface McpPromptOptions {
  name: string;
  description?: string;
}

export type McpParamOptions = ParamSpec;

/** A class decorated with `@McpServer`; it is constructed with the framework as its only argument. */
export type McpServerClass = new (...args: never[]) => object;

type Kind = 'tool' | 'resource' | 'prompt';

interface MethodDecl {
  kind: Kind;
  method: string;
  options: McpToolOptions | McpResourceOptions | McpPromptOptions;
}

interface ClassMeta {
  methods: MethodDecl[];
  params: Map<string, Map<number, ParamSpec>>;
}

export interface ServerDeclaration {
  name: string;
  version: string;
  path: string;
  instructions: string | undefined;
}

// Metadata only, keyed by the class (or its prototype): decorating registers nothing anywhere.
// A class is served where it is mounted: `mcp({ servers: [MyServer] })` or `mountMcpServer(fw, MyServer)`.
const META = new WeakMap<object, ClassMeta>();
const DECLARATIONS = new WeakMap<McpServerClass, ServerDeclaration>();

function meta(prototype: object): ClassMeta {
  let m = META.get(prototype);
  if (!m) {
    m = { methods: [], params: new Map() };
    META.set(prototype, m);
  }
  return m;
}

/** Class decorator: the class's MCP identity (name, version, path) for when it is mounted. */
export function McpServer(options: McpServerOptions) {
  return <C extends McpServerClass>(cls: C): C => {
    DECLARATIONS.set(cls, {
      name: options.name,
      version: options.version ?? '1.0.0',
      path: options.path ?? '/mcp',
      instructions: options.instructions,
    });
    return cls;
  };
}

function methodDecorator(kind: Kind, options: MethodDecl['options']) {
  return (target: object, key: string | symbol, _descriptor?: PropertyDescriptor): void => {
    meta(target).methods.push({ kind, method: String(key), options });
  };
}

export function McpTool(options: McpToolOptions) {
  return methodDecorator('tool', options);
}

export function McpResource(options: McpResourceOptions) {
  return methodDecorator('resource', options);
}

export function McpPrompt(options: McpPromptOptions) {
  return methodDecorator('prompt', options);
}

/**
 * Parameter decorator: binds a tool argument, a prompt argument or a resource template variable
 * by name. A parameter without it receives the McpContext.
 */
export function McpParam(options: McpParamOptions) {
  return (target: object, key: string | symbol | undefined, index: number): void => {
    if (key === undefined) return;
    const m = meta(target);
    const byIndex = m.params.get(String(key)) ?? new Map<number, ParamSpec>();
    let spec = options;
    if (!spec.type && !spec.schema) {
      // Only some compilers emit design:paramtypes; use it when it is there.
      const getMetadata = (Reflect as unknown as { getMetadata?: (k: string, t: object, p: string | symbol) => unknown[] | undefined })
        .getMetadata;
      const t = typeFromConstructor(getMetadata?.('design:paramtypes', target, key)?.[index]);
      if (t) spec = { ...spec, type: t };
    }
    byIndex.set(index, spec);
    m.params.set(String(key), byIndex);
  };
}

export function serverDeclaration(cls: McpServerClass): ServerDeclaration | undefined {
  return DECLARATIONS.get(cls);
}

/** Builds the registry of one server instance from its decorated methods (inherited ones included). */
export function buildRegistry(instance: object): ToolRegistry {
  const registry = new ToolRegistry('decorated');
  const seen = new Set<string>();
  for (
    let proto = Object.getPrototypeOf(instance) as object | null;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    const m = META.get(proto);
    if (!m) continue;
    for (const decl of m.methods) {
      const id = `${decl.kind}:${decl.method}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const fn = (instance as Record<string, unknown>)[decl.method];
      if (typeof fn !== 'function') continue;
      const params = paramsOf(instance, decl.method);
      const call = bind(instance, fn as (...a: unknown[]) => unknown, params);
      const specs = [...params.values()];
      if (decl.kind === 'tool') {
        const o = decl.options as McpToolOptions;
        registry.registerTool({ ...o, params: specs, handler: (args, ctx) => call(args, ctx) });
      } else if (decl.kind === 'resource') {
        const o = decl.options as McpResourceOptions;
        registry.registerResource({ ...o, params: specs, read: (vars, ctx) => call(vars, ctx) });
      } else {
        const o = decl.options as McpPromptOptions;
        registry.registerPrompt({ ...o, params: specs, handler: (args, ctx) => call(args, ctx) as never });
      }
    }
  }
  return registry;
}

function paramsOf(instance: object, method: string): Map<number, ParamSpec> {
  for (
    let proto = Object.getPrototypeOf(instance) as object | null;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    const p = META.get(proto)?.params.get(method);
    if (p) return new Map([...p.entries()].sort((a, b) => a[0] - b[0]));
  }
  return new Map();
}

/** Positional call: `@McpParam` slots get the argument of that name, the others the context. */
function bind(instance: object, fn: (...a: unknown[]) => unknown, params: Map<number, ParamSpec>) {
  const arity = Math.max(fn.length, ...[...params.keys()].map((i) => i + 1), 0);
  return (args: Record<string, unknown>, ctx: McpContext): unknown => {
    const positional: unknown[] = new Array(arity);
    for (let i = 0; i < arity; i++) {
      const p = params.get(i);
      positional[i] = p ? args[p.name] : ctx;
    }
    return fn.apply(instance, positional);
  };
}
