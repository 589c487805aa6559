import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Config, EventBus, Framework, envName } from '../dist/index.js';
import { PathPattern } from '../dist/http/path-pattern.js';

test('path patterns bind named and rest segments, decoded', () => {
  assert.deepEqual(new PathPattern('/chat/{room}').match('/chat/lobby%201'), { room: 'lobby 1' });
  assert.equal(new PathPattern('/chat/{room}').match('/chat/a/b'), undefined);
  assert.deepEqual(new PathPattern('/files/{rest*}').match('/files/a/b'), { rest: 'a/b' });
});

/** Reads a key this test declares at run time (its keys are not in FwConfigKeys). */
const read = (c: Config, key: string): unknown => (c.get as (k: string) => unknown).call(c, key);

test('config: options beat env beat file beat defaults; env names derive from keys', () => {
  assert.equal(envName('fw.admin.mcp-write-tools'), 'FW_ADMIN_MCP_WRITE_TOOLS');
  const c = new Config({ fw: { a: { b: 2 } } }, { env: { FW_A_C: 'true' }, configFile: false });
  c.declare({ 'fw.a.b': { type: 'number', default: 1, description: '' }, 'fw.a.c': { type: 'boolean', default: false, description: '' } });
  assert.equal(read(c, 'fw.a.b'), 2);
  assert.equal(read(c, 'fw.a.c'), true);
  const warnings: string[] = [];
  const d = new Config({ 'fw.nope': 1 }, { env: {}, configFile: false });
  d.warn = (m) => warnings.push(m);
  d.warnUnknown();
  assert.match(warnings[0] ?? '', /unknown configuration key 'fw.nope'/);
  const bad = new Config({ 'fw.x': 'abc' }, { env: {}, configFile: false });
  bad.declare({ 'fw.x': { type: 'number', default: 0, description: '' } });
  assert.throws(() => read(bad, 'fw.x'), /must be a number/);
});

test('event bus: typed, timestamped, and free when nobody listens', () => {
  const bus = new EventBus();
  assert.equal(bus.wants('MessageBroadcast'), false);
  const seen: unknown[] = [];
  const off = bus.on('BroadcasterCreated', (e) => seen.push(e));
  bus.emit('BroadcasterCreated', { id: '/fw/a' });
  off();
  bus.emit('BroadcasterCreated', { id: '/fw/b' });
  assert.equal(seen.length, 1);
  const e = seen[0] as { type: string; timestamp: string; id: string };
  assert.equal(e.type, 'BroadcasterCreated');
  assert.equal(e.id, '/fw/a');
  assert.ok(!Number.isNaN(Date.parse(e.timestamp)));
  assert.equal(bus.listenerCount(), 0);
});

test('attach takes over only fw routes and leaves the app its own', async () => {
  const server = createServer((_req, res) => res.end('app'));
  const fw = new Framework({ configFile: false });
  fw.route('GET', '/fw/ping', (_req, res) => res.end('pong'));
  fw.attach(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    assert.equal(await (await fetch(`${base}/fw/ping`)).text(), 'pong');
    assert.equal(await (await fetch(`${base}/other`)).text(), 'app');
  } finally {
    await fw.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test('standalone listen answers unknown paths with problem+json 404 and 405 with Allow', async () => {
  const fw = new Framework({ configFile: false });
  fw.route('POST', '/fw/only-post', (_req, res) => res.end('ok'));
  const { port } = await fw.listen(0);
  try {
    const r404 = await fetch(`http://127.0.0.1:${port}/nowhere`);
    assert.equal(r404.status, 404);
    assert.equal(r404.headers.get('content-type'), 'application/problem+json');
    assert.equal(((await r404.json()) as { code: string }).code, 'not_found');
    const r405 = await fetch(`http://127.0.0.1:${port}/fw/only-post`);
    assert.equal(r405.status, 405);
    assert.equal(r405.headers.get('allow'), 'POST');
  } finally {
    await fw.close();
  }
});
