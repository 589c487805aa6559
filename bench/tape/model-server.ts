/**
 * The model for bench/tape, alone in its process so that its CPU is not fw's: a local server
 * speaking OpenAI chat-completions streaming. A turn's first request gets two tool calls
 * (`measure`, two arguments); the request after the tool results gets an answer streamed in
 * `--chunks` pieces, with usage, as a real model's would be. Replies at once: what is measured
 * is fw's CPU per turn, not waiting.
 *
 *   node bench/dist/tape/model-server.js --port <port> [--chunks 40]
 */
import { createServer } from 'node:http';
import { serveParent } from '../common/child.js';
import { arg } from '../common/args.js';

const CHUNKS = Number(arg('chunks', '40'));
const PORT = Number(arg('port', '23100'));
let requests = 0;

const chunk = (choices: unknown[], usage?: Record<string, number>): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench-model', choices, ...(usage ? { usage } : {}) })}\n\n`;
const delta = (d: Record<string, unknown>, finish_reason: string | null = null): unknown[] => [{ index: 0, delta: d, finish_reason }];

const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => {
    requests++;
    const body = JSON.parse(raw) as { messages: { role: string }[] };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (body.messages.at(-1)?.role === 'tool') {
      res.write(chunk(delta({ role: 'assistant', content: '' })));
      for (let i = 0; i < CHUNKS; i++) res.write(chunk(delta({ content: `word${i} ` })));
      res.write(chunk(delta({}, 'stop')));
      res.write(chunk([], { prompt_tokens: 120, completion_tokens: CHUNKS, total_tokens: 120 + CHUNKS }));
    } else {
      res.write(
        chunk(
          delta({
            role: 'assistant',
            content: null,
            tool_calls: [
              { index: 0, id: 'call_1', type: 'function', function: { name: 'measure', arguments: '{"thing":"rope"}' } },
              { index: 1, id: 'call_2', type: 'function', function: { name: 'measure', arguments: '{"thing":"pole"}' } },
            ],
          }),
        ),
      );
      res.write(chunk(delta({}, 'tool_calls')));
      res.write(chunk([], { prompt_tokens: 90, completion_tokens: 24, total_tokens: 114 }));
    }
    res.end('data: [DONE]\n\n');
  });
});
await new Promise<void>((r) => server.listen(PORT, '127.0.0.1', r));

serveParent({ requests: () => ({ type: 'requests', requests }) });
process.send!({ type: 'ready', url: `http://127.0.0.1:${PORT}/v1` });
