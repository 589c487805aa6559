import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework, type Resource } from '@fw/runtime';
import {
  BiDirectionalToolBridge,
  BridgeClientError,
  BridgeDisconnectedError,
  BridgeLimitError,
  BridgeTimeoutError,
  pendingBridgeCalls,
} from '../dist/index.js';

/** A Resource double: records bridge calls, lets the test play the client. */
class FakeResource {
  readonly written: { type: string; id: string; toolName: string; arguments: Record<string, unknown> }[] = [];
  readonly responseListeners = new Set<(d: string) => boolean>();
  readonly closeListeners = new Set<(r: string) => void>();
  closed = false;
  writable = true;
  constructor(readonly uuid: string) {}
  write(): boolean {
    throw new Error('the bridge writes tool-call frames only, never application messages');
  }
  writeToolCall(payload: string): boolean {
    if (!this.writable || this.closed) return false;
    this.written.push(JSON.parse(payload) as never);
    return true;
  }
  onMessage(): () => void {
    throw new Error('the bridge listens to tool-response frames only, never to application messages');
  }
  onToolResponse(l: (d: string) => boolean): () => void {
    this.responseListeners.add(l);
    return () => this.responseListeners.delete(l);
  }
  onClose(l: (r: string) => void): () => void {
    this.closeListeners.add(l);
    return () => this.closeListeners.delete(l);
  }
  /** The client sends a tool-response frame; true when a pending call claimed it. */
  send(data: unknown): boolean {
    let claimed = false;
    for (const l of [...this.responseListeners]) claimed = l(typeof data === 'string' ? data : JSON.stringify(data)) || claimed;
    return claimed;
  }
  disconnect(reason = 'gone'): void {
    this.closed = true;
    for (const l of [...this.closeListeners]) l(reason);
  }
  get listeners(): number {
    return this.responseListeners.size + this.closeListeners.size;
  }
}

const asResource = (r: FakeResource) => r as unknown as Resource;

test('callClientTool sends the spec message and resolves with the matching tool-response', async () => {
  const bridge = new BiDirectionalToolBridge();
  const r = new FakeResource('r1');
  const p = bridge.callClientTool(asResource(r), 'add', { a: 1, b: 2 });
  const call = r.written[0]!;
  assert.deepEqual({ ...call, id: typeof call.id }, { type: 'tool-call', id: 'string', toolName: 'add', arguments: { a: 1, b: 2 } });
  assert.equal(bridge.pendingCount(), 1);
  r.send({ type: 'tool-response', id: call.id, result: 3 });
  assert.equal(await p, '3', 'non-string results arrive JSON-encoded');
  assert.equal(bridge.pendingCount(), 0);
  assert.equal(r.listeners, 0, 'no listener left once nothing is pending');
  assert.equal(bridge.timeoutMs, 30_000);
});

test('timeout: BridgeTimeoutError at the configured duration, then the call is gone', async () => {
  const bridge = new BiDirectionalToolBridge(80);
  const r = new FakeResource('r2');
  const started = Date.now();
  const err = await bridge.callClientTool(asResource(r), 'slow', {}).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof BridgeTimeoutError);
  assert.equal(err.code, 'bridge_timeout');
  assert.ok(Date.now() - started >= 75, 'not before the timeout');
  assert.equal(bridge.pendingCount(), 0);
  // A late answer is ignored and counted.
  r.send({ type: 'tool-response', id: r.written[0]!.id, result: 'late' });
  assert.equal(bridge.stats().ignoredResponses, 0, 'no listener any more: the late answer never reaches the bridge');
  assert.equal(bridge.stats().timedOut, 1);
});

test('disconnect rejects every pending call of that connection at once, and only those', async () => {
  const bridge = new BiDirectionalToolBridge(); // 30 s: a rejection now can only come from the disconnect
  const a = new FakeResource('a');
  const b = new FakeResource('b');
  const pa = [bridge.callClientTool(asResource(a), 't1'), bridge.callClientTool(asResource(a), 't2')];
  const pb = bridge.callClientTool(asResource(b), 't3');
  assert.equal(bridge.pendingCount(), 3);
  a.disconnect('network down');
  for (const p of pa) await assert.rejects(p, (e: unknown) => e instanceof BridgeDisconnectedError && /network down/.test(e.message));
  assert.equal(bridge.pendingCount(), 1);
  assert.deepEqual(
    bridge.pendingCalls().map((c) => [c.resourceUuid, c.toolName]),
    [['b', 't3']],
  );
  b.send({ type: 'tool-response', id: b.written[0]!.id, result: 'ok' });
  assert.equal(await pb, 'ok');
  await assert.rejects(bridge.callClientTool(asResource(a), 't4'), BridgeDisconnectedError);
  const c = new FakeResource('c');
  c.writable = false;
  await assert.rejects(bridge.callClientTool(asResource(c), 't5'), BridgeDisconnectedError);
  assert.equal(bridge.pendingCount(), 0);
});

test('100 concurrent calls answered in reverse order resolve by id; pendingCount/pendingCalls stay right', async () => {
  const fw = new Framework({ configFile: false });
  const other = new Framework({ configFile: false });
  const bridge = new BiDirectionalToolBridge({ framework: fw });
  const r = new FakeResource('many');
  const calls = Array.from({ length: 100 }, (_, i) => bridge.callClientTool(asResource(r), 'square', { n: i }));
  assert.equal(bridge.pendingCount(), 100);
  assert.equal(bridge.pendingCalls().length, 100);
  assert.equal(new Set(bridge.pendingCalls().map((c) => c.id)).size, 100);
  assert.equal(pendingBridgeCalls(fw).length, 100, "its framework's admin view sees them");
  assert.equal(pendingBridgeCalls(other).length, 0, 'another framework in the process does not');
  const written = [...r.written].reverse();
  written.forEach((w, k) => {
    r.send({ type: 'tool-response', id: w.id, result: String((w.arguments.n as number) ** 2) });
    assert.equal(bridge.pendingCount(), 99 - k);
    assert.ok(!bridge.pendingCalls().some((c) => c.id === w.id));
  });
  assert.deepEqual(
    await Promise.all(calls),
    Array.from({ length: 100 }, (_, i) => String(i * i)),
  );
  assert.equal(bridge.stats().completed, 100);
});

test('malformed and unknown-id tool-responses are ignored and counted; an error answer rejects', async () => {
  const bridge = new BiDirectionalToolBridge();
  const r = new FakeResource('x');
  const p = bridge.callClientTool(asResource(r), 'echo', {});
  // None of these is claimed (so a raw client's message of that shape stays the app's).
  assert.equal(r.send('{"type":"tool-response"'), false); // not JSON
  assert.equal(r.send({ type: 'tool-response', id: 'nope', result: 1 }), false); // unknown id
  assert.equal(r.send({ type: 'tool-response', id: 42, result: 1 }), false); // id of the wrong type
  assert.equal(r.send({ type: 'tool-response', id: r.written[0]!.id }), false); // neither result nor error
  assert.equal(r.send({ type: 'chat', text: 'tool-response mentioned in chat' }), false); // not an answer: not counted
  assert.equal(bridge.stats().ignoredResponses, 3);
  assert.equal(bridge.pendingCount(), 1);
  assert.equal(r.send({ type: 'tool-response', id: r.written[0]!.id, error: 'no handler' }), true);
  await assert.rejects(
    p,
    (e: unknown) => e instanceof BridgeClientError && e.code === 'bridge_client_error' && /no handler/.test(e.message),
  );
  // Each call settles once: a duplicate answer is ignored.
  const q = bridge.callClientTool(asResource(r), 'echo', {});
  const id = r.written[1]!.id;
  r.send({ type: 'tool-response', id, result: 'first' });
  r.send({ type: 'tool-response', id, result: 'second' });
  assert.equal(await q, 'first');
});

test('maxPending bounds the pending calls', async () => {
  const bridge = new BiDirectionalToolBridge({ timeout: 1000, maxPending: 2 });
  const r = new FakeResource('cap');
  const held = [bridge.callClientTool(asResource(r), 'a'), bridge.callClientTool(asResource(r), 'b')];
  await assert.rejects(bridge.callClientTool(asResource(r), 'c'), BridgeLimitError);
  bridge.close('test over');
  for (const h of held) await assert.rejects(h, BridgeDisconnectedError);
  assert.equal(r.listeners, 0);
});

test('an answer nested 10,000 levels deep fails its call (never left pending) and the bridge keeps working', async () => {
  const bridge = new BiDirectionalToolBridge();
  const r = new FakeResource('deep');
  const p = bridge.callClientTool(asResource(r), 'deep');
  const id = r.written[0]!.id;
  r.send(`{"type":"tool-response","id":"${id}","result":${'['.repeat(10_000)}${']'.repeat(10_000)}}`);
  await assert.rejects(p, (e: unknown) => e instanceof BridgeClientError && /nests too deep/.test(e.message));
  assert.equal(bridge.pendingCount(), 0);
  const next = bridge.callClientTool(asResource(r), 'ok');
  r.send({ type: 'tool-response', id: r.written[1]!.id, result: 'fine' });
  assert.equal(await next, 'fine');
});
