/**
 * Connection shares (issue #24): real-time connections of every transport count against
 * `fw.connections.max`, with a share per principal and per anonymous address, so one address
 * cannot take every connection. A refusal is an HTTP answer before any socket exists (429 for a
 * share, 503 for the whole capacity, problem+json with Retry-After, on the WebSocket upgrade too);
 * a resume or a long-poll is the same connection and never counts twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { authenticate } from '../../dist/index.js';
import { connectWs, notOnBun, openStream, refusedUpgrade, startFw, type StreamClient, type WsClient } from '../helpers.js';
import { waitFor } from '@fw/testing';

interface Problem {
  code: string;
  status: number;
  limit?: string;
  share?: string;
  value?: number;
}

async function refusedGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; retryAfter: string | null; body: Problem }> {
  const res = await fetch(url, { headers });
  assert.equal(res.headers.get('content-type'), 'application/problem+json');
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Problem };
}

test(
  'per address: at the share every transport passes, one over is 429 before any socket; a resume does not count twice',
  notOnBun('opens a raw stream, whose headers Bun sends with its first message'),
  async (t) => {
    const app = await startFw({ 'fw.connections.max-per-address': 4 }, (fw) => fw.handle('/room', {}));
    const open: (WsClient | StreamClient)[] = [];
    t.after(async () => {
      for (const c of open) 'socket' in c ? c.socket.terminate() : c.abort();
      await app.close();
    });
    const share = app.fw.runtime.connections;
    // One of each transport: four places, the share.
    const ws = await connectWs(`${app.ws}/fw/room?fw=1`);
    open.push(ws);
    const hs = JSON.parse(await ws.messages.next()) as { uuid: string };
    open.push(await openStream(`${app.base}/fw/room?fw=1`, true));
    open.push(await openStream(`${app.base}/fw/room?transport=streaming`, false));
    const poll = (await (await fetch(`${app.base}/fw/room?fw=1&transport=long-polling`)).json()) as { uuid: string }[];
    await waitFor('four connections', () => app.fw.runtime.stats().connections === 4);
    assert.equal(share.inUse(), 4);

    // One over: refused on every transport with a problem the client can act on, and nothing opened.
    const upgrade = await refusedUpgrade(`${app.base}/fw/room?fw=1`);
    assert.equal(upgrade.status, 429);
    assert.equal(upgrade.type, 'application/problem+json');
    assert.equal(upgrade.headers['retry-after'], '1');
    assert.equal(upgrade.body.code, 'limit_exceeded');
    assert.equal(upgrade.body.limit, 'fw.connections.max-per-address');
    for (const url of [
      `${app.base}/fw/room?fw=1&transport=sse`,
      `${app.base}/fw/room?transport=streaming`,
      `${app.base}/fw/room?fw=1&transport=long-polling`,
    ]) {
      const refused = await refusedGet(url);
      assert.equal(refused.status, 429, url);
      assert.equal(refused.retryAfter, '1');
      assert.deepEqual([refused.body.code, refused.body.share, refused.body.value], ['limit_exceeded', 'address', 4]);
    }
    assert.equal(app.fw.runtime.stats().connections, 4);

    // A long-poll goes on polling, and a dropped WebSocket resumes: the same connections, at the share.
    const next = await fetch(`${app.base}/fw/room?fw=1&transport=long-polling&tracking=${poll[0]!.uuid}&last=0`, {
      signal: AbortSignal.timeout(200),
    }).catch(() => undefined);
    assert.equal(next, undefined, 'the poll was held, not refused');
    app.fw.resources.get(hs.uuid)!.connection!.destroy();
    await ws.closed;
    const resumed = await connectWs(`${app.ws}/fw/room?fw=1&tracking=${hs.uuid}&last=0`);
    open.push(resumed);
    assert.equal((JSON.parse(await resumed.messages.next()) as { resumed: boolean }).resumed, true);
    assert.equal(share.inUse(), 4);

    // An ended connection gives its place back.
    resumed.socket.close(1000);
    await waitFor('the place given back', () => share.inUse() === 3);
    open.push(await connectWs(`${app.ws}/fw/room`));
    assert.equal(share.inUse(), 4);
  },
);

test('per principal: a principal stops at its share wherever it connects from; another principal still gets in', async (t) => {
  const app = await startFw(
    {
      'fw.auth.tokens': 'ada:viewer:ada-token-0123456789abcdef,bea:viewer:bea-token-0123456789abcdef',
      'fw.connections.max-per-principal': 2,
      'fw.connections.max-per-address': 1,
    },
    (fw) => fw.handle('/room', {}, { interceptors: [authenticate(fw, { required: false })] }),
  );
  const open: WsClient[] = [];
  t.after(async () => {
    for (const c of open) c.socket.terminate();
    await app.close();
  });
  const ada = 'access_token=ada-token-0123456789abcdef';
  open.push(await connectWs(`${app.ws}/fw/room?${ada}`));
  open.push(await connectWs(`${app.ws}/fw/room?${ada}`));
  const third = await refusedUpgrade(`${app.base}/fw/room?${ada}`);
  assert.equal(third.status, 429);
  assert.equal(third.body.limit, 'fw.connections.max-per-principal');
  assert.equal(third.body.share, 'principal');
  // Counted by principal, not by the (shared) address: bea and one anonymous client still get in.
  open.push(await connectWs(`${app.ws}/fw/room?access_token=bea-token-0123456789abcdef`));
  open.push(await connectWs(`${app.ws}/fw/room`));
  const anonymous = await refusedUpgrade(`${app.base}/fw/room`);
  assert.equal(anonymous.status, 429);
  assert.equal(anonymous.body.share, 'address');
});

test('the whole capacity: one over fw.connections.max is 503 capacity_exhausted with Retry-After', async (t) => {
  const app = await startFw({ 'fw.connections.max': 2, 'fw.connections.max-per-address': 0 }, (fw) => fw.handle('/room', {}));
  const open: StreamClient[] = [];
  t.after(async () => {
    for (const c of open) c.abort();
    await app.close();
  });
  open.push(await openStream(`${app.base}/fw/room`, true));
  open.push(await openStream(`${app.base}/fw/room`, true));
  await waitFor('two connections', () => app.fw.runtime.stats().connections === 2);
  const refused = await refusedGet(`${app.base}/fw/room?transport=sse`);
  assert.equal(refused.status, 503);
  assert.equal(refused.retryAfter, '1');
  assert.deepEqual([refused.body.code, refused.body.limit], ['capacity_exhausted', 'fw.connections.max']);
  const upgrade = await refusedUpgrade(`${app.base}/fw/room`);
  assert.equal(upgrade.status, 503);
  assert.equal(upgrade.body.code, 'capacity_exhausted');
});

test('an upgrade that breaks during the handshake gives its place back', async (t) => {
  const app = await startFw({ 'fw.connections.max-per-address': 1 }, (fw) => fw.handle('/room', {}));
  t.after(() => app.close());
  const port = new URL(app.base).port;
  // A handshake ws refuses after fw admitted it (a malformed key): answered 400, socket closed.
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(
        'GET /fw/room HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
          'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: not-a-key\r\n\r\n',
      );
    });
    let text = '';
    socket.on('data', (d) => (text += d.toString()));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
  assert.match(answer, /^HTTP\/1\.1 400/);
  await waitFor('the place given back', () => app.fw.runtime.connections.inUse() === 0);
  const ok = await connectWs(`${app.ws}/fw/room`);
  ok.socket.terminate();
});
