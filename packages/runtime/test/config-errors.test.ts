import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Framework, MemoryLogger } from '../dist/index.js';

/** Runs `fn` with a config file holding exactly `text` (not JSON.stringify'd: positions matter). */
async function withFile(text: string, fn: (file: string) => void | Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-config-errors-'));
  const file = join(dir, 'fw.config.json');
  writeFileSync(file, text);
  try {
    await fn(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a value of the wrong type names its source: the option, the environment variable (or its alias), the file line and column', async () => {
  assert.throws(() => new Framework({ configFile: false, env: {}, 'fw.port': 'eighty' as unknown as number }).config.get('fw.port'), {
    code: 'invalid_config',
    message: `configuration key 'fw.port' must be a number, got "eighty" (from the option 'fw.port' given to new Framework())`,
  });
  assert.throws(() => new Framework({ configFile: false, env: { FW_PORT: 'eighty' } }).config.get('fw.port'), {
    message: `configuration key 'fw.port' must be a number, got "eighty" (from the environment variable FW_PORT)`,
  });
  assert.throws(() => new Framework({ configFile: false, env: { PORT: 'eighty' } }).config.get('fw.port'), {
    message: /\(from the environment variable PORT\)$/,
  });
  // Nested form: the value's own line and column.
  await withFile('{\n  "fw": {\n    "path": "/fw",\n    "port": "eighty"\n  }\n}\n', (configFile) => {
    assert.throws(() => new Framework({ configFile, env: {} }).config.get('fw.port'), {
      message: `configuration key 'fw.port' must be a number, got "eighty" (from ${configFile}, line 4, column 13)`,
    });
  });
  // Flat form, on one line.
  await withFile('{"fw.path": "/x", "fw.resume.grace": "soon"}', (configFile) => {
    assert.throws(() => new Framework({ configFile, env: {} }).config.get('fw.resume.grace'), {
      message: /must be a duration, got "soon" \(from .*fw\.config\.json, line 1, column 38\)$/,
    });
  });
});

test('origin() says where each effective value came from', async () => {
  await withFile('{ "fw": { "path": "/from-file" } }', (configFile) => {
    const fw = new Framework({ configFile, env: { FW_HOST: '0.0.0.0' }, 'fw.port': 0 });
    assert.deepEqual(fw.config.origin('fw.port'), { kind: 'option' });
    assert.deepEqual(fw.config.origin('fw.host'), { kind: 'environment', variable: 'FW_HOST' });
    assert.deepEqual(fw.config.origin('fw.path'), { kind: 'file', file: configFile, line: 1, column: 19 });
    assert.deepEqual(fw.config.origin('fw.resume.grace'), { kind: 'default' });
  });
});

test('a malformed fw.config.json is one ConfigError naming the file, line and column, the same on every Node version', async () => {
  const cases: [string, RegExp][] = [
    ['{\n  "fw": {\n    "port": 8080,\n  }\n}', /line 4, column 3: a trailing comma before \} \(JSON allows none\)$/],
    ['{\n  "fw": { "port": 8080 "host": "::" }\n}', /line 2, column 24: expected ',' or '\}' after the value of "port", found '"'$/],
    ['{ "fw": { "path": "/fw', /line 1, column 19: a string is not closed before the end of the file$/],
    ['{ "fw": { "path": "/fw }\n}', /line 1, column 25: a control character \(a raw line break or tab\) inside a string/],
    ["{ 'fw.port': 1 }", /line 1, column 3: expected a property name in double quotes, found '''$/],
    ['{ "fw.port": 8080 } // the port', /line 1, column 21: unexpected '\/' after the end of the JSON object$/],
    ['', /line 1, column 1: the file is empty: expected a JSON object$/],
    ['[1, 2]', /line 1, column 1: the file must hold one JSON object/],
    ['{ "fw.port": tru }', /line 1, column 14: expected a value, found 'tru'$/],
  ];
  for (const [text, message] of cases) {
    await withFile(text, (configFile) => {
      assert.throws(
        () => new Framework({ configFile, env: {} }),
        (err: Error & { code?: string }) => {
          assert.equal(err.name, 'Error');
          assert.equal(err.code, 'invalid_config');
          assert.ok(err.message.startsWith(`${configFile}: `), err.message);
          assert.match(err.message, message);
          return true;
        },
        text,
      );
    });
  }
  // What JSON.parse accepts, the reader does too (escapes, exponents, a byte-order mark, __proto__ as data).
  await withFile('\ufeff{"fw":{"path":"/a\\u00e9\\n","port":1e3},"__proto__":{"x":1}}', (configFile) => {
    const fw = new Framework({ configFile, env: {} });
    assert.equal(fw.config.get('fw.path'), '/a\u00e9\n');
    assert.equal(fw.config.get('fw.port'), 1000);
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });
});

test('unknown FW_* variables get the same warning as unknown keys, with the closest name; declared ones and the bridge’s do not', async () => {
  const logger = new MemoryLogger();
  await withFile('{\n  "fw": { "prot": 9000 }\n}', async (configFile) => {
    const fw = new Framework({
      configFile,
      logger,
      env: { FW_PROT: '9000', FW_PATH: '/fw', FW_MCP_BRIDGE_TOKEN: 'x', FW_SOMETHING_ELSE: '1', PATH: '/usr/bin' },
    });
    fw.config.declare({ 'fw.my-module.limit': { type: 'number', default: 1, description: '' } });
    const env2 = new Framework({ configFile: false, logger: new MemoryLogger(), env: { FW_MY_MODULE_LIMIT: '2' } });
    env2.config.declare({ 'fw.my-module.limit': { type: 'number', default: 1, description: '' } });
    await fw.start();
    await env2.start();
    const warnings = logger.entries.filter((e) => e.level === 'warn').map((e) => e.message);
    assert.deepEqual(warnings.sort(), [
      `unknown configuration key 'fw.prot' in ${configFile}, line 2, column 19 (ignored; did you mean 'fw.port'?)`,
      "unknown environment variable 'FW_PROT' (ignored; did you mean FW_PORT?)",
      "unknown environment variable 'FW_SOMETHING_ELSE' (ignored)",
    ]);
    // A module's key read from its variable is not unknown.
    assert.equal(env2.config.warnUnknown().length, 0);
    await fw.close();
    await env2.close();
  });
});
