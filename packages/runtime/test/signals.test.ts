import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { Framework } from '../dist/index.js';
import { parseSignals } from '../dist/signals.js';

test('fw.close.signals=SIGTERM: the process drains (clients told 1012), then ends by the signal', { timeout: 30_000 }, async () => {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./fixtures/signal-app.js', import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /READY (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', () => reject(new Error(`the app exited before it was ready: ${out}`)));
  });
  const ws = new WebSocket(`ws://127.0.0.1:${port}/fw/room`);
  await once(ws, 'open');
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  child.kill('SIGTERM');
  assert.equal(await closed, 1012, 'the client was told the service restarts');
  assert.deepEqual(await exited, { code: null, signal: 'SIGTERM' }, 'ended by the signal once drained');
});

test('fw.close.signals: parsed and checked; off by default, and close() removes the handlers', async () => {
  assert.deepEqual(parseSignals(''), []);
  assert.deepEqual(parseSignals('sigterm, SIGINT'), ['SIGTERM', 'SIGINT']);
  assert.throws(() => parseSignals('SIGKILL'), /not a signal fw can handle/);
  assert.throws(() => parseSignals('TERM'), /not a signal fw can handle/);

  const before = process.listenerCount('SIGTERM');
  const off = new Framework({ configFile: false, env: {} });
  await off.listen(0, '127.0.0.1');
  assert.equal(process.listenerCount('SIGTERM'), before, 'no handler unless asked');
  await off.close();

  const on = new Framework({ configFile: false, env: {}, 'fw.close.signals': 'SIGTERM,SIGINT' });
  await on.listen(0, '127.0.0.1');
  assert.equal(process.listenerCount('SIGTERM'), before + 1);
  await on.close();
  assert.equal(process.listenerCount('SIGTERM'), before, 'removed on close');
});
