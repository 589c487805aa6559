/**
 * Behind a balancer without sticky sessions, the upstream half of an HTTP transport (a message POST
 * or a DELETE for an SSE or long-polling resource) or an MCP session request can reach a node that
 * does not hold it. That node answers 421 Misdirected Request naming the node that does, not a
 * bare 404 that reads as "expired"; a tracking id or session no node holds stays a 404.
 */
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type FwClient } from '@fw/client/node';
import { waitFor } from '@fw/testing';
import { REDIS_URL, redisAvailable, SKIP_NO_REDIS, startNode, stopNode, uniquePrefix, type FwNode } from './harness.js';

const available = await redisAvailable();
const skip = !available && SKIP_NO_REDIS;
let a: FwNode;
let b: FwNode;
let prefix = '';
const clients: FwClient[] = [];

before(async () => {
  if (!available) return;
  prefix = uniquePrefix('misdirected');
  [a, b] = await Promise.all([startNode(REDIS_URL, prefix, 'a'), startNode(REDIS_URL, prefix, 'b')]);
});
after(async () => {
  for (const c of clients) c.close();
  await Promise.all([a, b].filter(Boolean).map((n) => stopNode(n)));
});

async function openOn(node: FwNode, transport: 'sse' | 'long-polling'): Promise<string> {
  const client = connect(`${node.url}/fw/chat/misroute`, { transports: [transport], reconnect: false });
  clients.push(client);
  await waitFor(`a ${transport} client open on node a`, () => client.state === 'open' && client.uuid !== undefined);
  return client.uuid!;
}

interface Problem {
  code?: string;
  detail?: string;
  node?: string;
  error?: { code: number; message: string };
}

async function problemOf(res: Response): Promise<Problem> {
  return (await res.json()) as Problem;
}

for (const transport of ['sse', 'long-polling'] as const) {
  test(`${transport}: a message POST and a DELETE that reach the wrong node get 421 naming the right one`, { skip }, async () => {
    const uuid = await openOn(a, transport);
    const url = `${b.url}/fw/chat/misroute?tracking=${uuid}`;
    const post = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    assert.equal(post.status, 421);
    const p = await problemOf(post);
    assert.equal(p.code, 'misdirected_request');
    assert.equal(p.node, 'a');
    assert.match(p.detail ?? '', /sticky sessions/);
    const del = await fetch(url, { method: 'DELETE' });
    assert.equal(del.status, 421);
    // The resource is untouched on its own node: a POST there is accepted.
    const home = await fetch(`${a.url}/fw/chat/misroute?tracking=${uuid}`, { method: 'POST', body: 'hello' });
    assert.equal(home.status, 204);
    // A tracking id no node holds is still the plain 404.
    const unknown = await fetch(`${b.url}/fw/chat/misroute?tracking=${randomUUID()}`, { method: 'POST', body: 'x' });
    assert.equal(unknown.status, 404);
    assert.equal((await problemOf(unknown)).code, 'unknown_tracking_id');
  });
}

test('MCP: a request with a session held by another node gets 421 naming it; an unknown session is 404', { skip }, async () => {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(`${a.url}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'misroute', version: '1' } },
    }),
  });
  assert.equal(init.status, 200);
  const session = init.headers.get('mcp-session-id');
  assert.ok(session);
  await init.arrayBuffer();
  const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  const sessionHeaders = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
  const wrong = await fetch(`${b.url}/mcp`, { method: 'POST', headers: sessionHeaders, body: list });
  assert.equal(wrong.status, 421);
  const p = await problemOf(wrong);
  assert.equal(p.code, 'mcp_misdirected_request');
  assert.match(p.detail ?? '', /node 'a'/);
  assert.ok(p.error, 'the body carries a JSON-RPC error member too');
  const unknown = await fetch(`${b.url}/mcp`, { method: 'POST', headers: { ...sessionHeaders, 'mcp-session-id': 'nope' }, body: list });
  assert.equal(unknown.status, 404);
  // Counted where operators look.
  const metrics = await (await fetch(`${b.url}/fw/metrics`)).text();
  const counted = Number(/^fw_misdirected_requests_total (\d+)$/m.exec(metrics)?.[1]);
  assert.ok(
    counted >= 1,
    metrics
      .split('\n')
      .filter((l) => l.includes('misdirected'))
      .join('\n'),
  );
});

test('fw.limits.cluster-lookups bounds the lookups: at 0 a node never asks the others and answers the plain 404', { skip }, async () => {
  const c = await startNode(REDIS_URL, prefix, 'c', ['fw.limits.cluster-lookups=0']);
  try {
    const uuid = await openOn(a, 'sse');
    const res = await fetch(`${c.url}/fw/chat/misroute?tracking=${uuid}`, { method: 'POST', body: 'x' });
    assert.equal(res.status, 404);
    assert.equal((await problemOf(res)).code, 'unknown_tracking_id');
  } finally {
    await stopNode(c);
  }
});
