import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { McpRegistry } from '../src/index.js';
import { initBody, rpc, startEdge } from './helpers.js';

const bridge = fileURLToPath(new URL('../src/bin/stdio-bridge.js', import.meta.url));

function startBridge(url: string) {
  const child = spawn(process.execPath, [bridge, url], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  let buf = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      lines.push(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
    for (const w of [...waiters]) w();
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // Never outlive the test: a bridge that does not exit by itself is killed (and the test fails).
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const exited = new Promise<number | null>((r) => child.on('exit', (c) => {
    clearTimeout(killer);
    r(c);
  }));
  return {
    lines,
    stderr: () => stderr,
    exited,
    send: (line: string) => child.stdin.write(`${line}\n`),
    end: () => child.stdin.end(),
    kill: () => child.kill('SIGKILL'),
    waitFor: (pred: (msg: Record<string, unknown>) => boolean, ms = 5000) => new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        const hit = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find(pred);
        if (hit) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(hit);
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out; stdout=${lines.join('\n')} stderr=${stderr}`));
      }, ms);
      waiters.add(check);
      check();
    }),
  };
}

test('stdio bridge: stdout carries only JSON-RPC lines; GET-stream messages are forwarded; a 404 re-initializes transparently', async () => {
  const { fw, port, mounted } = await startEdge();
  const b = startBridge(`http://127.0.0.1:${port}/t`);
  try {
    b.send(initBody('2025-06-18', 1));
    await b.waitFor((m) => m.id === 1);
    b.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    b.send(rpc('tools/call', { name: 'echo', arguments: { text: 'one' } }, 2));
    assert.match(JSON.stringify(await b.waitFor((m) => m.id === 2)), /"text":"one"/);

    // Server-initiated: list_changed arrives on the GET stream the bridge opened.
    for (let i = 0; i < 100 && mounted.endpoint.stats().streams === 0; i++) await new Promise((r) => setTimeout(r, 20));
    McpRegistry.get().registerTool({ name: 'bridge_probe', handler: () => 'x' })();
    await b.waitFor((m) => m.method === 'notifications/tools/list_changed');

    // The server forgets the session: the bridge re-initializes and retries.
    const [session] = mounted.endpoint.allSessions();
    mounted.endpoint.end(session!.id, 'test');
    b.send(rpc('tools/call', { name: 'echo', arguments: { text: 'two' } }, 3));
    assert.match(JSON.stringify(await b.waitFor((m) => m.id === 3)), /"text":"two"/);
    assert.match(b.stderr(), /re-initializing/);
    assert.ok(!b.lines.some((l) => l.includes('fw-bridge-reinit')), 'the internal initialize answer is not forwarded');

    // A refused request still gets an answer for its id.
    b.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(10) } } }).replace('"jsonrpc":"2.0"', '"jsonrpc":"1.0"'));
    assert.equal(((await b.waitFor((m) => m.id === 4)).error as { code: number }).code, -32600);

    b.end();
    assert.equal(await b.exited, 0);
    for (const l of b.lines) assert.equal((JSON.parse(l) as { jsonrpc: string }).jsonrpc, '2.0');
    assert.equal(mounted.endpoint.stats().sessions, 0, 'stdin EOF deletes the session');
  } finally {
    b.kill();
    await fw.close();
  }
});

test('stdio bridge: the compiled bin starts with a node shebang', async () => {
  const { readFileSync } = await import('node:fs');
  assert.equal(readFileSync(bridge, 'utf8').split('\n')[0], '#!/usr/bin/env node');
});

test('stdio bridge: npm install links the fw-mcp-stdio-bridge bin, and it runs the bridge', async () => {
  // The README tells users to run `npx fw-mcp-stdio-bridge <url>`: the bin must be linked even in
  // a fresh checkout, where dist/ did not exist at install time.
  const bin = fileURLToPath(new URL('../../../../node_modules/.bin/fw-mcp-stdio-bridge', import.meta.url));
  const child = spawn(bin, [], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end();
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  assert.equal(await new Promise((r) => child.on('exit', r)), 2);
  assert.match(stderr, /fw-mcp-stdio-bridge: usage/);
});

test('stdio bridge: exit 2 with a message for a missing or bad URL', async () => {
  for (const args of [[], ['not a url'], ['ftp://127.0.0.1/mcp']]) {
    const child = spawn(process.execPath, [bridge, ...args]);
    child.stdin.end();
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    assert.equal(await new Promise((r) => child.on('exit', r)), 2);
    assert.match(stderr, /fw-mcp-stdio-bridge: (usage|not a URL|the URL must be)/);
    assert.equal(stdout, '');
  }
});

test('stdio bridge: exit 3 with a message when the server is unreachable', async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const b = startBridge(`http://127.0.0.1:${port}/mcp`);
  b.send(initBody());
  const timer = setTimeout(() => b.kill(), 10_000);
  assert.equal(await b.exited, 3);
  clearTimeout(timer);
  assert.match(b.stderr(), /cannot reach http:\/\/127\.0\.0\.1:\d+\/mcp: ECONNREFUSED/);
  assert.deepEqual(b.lines, []);
});
