import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { FwError } from '@fw/runtime';
import { McpRegistry, ToolRegistry } from '../dist/index.js';
import { initBody, rpc, startEdge } from './helpers.js';

const bridge = fileURLToPath(new URL('../dist/bin/stdio-bridge.js', import.meta.url));

function startBridge(url: string, args: string[] = [], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [bridge, ...args, url], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
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
  const exited = new Promise<number | null>((r) =>
    child.on('exit', (c) => {
      clearTimeout(killer);
      r(c);
    }),
  );
  return {
    lines,
    stderr: () => stderr,
    exited,
    send: (line: string) => child.stdin.write(`${line}\n`),
    end: () => child.stdin.end(),
    kill: () => child.kill('SIGKILL'),
    waitFor: (pred: (msg: Record<string, unknown>) => boolean, ms = 5000) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
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
  const b = startBridge(`http://127.0.0.1:${port}/t`, ['--verbose']);
  try {
    b.send(initBody('2025-06-18', 1));
    await b.waitFor((m) => m.id === 1);
    b.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    b.send(rpc('tools/call', { name: 'echo', arguments: { text: 'one' } }, 2));
    assert.match(JSON.stringify(await b.waitFor((m) => m.id === 2)), /"text":"one"/);

    // Server-initiated: list_changed arrives on the GET stream the bridge opened.
    for (let i = 0; i < 100 && mounted.endpoint.stats().streams === 0; i++) await new Promise((r) => setTimeout(r, 20));
    McpRegistry.of(fw).registerTool({ name: 'bridge_probe', handler: () => 'x' })();
    await b.waitFor((m) => m.method === 'notifications/tools/list_changed');

    // The server forgets the session: the bridge re-initializes and retries.
    const [session] = mounted.endpoint.allSessions();
    mounted.endpoint.end(session!.id, 'test');
    b.send(rpc('tools/call', { name: 'echo', arguments: { text: 'two' } }, 3));
    assert.match(JSON.stringify(await b.waitFor((m) => m.id === 3)), /"text":"two"/);
    assert.match(b.stderr(), /re-initializing/);
    assert.ok(!b.lines.some((l) => l.includes('fw-bridge-reinit')), 'the internal initialize answer is not forwarded');

    // A refused request still gets an answer for its id.
    b.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'x'.repeat(10) } },
      }).replace('"jsonrpc":"2.0"', '"jsonrpc":"1.0"'),
    );
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
  const bin = fileURLToPath(new URL('../../../node_modules/.bin/fw-mcp-stdio-bridge', import.meta.url));
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

test('stdio bridge: --help on stdout (exit 0); a malformed --header is a usage error (exit 2)', async () => {
  const help = spawn(process.execPath, [bridge, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  help.stdout.on('data', (d: Buffer) => (out += d.toString()));
  assert.equal(await new Promise((r) => help.on('exit', r)), 0);
  assert.match(out, /--header 'Name: value'/);
  assert.match(out, /FW_MCP_BRIDGE_TOKEN/);
  for (const bad of [['--header', 'no-colon'], ['--header', 'mcp-session-id: x'], ['--bogus']]) {
    const child = spawn(process.execPath, [bridge, ...bad, 'http://127.0.0.1:1/mcp'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    assert.equal(await new Promise((r) => child.on('exit', r)), 2, bad.join(' '));
    assert.match(err, /fw-mcp-stdio-bridge: /);
  }
});

test('stdio bridge: a credential by --header or FW_MCP_BRIDGE_TOKEN reaches the server; quiet by default', async () => {
  const seen: string[] = [];
  const { fw, port } = await startEdge(
    {},
    {
      principalResolver: (req) => {
        const auth = req.headers.authorization;
        seen.push(String(auth));
        if (auth !== 'Bearer s3cret') throw new FwError('unauthorized', 'a bearer token is required', 401);
        return { id: 'bridge-user', roles: [] };
      },
    },
  );
  try {
    for (const [args, env] of [
      [['--header', 'Authorization: Bearer s3cret'], {}],
      [[], { FW_MCP_BRIDGE_TOKEN: 's3cret' }],
    ] as [string[], Record<string, string>][]) {
      const b = startBridge(`http://127.0.0.1:${port}/t`, args, env);
      b.send(initBody('2025-11-25', 1));
      assert.ok((await b.waitFor((m) => m.id === 1)).result);
      b.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
      b.send(rpc('tools/call', { name: 'echo', arguments: { text: 'auth' } }, 2));
      assert.match(JSON.stringify(await b.waitFor((m) => m.id === 2)), /"text":"auth"/);
      b.end();
      assert.equal(await b.exited, 0);
      assert.equal(b.stderr(), '', 'nothing on stderr without --verbose');
    }
    const anonymous = startBridge(`http://127.0.0.1:${port}/t`);
    anonymous.send(initBody('2025-11-25', 1));
    const refused = await anonymous.waitFor((m) => m.id === 1);
    assert.match(String((refused.error as { message: string }).message), /HTTP 401/);
    anonymous.end();
    await anonymous.exited;
    assert.ok(seen.includes('Bearer s3cret'));
  } finally {
    await fw.close();
  }
});

test('stdio bridge: 2026-07-28 requests go statelessly with the metadata headers (Mcp-Name in Base64 when needed, x-mcp-header learnt on a HeaderMismatch); cancel closes the stream', async () => {
  const { fw, port, mounted } = await startEdge();
  const registry = new ToolRegistry('programmatic');
  let cancelled = 0;
  let started!: () => void;
  const waitStarted = new Promise<void>((r) => (started = r));
  registry.registerTool({
    name: 'wo',
    params: [{ name: 'city', schema: { type: 'string', 'x-mcp-header': 'City' } }],
    handler: (args) => `weather in ${String(args.city)}`,
  });
  registry.registerTool({ name: 'outil_é', handler: () => 'accentué' });
  registry.registerTool({
    name: 'wait',
    handler: (_a, ctx) =>
      new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          cancelled++;
          resolve('x');
        });
        started();
      }),
  });
  mounted.endpoint.catalog.add(registry);
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const b = startBridge(`http://127.0.0.1:${port}/t`);
  try {
    b.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }));
    const discovered = (await b.waitFor((m) => m.id === 1)).result as { supportedVersions: string[] };
    assert.ok(discovered.supportedVersions.includes('2026-07-28'));
    b.send(
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'wo', arguments: { city: 'Zürich' }, _meta: meta } }),
    );
    assert.match(JSON.stringify(await b.waitFor((m) => m.id === 2)), /weather in Zürich/);
    b.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'outil_é', arguments: {}, _meta: meta } }));
    const accent = await b.waitFor((m) => m.id === 3);
    assert.equal((accent.result as { resultType: string }).resultType, 'complete');
    b.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping', params: { _meta: meta } }));
    assert.equal(((await b.waitFor((m) => m.id === 4)).error as { code: number }).code, -32601);
    b.send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'wait', arguments: {}, _meta: meta } }));
    await waitStarted;
    b.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } }));
    for (let i = 0; i < 100 && cancelled === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(cancelled, 1);
    assert.equal(mounted.endpoint.stats().sessions, 0, 'no session was opened');
    b.end();
    assert.equal(await b.exited, 0);
    assert.ok(!b.lines.some((l) => (JSON.parse(l) as { id?: unknown }).id === 5), 'a cancelled request gets no answer');
  } finally {
    await fw.close();
  }
});
