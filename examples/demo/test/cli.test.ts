import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseDemoArgs, USAGE } from '../src/cli.js';

const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));

/** Runs the demo's entry point to its exit (60 s at most): exit code, stdout, stderr. */
function runDemo(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      env: { ...process.env, FW_DATA_DIR: '', DEMO_SIMULATION: 'false', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the demo did not exit within 60 s\n${stdout}\n${stderr}`));
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('--help prints the usage and exits 0 without starting anything', async () => {
  for (const flag of ['--help', '-h']) {
    const { code, stdout, stderr } = await runDemo([flag]);
    assert.equal(code, 0, stderr);
    assert.equal(stdout, `${USAGE}\n`);
    assert.match(stdout, /--port <n>/);
    assert.equal(stderr, '');
  }
});

test('an unknown option or a stray argument is refused in one line with exit code 2', async () => {
  const unknown = await runDemo(['--prot', '9000']);
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stdout, '');
  assert.equal(unknown.stderr, "fw demo: unknown option '--prot'\nTry --help for the options.\n");
  const bad = await runDemo(['--port', 'eighty']);
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, "fw demo: --port needs a port number (0-65535), got 'eighty'\nTry --help for the options.\n");
  assert.throws(() => parseDemoArgs(['serve']), { name: 'UsageError', message: "unexpected argument 'serve'" });
  assert.throws(() => parseDemoArgs(['--port']), { name: 'UsageError', message: "option '--port' needs a value" });
  assert.throws(() => parseDemoArgs(['-x']), { name: 'UsageError', message: "unknown option '-x'" });
  assert.deepEqual(parseDemoArgs(['--port=0', '--host', '::1']), { help: false, port: 0, host: '::1' });
});

test('a busy port is one line on stderr saying where the port came from and what to do; exit code 1', async () => {
  const holder = createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  const busy = (holder.address() as AddressInfo).port;
  try {
    const viaEnv = await runDemo([], { FW_PORT: String(busy) });
    assert.equal(viaEnv.code, 1);
    assert.equal(
      viaEnv.stderr,
      `fw demo: cannot listen on 127.0.0.1:${busy} (fw.port, from the environment variable FW_PORT): the port is already in use. Stop the process that holds it, or set FW_PORT=${busy + 1} (or PORT), or 0 for any free port\n`,
    );
    const viaFlag = await runDemo(['--port', String(busy)]);
    assert.equal(viaFlag.code, 1);
    assert.match(
      viaFlag.stderr,
      /^fw demo: cannot listen on 127\.0\.0\.1:\d+ \(the port given to listen\(\)\): the port is already in use\./,
    );
    assert.equal(viaFlag.stderr.split('\n').filter(Boolean).length, 1);
  } finally {
    holder.close();
  }
});
