import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { Framework } from '../../dist/index.js';
import { startFw } from '../helpers.js';

interface Ready {
  status: string;
  phase: string;
  checks: Record<string, { ready: boolean; detail?: string }>;
}

async function probe(url: string): Promise<{ status: number; body: Ready; cache: string | null }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Ready, cache: res.headers.get('cache-control') };
}

test('health and readiness: JSON, no credential, not cached; ready follows every contributor', async () => {
  const app = await startFw();
  try {
    const health = await probe(`${app.base}/fw/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(health.body, { status: 'ok', phase: 'running' });
    assert.equal(health.cache, 'no-store');

    let ready = await probe(`${app.base}/fw/ready`);
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ready', phase: 'running', checks: {} });

    let warm = false;
    const remove = app.fw.readiness.register('warm-up', () => (warm ? { ready: true } : { ready: false, detail: 'loading the catalog' }));
    assert.throws(() => app.fw.readiness.register('warm-up', () => ({ ready: true })), /already registered/);
    ready = await probe(`${app.base}/fw/ready`);
    assert.equal(ready.status, 503);
    assert.deepEqual(ready.body, {
      status: 'not_ready',
      phase: 'running',
      checks: { 'warm-up': { ready: false, detail: 'loading the catalog' } },
    });
    // Liveness does not depend on readiness: a restart would not make the catalog load faster.
    assert.equal((await probe(`${app.base}/fw/health`)).status, 200);

    warm = true;
    assert.equal((await probe(`${app.base}/fw/ready`)).status, 200);

    // A contributor that throws is not ready, and its error text stays inside the process.
    const removeBroken = app.fw.readiness.register('broken', () => {
      throw new Error('secret://user:password@db');
    });
    ready = await probe(`${app.base}/fw/ready`);
    assert.equal(ready.status, 503);
    assert.deepEqual(ready.body.checks.broken, { ready: false, detail: 'check failed' });
    assert.ok(!JSON.stringify(ready.body).includes('password'));
    removeBroken();
    remove();
    assert.equal((await probe(`${app.base}/fw/ready`)).status, 200);

    const head = await fetch(`${app.base}/fw/ready`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    const post = await fetch(`${app.base}/fw/ready`, { method: 'POST' });
    assert.equal(post.status, 405);
  } finally {
    await app.close();
  }
});

test('readiness is false while starting and while draining; liveness stays up until closed', async () => {
  const fw = new Framework({ configFile: false, env: {} });
  assert.equal(fw.phase, 'starting');
  const { port } = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  assert.equal(fw.phase, 'running');
  fw.handle('/room', {});

  // A connected WebSocket client, and a close hook the test holds open: the drain window.
  const ws = new WebSocket(`ws://127.0.0.1:${port}/fw/room`);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let hookRan!: () => void;
  const inHook = new Promise<void>((resolve) => (hookRan = resolve));
  fw.onClose(async () => {
    hookRan();
    await held;
  });

  const closing = fw.close();
  await inHook;
  assert.equal(fw.phase, 'draining');
  const ready = await probe(`${base}/fw/ready`);
  assert.equal(ready.status, 503);
  assert.equal(ready.body.status, 'not_ready');
  assert.equal(ready.body.phase, 'draining');
  const health = await probe(`${base}/fw/health`);
  assert.equal(health.status, 200);
  assert.equal(health.body.phase, 'draining');

  // New connections are refused while draining, with Retry-After (the drain timeout, 2 s by default).
  const sse = await fetch(`${base}/fw/room?transport=sse&fw=1`);
  assert.equal(sse.status, 503);
  assert.equal(sse.headers.get('retry-after'), '2');
  assert.equal(((await sse.json()) as { code: string }).code, 'shutting_down');
  const refusedUpgrade = await new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
    const late = new WebSocket(`ws://127.0.0.1:${port}/fw/room`);
    late.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined });
      res.resume();
    });
    late.once('error', () => undefined); // ws reports the refused upgrade as an error too
    late.once('open', () => reject(new Error('a WebSocket opened while draining')));
  });
  assert.deepEqual(refusedUpgrade, { status: 503, retryAfter: '2' });

  release();
  await closing;
  assert.equal(fw.phase, 'closed');
  assert.equal(await closed, 1012, 'the client was told the service restarts');
});
