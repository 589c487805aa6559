/**
 * A local OpenAI-compatible model server on loopback (the chat-completions streaming wire format,
 * as the agent package's own tests use): a prompt with "forever" streams one token ("tok ") every
 * 5 ms until the client goes away, counting the tokens it wrote; any other prompt is answered
 * "Hello there." with usage 20 prompt tokens (5 of them cached) and 15 completion tokens.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const USAGE = { prompt_tokens: 20, completion_tokens: 15, total_tokens: 35, prompt_tokens_details: { cached_tokens: 5 } };

const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'local-model', choices: [{ index: 0, delta, finish_reason }] })}\n\n`;

export interface OpenAiServer {
  /** The base URL (`…/v1`) for openAiProvider. */
  url: string;
  /** Chat-completions requests received. */
  requests: number;
  /** Tokens each "forever" stream wrote before its client went away. */
  streamed: number[];
  /** Streams whose client went away before the end. */
  aborted: number;
  close(): Promise<void>;
}

export async function startOpenAiServer(): Promise<OpenAiServer> {
  const timers = new Set<NodeJS.Timeout>();
  const state = { requests: 0, streamed: [] as number[], aborted: 0 };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      state.requests++;
      const body = JSON.parse(raw) as { messages: { role: string; content: unknown }[] };
      const last = String(body.messages.at(-1)?.content ?? '');
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (last.includes('forever')) stream(res);
      else {
        res.write(chunk({ role: 'assistant', content: 'Hello ' }));
        res.write(chunk({ content: 'there.' }));
        res.write(chunk({}, 'stop'));
        res.write(
          `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'local-model', choices: [], usage: USAGE })}\n\n`,
        );
        res.end('data: [DONE]\n\n');
      }
    });
  });
  const stream = (res: ServerResponse) => {
    const index = state.streamed.push(0) - 1;
    res.write(chunk({ role: 'assistant', content: '' }));
    const t = setInterval(() => {
      if (state.streamed[index]! >= 2000) {
        clearInterval(t);
        res.end('data: [DONE]\n\n');
        return;
      }
      res.write(chunk({ content: 'tok ' }));
      state.streamed[index]!++;
    }, 5);
    timers.add(t);
    res.on('close', () => {
      clearInterval(t);
      timers.delete(t);
      if (!res.writableFinished) state.aborted++;
    });
  };
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    get requests() {
      return state.requests;
    },
    streamed: state.streamed,
    get aborted() {
      return state.aborted;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const t of timers) clearInterval(t);
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
