/**
 * The runtime serves the compiled client to browsers as-is (`/fw/client.js` → `./client/*.js`), so
 * the browser entry and everything it imports must use relative specifiers only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import WebSocket from 'ws';
import { serve } from './helpers.js';

const SPECIFIER = /(?:^|[;\s])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm;

function specifiers(source: string): string[] {
  return [...source.matchAll(SPECIFIER)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

test('the browser build, fetched from the runtime file by file, has only relative imports and connects', async (t) => {
  const server = await serve({}, (fw) => fw.handle('/chat/{room}', {}));
  const dir = await mkdtemp(join(tmpdir(), 'fw-client-'));
  t.after(async () => {
    await rm(dir, { recursive: true, force: true });
    await server.close();
  });

  const entry = await fetch(server.url('/fw/client.js'));
  assert.equal(entry.status, 200);
  assert.match(entry.headers.get('content-type') ?? '', /javascript/);
  const entryText = await entry.text();
  assert.deepEqual(specifiers(entryText), ['./client/index.js']);
  await writeFile(join(dir, 'client.js'), entryText);

  // Walk the module graph exactly as a browser would, through the server.
  const seen = new Set<string>();
  const queue = ['index.js'];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const res = await fetch(server.url(`/fw/client/${file}`));
    assert.equal(res.status, 200, file);
    const source = await res.text();
    for (const spec of specifiers(source)) {
      assert.ok(spec.startsWith('./') || spec.startsWith('../'), `${file} imports '${spec}': browsers cannot resolve bare specifiers`);
      queue.push(new URL(spec, `http://x/${file}`).pathname.slice(1));
    }
    const target = join(dir, 'client', file);
    await mkdir(join(target, '..'), { recursive: true });
    await writeFile(target, source);
  }
  assert.ok(seen.has('client.js') && seen.has('transports/websocket.js') && seen.has('transports/long-polling.js'), [...seen].join(', '));
  assert.ok(!seen.has('node.js'), 'the Node entry is not part of the browser graph');

  // The served copy is a working client (given a WebSocket, as a browser has one).
  const mod = (await import(pathToFileURL(join(dir, 'client.js')).href)) as typeof import('../src/index.js');
  const client = mod.connect(server.url('/fw/chat/lobby'), { WebSocket: WebSocket as unknown as import('../src/index.js').WebSocketConstructor });
  t.after(() => client.close());
  await new Promise<void>((resolve) => client.onStateChange((s) => s === 'open' && resolve()));
  assert.equal(client.transport, 'websocket');
  client.close();
});
