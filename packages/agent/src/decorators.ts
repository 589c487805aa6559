/**
 * `@Agent`, `@Coordinator`, `@AgentTool` and `@OnPrompt`. Decorating a class records its
 * definition on the class itself (metadata only: nothing process-wide); a class is served where
 * it is mounted: `agents({ agents: [MyAgent] })` or `mountAgent(fw, MyAgent)`.
 */
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
}

export type FleetMember = string | { name: string; url: string };

export interface CoordinatorOptions extends AgentOptions {
  /** Local agent names, or remote agents reached over A2A (`url` is the agent's A2A base URL). */
  fleet: FleetMember[];
}

export interface ToolOptions {
  /** Default: the method name. */
  name?: string;
  description: string;
  /** JSON schema of the tool's input object; default an object with any properties. */
  parameters?: Record<string, unknown>;
}

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  method: string;
}

/** What a prompt handler may return: a stream of text deltas, or the whole text. */
export type PromptResult = AsyncIterable<string> | string | Promise<string> | Promise<AsyncIterable<string>>;

export type AgentClass = new () => object;

export interface AgentDefinition {
  kind: 'agent' | 'coordinator';
  options: Required<Pick<AgentOptions, 'name' | 'version' | 'description' | 'headless'>> & AgentOptions;
  fleet: FleetMember[];
  tools: ToolDefinition[];
  /** The method decorated with `@OnPrompt`, if any (otherwise the model answers with the agent's tools). */
  promptMethod: string | undefined;
  target: AgentClass;
}

const TOOLS = Symbol('fw.agent.tools');
const PROMPT = Symbol('fw.agent.prompt');
const DEFINITION = Symbol('fw.agent.definition');

type Decorated = { [TOOLS]?: ToolDefinition[]; [PROMPT]?: string };

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

/** A method the model may call: `(input, ctx) => result` (the result is sent back as text or JSON). */
export function AgentTool(options: ToolOptions) {
  return (proto: object, method: string): void => {
    const p = proto as Decorated;
    const own = Object.hasOwn(p, TOOLS) ? p[TOOLS]! : (p[TOOLS] = [...(p[TOOLS] ?? [])]);
    own.push({
      name: options.name ?? method,
      description: options.description,
      parameters: options.parameters ?? { type: 'object', properties: {}, additionalProperties: true },
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
