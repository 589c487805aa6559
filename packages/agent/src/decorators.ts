/**
 * `@Agent`, `@Coordinator`, `@AgentTool` and `@OnPrompt`. Decorating a class records its
 * definition on the class itself (metadata only: nothing process-wide); a class is served where
 * it is mounted: `agents({ agents: [MyAgent] })` or `mountAgent(fw, MyAgent)`.
 */
import { toolInputSchema, type ToolArgs, type ToolInput, type ToolInputSchema, type ToolSpec } from '@fw/mcp';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { AgentContext, CoordinatorContext } from './context.js';

export interface AgentOptions {
  name: string;
  version?: string;
  description?: string;
  /** Headless agents have no chat endpoint; they serve A2A, MCP and AG-UI only. */
  headless?: boolean;
  /** Skills advertised on the A2A agent card; default one skill named after the agent. */
  skills?: { id: string; name: string; description: string; tags?: string[] }[];
  /** System prompt sent to the model before the conversation. */
  system?: string;
  /**
   * Keeps facts across sessions (docs/agents.md, "Agent state"): `ctx.memory` reads and adds them,
   * the newest go to the model with each prompt, operators manage them in the admin plane.
   */
  memory?: boolean;
}

export type FleetMember = string | { name: string; url: string };

export interface CoordinatorOptions extends AgentOptions {
  /** Local agent names, or remote agents reached over A2A (`url` is the agent's A2A base URL). */
  fleet: FleetMember[];
}

/**
 * An agent tool's spec: the same as an MCP tool's (`fw.mcp.tool(name, spec, handler)`), so one
 * definition serves the model and the agent's MCP endpoint. `input` is a Standard Schema (zod 4,
 * valibot, arktype: the method gets the parsed value, typed) or a JSON Schema; default an object
 * with any properties. Arguments are checked before the method runs, whoever calls it. `task` is
 * not offered: the model loop waits for each tool.
 */
export type ToolOptions<I extends ToolInput | undefined = ToolInput | undefined> = Omit<ToolSpec<I>, 'task'> & {
  /** Default: the method name. */
  name?: string;
  description: string;
};

/** What `@AgentTool` records: the spec, its input as shown and checked, and the method that runs it. */
export interface AgentToolDefinition {
  name: string;
  description: string;
  spec: ToolOptions;
  input: ToolInputSchema;
  method: string;
}

/** The method a tool decorates: typed from a Standard Schema input; any method for a JSON Schema. */
type ToolMethod<I> = I extends StandardSchemaV1 ? (input: ToolArgs<I>, ctx: AgentContext) => unknown : (...args: never[]) => unknown;

const ANY_OBJECT = { type: 'object', properties: {}, additionalProperties: true };

/** What a prompt handler may return: a stream of text deltas, or the whole text. */
export type PromptResult = AsyncIterable<string> | string | Promise<string> | Promise<AsyncIterable<string>>;

export type AgentClass = new () => object;

export interface AgentDefinition {
  kind: 'agent' | 'coordinator';
  options: Required<Pick<AgentOptions, 'name' | 'version' | 'description' | 'headless'>> & AgentOptions;
  fleet: FleetMember[];
  tools: AgentToolDefinition[];
  /** The method decorated with `@OnPrompt`, if any (otherwise the model answers with the agent's tools). */
  promptMethod: string | undefined;
  target: AgentClass;
}

const TOOLS = Symbol('fw.agent.tools');
const PROMPT = Symbol('fw.agent.prompt');
const DEFINITION = Symbol('fw.agent.definition');

type Decorated = { [TOOLS]?: AgentToolDefinition[]; [PROMPT]?: string };

export function definitionOf(target: AgentClass): AgentDefinition | undefined {
  return (target as unknown as { [DEFINITION]?: AgentDefinition })[DEFINITION];
}

function define(kind: AgentDefinition['kind'], options: AgentOptions, fleet: FleetMember[]) {
  return (target: AgentClass): void => {
    const proto = target.prototype as Decorated;
    const def: AgentDefinition = {
      kind,
      options: { version: '1.0.0', description: '', headless: false, ...options },
      fleet,
      tools: [...(proto[TOOLS] ?? [])],
      promptMethod: proto[PROMPT],
      target,
    };
    (target as unknown as { [DEFINITION]: AgentDefinition })[DEFINITION] = def;
  };
}

export function Agent(options: AgentOptions): (target: AgentClass) => void {
  return define('agent', options, []);
}

export function Coordinator(options: CoordinatorOptions): (target: AgentClass) => void {
  return define('coordinator', options, options.fleet);
}

/**
 * A method the model may call: `(input, ctx) => result` (the result is sent back as text or JSON).
 * Sugar over the shared tool spec: the method's `input` is typed from a Standard Schema `input`.
 */
export function AgentTool<I extends ToolInput | undefined = undefined>(options: ToolOptions<I>) {
  return <M extends ToolMethod<I>>(proto: object, method: string, _descriptor?: TypedPropertyDescriptor<M>): void => {
    const p = proto as Decorated;
    const own = Object.hasOwn(p, TOOLS) ? p[TOOLS]! : (p[TOOLS] = [...(p[TOOLS] ?? [])]);
    own.push({
      name: options.name ?? method,
      description: options.description,
      spec: options,
      input: toolInputSchema(options.input, ANY_OBJECT),
      method,
    });
  };
}

/** The prompt handler: `(message, ctx) => PromptResult`. One user message in, tokens out. */
export function OnPrompt() {
  return (proto: object, method: string): void => {
    (proto as Decorated)[PROMPT] = method;
  };
}

export type PromptHandler = (message: string, ctx: AgentContext) => PromptResult;
export type CoordinatorPromptHandler = (message: string, ctx: CoordinatorContext) => PromptResult;
