/**
 * A few chats with the `assistant` agent at start, so the run tape (the dashboard's Runs tab) has
 * chat runs with tool calls beside the coordinator's run before anyone asks anything. One real fw
 * client on the agent's chat endpoint (`/fw/agent/assistant`, a chat session over a WebSocket),
 * the same as the chat page's: each prompt waits for its answer (`done`) before the next. A fixed
 * script, once per start: bounded, far inside the tape's retention (`fw.store.retention.tapes.*`).
 */
import { connect } from '@fw/client/node';

/** Two tool calls (the offline model calls a tool named after a slash) and one plain answer. */
export const CHAT_SCRIPT: readonly string[] = ['/time', '/roll {"sides": 20}', 'What can the agents here do?'];

/** Longest one prompt may take before the script gives up (the demo's offline model answers in about a second). */
const TURN_TIMEOUT_MS = 30_000;

export interface AgentChatsResult {
  state: 'pending' | 'completed' | 'failed' | 'skipped';
  /** Prompts answered. */
  answered: number;
  detail?: string;
}

export async function chatWithAssistant(
  baseUrl: string,
  signal: AbortSignal,
  script: readonly string[] = CHAT_SCRIPT,
): Promise<AgentChatsResult> {
  const client = connect(new URL('fw/agent/assistant?simulated=1', baseUrl), { transports: ['websocket'], reconnect: false });
  let answered = 0;
  let waiting: { resolve: (kind: string) => void } | undefined;
  let closedWith: string | undefined;
  const frames: string[] = [];
  client.onMessage((data) => {
    let frame: { type?: string; code?: string; message?: string };
    try {
      frame = JSON.parse(data) as typeof frame;
    } catch {
      return;
    }
    if (frame.type === 'session' || frame.type === 'done' || frame.type === 'error' || frame.type === 'cancelled') {
      frames.push(frame.type === 'error' ? `error: ${frame.code ?? ''} ${frame.message ?? ''}` : frame.type);
      waiting?.resolve(frame.type);
    }
  });
  client.onClose((reason) => {
    closedWith = reason || 'closed';
    waiting?.resolve('closed');
  });
  const next = (): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      const queued = frames.shift();
      if (queued !== undefined) return resolve(queued);
      if (closedWith !== undefined) return resolve('closed');
      const timer = setTimeout(() => reject(new Error('no answer in time')), TURN_TIMEOUT_MS);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(new Error('the simulation stopped first'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      waiting = {
        resolve: () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          waiting = undefined;
          resolve(frames.shift() ?? 'closed');
        },
      };
    });
  try {
    const opened = await next();
    if (opened !== 'session') {
      return /401|unauthori[sz]ed|credential/i.test(closedWith ?? '')
        ? { state: 'skipped', answered, detail: 'the agents need a credential (fw.auth.* is configured); the simulation has none' }
        : { state: 'failed', answered, detail: `no chat session: ${closedWith ?? opened}` };
    }
    for (const prompt of script) {
      // A refused send closes the client, which ends the wait below.
      client.send(prompt).catch(() => undefined);
      const end = await next();
      if (end !== 'done') return { state: 'failed', answered, detail: `"${prompt}" ended with ${end}` };
      answered++;
    }
    return { state: 'completed', answered };
  } catch (err) {
    return { state: signal.aborted ? 'skipped' : 'failed', answered, detail: (err as Error).message };
  } finally {
    client.close();
  }
}
