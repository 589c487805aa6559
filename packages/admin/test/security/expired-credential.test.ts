/**
 * Attack: keep acting with a credential that is no longer good. After a JWT's `exp`, HTTP answered
 * 401, but the admin event stream kept sending and `fw_broadcast` over the admin MCP WebSocket
 * still delivered seconds later: sockets were authenticated once, at their start. Now the event
 * stream (every transport) ends when its credential expires or is revoked (a final
 * `SessionEnded` event, then close 1008 / the end of the stream), and every admin MCP tool call
 * checks the credential again: an expired or revoked one is refused and its session ended. Real
 * JWTs from a local JWKS, expiring a few seconds ahead, and `fw.credentials.revoke`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import WebSocket from 'ws';
import { connect as fwConnect } from '@fw/client/node';
import { mcp } from '@fw/mcp';
import { waitFor } from '@fw/testing';
import { API, AUTH_TOKENS, bearer, chatMember, expectProblem, startAdmin, TOKENS, type AdminApp } from './helpers.js';
import { startIssuer, type Issuer } from './jwt-issuer.js';

const EVENTS = '/fw/admin/events';
const TTL = 3; // seconds: the token of each test expires this soon

/** `promise`, or a failure naming `what` after `ms` (the tests never hang on a stream that stays open). */
function within<T>(promise: Promise<T>, what: string, ms = 15_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Milliseconds since epoch at which a JWT expires (its `exp`). */
function expiryOf(token: string): number {
  return (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number }).exp * 1000;
}

/** A raw WebSocket client of the event stream, with its frames and how it closed. */
async function wsConsumer(app: AdminApp, token: string) {
  const ws = new WebSocket(`${app.ws}${EVENTS}?access_token=${token}`);
  const frames: string[] = [];
  ws.on('message', (d) => frames.push(String(d)));
  const closed = once(ws, 'close').then(([code, reason]) => ({ code: code as number, reason: String(reason), at: Date.now() }));
  await once(ws, 'open');
  return { ws, frames, closed };
}

/** A raw SSE client of the event stream (an EventSource's request): the text it got, and when the stream ended. */
async function sseConsumer(app: AdminApp, token: string) {
  const res = await fetch(`${app.base}${EVENTS}?access_token=${token}`, { headers: { accept: 'text/event-stream' } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  let text = '';
  const reader = res.body!.getReader();
  const ended = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return Date.now();
      text += Buffer.from(value).toString();
    }
  })();
  return { text: () => text, ended };
}

describe('credentials expire on open admin sockets', { timeout: 120_000 }, () => {
  let issuer: Issuer;
  let app: AdminApp;

  before(async () => {
    issuer = await startIssuer();
    app = await startAdmin({ ...issuer.settings, 'fw.admin.mcp-tools': true, 'fw.admin.mcp-write-tools': true }, {}, [mcp()]);
  });
  after(async () => {
    await app?.close();
    await issuer?.close();
  });

  it('the event stream over a WebSocket: a SessionEnded frame, then close 1008 credential_expired, at exp', async () => {
    const token = await issuer.mint('vera', ['viewer'], TTL);
    const consumer = await wsConsumer(app, token);
    const { code, reason, at } = await within(consumer.closed, 'the stream closed');
    assert.deepEqual([code, reason], [1008, 'credential_expired']);
    assert.ok(at >= expiryOf(token), 'not before the expiry');
    assert.ok(at < expiryOf(token) + 5000, `within a few seconds of it (${at - expiryOf(token)} ms late)`);
    assert.deepEqual(JSON.parse(consumer.frames.at(-1)!), {
      type: 'SessionEnded',
      reason: 'expired',
      detail: 'the credential expired: sign in again',
    });
    // HTTP agrees: the same token is refused now, and a new connection with it too.
    await expectProblem(await app.get(`${API}/overview`, bearer(token)), 401, 'unauthorized');
    const again = new WebSocket(`${app.ws}${EVENTS}?access_token=${token}`);
    again.on('error', () => undefined);
    const [, res] = (await once(again, 'unexpected-response')) as [unknown, { statusCode: number; resume(): void }];
    res.resume();
    assert.equal(res.statusCode, 401);
    again.terminate();
    assert.equal(app.fw.credentials.watching, 0, 'no watch left behind');
  });

  it('the event stream over SSE: the SessionEnded event, then the stream ends', async () => {
    const token = await issuer.mint('vera', ['viewer'], TTL);
    const consumer = await sseConsumer(app, token);
    const endedAt = await within(consumer.ended, 'the SSE stream ended');
    assert.ok(endedAt >= expiryOf(token));
    const events = consumer
      .text()
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as { type: string; reason?: string });
    assert.deepEqual(events.at(-1), { type: 'SessionEnded', reason: 'expired', detail: 'the credential expired: sign in again' });
  });

  it('an fw client (the dashboard’s transport) is told credential_expired and does not reconnect', async () => {
    const token = await issuer.mint('vera', ['viewer'], TTL);
    const client = fwConnect(`${app.ws}${EVENTS}?access_token=${token}`, { transports: ['websocket'] });
    const messages: string[] = [];
    client.onMessage((m) => messages.push(m));
    const reason = await within(new Promise<string>((resolve) => client.onClose(resolve)), 'the fw client closed').finally(() =>
      client.close(),
    );
    assert.equal(reason, 'credential_expired');
    assert.equal((JSON.parse(messages.at(-1)!) as { type: string }).type, 'SessionEnded');
  });

  it('fw.credentials.revoke ends the stream at once with credential_revoked', async () => {
    const token = await issuer.mint('rex', ['viewer'], 3600);
    const consumer = await wsConsumer(app, token);
    await waitFor('the consumer is watched', () => (app.fw.credentials.watching > 0 ? true : undefined));
    assert.equal(app.fw.credentials.revoke('rex'), 1);
    const { code, reason } = await within(consumer.closed, 'the stream closed');
    assert.deepEqual([code, reason], [1008, 'credential_revoked']);
    assert.equal((JSON.parse(consumer.frames.at(-1)!) as { reason: string }).reason, 'revoked');
  });

  it('fw_broadcast over the admin MCP WebSocket: delivered before exp, refused after it, and the session ends', async () => {
    const token = await issuer.mint('otto', ['operator'], TTL);
    const member = await chatMember(app, 'lobby');
    const ws = new WebSocket(`${app.ws}/fw/admin/mcp`, 'mcp', { headers: bearer(token) });
    const replies = new Map<number, { result?: { isError?: boolean; content: { text: string }[] }; error?: unknown }>();
    ws.on('message', (d) => {
      const m = JSON.parse(String(d)) as { id?: number };
      if (typeof m.id === 'number') replies.set(m.id, m as never);
    });
    const closed = once(ws, 'close');
    await once(ws, 'open');
    const call = async (id: number, method: string, params: object) => {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      return waitFor(`reply ${id}`, () => replies.get(id));
    };
    try {
      await call(1, 'initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'expiry-test', version: '1' } });
      ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      const first = await call(2, 'tools/call', {
        name: 'fw_broadcast',
        arguments: { broadcasterId: '/fw/chat/lobby', message: 'before exp' },
      });
      assert.notEqual(first.result?.isError, true);
      await waitFor('delivered before exp', () => (member.received.includes('before exp') ? true : undefined));

      await waitFor('the token expired', () => (Date.now() > expiryOf(token) + 50 ? true : undefined), 10_000);
      if (ws.readyState === WebSocket.OPEN) {
        ws.send(
          JSON.stringify({
            jsonrpc: '2.0',
            id: 3,
            method: 'tools/call',
            params: { name: 'fw_broadcast', arguments: { broadcasterId: '/fw/chat/lobby', message: 'after exp' } },
          }),
        );
      }
      // Refused (or the socket already closed at exp), and the session ends either way.
      await waitFor('the MCP session ended', () => (ws.readyState === WebSocket.CLOSED ? true : undefined), 10_000);
      const [code] = (await closed) as [number];
      assert.ok([1001, 1008].includes(code), `closed with ${code}`);
      const late = replies.get(3);
      if (late) assert.match(late.result?.content[0]?.text ?? '', /^unauthorized: the credential expired/);

      // Ordering proof: a broadcast made now arrives, and 'after exp' never came before it.
      const fresh = await issuer.mint('otto', ['operator'], 60);
      assert.equal(
        (await app.send('POST', `${API}/broadcasters/broadcast`, { broadcasterId: '/fw/chat/lobby', message: 'marker' }, bearer(fresh)))
          .status,
        200,
      );
      await waitFor('the marker', () => (member.received.includes('marker') ? true : undefined));
      assert.ok(!member.received.includes('after exp'), 'nothing delivered with the expired credential');
      const refused = (await app.audit('class=refusal&action=broadcast', fresh)).find((e) => e.principal === 'otto');
      if (late) assert.match(refused?.reason ?? '', /credential expired/);
    } finally {
      ws.terminate();
      await member.close();
    }
  });
});

describe('with fw.auth.tokens: POST credentials/revoke', () => {
  it('closes the principal’s open stream (1008 credential_revoked) and refuses its token from then on; audited; admin role only', async () => {
    const app = await startAdmin({ 'fw.auth.tokens': AUTH_TOKENS });
    try {
      const consumer = await wsConsumer(app, TOKENS.viewer);
      await expectProblem(
        await app.send('POST', `${API}/credentials/revoke`, { principal: 'vera' }, bearer(TOKENS.operator)),
        403,
        'forbidden',
      );
      await expectProblem(await app.send('POST', `${API}/credentials/revoke`, { principal: 7 }, bearer(TOKENS.admin)), 400, 'bad_request');
      const res = await app.send('POST', `${API}/credentials/revoke`, { principal: 'vera' }, bearer(TOKENS.admin));
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { principal: 'vera', revoked: true, closed: 1 });
      const { code, reason } = await within(consumer.closed, 'the stream closed');
      assert.deepEqual([code, reason], [1008, 'credential_revoked']);
      await expectProblem(await app.get(`${API}/overview`, bearer(TOKENS.viewer)), 401, 'unauthorized');
      const actions = await app.audit('class=action&action=revoke', TOKENS.admin);
      assert.deepEqual(
        actions.map((e) => [e.target, e.principal, e.outcome]),
        [['vera', 'ada', 'allowed']],
      );
    } finally {
      await app.close();
    }
  });
});
