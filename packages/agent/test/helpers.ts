import { Framework, type FwEvent } from '@fw/runtime';
import { AgentModule, type AiRequest, type ModelProvider, type AiStreamPart } from '../dist/index.js';
import { sleep } from '../dist/runtime/offline.js';

export interface TestApp {
  fw: Framework;
  module: AgentModule;
  base: string;
  events: FwEvent[];
  close(): Promise<void>;
}

/** A framework with the agent module (decorated classes are not auto-mounted) on an ephemeral port. */
export async function startApp(
  setup: (module: AgentModule) => void,
  options: Record<string, unknown> = {},
  runtimes: ModelProvider[] = [],
): Promise<TestApp> {
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.data-dir': '',
    'fw.ai.auto': false,
    ...options,
  });
  const module = new AgentModule({ providers: runtimes });
  await fw.use(module);
  const events: FwEvent[] = [];
  fw.events.onAny((e) => events.push(e));
  setup(module);
  const addr = await fw.listen(0, '127.0.0.1');
  return { fw, module, base: `http://127.0.0.1:${addr.port}`, events, close: () => fw.close() };
}

/**
 * A runtime the tests steer: a message containing `slow` streams a token every 20 ms until
 * aborted (and records the abort), `explode` throws, anything else is echoed.
 */
export class ProbeRuntime implements ModelProvider {
  readonly name = 'probe';
  readonly priority = 5;
  readonly capabilities = ['streaming'];
  readonly models = ['probe-1'];
  aborts = 0;
  requests: AiRequest[] = [];
  private onAbort: (() => void)[] = [];

  isAvailable(): boolean {
    return true;
  }

  /** Resolves when a stream sees its signal abort. */
  aborted(): Promise<void> {
    return new Promise((r) => this.onAbort.push(r));
  }

  async *stream(request: AiRequest, signal: AbortSignal): AsyncIterable<AiStreamPart> {
    this.requests.push(request);
    const text = String(request.messages[request.messages.length - 1]?.content ?? '');
    if (text.includes('explode')) throw new Error('the model exploded');
    if (text.includes('slow')) {
      signal.addEventListener(
        'abort',
        () => {
          this.aborts++;
          for (const r of this.onAbort.splice(0)) r();
        },
        { once: true },
      );
      for (let i = 0; ; i++) {
        await sleep(20, signal);
        yield { type: 'text', delta: `t${i} ` };
      }
    }
    yield { type: 'text', delta: 'echo: ' };
    yield { type: 'text', delta: text };
    yield { type: 'finish', reason: 'stop' };
  }
}
