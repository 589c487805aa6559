import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { startFw, waitFor } from './helpers.js';

/**
 * Opens and closes one connection; resolves once the client saw it end. Mostly WebSockets (raw
 * ones dropped, fw ones closed on purpose with 1000), with every 20th an SSE stream the client
 * aborts and every 20th a long-polling resource ended with DELETE.
 */
async function cycle(base: string, ws: string, i: number): Promise<void> {
  const room = `/fw/chat/r${i % 7}`;
  const kind = i % 20;
  if (kind === 0) {
    const ac = new AbortController();
    const res = await fetch(`${base}${room}`, { headers: { accept: 'text/event-stream' }, signal: ac.signal });
    assert.equal(res.status, 200);
    ac.abort();
  } else if (kind === 1) {
    const res = await fetch(`${base}${room}?transport=long-polling&fw=1`);
    const [hs] = (await res.json()) as { uuid: string }[];
    const del = await fetch(`${base}${room}?tracking=${hs!.uuid}`, { method: 'DELETE' });
    assert.equal(del.status, 204);
  } else {
    const fw = kind < 10;
    const s = new WebSocket(fw ? `${ws}${room}?fw=1` : `${ws}${room}`);
    await new Promise<void>((resolve, reject) => {
      if (fw) s.once('message', () => s.close(1000));
      else s.once('open', () => s.terminate());
      s.once('close', () => resolve());
      s.once('error', reject);
    });
  }
}

test('10 000 connect/disconnect cycles leave zero resources, broadcasters, timers, sockets and listeners behind', async () => {
  const app = await startFw({}, (fw) => fw.handle('/chat/{room}', {}));
  const server = app.fw.listeningServers[0]!;
  const listenersBefore = {
    bus: app.fw.events.listenerCount(),
    request: server.listenerCount('request'),
    upgrade: server.listenerCount('upgrade'),
  };
  let connected = 0;
  let disconnected = 0;
  const offA = app.fw.events.on('ResourceConnected', () => connected++);
  const offB = app.fw.events.on('ResourceDisconnected', () => disconnected++);
  try {
    const total = 10_000;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < total) await cycle(app.base, app.ws, next++);
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    await waitFor(() => app.fw.runtime.stats().connections === 0, 10_000);
    assert.equal(connected, total);
    assert.equal(disconnected, total);
    assert.deepEqual(app.fw.runtime.diagnostics(), {
      resources: 0, detachedResources: 0, broadcasters: 0, timers: 0, webSockets: 0, pendingFlushes: 0,
    });
    assert.equal(app.fw.runtime.stats().broadcasters, 0);
    offA();
    offB();
    assert.deepEqual({
      bus: app.fw.events.listenerCount(),
      request: server.listenerCount('request'),
      upgrade: server.listenerCount('upgrade'),
    }, listenersBefore);
    assert.equal(app.fw.runtime.listHandlers()[0]!.resourceCount, 0);
  } finally {
    await app.close();
  }
});
