import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Framework } from '../dist/index.js';

function withConfigFile(content: object, run: (file: string) => void | Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-config-'));
  const file = join(dir, 'fw.config.json');
  writeFileSync(file, JSON.stringify(content));
  return Promise.resolve(run(file)).finally(() => rmSync(dir, { recursive: true, force: true }));
}

test('an option given as undefined (process.env.X with X unset) does not override the environment', () => {
  const unset: string | undefined = undefined;
  const fw = new Framework({ configFile: false, env: { FW_PATH: '/from-env' }, 'fw.path': unset });
  assert.equal(fw.config.get('fw.path'), '/from-env');
  const nested = new Framework({ configFile: false, env: { FW_PATH: '/from-env' }, fw: { path: unset } });
  assert.equal(nested.config.get('fw.path'), '/from-env');
});

test('an option given as undefined does not override the config file, nor the default', async () => {
  await withConfigFile({ fw: { path: '/from-file' } }, (configFile) => {
    const fw = new Framework({ configFile, env: {}, 'fw.path': undefined });
    assert.equal(fw.config.get('fw.path'), '/from-file');
  });
  const fw = new Framework({ configFile: false, env: {}, 'fw.path': undefined, 'fw.resume.grace': undefined });
  assert.equal(fw.config.get('fw.path'), '/fw');
  assert.equal(fw.runtime.settings.grace, 15_000);
});

test('a defined option still wins over the environment and the file; null is a value, not an absence', async () => {
  await withConfigFile({ 'fw.path': '/from-file' }, (configFile) => {
    const fw = new Framework({ configFile, env: { FW_PATH: '/from-env' }, 'fw.path': '/from-option' });
    assert.equal(fw.config.get('fw.path'), '/from-option');
  });
  // `null` does not type-check; plain JavaScript callers can still pass it.
  const fw = new Framework({ configFile: false, env: {}, 'fw.path': null as unknown as string });
  assert.equal(fw.config.get('fw.path'), '');
});

test('a misspelled key given as undefined is still warned about', async () => {
  // A misspelling does not compile; JavaScript callers and config files still get the warning.
  const fw = new Framework({ configFile: false, env: {}, ...{ 'fw.pth': undefined } });
  const warnings: string[] = [];
  fw.config.warn = (m) => warnings.push(m);
  await fw.start();
  assert.deepEqual(warnings, ["unknown configuration key 'fw.pth' (ignored; did you mean 'fw.path'?)"]);
  await fw.close();
});

test('PORT is honoured when FW_PORT is not set; FW_PORT wins over PORT; an option wins over both', async () => {
  assert.equal(new Framework({ configFile: false, env: {} }).config.get('fw.port'), 8080);
  assert.equal(new Framework({ configFile: false, env: { PORT: '3000' } }).config.get('fw.port'), 3000);
  assert.equal(new Framework({ configFile: false, env: { PORT: '3000', FW_PORT: '4000' } }).config.get('fw.port'), 4000);
  assert.equal(new Framework({ configFile: false, env: { PORT: '3000', FW_PORT: '4000' }, 'fw.port': 5000 }).config.get('fw.port'), 5000);
  assert.equal(new Framework({ configFile: false, env: { PORT: '3000' }, 'fw.port': undefined }).config.get('fw.port'), 3000);
  await withConfigFile({ fw: { port: 6000 } }, (configFile) => {
    // PORT is environment: it overrides the file like FW_PORT does.
    assert.equal(new Framework({ configFile, env: { PORT: '3000' } }).config.get('fw.port'), 3000);
    assert.equal(new Framework({ configFile, env: {} }).config.get('fw.port'), 6000);
  });
  assert.throws(() => new Framework({ configFile: false, env: { PORT: 'eighty' } }).config.get('fw.port'), { code: 'invalid_config' });
});

test('listen() with no port listens where PORT says', async () => {
  const fw = new Framework({ configFile: false, env: { PORT: '0' } });
  try {
    const address = await fw.listen();
    assert.equal(address.address, '127.0.0.1');
    assert.ok(address.port > 0 && address.port !== 8080);
    const res = await fetch(`http://127.0.0.1:${address.port}/fw/no-such-route`);
    assert.equal(res.status, 404);
    await res.body?.cancel();
  } finally {
    await fw.close();
  }
});
