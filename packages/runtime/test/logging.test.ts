import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { ConfigError, Framework, MemoryLogger as CaptureLogger, type Logger } from '../dist/index.js';
import { connectWs, startFw } from './helpers.js';
import { waitFor } from '@fw/testing';

test('a custom logger gets structured entries from the modules: a handler that throws, an unknown key', async () => {
  const logger = new CaptureLogger();
  const app = await startFw({ logger, fw: { 'unknwon-key': 1 } }, (fw) =>
    fw.handle('/boom', {
      message: () => {
        throw new Error('handler bug');
      },
    }),
  );
  try {
    const warning = logger.entries.find((e) => e.level === 'warn');
    assert.equal(warning?.fields.module, 'framework');
    assert.match(warning?.message ?? '', /fw\.unknwon-key/);

    const c = await connectWs(`${app.ws}/fw/boom?fw=1`);
    await c.messages.next();
    c.socket.send(JSON.stringify({ t: 'm', d: 'x' }));
    await waitFor("logger.entries.some((e) => e.level === 'error')", () => logger.entries.some((e) => e.level === 'error'));
    const failure = logger.entries.find((e) => e.level === 'error')!;
    assert.equal(failure.message, 'handler failed');
    assert.equal(failure.fields.module, 'runtime');
    assert.ok(failure.fields.err instanceof Error && failure.fields.err.message === 'handler bug');
    c.socket.close();
  } finally {
    await app.close();
  }
});

test('a route that throws answers a bare 500 and logs why, with the method and path', async () => {
  const logger = new CaptureLogger();
  const app = await startFw({ logger }, (fw) => {
    fw.route('GET', '/route-bug', () => {
      throw new Error('route bug at /srv/app/secret.ts:12');
    });
    fw.route('GET', '/route-async-bug', async () => {
      throw new Error('async route bug');
    });
  });
  try {
    for (const [path, why] of [
      ['/route-bug', 'route bug at /srv/app/secret.ts:12'],
      ['/route-async-bug', 'async route bug'],
    ] as const) {
      const res = await fetch(`${app.base}${path}`);
      assert.equal(res.status, 500);
      const body = await res.text();
      assert.doesNotMatch(body, /bug|secret/, 'the client learns nothing about the cause');
      await waitFor(`'route failed' for ${path}`, () => logger.entries.find((e) => e.message === 'route failed' && e.fields.path === path));
      const entry = logger.entries.find((e) => e.message === 'route failed' && e.fields.path === path)!;
      assert.equal(entry.level, 'error');
      assert.equal(entry.fields.method, 'GET');
      assert.equal((entry.fields.err as Error).message, why);
    }
  } finally {
    await app.close();
  }
});

test('a throwing event listener is logged with the event type, and the emitter goes on', async () => {
  const logger = new CaptureLogger();
  const fw = new Framework({ configFile: false, env: {}, logger });
  let after = 0;
  fw.events.on('BroadcasterCreated', () => {
    throw new Error('listener bug');
  });
  fw.events.on('BroadcasterCreated', () => after++);
  fw.broadcasters.lookup('/fw/x', true);
  assert.equal(after, 1);
  assert.deepEqual(
    logger.entries.map((e) => [e.level, e.message, e.fields.module, e.fields.event]),
    [['error', 'event listener failed', 'events', 'BroadcasterCreated']],
  );
  await fw.close();
});

test('pino itself fits the logger option', async () => {
  const lines: string[] = [];
  const logger: Logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(s) });
  const fw = new Framework({ configFile: false, env: {}, logger, fw: { 'bogus-key': 1 } });
  await fw.start();
  const warn = JSON.parse(lines.find((l) => l.includes('bogus'))!) as { level: number; module: string; msg: string };
  assert.equal(warn.level, 40);
  assert.equal(warn.module, 'framework');
  await fw.close();
});

test('fw.log.level: a misspelt level is a configuration error', () => {
  assert.throws(() => new Framework({ configFile: false, env: {}, 'fw.log.level': 'verbose' }), ConfigError);
});

const runtimeEntry = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** Runs a script that logs through a default-logger framework and returns its stdout lines. */
function runDefault(env: Record<string, string>): Promise<string[]> {
  const script = `import { Framework } from ${JSON.stringify(runtimeEntry)};
const fw = new Framework({ configFile: false });
fw.logger.child({ module: 'app' }).info({ n: 1 }, 'hello');
fw.logger.debug({}, 'details');
fw.logger.warn({}, 'careful');`;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (err, stdout) => {
        if (err) reject(err);
        else resolve(stdout.split('\n').filter(Boolean));
      },
    );
  });
}

test('the default logger: pino JSON lines on stdout at info, FW_LOG_LEVEL sets the level', async () => {
  const lines = (await runDefault({})).map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg]),
    [
      [30, 'hello'],
      [40, 'careful'],
    ],
  );
  assert.equal(lines[0]!.name, 'fw');
  assert.equal(lines[0]!.module, 'app');
  assert.equal(lines[0]!.n, 1);
  assert.equal(typeof lines[0]!.time, 'number');

  const quiet = (await runDefault({ FW_LOG_LEVEL: 'warn' })).map((l) => (JSON.parse(l) as { msg: string }).msg);
  assert.deepEqual(quiet, ['careful']);
  const verbose = (await runDefault({ FW_LOG_LEVEL: 'debug' })).map((l) => (JSON.parse(l) as { msg: string }).msg);
  assert.deepEqual(verbose, ['hello', 'details', 'careful']);
});
