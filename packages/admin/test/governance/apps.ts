/**
 * What the kill-switch tests share: a real framework with the agent module (a local model that
 * streams slowly while asked to go on "forever", else answers at once), the admin plane with
 * `fw.auth.tokens`, on loopback; a chat client on a real WebSocket; the admin event stream.
 */
import { once } from 'node:events';
import WebSocket from 'ws';
import { Framework, type FrameworkModule } from '@fw/runtime';
import { Agent, AgentModule, type AiRequest, type AiStreamPart, type ModelProvider } from '@fw/agent';
import { waitFor } from '@fw/testing';
import { admin } from '../../dist/index.js';
import { AUTH_TOKENS, bearer, TOKENS } from '../security/helpers.js';

export { AUTH_TOKENS, bearer, TOKENS };
export const API = '/api/admin';

/** A prompt with "forever" streams a token every 20 ms (at most 5000) until its signal aborts; any other is answered "ok". */
export class SlowModel implements ModelProvider {
  readonly name = 'slow-local';
  readonly priority = 5;
  readonly capabilities = ['streaming'];
  readonly models = ['slow-1'];
  requests = 0;
  /** Streams whose signal aborted them (a stopped model call). */
  aborted = 0;
  isAvailable(): boolean {
    return true;
  }
  async *stream(request: AiRequest, signal: AbortSignal): AsyncIterable<AiStreamPart> {
    this.requests++;
    const last = request.messages.at(-1);
    if (!String(last?.content ?? '').includes('forever')) {
      yield { type: 'text', delta: 'ok' };
      yield { type: 'finish', reason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };
      return;
    }
    signal.addEventListener('abort', () => this.aborted++, { once: true });
    for (let i = 0; i < 5000; i++) {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, 20);
        signal.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
      });
      yield { type: 'text', delta: `t${i} ` };
    }
  }
}

class Writer {}
Agent({ name: 'writer', description: 'writes' })(Writer);
class Helper {}
Agent({ name: 'helper', description: 'helps' })(Helper);

export interface GovApp {
  fw: Framework;
  base: string;
  ws: string;
  model: SlowModel;
  send(method: string, path: string, body?: unknown, token?: string): Promise<Response>;
  get(path: string, token?: string): Promise<Response>;
  close(): Promise<void>;
}

/**
 * One node: `first` (e.g. `mcp()`), agents `writer` and `helper` (and the classes in `more`) on
 * the slow local model, the admin plane, then `modules` (e.g. `cluster()`).
 */
export async function startGovApp(
  props: Record<string, unknown> = {},
  modules: FrameworkModule[] = [],
  first: FrameworkModule[] = [],
  more: object[] = [],
): Promise<GovApp> {
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.data-dir': '',
    'fw.ai.auto': false,
    'fw.heartbeat.interval': 0,
    'fw.auth.tokens': AUTH_TOKENS,
    'fw.admin.mcp-tools': false,
    ...props,
  });
  for (const m of first) await fw.use(m);
  const model = new SlowModel();
  const agents = new AgentModule({ providers: [model] });
  await fw.use(agents);
  agents.mount(Writer);
  agents.mount(Helper);
  for (const a of more) agents.mount(a);
  await fw.use(admin());
  for (const m of modules) await fw.use(m);
  const { port } = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  const send = (method: string, path: string, body?: unknown, token: string = TOKENS.operator) =>
    fetch(base + path, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...bearer(token) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  return {
    fw,
    base,
    ws: `ws://127.0.0.1:${port}`,
    model,
    send,
    get: (path, token = TOKENS.viewer) => fetch(base + path, { headers: bearer(token) }),
    close: () => fw.close(),
  };
}

/** A chat session of an agent on a real WebSocket, with every frame it received. */
export interface ChatClient {
  frames: { type: string; [k: string]: unknown }[];
  prompt(text: string): void;
  /** Waits for the next frame of `type` after the `from`-th frame; returns it. */
  next(type: string, from: number): Promise<{ type: string; [k: string]: unknown }>;
  close(): Promise<void>;
}

export async function chat(app: Pick<GovApp, 'ws'>, agent: string, token: string = TOKENS.operator): Promise<ChatClient> {
  const socket = new WebSocket(`${app.ws}/fw/agent/${agent}?access_token=${token}`);
  const frames: ChatClient['frames'] = [];
  socket.on('message', (d) => {
    try {
      frames.push(JSON.parse(String(d)));
    } catch {
      // a non-JSON frame (heartbeat): not ours
    }
  });
  await once(socket, 'open');
  await waitFor('the session frame', () => (frames.some((f) => f.type === 'session') ? true : undefined), 5000);
  return {
    frames,
    prompt: (text) => socket.send(JSON.stringify({ text })),
    next: (type, from) => waitFor(`a '${type}' chat frame`, () => frames.slice(from).find((f) => f.type === type), 5000),
    close: async () => {
      if (socket.readyState === WebSocket.CLOSED) return;
      const closed = once(socket, 'close');
      socket.close();
      await closed;
    },
  };
}

/** The admin event stream (`/fw/admin/events`) on a WebSocket, as `token`'s principal. */
export async function adminEvents(
  app: Pick<GovApp, 'ws'>,
  token: string = TOKENS.viewer,
): Promise<{ events: { type: string; [k: string]: unknown }[]; close(): Promise<void> }> {
  const socket = new WebSocket(`${app.ws}/fw/admin/events?access_token=${token}`);
  const events: { type: string; [k: string]: unknown }[] = [];
  socket.on('message', (d) => {
    try {
      events.push(JSON.parse(String(d)));
    } catch {
      // not an event
    }
  });
  await once(socket, 'open');
  return {
    events,
    close: async () => {
      if (socket.readyState === WebSocket.CLOSED) return;
      const closed = once(socket, 'close');
      socket.close();
      await closed;
    },
  };
}
