/**
 * The model for bench/governance, alone in its process: a local server speaking OpenAI's
 * chat-completions streaming (the wire format `@ai-sdk/openai` reads), like the one the agent
 * tests use. Each run is two model calls: the first answers with a tool call (`lookup`), the
 * second, which sees the tool's result, with a few text chunks. Its CPU is not the server's.
 *
 *   node bench/dist/governance/model-server.js
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveParent } from '../common/child.js';

const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

let requests = 0;
const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => {
    requests++;
    const body = JSON.parse(raw) as { messages: { role: string }[] };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (body.messages.at(-1)?.role === 'tool') {
      for (const word of ['fw ', 'is ', 'a ', 'framework ', 'for ', 'real-time ', 'and ', 'agents.']) res.write(chunk({ content: word }));
      res.write(chunk({}, 'stop'));
    } else {
      res.write(
        chunk({
          role: 'assistant',
          content: null,
          tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"fw"}' } }],
        }),
      );
      res.write(chunk({}, 'tool_calls'));
    }
    res.end('data: [DONE]\n\n');
  });
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));

serveParent({ count: () => ({ type: 'count', requests }) });
process.send!({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` });
