/**
 * The client of bench/soak, alone in its process: an anonymous client that creates work on the
 * server as fast as the server allows, with the largest prompts the defaults accept:
 *
 * - A2A: `SendMessage` (JSON-RPC, A2A 1.0) to `soak`, each a new task;
 * - AG-UI: a run of the coordinator `lead` (three runs and six journal events each);
 * - chat: a new session on `soak` (WebSocket), `--turns` prompts, then it leaves.
 *
 * `--clients` loops per protocol, one request each at a time. A refusal (503
 * storage_budget_exceeded, a closed session, an error frame) is counted and the loop goes on at
 * once: "as fast as allowed". `counts` answers what was accepted and refused so far; `stop` ends
 * the loops (bounded: every request has a 30 s timeout).
 *
 *   node bench/dist/soak/client.js <port> <clients> <prompt-bytes> <turns>
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { serveParent } from '../common/child.js';

const [port, clients, promptBytes, turns] = process.argv.slice(2).map(Number) as [number, number, number, number];
const base = `http://127.0.0.1:${port}`;
const counts = {
  a2a: { accepted: 0, refused: 0, failed: 0 },
  agui: { accepted: 0, refused: 0, failed: 0 },
  chat: { accepted: 0, refused: 0, failed: 0 },
  bytesSent: 0,
};
let stopping = false;

const prompt = (): string =>
  randomUUID()
    .repeat(Math.ceil(promptBytes / 36))
    .slice(0, promptBytes);

async function post(path: string, body: string): Promise<Response> {
  counts.bytesSent += body.length;
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body,
    signal: AbortSignal.timeout(30_000),
  });
}

async function a2aLoop(): Promise<void> {
  while (!stopping) {
    try {
      const r = await post(
        '/fw/agent/soak/a2a',
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: prompt() }] } },
        }),
      );
      await r.arrayBuffer();
      if (r.status === 503) counts.a2a.refused++;
      else if (r.ok) counts.a2a.accepted++;
      else counts.a2a.failed++;
    } catch {
      counts.a2a.failed++;
    }
  }
}

async function aguiLoop(): Promise<void> {
  while (!stopping) {
    try {
      const r = await post(
        '/fw/agent/lead/agui',
        JSON.stringify({
          threadId: randomUUID(),
          runId: randomUUID(),
          messages: [{ id: randomUUID(), role: 'user', content: prompt() }],
          tools: [],
          context: [],
          state: {},
          forwardedProps: {},
        }),
      );
      await r.arrayBuffer();
      if (r.status === 503) counts.agui.refused++;
      else if (r.ok) counts.agui.accepted++;
      else counts.agui.failed++;
    } catch {
      counts.agui.failed++;
    }
  }
}

/** One chat session: resolves when it ends (the server closed it, or `turns` answers came). */
function chatSession(): Promise<void> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/fw/agent/soak`);
    let asked = 0;
    let opened = false;
    let broken = false;
    const timer = setTimeout(() => ws.terminate(), 30_000 * (turns + 1));
    const ask = (): void => {
      if (stopping || asked >= turns) {
        ws.close();
        return;
      }
      asked++;
      const text = prompt();
      counts.bytesSent += text.length;
      ws.send(text);
    };
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { type: string; code?: string };
      if (frame.type === 'session') {
        opened = true;
        ask();
      } else if (frame.type === 'done') {
        counts.chat.accepted++;
        ask();
      } else if (frame.type === 'error') {
        if (frame.code === 'storage_budget_exceeded') counts.chat.refused++;
        else counts.chat.failed++;
        ask();
      }
    });
    ws.on('close', () => {
      clearTimeout(timer);
      // Closed before its session was announced: the budget refused the session.
      if (!opened && !broken) counts.chat.refused++;
      resolve();
    });
    ws.on('error', () => {
      broken = true;
      if (!opened) counts.chat.failed++;
    });
  });
}

async function chatLoop(): Promise<void> {
  while (!stopping) await chatSession();
}

const loops: Promise<void>[] = [];
for (let i = 0; i < clients; i++) loops.push(a2aLoop(), aguiLoop(), chatLoop());

serveParent({
  counts: () => ({ type: 'counts', counts }),
  stop: async () => {
    stopping = true;
    await Promise.all(loops);
    return { type: 'stopped', counts };
  },
});
process.send!({ type: 'ready' });
