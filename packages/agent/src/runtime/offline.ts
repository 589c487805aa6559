import type { AiRequest, ModelProvider, AiStreamPart } from './port.js';

export interface OfflineProviderOptions {
  /** Delay between tokens in ms (0 = as fast as possible); lets demos and tests watch a stream. */
  tokenDelayMs?: number;
  priority?: number;
}

/**
 * A deterministic runtime that needs no key and no network: the demo's default and the tests'
 * workhorse. It answers a user message by echoing it in a fixed sentence, word by word; when the
 * message names one of the offered tools (`use <tool>` or `/<tool> <json>`) it calls that tool first
 * and then reports the result. The same input always yields the same tokens.
 */
export class OfflineProvider implements ModelProvider {
  readonly name = 'offline';
  readonly priority: number;
  readonly capabilities = ['streaming', 'tools', 'offline'] as const;
  readonly models = ['offline-echo'] as const;
  private readonly delay: number;

  constructor(options: OfflineProviderOptions = {}) {
    this.delay = options.tokenDelayMs ?? 0;
    this.priority = options.priority ?? 0;
  }

  isAvailable(): boolean {
    return true;
  }

  async *stream(request: AiRequest, signal: AbortSignal): AsyncIterable<AiStreamPart> {
    signal.throwIfAborted();
    const last = request.messages[request.messages.length - 1];
    if (last?.role === 'tool') {
      yield* this.words(`Tool ${last.toolName} returned: ${last.content}`, signal);
      yield { type: 'finish', reason: 'stop' };
      return;
    }
    const userText = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const call = this.toolCallFor(userText, request);
    if (call) {
      yield { type: 'tool-call', ...call };
      yield { type: 'finish', reason: 'tool-calls' };
      return;
    }
    yield* this.words(`You said: ${userText}`, signal);
    yield { type: 'finish', reason: 'stop' };
  }

  private toolCallFor(text: string, request: AiRequest): { toolCallId: string; toolName: string; input: unknown } | undefined {
    for (const tool of request.tools ?? []) {
      const slash = new RegExp(`^/${escapeRegExp(tool.name)}(?:\\s+(.*))?$`, 's').exec(text.trim());
      if (slash) {
        let input: unknown = {};
        try {
          input = slash[1] ? JSON.parse(slash[1]) : {};
        } catch {
          input = { text: slash[1] };
        }
        return { toolCallId: `call-${tool.name}-1`, toolName: tool.name, input };
      }
      if (new RegExp(`\\buse ${escapeRegExp(tool.name)}\\b`).test(text)) {
        return { toolCallId: `call-${tool.name}-1`, toolName: tool.name, input: { query: text } };
      }
    }
    return undefined;
  }

  private async *words(text: string, signal: AbortSignal): AsyncIterable<AiStreamPart> {
    const parts = text.split(/(?<= )/);
    for (const delta of parts) {
      if (this.delay > 0) await sleep(this.delay, signal);
      signal.throwIfAborted();
      yield { type: 'text', delta };
    }
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A timer that an abort cancels at once (and leaves nothing behind). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(signal.reason);
    };
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
