/**
 * Streamable HTTP resumability (issue 13 item 6; MCP 2025-11-25 basic/transports, "Resumability
 * and Redelivery"): event ids unique across the streams of a session, `Last-Event-ID` on GET
 * replays what the client missed, a POST's stream cut before its result is resumed so the result
 * arrives exactly once, SSE polling, and the bounded replay buffer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpRegistry } from '../dist/index.js';
import { EdgeServer, JSON_HEADERS, http, openSession, openSse, rpc, startEdge } from './helpers.js';
import { waitFor } from '@fw/testing';

/**
 * A TCP proxy in front of the server. It watches every connection: the one that carries a
 * `tools/call` POST is cut as soon as the server's priming event (`retry:`) has passed through,
 * before the result can. It records what went down to the client and the Last-Event-IDs that
 * came up.
 */
interface CuttingProxy {
  port: number;
  cuts: number;
  downstream: string[];
  lastEventIds: string[];
  close(): Promise<void>;
}

async function cuttingProxy(upstreamPort: number): Promise<CuttingProxy> {
  const sockets = new Set<Socket>();
  const proxy: CuttingProxy = { port: 0, cuts: 0, downstream: [], lastEventIds: [], close: async () => {} };
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: upstreamPort });
    sockets.add(client).add(upstream);
    let cutPending = false;
    let down = '';
    const kill = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      if (text.includes('"tools/call"') && proxy.cuts === 0) {
        cutPending = true;
        down = '';
      }
      const m = /\r\nlast-event-id: ([^\r\n]*)/i.exec(text);
      if (m) proxy.lastEventIds.push(m[1]!);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      proxy.downstream.push(text);
      client.write(chunk);
      if (cutPending) {
        down += text;
        if (/\nretry: \d+\n/.test(down)) {
          cutPending = false;
          proxy.cuts++;
          kill();
        }
      }
    });
    client.on('close', kill);
    upstream.on('close', kill);
    client.on('error', kill);
    upstream.on('error', kill);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy.port = (server.address() as AddressInfo).port;
  proxy.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return proxy;
}

test('acceptance: a proxy cuts a POST stream before its result; the SDK client resumes with Last-Event-ID and gets the result exactly once', async () => {
  const { fw, port, mounted } = await startEdge({ 'fw.mcp.sse-retry': 50 });
  const proxy = await cuttingProxy(port);
  const client = new Client({ name: 'resume-test', version: '1.0.0' });
  const errors: string[] = [];
  client.onerror = (e) => errors.push(String(e));
  const callsBefore = EdgeServer.gatedCalls;
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${proxy.port}/t`)));
    const call = client.callTool({ name: 'gated', arguments: {} });
    await waitFor('the cut', () => proxy.cuts === 1);
    // The SDK comes back with the priming event's id, naming the POST's stream.
    await waitFor('a GET with Last-Event-ID', () => proxy.lastEventIds.length > 0);
    assert.match(proxy.lastEventIds[0]!, /^\d+-0$/);
    await waitFor('the tool to wait', () => EdgeServer.gates.length === 1);
    EdgeServer.openGates();
    const result = await call;
    const text = `gated-ok-${callsBefore + 1}`;
    assert.deepEqual(result.content, [{ type: 'text', text }]);
    assert.equal(EdgeServer.gatedCalls, callsBefore + 1, 'the tool ran once');
    const all = proxy.downstream.join('');
    assert.equal(all.split(text).length - 1, 1, 'the result went down to the client exactly once');
    // The session goes on as normal afterwards.
    assert.ok((await client.listTools()).tools.length > 0);
    assert.deepEqual(
      errors.filter((e) => /unknown message ID|Maximum reconnection/i.test(e)),
      [],
    );
  } finally {
    EdgeServer.openGates();
    await client.close();
    await proxy.close();
    await fw.close();
  }
  assert.equal(mounted.endpoint.stats().sessions, 0);
});

test('SSE polling: with fw.mcp.sse-poll-interval the server ends connections (retry first); the SDK client polls with Last-Event-ID and gets the result once', async () => {
  const { fw, port } = await startEdge({ 'fw.mcp.sse-poll-interval': 60, 'fw.mcp.sse-retry': 20 });
  const resumes: string[] = [];
  const fetchRecording: typeof fetch = async (input, init) => {
    const id = new Headers(init?.headers).get('last-event-id');
    if ((init?.method ?? 'GET') === 'GET' && id) resumes.push(id);
    return fetch(input, init);
  };
  const client = new Client({ name: 'poll-test', version: '1.0.0' });
  const errors: string[] = [];
  client.onerror = (e) => errors.push(String(e));
  const callsBefore = EdgeServer.gatedCalls;
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/t`), { fetch: fetchRecording }));
    const call = client.callTool({ name: 'gated', arguments: {} });
    await waitFor('the tool to wait', () => EdgeServer.gates.length === 1);
    // The POST's stream has been polled at least twice before the result exists.
    await waitFor('polls', () => resumes.length >= 3);
    EdgeServer.openGates();
    const result = await call;
    assert.deepEqual(result.content, [{ type: 'text', text: `gated-ok-${callsBefore + 1}` }]);
    assert.ok(
      resumes.every((r) => /^\d+-\d+$/.test(r)),
      resumes.join(' '),
    );
    assert.deepEqual(
      errors.filter((e) => /unknown message ID|Maximum reconnection/i.test(e)),
      [],
      'no duplicate answer, no reconnect loop given up',
    );
  } finally {
    EdgeServer.openGates();
    await client.close();
    await fw.close();
  }
});

test('event ids are unique across the streams of a session and name their stream; Last-Event-ID on GET replays the standalone stream', async () => {
  const { fw, port } = await startEdge({});
  try {
    const id = await openSession(port, '2025-11-25');
    const headers = { accept: 'text/event-stream', 'mcp-session-id': id };
    const first = await openSse(port, '/t', headers);
    await first.waitFor(/id: \d+-0\nretry: \d+\ndata: \n\n/);
    const primed = /id: (\d+)-0\n/.exec(first.text())!;
    const standalone = primed[1]!;
    // Two POST streams of the same session: their ids do not repeat each other or the GET's.
    const a = await http(
      port,
      'POST',
      '/t',
      { ...JSON_HEADERS, 'mcp-session-id': id },
      rpc('tools/call', { name: 'echo', arguments: { text: 'a' } }, 10),
    );
    const b = await http(
      port,
      'POST',
      '/t',
      { ...JSON_HEADERS, 'mcp-session-id': id },
      rpc('tools/call', { name: 'echo', arguments: { text: 'b' } }, 11),
    );
    const ids = (t: string) => [...t.matchAll(/^id: (\S+)$/gm)].map((m) => m[1]!);
    const postIds = [...ids(a.text), ...ids(b.text)];
    assert.equal(new Set(postIds).size, postIds.length);
    assert.ok(postIds.every((x) => !x.startsWith(`${standalone}-`)));

    McpRegistry.of(fw).registerPrompt({ name: 'p1', handler: () => [] })();
    await first.waitFor(/prompts\/list_changed[\s\S]*prompts\/list_changed/);
    const lastSeen = ids(first.text()).at(-1)!;
    first.close();
    await first.ended;
    // Missed while disconnected.
    McpRegistry.of(fw).registerTool({ name: 'missed_tool', handler: () => 'x' })();
    const resumed = await openSse(port, '/t', { ...headers, 'last-event-id': lastSeen });
    assert.equal(resumed.status, 200);
    await resumed.waitFor(/tools\/list_changed[\s\S]*tools\/list_changed/);
    const replay = resumed.text();
    assert.doesNotMatch(replay, /prompts\/list_changed/, 'nothing the client had is sent again');
    const replayed = ids(replay).filter((x) => x !== lastSeen);
    assert.ok(
      replayed.every((x) => x.startsWith(`${standalone}-`)),
      'only the standalone stream is replayed',
    );
    assert.ok(Number(replayed[0]!.split('-')[1]) === Number(lastSeen.split('-')[1]) + 1, 'it continues right after Last-Event-ID');
    // Live traffic continues on the resumed connection.
    McpRegistry.of(fw).registerResource({ uri: 'live://one', name: 'one', read: () => 'x' })();
    await resumed.waitFor(/resources\/list_changed/);
    resumed.close();

    // An id this session never issued is refused clearly.
    const bad = await http(port, 'GET', '/t', { ...headers, 'last-event-id': '999-1' });
    assert.equal(bad.status, 400);
    assert.equal((bad.json() as { code: string }).code, 'mcp_replay_unavailable');
  } finally {
    await fw.close();
  }
});

test('fw.mcp.replay-buffer bounds what a session keeps: a long disconnect replays only the newest events', async () => {
  const { fw, port } = await startEdge({ 'fw.mcp.replay-buffer': 2 });
  try {
    const id = await openSession(port, '2025-11-25');
    const headers = { accept: 'text/event-stream', 'mcp-session-id': id };
    const first = await openSse(port, '/t', headers);
    await first.waitFor(/id: \d+-0\n/);
    const primeId = /id: (\d+-0)\n/.exec(first.text())![1]!;
    first.close();
    await first.ended;
    for (let i = 0; i < 3; i++) McpRegistry.of(fw).registerPrompt({ name: `bounded${i}`, handler: () => [] });
    for (let i = 0; i < 3; i++) McpRegistry.of(fw).removePrompt(`bounded${i}`);
    const resumed = await openSse(port, '/t', { ...headers, 'last-event-id': primeId });
    await resumed.waitFor(/list_changed[\s\S]*list_changed/);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(resumed.text().split('list_changed').length - 1, 2, 'two events held, not more');
    resumed.close();
  } finally {
    await fw.close();
  }
});
