/**
 * The Vercel AI SDK adapter. `ai` is the application's own package (a peer dependency): it is only
 * imported, dynamically, when a stream starts, so @fw/agent works without it. Any AI SDK language
 * model fits: OpenAI, OpenAI-compatible servers (Ollama, vLLM: `createOpenAI({ baseURL }).chat(id)`),
 * Anthropic, Google, …
 */
import type { LanguageModel, ModelMessage, ToolSet } from 'ai';
import { missingPeer } from '../errors.js';
import { AI_SDK_PEERS, missingPeers, OPENAI_PEERS } from './peers.js';
import type { AiMessage, AiRequest, ModelProvider, AiStreamPart } from './port.js';

/**
 * An AI SDK language model (`LanguageModel` of `ai`: a model object such as `openai('gpt-4o')`, or
 * a model id string for the AI SDK's global provider). Typed structurally so that the
 * declarations of @fw/agent do not need `ai` installed.
 */
export type AiSdkModel = string | { readonly specificationVersion: string; readonly provider: string; readonly modelId: string };

export interface AiSdkProviderOptions {
  name?: string;
  priority?: number;
  /** The model, or a factory that builds it on first use (lets provider packages load lazily). */
  model: AiSdkModel | (() => AiSdkModel | Promise<AiSdkModel>);
  /** Model ids to advertise (the admin plane lists them). */
  models?: string[];
  /**
   * Builds another model of the same provider by its id, for a request that names one
   * (`AiRequest.model`: the LLM judge's `model`); without it, every request gets `model`.
   */
  modelFor?: (id: string) => AiSdkModel | Promise<AiSdkModel>;
  capabilities?: string[];
  /** Availability check; default: always available. */
  available?: () => boolean;
  /** The provider's name in traces (`gen_ai.provider.name`: `openai`, `anthropic`, …); default this provider's `name`. */
  providerName?: string;
  /**
   * Every optional package this runtime loads (default `['ai']`): when one is missing, the error
   * names all that are, with one install command.
   */
  peers?: readonly string[];
}

export class AiSdkProvider implements ModelProvider {
  readonly name: string;
  readonly priority: number;
  readonly capabilities: readonly string[];
  readonly models: readonly string[];
  readonly providerName: string | undefined;
  private readonly available: () => boolean;
  private readonly modelSource: AiSdkProviderOptions['model'];
  private model: Promise<AiSdkModel> | undefined;
  private readonly modelFor: AiSdkProviderOptions['modelFor'];
  /** The models built by `modelFor`, by id. */
  private readonly named = new Map<string, Promise<AiSdkModel>>();
  /** The optional packages this runtime loads (`ai`, and a provider package such as `@ai-sdk/openai`). */
  readonly peers: readonly string[];

  constructor(options: AiSdkProviderOptions) {
    this.name = options.name ?? 'ai-sdk';
    this.priority = options.priority ?? 10;
    this.capabilities = options.capabilities ?? ['streaming', 'tools'];
    this.models = options.models ?? [];
    this.available = options.available ?? (() => true);
    this.modelSource = options.model;
    this.modelFor = options.modelFor;
    this.providerName = options.providerName;
    this.peers = options.peers ?? AI_SDK_PEERS;
  }

  isAvailable(): boolean {
    return this.available();
  }

  /** The model a request names (built once per id by `modelFor`), or the runtime's own. */
  private modelOf(id: string | undefined): Promise<AiSdkModel> {
    if (id !== undefined && this.modelFor && id !== this.models[0]) {
      let m = this.named.get(id);
      if (!m) {
        const build = this.modelFor;
        this.named.set(id, (m = Promise.resolve().then(() => build(id))));
        m.catch(() => this.named.delete(id));
      }
      return m;
    }
    return (this.model ??= Promise.resolve(typeof this.modelSource === 'function' ? this.modelSource() : this.modelSource));
  }

  async *stream(request: AiRequest, signal: AbortSignal): AsyncIterable<AiStreamPart> {
    signal.throwIfAborted();
    const { streamText, jsonSchema, tool } = await import('ai').catch((err: unknown) => {
      throw missingPeer(err, 'ai', `the AI runtime '${this.name}'`, missingPeers(this.peers));
    });
    const model = await this.modelOf(request.model);
    const tools: ToolSet = {};
    for (const t of request.tools ?? []) {
      tools[t.name] = tool({ description: t.description, inputSchema: jsonSchema(t.parameters) });
    }
    // ai 7 refuses system messages inside `messages` ("System messages are not allowed…"): the
    // agent's system prompt (and any other system message) goes in `system`, in order; ai 6
    // takes it there too.
    const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content);
    const result = streamText({
      model: model as LanguageModel,
      ...(system.length > 0 ? { system: system.join('\n\n') } : {}),
      messages: request.messages.filter((m) => m.role !== 'system').map(toModelMessage),
      ...(request.tools?.length ? { tools } : {}),
      abortSignal: signal,
      maxRetries: 0,
      // The AI SDK's default prints the whole error object (a stack dump) to stderr. The error
      // reaches the caller through the stream's error part below, and the agent host logs it as
      // one structured line through fw's logger.
      onError: () => {},
    });
    let responseModel: string | undefined;
    for await (const part of result.fullStream) {
      switch (part.type) {
        case 'finish-step':
          responseModel = part.response.modelId;
          break;
        case 'text-delta':
          yield { type: 'text', delta: part.text };
          break;
        case 'tool-call':
          yield { type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: part.input };
          break;
        case 'finish':
          yield {
            type: 'finish',
            reason: part.finishReason,
            usage: {
              ...definedNumber('inputTokens', part.totalUsage.inputTokens),
              ...definedNumber('outputTokens', part.totalUsage.outputTokens),
            },
            ...(responseModel ? { responseModel } : {}),
          };
          break;
        case 'abort':
          throw signal.reason ?? new Error('aborted');
        case 'error':
          throw part.error instanceof Error ? part.error : new Error(String(part.error));
        default:
          break;
      }
    }
    signal.throwIfAborted();
  }
}

function definedNumber<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return (typeof value === 'number' ? { [key]: value } : {}) as Partial<Record<K, number>>;
}

function toModelMessage(m: AiMessage): ModelMessage {
  switch (m.role) {
    case 'system':
      return { role: 'system', content: m.content };
    case 'user':
      return { role: 'user', content: m.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: [
          ...(m.content ? [{ type: 'text' as const, text: m.content }] : []),
          ...(m.toolCalls ?? []).map((c) => ({
            type: 'tool-call' as const,
            toolCallId: c.toolCallId,
            toolName: c.toolName,
            input: c.input,
          })),
        ],
      };
    case 'tool':
      return {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: m.toolCallId, toolName: m.toolName, output: { type: 'text', value: m.content } }],
      };
  }
}

export interface OpenAiProviderOptions {
  /** API key; default `OPENAI_API_KEY`. An OpenAI-compatible server may not need one. */
  apiKey?: string;
  /** Base URL of an OpenAI-compatible server (Ollama: `http://127.0.0.1:11434/v1`); default OpenAI. */
  baseURL?: string;
  model: string;
  name?: string;
  priority?: number;
}

/**
 * An AI SDK runtime on `@ai-sdk/openai` (also a peer, loaded on first use) speaking the
 * chat-completions API, which OpenAI and every OpenAI-compatible server share.
 */
export function openAiProvider(options: OpenAiProviderOptions): AiSdkProvider {
  const apiKey = options.apiKey ?? process.env.OPENAI_API_KEY;
  let made: Promise<{ chat(id: string): AiSdkModel }> | undefined;
  /** The one OpenAI client of this runtime, made on first use: its models share it. */
  const client = () =>
    (made ??= import('@ai-sdk/openai').then(
      ({ createOpenAI }) => createOpenAI({ apiKey: apiKey ?? 'not-needed', ...(options.baseURL ? { baseURL: options.baseURL } : {}) }),
      (err: unknown) => {
        made = undefined;
        throw missingPeer(err, '@ai-sdk/openai', 'openAiProvider()', missingPeers(OPENAI_PEERS));
      },
    ));
  return new AiSdkProvider({
    name: options.name ?? (options.baseURL ? 'openai-compatible' : 'openai'),
    priority: options.priority ?? 10,
    models: [options.model],
    providerName: 'openai',
    peers: OPENAI_PEERS,
    available: () => Boolean(apiKey || options.baseURL),
    model: async () => (await client()).chat(options.model),
    modelFor: async (id) => (await client()).chat(id),
  });
}
