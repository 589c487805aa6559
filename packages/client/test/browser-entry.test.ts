/**
 * The browser bundles the runtime serves (`/fw/client.js`, `/fw/client.global.js`) are single
 * files built by scripts/bundle.mjs: no imports left, under the size budget, and working clients.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runInNewContext } from 'node:vm';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import WebSocket from 'ws';
import type * as ClientModule from '../dist/index.js';
import { serve } from './helpers.js';

/** The gzipped budget of the ES module bundle (issue 15: CI fails above 8 KB). */
const BUDGET = 8192;

test('/fw/client.js is one self-contained ES module under the gzip budget, and it connects', async (t) => {
  const server = await serve({}, (fw) => fw.handle('/chat/{room}', { message: (r, d) => void r.write(`echo:${d}`) }));
  const dir = await mkdtemp(join(tmpdir(), 'fw-client-'));
  t.after(async () => {
    await rm(dir, { recursive: true, force: true });
    await server.close();
  });

  const res = await fetch(server.url('/fw/client.js'), { headers: { 'accept-encoding': 'identity' } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/javascript/);
  const code = await res.text();
  // One file: nothing left to fetch but its source map.
  assert.doesNotMatch(code, /\bimport\s*[\s{*'"(]|\bfrom\s*['"]/, 'no import left in the bundle');
  assert.match(code, /sourceMappingURL=client\.js\.map/);

  const bytes = Buffer.from(code);
  const gzip = gzipSync(bytes, { level: 9 }).length;
  const brotli = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  console.log(`# @fw/client /fw/client.js: ${bytes.length} bytes, ${gzip} gzipped, ${brotli} brotli (budget ${BUDGET} gzipped)`);
  assert.ok(gzip <= BUDGET, `the bundle is ${gzip} bytes gzipped, over the ${BUDGET}-byte budget`);

  const file = join(dir, 'client.js');
  await writeFile(file, code);
  const mod = (await import(pathToFileURL(file).href)) as typeof ClientModule;
  interface Chat {
    in: string;
    out: string;
  }
  const client = mod.connect<Chat>(server.url('/fw/chat/lobby'), { WebSocket: WebSocket as unknown as ClientModule.WebSocketConstructor });
  t.after(() => client.close());
  const got = new Promise<string>((resolve) => client.onMessage((d) => resolve(d)));
  await new Promise<void>((resolve) => client.onStateChange((s) => s === 'open' && resolve()));
  assert.equal(client.transport, 'websocket');
  client.send('hi');
  assert.equal(await got, 'echo:hi');
});

test('/fw/client.global.js defines fw.connect for a plain <script>', async (t) => {
  const server = await serve();
  t.after(() => server.close());
  const res = await fetch(server.url('/fw/client.global.js'));
  assert.equal(res.status, 200);
  const code = await res.text();
  assert.doesNotMatch(code, /\bexport\b/);
  const sandbox: { fw?: { connect?: unknown; FwClient?: unknown; ClientError?: unknown } } = {};
  runInNewContext(code, sandbox);
  assert.equal(typeof sandbox.fw?.connect, 'function');
  assert.equal(typeof sandbox.fw?.FwClient, 'function');
  assert.equal(typeof sandbox.fw?.ClientError, 'function');
});

test('typed message maps: onJson parses, types follow the map, a non-JSON message is an invalid_message error', async (t) => {
  const server = await serve({}, (fw) =>
    fw.handle('/chat/{room}', {
      message: (r, d) => {
        r.write('not json');
        r.write({ echo: JSON.parse(d) as unknown });
      },
    }),
  );
  t.after(() => server.close());
  const { connect } = await import('../dist/node.js');
  interface Chat {
    in: { echo: { text: string } };
    out: { text: string };
  }
  const client = connect<Chat>(server.url('/fw/chat/lobby'));
  t.after(() => client.close());
  const errors: string[] = [];
  client.onError((e) => errors.push(e.code));
  const got = new Promise<{ echo: { text: string } }>((resolve) => client.onJson((m) => resolve(m)));
  client.send({ text: 'typed' });
  // Compile-time checks (never run): the map types what is sent and what arrives.
  const typeChecks = (): void => {
    // @ts-expect-error the map's `out` is { text: string }
    client.send('a plain string');
    client.onJson((m) => {
      const text: string = m.echo.text;
      void text;
    });
  };
  void typeChecks;
  const message = await got;
  assert.equal(message.echo.text, 'typed');
  assert.deepEqual(errors, ['invalid_message']);
});
