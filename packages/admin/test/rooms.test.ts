/** `GET /api/admin/rooms` and `/rooms/{name}` over a real framework with real fw clients; room refusals in the audit log. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { connect } from '@fw/client/node';
import { authenticate, Framework, useRooms } from '@fw/runtime';
import { waitFor } from '@fw/testing';
import { admin } from '../dist/index.js';

const API = '/api/admin';
const ADA = 'ada-token-0123456789abcdef';
const BEA = 'bea-token-0123456789abcdef';
const VIC = 'vic-token-0123456789abcdef';

test('GET /api/admin/rooms lists rooms with members and memberDetails; one room by name; 404 and 400 said', async () => {
  const dashboardDir = mkdtempSync(join(tmpdir(), 'fw-rooms-dash-'));
  writeFileSync(join(dashboardDir, 'index.html'), '<!doctype html><title>fw admin</title>');
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.admin.mcp-tools': false,
    'fw.auth.tokens': `ada:operator:${ADA},bea:operator:${BEA},vic:viewer:${VIC}`,
    'fw.rooms.members-listed': 1,
  });
  const rooms = useRooms(fw, {
    rooms: [
      { pattern: '/chat/vip', join: { principals: ['ada'] } },
      { pattern: '/chat/{room}', meta: (p) => ({ name: p?.id }) },
    ],
  });
  fw.handle('/chat/{room}', {}, { interceptors: [authenticate(fw), rooms.interceptor] });
  await fw.use(admin({ dashboardDir }));
  const { port } = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  const get = (path: string, token = VIC) => fetch(base + API + path, { headers: { authorization: `Bearer ${token}` } });
  const clients = [];
  try {
    for (const [path, token] of [
      ['/fw/chat/lobby', ADA],
      ['/fw/chat/lobby', BEA],
      ['/fw/chat/vip', ADA],
    ] as const) {
      const c = connect(`${base}${path}`, { token, transports: ['websocket'] });
      clients.push(c);
    }
    await waitFor('three members', () => rooms.list().reduce((n, r) => n + r.members, 0) === 3);

    const res = await get('/rooms');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-total-count'), '2');
    const list = (await res.json()) as { name: string; members: number; memberDetails: { principal: string; meta: unknown }[] }[];
    assert.deepEqual(
      list.map((r) => [r.name, r.members, r.memberDetails.length]),
      [
        ['/fw/chat/lobby', 2, 1],
        ['/fw/chat/vip', 1, 1],
      ],
    );
    assert.deepEqual(list[0]!.memberDetails[0]!.meta, { name: 'ada' });
    const searched = (await (await get('/rooms?search=vip')).json()) as { name: string }[];
    assert.deepEqual(
      searched.map((r) => r.name),
      ['/fw/chat/vip'],
    );

    const one = await get(`/rooms/${encodeURIComponent('/fw/chat/vip')}`);
    assert.equal(one.status, 200);
    assert.equal(((await one.json()) as { members: number }).members, 1);
    const missing = await get(`/rooms/${encodeURIComponent('/fw/chat/nobody')}`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { code: string }).code, 'not_found');
    const bad = await get('/rooms?limit=0');
    assert.equal(bad.status, 400);
    assert.equal((await fetch(`${base}${API}/rooms`)).status, 401, 'a read needs a credential once authentication is configured');

    // A refused join is a refusal record of the audit log, source realtime.
    const refused = connect(`${base}/fw/chat/vip`, { token: BEA, transports: ['websocket'], reconnect: false });
    await waitFor('bea refused', () => refused.state === 'closed');
    const audit = await waitFor('the refusal audited', async () => {
      const entries = (await (await get('/audit?class=refusal')).json()) as {
        action: string;
        target: string;
        principal: string;
        source: string;
      }[];
      return entries.find((e) => e.action === 'room.join');
    });
    assert.deepEqual([audit.target, audit.principal, audit.source], ['/fw/chat/vip', 'bea', 'realtime']);

    for (const c of clients) c.close();
    await waitFor('everyone left', () => rooms.list().length === 0);
    assert.deepEqual(await (await get('/rooms')).json(), []);
  } finally {
    for (const c of clients) c.close();
    await fw.close();
    rmSync(dashboardDir, { recursive: true, force: true });
  }
});
