/** A chat client of the chaos tests, one WebSocket session of an agent. */
import { waitFor } from '@fw/testing';
import WebSocket from 'ws';

/** A chat client: `ask` resolves with the answer frame (`done` or `error`). */
export async function openChat(base: string, agent = 'keeper') {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/fw/agent/${agent}`);
  const frames: { type: string; id?: string; code?: string; message?: string }[] = [];
  ws.on('message', (d) => frames.push(JSON.parse(String(d))));
  ws.on('error', () => {});
  const session = await waitFor('the session frame', () => frames.find((f) => f.type === 'session')?.id, 10_000);
  return {
    session,
    close: () => ws.close(),
    async ask(text: string) {
      const start = frames.length;
      ws.send(text);
      return waitFor(
        `an answer to ${text.slice(0, 20)}`,
        () => frames.slice(start).find((f) => f.type === 'done' || f.type === 'error'),
        20_000,
      );
    },
  };
}
