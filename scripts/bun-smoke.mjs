#!/usr/bin/env node
// The demo and the README's 20-line app, started on Bun (docs/bun.md) and driven over real
// loopback sockets from Node, the way a person or a client would:
//   demo (`bun examples/demo/dist/src/main.js`, fw.listen() → Bun.serve): the chat page, the
//     dashboard, the admin API, the client build, probes, an fw WebSocket and an SSE client in a
//     chat room (a message sent on one arrives on both, with ids), the simulated ticker's live
//     broadcasts, and an MCP `initialize` + `tools/list` on the app's MCP server (HTTP and WebSocket);
//   README app (copied from README.md, `fw.attach(node:http server)` → Bun's node:http): the
//     app's own route, the welcome message and a broadcast over an fw WebSocket, the dashboard;
//   broadcasts through Bun's topics under socket kills, with the real @fw/client (cohortUnderFire).
// Usage: node scripts/bun-smoke.mjs (after `npm run build`); Bun as for scripts/test-bun.mjs.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';

const root = new URL('..', import.meta.url).pathname;

function findBun() {
  if (process.env.BUN) return process.env.BUN;
  if (spawnSync('bun', ['--version']).status === 0) return 'bun';
  for (const prefix of [process.env.BUN_PREFIX, root].filter(Boolean)) {
    const oven = join(prefix, 'node_modules', '@oven');
    if (!existsSync(oven)) continue;
    for (const name of readdirSync(oven)) {
      const bin = join(oven, name, 'bin', 'bun');
      if (existsSync(bin)) return bin;
    }
  }
  throw new Error('no Bun found: set BUN, put bun on PATH, or set BUN_PREFIX to an `npm install --ignore-scripts bun` prefix');
}

/** Starts `bun file` and resolves with the base URL once `pattern` (capturing the origin) shows in its output. */
function start(bun, file, env, pattern) {
  const child = spawn(bun, [file], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const base = new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${file} did not start on Bun within 60 s:\n${output.slice(-3000)}`)), 60_000);
    const seen = (d) => {
      output += d;
      const m = pattern.exec(output);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.on('exit', (code) => reject(new Error(`${file} exited (${code}) on Bun:\n${output.slice(-3000)}`)));
  });
  return { child, base, output: () => output };
}

/** Stops a child: SIGTERM (fw drains), then SIGKILL if it is still there after 10 s. */
async function stop(child) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(t);
}

/** An fw WebSocket client: the frames it receives, in order. */
function fwSocket(url, protocols) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols);
    const frames = [];
    const waiters = [];
    socket.on('message', (d) => {
      frames.push(JSON.parse(String(d)));
      for (const w of waiters.splice(0)) w();
    });
    const until = async (check, what) => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const found = frames.find(check);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no frame: ${what} (got ${JSON.stringify(frames).slice(0, 500)})`);
        await new Promise((r) => {
          waiters.push(r);
          setTimeout(r, 200);
        });
      }
    };
    socket.once('open', () => resolve({ socket, frames, until }));
    socket.once('error', reject);
  });
}

async function ok(url, init) {
  const res = await fetch(url, init);
  assert.equal(res.status, 200, `${init?.method ?? 'GET'} ${url}: ${res.status}`);
  return res;
}

async function demo(bun) {
  const data = mkdtempSync(join(tmpdir(), 'fw-bun-demo-'));
  const run = start(bun, 'examples/demo/dist/src/main.js', { FW_PORT: '0', FW_DATA_DIR: data }, /fw listening on (http:\/\/[^/ ]+)\//);
  try {
    const base = await run.base;
    assert.match(await (await ok(`${base}/`)).text(), /<html/i, 'the chat page');
    assert.match(await (await ok(`${base}/fw/admin/`)).text(), /<html/i, 'the dashboard');
    await ok(`${base}/fw/client.js`);
    assert.equal((await (await ok(`${base}/fw/ready`)).json()).status, 'ready');
    const overview = await ok(`${base}/api/admin/openapi.json`);
    assert.ok(Object.keys((await overview.json()).paths).length > 10, 'the admin OpenAPI document');

    // A chat room: an fw WebSocket and an SSE client; a message sent on the socket reaches both.
    const ws = await fwSocket(`${base.replace('http', 'ws')}/fw/chat/bun-smoke?fw=1`);
    const hs = await ws.until((f) => f.t === 'hs', 'handshake');
    assert.equal(hs.transport, 'websocket');
    const sse = await fetch(`${base}/fw/chat/bun-smoke?fw=1`, { headers: { accept: 'text/event-stream' } });
    assert.equal(sse.status, 200);
    const reader = sse.body.getReader();
    let text = '';
    const sseHas = async (needle) => {
      const deadline = Date.now() + 15_000;
      while (!text.includes(needle)) {
        if (Date.now() > deadline) throw new Error(`SSE never carried ${needle}: ${text.slice(0, 500)}`);
        const { value, done } = await reader.read();
        if (done) throw new Error('the SSE stream ended');
        text += new TextDecoder().decode(value);
      }
    };
    await sseHas('"t":"hs"');
    ws.socket.send(JSON.stringify({ t: 'm', d: JSON.stringify({ text: 'hello from bun-smoke' }) }));
    const m = await ws.until((f) => f.t === 'm' && String(f.d).includes('hello from bun-smoke'), 'the chat message back');
    assert.equal(typeof m.id, 'number');
    await sseHas('hello from bun-smoke');
    await reader.cancel();
    ws.socket.close(1000);

    // The simulated ticker broadcasts on its own.
    const ticker = await fwSocket(`${base.replace('http', 'ws')}/fw/demo/ticker?fw=1`);
    await ticker.until((f) => f.t === 'm', 'a ticker broadcast');
    ticker.socket.close(1000);

    // MCP over Streamable HTTP on Bun's fetch handler.
    const mcp = (body, session) =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(session ? { 'mcp-session-id': session } : {}),
        },
        body: JSON.stringify(body),
      });
    const init = await mcp({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bun-smoke', version: '1' } },
    });
    assert.equal(init.status, 200, 'MCP initialize');
    const session = init.headers.get('mcp-session-id') ?? undefined;
    await init.text();
    if (session) await (await mcp({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
    const tools = await (await mcp({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, session)).text();
    assert.match(tools, /"tools"/, 'MCP tools/list');

    // MCP over WebSocket, on Bun's own sockets (subprotocol mcp).
    const mcpWs = await fwSocket(`${base.replace('http', 'ws')}/mcp`, 'mcp');
    assert.equal(mcpWs.socket.protocol, 'mcp', 'the 101 names the subprotocol');
    const rpc = (message) => mcpWs.socket.send(JSON.stringify({ jsonrpc: '2.0', ...message }));
    rpc({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bun-smoke', version: '1' } },
    });
    await mcpWs.until((f) => f.id === 1 && f.result !== undefined, 'MCP initialize over WebSocket');
    rpc({ method: 'notifications/initialized' });
    rpc({ id: 2, method: 'tools/list' });
    const listed = await mcpWs.until((f) => f.id === 2, 'MCP tools/list over WebSocket');
    assert.ok(Array.isArray(listed.result?.tools) && listed.result.tools.length > 0, 'MCP tools/list over WebSocket');
    mcpWs.socket.close(1000);
    console.log(
      `ok   demo on Bun (${base}): pages, dashboard, admin API, chat over WebSocket and SSE, ticker, MCP over HTTP and WebSocket`,
    );
  } finally {
    await stop(run.child);
    rmSync(data, { recursive: true, force: true });
  }
}

async function readmeApp(bun) {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## A 20-line app'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(code?.includes('server.listen(8080);'), 'README.md: the 20-line app ends with server.listen(8080)');
  // In the repository, so that @fw/* resolve to the workspace packages; removed afterwards.
  const dir = mkdtempSync(join(root, '.bun-smoke-'));
  const file = join(dir, 'app.ts');
  writeFileSync(
    file,
    code.replace(
      'server.listen(8080);',
      "server.listen(0, '127.0.0.1', () => console.log('README app on http://127.0.0.1:' + (server.address() as { port: number }).port + '/'));",
    ),
  );
  const run = start(bun, file, { FW_DATA_DIR: '' }, /README app on (http:\/\/[^/ ]+)\//);
  try {
    const base = await run.base;
    assert.equal(await (await ok(`${base}/somewhere`)).text(), 'my app');
    const ws = await fwSocket(`${base.replace('http', 'ws')}/fw/chat/lobby?fw=1`);
    await ws.until((f) => f.t === 'm' && String(f.d).includes('welcome to lobby'), 'the welcome message');
    ws.socket.send(JSON.stringify({ t: 'm', d: 'hi' }));
    await ws.until((f) => f.t === 'm' && String(f.d).includes('"text":"hi"'), 'the broadcast');
    ws.socket.close(1000);
    await ok(`${base}/fw/admin/`);
    console.log(`ok   README app on Bun (${base}): node:http attach, app route, fw WebSocket, dashboard`);
  } finally {
    await stop(run.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Broadcasts through Bun's topics (docs/bun.md, *Broadcasts*) under fire: 20 `@fw/client`s (Node,
 * implicit ids) in one room on Bun; 3,000 broadcasts with a unicast to one of them every 7th and
 * a server-side kill of one client's socket every 23rd (each client resumes). Every client must
 * get every broadcast once, in order, its own unicasts right after the broadcast they followed,
 * and no gap: the cohort's members leave it on each unicast and each drop and take what the topic
 * sent into their resume buffer.
 */
const COHORT_SERVER = `
import { Framework } from '@fw/runtime';
const fw = new Framework({ configFile: false, env: {}, 'fw.connections.max-per-address': 0, 'fw.resume.buffer': 4096 });
fw.handle('/room', {});
fw.route('POST', '/run', async (_req, res) => {
  const room = () => fw.broadcasters.lookup('/fw/room');
  const unicasts = {};
  let kills = 0;
  for (let i = 0; i < 3000; i++) {
    room()?.broadcast('b' + i);
    const members = [...(room()?.resources ?? [])];
    if (i % 7 === 0 && members.length > 0) {
      const r = members[i % members.length];
      r.write('u' + i);
      (unicasts[r.uuid] ??= []).push('u' + i);
    }
    if (i % 23 === 0 && members.length > 0) {
      members[(i * 13) % members.length].connection?.destroy();
      kills++;
    }
    if (i % 10 === 0) await new Promise((r) => setTimeout(r, 1));
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ unicasts, kills, topics: fw.runtime.topics !== undefined }));
});
const { port } = await fw.listen(0, '127.0.0.1');
console.log('cohort server on http://127.0.0.1:' + port + '/');
`;

async function cohortUnderFire(bun) {
  const { connect } = await import(join(root, 'packages/client/dist/node.js'));
  const dir = mkdtempSync(join(root, '.bun-smoke-'));
  const file = join(dir, 'cohort.ts');
  writeFileSync(file, COHORT_SERVER);
  const run = start(bun, file, { FW_DATA_DIR: '' }, /cohort server on (http:\/\/[^/ ]+)\//);
  const clients = [];
  try {
    const base = await run.base;
    for (let i = 0; i < 20; i++) {
      const client = connect(`${base}/fw/room`, { transports: ['websocket'], reconnect: { minDelay: 10, maxDelay: 50 } });
      const got = [];
      const gaps = [];
      const recoveries = [];
      client.onMessage((d) => got.push(d));
      client.onGap((g) => gaps.push(g));
      client.onRecovery((r) => recoveries.push(r));
      clients.push({ client, got, gaps, recoveries });
    }
    const deadline = Date.now() + 15_000;
    while (clients.some((c) => c.client.state !== 'open')) {
      assert.ok(Date.now() < deadline, 'the 20 clients connect');
      await new Promise((r) => setTimeout(r, 50));
    }
    const outcome = await (await ok(`${base}/run`, { method: 'POST' })).json();
    assert.equal(outcome.topics, true, 'fw.listen() on Bun broadcasts through topics');
    const expected = Array.from({ length: 3000 }, (_, i) => `b${i}`);
    let resumes = 0;
    for (const { client, got, gaps, recoveries } of clients) {
      const mine = outcome.unicasts[client.uuid] ?? [];
      const until = Date.now() + 15_000;
      while (got.length < 3000 + mine.length && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(
        got.filter((m) => m[0] === 'b'),
        expected,
        `client ${client.uuid}: every broadcast once, in order`,
      );
      assert.deepEqual(
        got.filter((m) => m[0] === 'u'),
        mine,
        `client ${client.uuid}: its unicasts`,
      );
      got.forEach((m, k) => m[0] === 'u' && assert.equal(got[k - 1], `b${m.slice(1)}`, `client ${client.uuid}: ${m} in its place`));
      assert.deepEqual(gaps, [], `client ${client.uuid}: no gap`);
      // Each drop was a resume from the resource's own buffer, not a fresh start caught up from the replay cache.
      for (const r of recoveries) assert.ok(r.resumed && r.recovered, `client ${client.uuid}: ${JSON.stringify(r)}`);
      resumes += recoveries.length;
    }
    assert.ok(resumes >= outcome.kills, `every killed socket resumed (${resumes} resumes, ${outcome.kills} kills)`);
    const unicasts = Object.values(outcome.unicasts).flat().length;
    console.log(
      `ok   broadcasts through topics on Bun: 20 fw clients, 3,000 broadcasts, ${unicasts} unicasts, ${outcome.kills} sockets killed and resumed: all once, in order, no gap`,
    );
  } finally {
    for (const { client } of clients) client.close();
    await stop(run.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

const bun = findBun();
console.log(
  `bun ${spawnSync(bun, ['--version'], { encoding: 'utf8' }).stdout.trim()}: the demo, the README app, broadcasts through topics`,
);
await demo(bun);
await readmeApp(bun);
await cohortUnderFire(bun);
