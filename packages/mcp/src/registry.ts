import { Framework, FwError } from '@fw/runtime';
import type { McpContext } from './context.js';
import { McpRegistrationError } from './errors.js';
import type { McpMessage } from './message.js';
import { objectSchema, resolveParam, type JsonSchema, type ParamSpec, type ResolvedParam } from './schema.js';
import { UriTemplate } from './uri-template.js';
import { headerAnnotationProblems } from './modern/header-annotations.js';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { isStandardSchema, standardJsonSchema, toolInputSchema } from './validation.js';

export type Origin = 'decorated' | 'programmatic';
export type Awaitable<T> = T | Promise<T>;

export interface ToolDefinition {
  name: string;
  description?: string;
  title?: string;
  /** Parameters (name, description, required flag, optional type/schema). */
  params?: ParamSpec[];
  /**
   * A complete input schema; overrides the one generated from `params`. A JSON Schema (2020-12
   * unless its `$schema` says otherwise), or a Standard Schema (zod 4, valibot, arktype…) whose
   * parsed value the handler then receives. Arguments are validated before the handler runs.
   */
  inputSchema?: JsonSchema | StandardSchemaV1;
  /** The shape of `structuredContent`; results that do not conform become `isError` results. */
  outputSchema?: JsonSchema | StandardSchemaV1;
  annotations?: Record<string, unknown>;
  /** OAuth scopes a tools/call needs when the endpoint is an OAuth resource server (`fw.mcp.oauth.tool-scopes` overrides them). */
  scopes?: readonly string[];
  /**
   * Long-running: under 2026-07-28 a client that declared the tasks extension gets a task
   * (`CreateTaskResult`) and polls it (docs/mcp.md "Tasks"). See {@link ToolTaskOptions}.
   */
  task?: ToolTaskOptions;
  /** Receives the argument map and the context; may return any serialisable value. */
  handler: (args: Record<string, unknown>, ctx: McpContext) => unknown;
}

/**
 * How a tool runs as a task (`io.modelcontextprotocol/tasks`). `support: 'optional'` falls back
 * to a synchronous result for clients without the extension; `'required'` answers them -32021.
 * `start: 'immediate'` (default) creates the task before the handler runs; `'handler'` lets the
 * handler gather input first (multi round-trip) and call `ctx.startTask()` when the long part
 * begins — a handler that returns without calling it answers synchronously.
 */
/** What `tool(name, spec, handler)` takes besides the name and the handler. */
export interface ToolSpec<I extends StandardSchemaV1 | JsonSchema | undefined = undefined>
  extends Omit<ToolDefinition, 'name' | 'handler' | 'inputSchema' | 'outputSchema' | 'params'> {
  /** The arguments' schema: Standard Schema (the handler gets its parsed output) or JSON Schema 2020-12. */
  input?: I;
  /** The shape of `structuredContent`. */
  output?: JsonSchema | StandardSchemaV1;
  /**
   * Each call waits for a human's approval before it runs (an agent's tool, on every surface the
   * run hooks govern: docs/governance.md, "Human approval"); `true` or the reason shown to the
   * operator and how long the approval may wait (default `fw.governance.approval-timeout`).
   */
  approval?: ToolApproval;
}

/** What a tool's `approval` says: needed (`true`), or needed with a reason and its own timeout. */
export type ToolApproval = true | { reason?: string; timeoutMs?: number };

/** What a tool's `input` may be: a Standard Schema (zod 4, valibot, arktype…) or a JSON Schema 2020-12. */
export type ToolInput = StandardSchemaV1 | JsonSchema;

/** A tool handler's arguments, typed from its input schema. */
export type ToolArgs<I> = I extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<I> : Record<string, unknown>;

export interface ToolTaskOptions {
  support: 'optional' | 'required';
  start?: 'immediate' | 'handler';
}

export interface ResourceDefinition {
  /** A URI or a URI template (`fw://rooms/{roomId}`). */
  uri: string;
  name?: string;
  description?: string;
  mimeType?: string;
  /** Supplies the content: a string (text), a Uint8Array (blob) or any value (JSON text). Template variables arrive in `vars`. */
  read: (vars: Record<string, string>, ctx: McpContext) => unknown;
  /** Template variables with completers (`completion/complete` for `ref/resource`), by name. */
  params?: ParamSpec[];
}

export interface PromptDefinition {
  name: string;
  description?: string;
  params?: ParamSpec[];
  handler: (
    args: Record<string, string>,
    ctx: McpContext,
  ) => Awaitable<McpMessage[] | { role: string; content: Record<string, unknown> }[]>;
}

export interface ToolEntry {
  name: string;
  description: string;
  title: string | undefined;
  params: ResolvedParam[];
  inputSchema: JsonSchema;
  outputSchema: JsonSchema | undefined;
  annotations: Record<string, unknown> | undefined;
  /** OAuth scopes a call needs (see ToolDefinition.scopes). */
  scopes?: readonly string[] | undefined;
  task: ToolTaskOptions | undefined;
  handler: ToolDefinition['handler'];
  /** The Standard Schema that validates (and parses) the arguments, when one was declared. */
  inputValidator?: StandardSchemaV1 | undefined;
  /** The Standard Schema that validates `structuredContent`, when one was declared. */
  outputValidator?: StandardSchemaV1 | undefined;
  origin: Origin;
}

export interface ResourceEntry {
  uri: string;
  name: string;
  description: string;
  mimeType: string;
  template: UriTemplate | undefined;
  read: ResourceDefinition['read'];
  /** Declared template variables (completion). */
  params: ResolvedParam[];
  origin: Origin;
}

export interface PromptEntry {
  name: string;
  description: string;
  params: ResolvedParam[];
  handler: PromptDefinition['handler'];
  origin: Origin;
}

export type ListKind = 'tools' | 'resources' | 'prompts';

export interface RegistryListener {
  listChanged?(kind: ListKind): void;
  resourceUpdated?(uri: string): void;
}

/**
 * A set of tools, resources and prompts. Each mounted server has one built from its decorated
 * methods; `McpRegistry.of(fw)` is the framework's own one that every server of it also serves.
 * Registering an existing name replaces it; every change tells the listeners (the endpoints, which
 * send `notifications/<kind>/list_changed` to their sessions).
 */
export class ToolRegistry {
  private readonly toolMap = new Map<string, ToolEntry>();
  private readonly resourceMap = new Map<string, ResourceEntry>();
  private readonly promptMap = new Map<string, PromptEntry>();
  private readonly listeners = new Set<RegistryListener>();

  constructor(protected readonly origin: Origin) {}

  /**
   * Function first: a tool from its name, its spec and a handler whose arguments are typed from
   * `input` (a Standard Schema such as zod 4, valibot or arktype gives the parsed type; a JSON
   * Schema gives `Record<string, unknown>`). The same {@link ToolDefinition} as `registerTool`,
   * and what the decorators produce; arguments are validated before the handler runs.
   *
   *   registry.tool('add', { input: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => a + b);
   */
  tool<I extends StandardSchemaV1 | JsonSchema | undefined = undefined>(
    name: string,
    spec: ToolSpec<I>,
    handler: (args: ToolArgs<I>, ctx: McpContext) => unknown,
  ): () => void {
    const { input, output, ...rest } = spec;
    return this.registerTool({
      ...rest,
      name,
      ...(input ? { inputSchema: input } : {}),
      ...(output ? { outputSchema: output } : {}),
      handler: handler as ToolDefinition['handler'],
    });
  }

  registerTool(def: ToolDefinition): () => void {
    if (!def.name) throw new McpRegistrationError('a tool needs a name');
    const params = (def.params ?? []).map(resolveParam);
    const entry: ToolEntry = {
      name: def.name,
      description: def.description ?? '',
      title: def.title,
      params,
      ...toolInputSchema(def.inputSchema, objectSchema(params)),
      outputSchema: isStandardSchema(def.outputSchema)
        ? (standardJsonSchema(def.outputSchema, 'output') ?? { type: 'object' })
        : def.outputSchema,
      annotations: def.annotations,
      scopes: def.scopes,
      task: def.task,
      handler: def.handler,
      outputValidator: isStandardSchema(def.outputSchema) ? def.outputSchema : undefined,
      origin: this.origin,
    };
    const headerProblems = headerAnnotationProblems(entry.inputSchema);
    if (headerProblems.length)
      throw new McpRegistrationError(`tool '${def.name}' has an invalid x-mcp-header annotation: ${headerProblems.join('; ')}`);
    this.toolMap.set(def.name, entry);
    this.changed('tools');
    return () => {
      if (this.toolMap.get(def.name) === entry) this.removeTool(def.name);
    };
  }

  registerResource(def: ResourceDefinition): () => void {
    if (!def.uri) throw new McpRegistrationError('a resource needs a uri');
    const entry: ResourceEntry = {
      uri: def.uri,
      name: def.name || def.uri,
      description: def.description ?? '',
      mimeType: def.mimeType ?? 'text/plain',
      template: UriTemplate.isTemplate(def.uri) ? new UriTemplate(def.uri) : undefined,
      params: (def.params ?? []).map(resolveParam),
      read: def.read,
      origin: this.origin,
    };
    this.resourceMap.set(def.uri, entry);
    this.changed('resources');
    return () => {
      if (this.resourceMap.get(def.uri) === entry) this.removeResource(def.uri);
    };
  }

  registerPrompt(def: PromptDefinition): () => void {
    if (!def.name) throw new McpRegistrationError('a prompt needs a name');
    const entry: PromptEntry = {
      name: def.name,
      description: def.description ?? '',
      params: (def.params ?? []).map(resolveParam),
      handler: def.handler,
      origin: this.origin,
    };
    this.promptMap.set(def.name, entry);
    this.changed('prompts');
    return () => {
      if (this.promptMap.get(def.name) === entry) this.removePrompt(def.name);
    };
  }

  removeTool(name: string): boolean {
    const had = this.toolMap.delete(name);
    if (had) this.changed('tools');
    return had;
  }

  removeResource(uri: string): boolean {
    const had = this.resourceMap.delete(uri);
    if (had) this.changed('resources');
    return had;
  }

  removePrompt(name: string): boolean {
    const had = this.promptMap.delete(name);
    if (had) this.changed('prompts');
    return had;
  }

  /** Tells subscribed sessions that a resource's content changed (`notifications/resources/updated`). */
  notifyResourceUpdated(uri: string): void {
    for (const l of this.listeners) l.resourceUpdated?.(uri);
  }

  tools(): ToolEntry[] {
    return [...this.toolMap.values()];
  }

  resources(): ResourceEntry[] {
    return [...this.resourceMap.values()];
  }

  prompts(): PromptEntry[] {
    return [...this.promptMap.values()];
  }

  findTool(name: string): ToolEntry | undefined {
    return this.toolMap.get(name);
  }

  prompt(name: string): PromptEntry | undefined {
    return this.promptMap.get(name);
  }

  resourceByUri(uri: string): ResourceEntry | undefined {
    return this.resourceMap.get(uri);
  }

  /** Removes everything (tests). */
  clear(): void {
    const kinds: ListKind[] = [];
    if (this.toolMap.size) kinds.push('tools');
    if (this.resourceMap.size) kinds.push('resources');
    if (this.promptMap.size) kinds.push('prompts');
    this.toolMap.clear();
    this.resourceMap.clear();
    this.promptMap.clear();
    for (const k of kinds) this.changed(k);
  }

  listen(listener: RegistryListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(kind: ListKind): void {
    for (const l of this.listeners) l.listChanged?.(kind);
  }
}

/**
 * A framework's own registry (spec §2.4): programmatic entries served by every MCP endpoint of
 * that framework (unless mounted with `frameworkRegistry: false`). One per framework, kept in its
 * service map as `'mcp.registry'`: two frameworks in one process never share tools.
 */
export class McpRegistry extends ToolRegistry {
  private constructor() {
    super('programmatic');
  }

  /**
   * The process's registry (spec §2.4, "a process-wide registry obtained by `McpRegistry.get()`"):
   * the registry of the one framework this process runs. A process with several frameworks has
   * no single registry, and one with none has nothing to serve it: both are an error that names
   * `McpRegistry.of(fw)`, which is always unambiguous (docs/mcp.md, *Programmatic registration*).
   */
  static get(): McpRegistry {
    const live = Framework.live();
    if (live.length === 1) return McpRegistry.of(live[0]!);
    if (live.length === 0) {
      throw new FwError(
        'no_framework',
        'McpRegistry.get(): no Framework is running in this process yet; create it first (new Framework()), or use McpRegistry.of(fw)',
        500,
      );
    }
    throw new FwError(
      'several_frameworks',
      `McpRegistry.get(): ${live.length} frameworks are running in this process, so there is no one process registry; use McpRegistry.of(fw) with the framework you mean`,
      500,
      { frameworks: live.length },
    );
  }

  /** The registry of `fw`, created on first use. */
  static of(fw: Framework): McpRegistry {
    let registry = fw.services.get('mcp.registry');
    if (!registry) {
      registry = new McpRegistry();
      fw.services.provide('mcp.registry', registry);
    }
    return registry;
  }
}

// `fw.mcp` (typed in seams.ts): sugar for McpRegistry.of(fw), so the registry stays the framework's own.
Object.defineProperty(Framework.prototype, 'mcp', {
  configurable: true,
  get(this: Framework): McpRegistry {
    return McpRegistry.of(this);
  },
});
