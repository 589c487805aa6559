/**
 * A local OpenAI-compatible model server on loopback for the admin tests: it speaks the
 * chat-completions streaming wire format (SSE chunks, `data: [DONE]`), records every request it
 * gets, and answers with what the test's `respond` returns for the request. `hold` keeps answers
 * back until released (a run in flight).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  path: string;
  body: { model: string; stream: boolean; messages: { role: string; content: unknown }[] };
}

export interface LocalModel {
  /** The base URL to give `fw.ai.base-url` (ends in /v1). */
  url: string;
  requests: ChatRequest[];
  /** While set, answers wait for it (only those `holdWhen` picks, when it is set). */
  hold: Promise<void> | undefined;
  holdWhen: ((body: ChatRequest['body']) => boolean) | undefined;
  close(): Promise<void>;
}

const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'local-model', choices: [{ index: 0, delta, finish_reason }] })}\n\n`;

/** Starts the server; `respond` gives the text of the answer (streamed in two chunks). */
export async function startLocalModel(respond: (body: ChatRequest['body']) => string): Promise<LocalModel> {
  const model: LocalModel = { url: '', requests: [], hold: undefined, holdWhen: undefined, close: async () => undefined };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', async () => {
      const body = JSON.parse(raw) as ChatRequest['body'];
      model.requests.push({ path: req.url ?? '', body });
      if (!model.holdWhen || model.holdWhen(body)) await model.hold;
      const text = respond(body);
      const half = Math.ceil(text.length / 2);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: text.slice(0, half) }));
      res.write(chunk({ content: text.slice(half) }));
      res.write(chunk({}, 'stop'));
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  model.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  model.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return model;
}

/** The text of a chat message's content (a string, or the parts the AI SDK sends). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p as { text?: string }).text ?? '').join('');
  return '';
}
