/**
 * The AI runtime port: what an agent needs from a model provider. Adapters (the Vercel AI SDK,
 * the offline runtime, or the application's own) implement it; the active runtime is the
 * available one with the highest priority.
 */
export type AiMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: AiToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string };

export interface AiToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** A tool the model may call, described by a JSON schema of its input object. */
export interface AiToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface AiRequest {
  messages: AiMessage[];
  tools?: AiToolSpec[];
  /** Model id; the runtime's first model when absent. */
  model?: string;
  /** The client's shared state (AG-UI `RunAgentInput.state`), for runtimes that use it. */
  state?: unknown;
  /** Opaque client properties passed through (AG-UI `RunAgentInput.forwardedProps`). */
  forwardedProps?: unknown;
}

export type AiStreamPart =
  | { type: 'text'; delta: string }
  | ({ type: 'tool-call' } & AiToolCall)
  | { type: 'finish'; reason: string; usage?: AiUsage; responseModel?: string };

/** Tokens one model turn used, as the provider reported them (for traces: `gen_ai.usage.*`). */
export interface AiUsage {
  inputTokens?: number;
  outputTokens?: number;
  /** Of the input tokens, those the provider read from its prompt cache (priced apart: governance's spend). */
  cachedTokens?: number;
}

export interface ModelProvider {
  readonly name: string;
  readonly priority: number;
  readonly capabilities: readonly string[];
  readonly models: readonly string[];
  /** The name in traces (`gen_ai.provider.name`: `openai`, `anthropic`, …); default `name`. */
  readonly providerName?: string;
  isAvailable(): boolean;
  /**
   * Streams one model turn. Aborting `signal` must reach the provider call (the HTTP request is
   * cancelled) and end the iteration by throwing the abort reason.
   */
  stream(request: AiRequest, signal: AbortSignal): AsyncIterable<AiStreamPart>;
}
