import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DENY_ALL, requireRole, DASHBOARD_CSP, type AuditEntry } from '../dist/index.js';
import type { ClusterService } from '@fw/runtime/adapter';
import { startHarness } from './harness.js';
import { MemoryLogger } from '@fw/runtime';

const API = '/api/admin';

async function problem(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  assert.equal(res.status, status);
  assert.equal(res.headers.get('content-type'), 'application/problem+json');
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(body.code, code);
  return body;
}

test('read endpoints answer live data, paged with X-Total-Count', async () => {
  const h = await startHarness();
  try {
    h.runtime.addResource('u1', '/fw/chat/lobby');
    h.runtime.addResource('u2', '/fw/chat/lobby', 'sse');
    h.runtime.addResource('u3', '/fw/chat/other');

    const ov = (await (await h.get(`${API}/overview`)).json()) as Record<string, unknown>;
    assert.equal(ov.status, 'UP');
    assert.equal(typeof ov.version, 'string');
    assert.equal(ov.connections, 3);
    assert.equal(ov.broadcasters, 2);
    assert.equal(ov.handlers, 1);
    assert.equal(ov.interceptors, 2);
    assert.equal(ov.agentCount, 1);
    assert.equal(ov.coordinatorCount, 1);
    assert.equal(ov.activeSessions, 1);
    assert.equal(ov.taskCount, 1);
    assert.equal(ov.aiRuntime, 'offline');

    const list = async (path: string): Promise<{ items: Record<string, unknown>[]; total: number }> => {
      const res = await h.get(API + path);
      assert.equal(res.status, 200, path);
      const items = (await res.json()) as Record<string, unknown>[];
      assert.ok(Array.isArray(items), path);
      return { items, total: Number(res.headers.get('x-total-count')) };
    };
    assert.deepEqual(
      (await list('/agents')).items.map((a) => a.name),
      ['research', 'boss'],
    );
    assert.equal((await list('/agents/research/sessions')).items[0]?.id, 's1');
    assert.equal((await list('/coordinators')).items[0]?.name, 'boss');
    assert.equal((await list('/broadcasters')).total, 2);
    assert.deepEqual(
      (await list('/broadcasters?search=other')).items.map((b) => b.id),
      ['/fw/chat/other'],
    );
    const res = await list('/resources?limit=2');
    assert.equal(res.items.length, 2);
    assert.equal(res.total, 3);
    assert.deepEqual(
      (await list('/resources?offset=2&limit=2')).items.map((r) => r.uuid),
      ['u3'],
    );
    assert.deepEqual(
      (await list('/resources?transport=sse')).items.map((r) => r.uuid),
      ['u2'],
    );
    assert.deepEqual(
      (await list(`/resources?broadcaster=${encodeURIComponent('/fw/chat/other')}`)).items.map((r) => r.uuid),
      ['u3'],
    );
    assert.equal((await list('/handlers')).items[0]?.path, '/fw/chat/{room}');
    assert.equal((await list('/interceptors')).total, 2);
    assert.equal((await list('/journal')).total, 3);
    assert.equal((await list('/journal?coordinationId=co-1')).total, 2);
    assert.equal((await list('/journal?agent=writer')).total, 1);
    assert.deepEqual(
      (await list('/journal?limit=1')).items.map((e) => e.seq),
      [3],
    ); // journals page from the newest end
    assert.deepEqual(
      (await list('/journal?limit=2&offset=1')).items.map((e) => e.seq),
      [1, 2],
    );
    assert.equal((await list('/journal?limit=1')).total, 3);
    assert.equal((await list('/journal/co-1')).total, 2);
    assert.equal((await list('/tasks?agent=research&state=working')).total, 1);
    assert.equal((await list('/tasks?state=completed')).total, 0);
    assert.equal((await list('/runtimes')).items[0]?.name, 'offline');
    assert.equal((await list('/mcp/servers')).items[0]?.path, '/mcp');
    assert.equal((await list('/mcp/tools')).items[0]?.name, 'echo');
    assert.equal((await list('/mcp/resources')).items[0]?.uri, 'fw://rooms');
    assert.equal((await list('/mcp/prompts')).items[0]?.name, 'greet');
    assert.equal((await list('/mcp/sessions')).items[0]?.id, 'm1');
    assert.equal((await list('/mcp/bridge/pending')).items[0]?.toolName, 'ask');
    assert.equal((await list('/nodes')).items[0]?.version, ov.version);

    const detail = async (path: string): Promise<Record<string, unknown>> => {
      const r = await h.get(API + path);
      assert.equal(r.status, 200, path);
      return (await r.json()) as Record<string, unknown>;
    };
    assert.equal((await detail('/agents/boss')).kind, 'coordinator');
    assert.equal((await detail(`/broadcasters/${encodeURIComponent('/fw/chat/lobby')}`)).resourceCount, 2);
    assert.equal((await detail('/resources/u2')).transport, 'sse');
    assert.equal((await detail('/tasks/t1')).state, 'working');
    assert.equal((await detail('/runtimes/active')).name, 'offline');
    assert.equal(((await detail('/journal/co-1/graph')).edges as unknown[]).length, 1);
    const log = await h.get(`${API}/journal/co-1/log`);
    assert.match(log.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(await log.text(), 'dispatch research\ncompletion research');

    const metrics = await detail('/metrics');
    assert.equal((metrics.runtime as { connections: number }).connections, 3);
    const prom = await h.get(`${API}/metrics/prometheus`);
    assert.equal(prom.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    const exposition = await prom.text();
    // The admin figures (from the same views as the JSON above) are in the framework's registry.
    const runtime = metrics.runtime as { handlers: number };
    const mcp = metrics.mcp as { tools: number };
    assert.match(exposition, new RegExp(`^fw_handlers ${runtime.handlers}$`, 'm'));
    assert.match(exposition, new RegExp(`^fw_mcp_tools ${mcp.tools}$`, 'm'));
    assert.match(exposition, /^fw_handlers \d+$/m);
    assert.match(exposition, /^fw_admin_events_dropped_total\{reason="queue"\} 0$/m);
    // One registry, one set of names: the scrapers' endpoint shows exactly the same metrics.
    const names = (text: string): string[] => [...new Set([...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]!))].sort();
    const scraped = await (await fetch(`${h.base}/fw/metrics`)).text();
    assert.deepEqual(names(exposition), names(scraped));

    for (const missing of [
      '/agents/nope',
      '/agents/nope/sessions',
      `/broadcasters/${encodeURIComponent('/x')}`,
      '/resources/nope',
      '/tasks/nope',
      '/journal/nope',
      '/journal/nope/log',
      '/journal/nope/graph',
    ]) {
      await problem(await h.get(API + missing), 404, 'not_found');
    }
  } finally {
    await h.close();
  }
});

test('paging limits are checked at their edge, bad query values are 400s naming the field', async () => {
  const h = await startHarness({ 'fw.admin.page.max-limit': 5, 'fw.admin.page.default-limit': 2 });
  try {
    for (let i = 0; i < 7; i++) h.runtime.addResource(`u${i}`, '/fw/a');
    assert.equal(((await (await h.get(`${API}/resources`)).json()) as unknown[]).length, 2);
    assert.equal(((await (await h.get(`${API}/resources?limit=5`)).json()) as unknown[]).length, 5);
    const body = await problem(await h.get(`${API}/resources?limit=6`), 400, 'bad_request');
    assert.equal(body.field, 'limit');
    assert.equal((await problem(await h.get(`${API}/resources?offset=-1`), 400, 'bad_request')).field, 'offset');
    assert.equal((await problem(await h.get(`${API}/resources?transport=pigeon`), 400, 'bad_request')).field, 'transport');
    assert.equal((await problem(await h.get(`${API}/audit?from=yesterday`), 400, 'bad_request')).field, 'from');
    assert.equal((await problem(await h.get(`${API}/audit?outcome=maybe`), 400, 'bad_request')).field, 'outcome');
  } finally {
    await h.close();
  }
});

test('absent agent and MCP modules read as empty lists, never as errors', async () => {
  const h = await startHarness({}, {}, false);
  try {
    for (const path of [
      '/agents',
      '/coordinators',
      '/journal',
      '/tasks',
      '/runtimes',
      '/mcp/servers',
      '/mcp/tools',
      '/mcp/resources',
      '/mcp/prompts',
      '/mcp/sessions',
      '/mcp/bridge/pending',
    ]) {
      const res = await h.get(API + path);
      assert.equal(res.status, 200, path);
      assert.deepEqual(await res.json(), []);
      assert.equal(res.headers.get('x-total-count'), '0');
    }
    const ov = (await (await h.get(`${API}/overview`)).json()) as Record<string, unknown>;
    assert.equal(ov.agentCount, 0);
    assert.equal(ov.aiRuntime, '');
    await problem(await h.send('POST', `${API}/tasks/t1/cancel`), 404, 'not_found');
  } finally {
    await h.close();
  }
});

test('writes act, say what happened, and are audited and announced', async () => {
  const h = await startHarness();
  try {
    const a = h.runtime.addResource('u1', '/fw/chat/lobby');
    const b = h.runtime.addResource('u2', '/fw/chat/lobby');
    h.runtime.addResource('u3', '/fw/chat/other');

    let res = await h.send('POST', `${API}/broadcasters/broadcast`, { broadcasterId: '/fw/chat/lobby', message: 'hello' });
    assert.deepEqual(await res.json(), { broadcasterId: '/fw/chat/lobby', delivered: 2 });
    assert.deepEqual(a.received, ['hello']);
    assert.deepEqual(b.received, ['hello']);

    res = await h.send('POST', `${API}/resources/u1/message`, { message: { hi: 1 } });
    assert.deepEqual(await res.json(), { uuid: 'u1', delivered: true });
    assert.deepEqual(a.received[1], { hi: 1 });

    res = await h.send('DELETE', `${API}/resources/u1?reason=bye`);
    assert.deepEqual(await res.json(), { uuid: 'u1', disconnected: true, reason: 'bye' });
    assert.equal(a.closedWith, 'bye');
    res = await h.send('DELETE', `${API}/resources/u2`, { reason: 'from body' });
    assert.equal(((await res.json()) as { reason: string }).reason, 'from body');
    assert.equal(b.closedWith, 'from body');

    res = await h.send('DELETE', `${API}/broadcasters/${encodeURIComponent('/fw/chat/other')}`);
    assert.deepEqual(await res.json(), { broadcasterId: '/fw/chat/other', disconnected: 1 });

    res = await h.send('POST', `${API}/tasks/t1/cancel`);
    assert.equal(((await res.json()) as { state: string }).state, 'canceled');
    await problem(await h.send('POST', `${API}/tasks/t1/cancel`), 409, 'task_not_cancelable');

    // unknown targets: 404, audited as allowed (before the action ran) and then failed
    await problem(await h.send('POST', `${API}/broadcasters/broadcast`, { broadcasterId: '/nope', message: 'x' }), 404, 'not_found');
    await problem(await h.send('DELETE', `${API}/resources/nope`), 404, 'not_found');
    await problem(await h.send('POST', `${API}/resources/nope/message`, { message: 'x' }), 404, 'not_found');
    await problem(await h.send('DELETE', `${API}/broadcasters/nope`), 404, 'not_found');
    await problem(await h.send('POST', `${API}/tasks/nope/cancel`), 404, 'not_found');

    // bad bodies: 400 naming the field, never reaching the runtime; audited as invalid with the real target
    assert.equal(
      (await problem(await h.send('POST', `${API}/broadcasters/broadcast`, { message: 'x' }), 400, 'bad_request')).field,
      'broadcasterId',
    );
    assert.equal(
      (
        await problem(
          await h.send('POST', `${API}/broadcasters/broadcast`, { broadcasterId: '/fw/chat/lobby', message: 3 }),
          400,
          'bad_request',
        )
      ).field,
      'message',
    );
    await problem(await h.send('POST', `${API}/broadcasters/broadcast`, '{oops'), 400, 'invalid_json');
    await problem(await h.send('POST', `${API}/broadcasters/broadcast`, '[1]'), 400, 'bad_request');
    await problem(
      await h.send('POST', `${API}/broadcasters/broadcast`, 'x', { 'content-type': 'text/plain' }),
      415,
      'unsupported_media_type',
    );

    const audit = (await (await h.get(`${API}/audit?limit=1000`)).json()) as AuditEntry[];
    const summary = audit.reverse().map((e) => `${e.action} ${e.target} ${e.outcome} ${e.success}`);
    assert.deepEqual(summary, [
      'broadcast /fw/chat/lobby allowed true',
      'unicast u1 allowed true',
      'disconnect u1 allowed true',
      'disconnect u2 allowed true',
      'destroy /fw/chat/other allowed true',
      'cancel t1 allowed true',
      'cancel t1 allowed true',
      'cancel t1 failed false',
      'broadcast /nope allowed true',
      'broadcast /nope failed false',
      'disconnect nope allowed true',
      'disconnect nope failed false',
      'unicast nope allowed true',
      'unicast nope failed false',
      'destroy nope allowed true',
      'destroy nope failed false',
      'cancel nope allowed true',
      'cancel nope failed false',
      // The five malformed writes of one caller are one refusal record (aggregated per caller and window).
      'broadcast (missing) invalid false',
    ]);
    const invalid = audit.at(-1)!;
    assert.equal(invalid.class, 'refusal');
    assert.equal(invalid.refusals?.count, 5);
    assert.deepEqual(invalid.refusals?.targets, [
      { value: '(missing)', count: 4 },
      { value: '/fw/chat/lobby', count: 1 },
    ]);
    assert.equal(invalid.refusals?.reasons.length, 5, 'each distinct reason is named');
    assert.ok(audit.every((e) => e.principal === null && e.source === 'rest' && e.address === '127.0.0.1'));
    // Announced once each attempt: after the action (allowed) or when it failed or was refused.
    const announced = h.events.filter((e) => e.type === 'ControlActionExecuted');
    assert.equal(announced.length, 12 + 5);
    assert.deepEqual(announced[0], {
      type: 'ControlActionExecuted',
      timestamp: announced[0]!.timestamp,
      action: 'broadcast',
      target: '/fw/chat/lobby',
      principal: null,
      success: true,
      outcome: 'allowed',
    });

    // filters
    assert.equal(((await (await h.get(`${API}/audit?outcome=failed`)).json()) as unknown[]).length, 6);
    assert.equal(((await (await h.get(`${API}/audit?outcome=invalid`)).json()) as unknown[]).length, 1);
    assert.equal(((await (await h.get(`${API}/audit?class=refusal`)).json()) as unknown[]).length, 1);
    assert.equal(((await (await h.get(`${API}/audit?class=action`)).json()) as unknown[]).length, 18);
    assert.equal(((await (await h.get(`${API}/audit?action=cancel`)).json()) as unknown[]).length, 5);
    const recent = (await (await h.get(`${API}/events/recent?limit=2`)).json()) as { type: string }[];
    assert.deepEqual(
      recent.map((e) => e.type),
      ['ControlActionExecuted', 'ControlActionExecuted'],
    );
  } finally {
    await h.close();
  }
});

test('with a token every REST call needs it; the authorizer refuses with 403; both are audited', async () => {
  const h = await startHarness({ 'fw.admin.auth.token': 'admin-s3cret-0123456789' }, { authorizer: requireRole('operator') });
  try {
    h.runtime.addResource('u1', '/fw/chat/lobby');
    const unauth = await problem(await h.get(`${API}/overview`), 401, 'unauthorized');
    assert.ok(unauth.detail);
    assert.equal((await h.get(`${API}/overview`)).headers.get('www-authenticate'), 'Bearer realm="fw-admin"');
    await problem(await h.get(`${API}/overview`, { authorization: 'Bearer wrong' }), 401, 'unauthorized');
    await problem(await h.get(`${API}/overview?access_token=admin-s3cret-0123456789`), 401, 'unauthorized'); // query tokens are for sockets only
    const auth = { authorization: 'Bearer admin-s3cret-0123456789' };
    assert.equal((await h.get(`${API}/overview`, auth)).status, 200);

    await problem(await h.send('DELETE', `${API}/resources/u1`), 401, 'unauthorized');
    await problem(await h.send('DELETE', `${API}/resources/u1`, undefined, auth), 403, 'forbidden');
    assert.equal(h.runtime.rmap.has('u1'), true);

    const session = (await (await h.get(`${API}/session`, auth)).json()) as Record<string, unknown>;
    assert.deepEqual(
      { ...session, audit: undefined },
      {
        principal: 'admin',
        roles: ['admin'],
        role: 'admin',
        authenticated: true,
        authRequired: true,
        address: '127.0.0.1',
        permissions: {
          broadcast: false,
          unicast: false,
          disconnect: false,
          destroy: false,
          cancel: false,
          revoke: false,
          'kill-switch.arm': false,
          'kill-switch.disarm': false,
          'session.cancel-inflight': false,
          'governance.reload': false,
          replay: false,
          evaluate: false,
          rerun: false,
        },
        audit: undefined,
      },
    );

    // Refused reads are audited too (action `read`, the path as target), aggregated per caller,
    // action and outcome: the four refused reads are one record with a count.
    const audit = (await (await h.get(`${API}/audit`, auth)).json()) as AuditEntry[];
    assert.deepEqual(
      audit.map((e) => [e.action, e.target, e.principal, e.outcome, e.refusals?.count]),
      [
        ['disconnect', 'u1', 'admin', 'refused', 1],
        ['disconnect', 'u1', null, 'refused', 1],
        ['read', `${API}/overview`, null, 'refused', 4],
      ],
    );
    assert.equal(h.events.filter((e) => e.type === 'ControlActionExecuted' && !e.success).length, 2);
  } finally {
    await h.close();
  }
});

test('DENY_ALL refuses every write; the session shows no permission', async () => {
  const h = await startHarness({}, { authorizer: DENY_ALL });
  try {
    h.runtime.addResource('u1', '/fw/chat/lobby');
    await problem(
      await h.send('POST', `${API}/broadcasters/broadcast`, { broadcasterId: '/fw/chat/lobby', message: 'x' }),
      403,
      'forbidden',
    );
    assert.deepEqual(h.runtime.rmap.get('u1')!.received, []);
    const session = (await (await h.get(`${API}/session`)).json()) as {
      authRequired: boolean;
      authenticated: boolean;
      permissions: Record<string, boolean>;
    };
    assert.equal(session.authRequired, false);
    assert.equal(session.authenticated, false);
    assert.ok(Object.values(session.permissions).every((p) => p === false));
  } finally {
    await h.close();
  }
});

test('a write from a foreign Origin is refused (no CSRF against a loopback admin) and audited', async () => {
  const h = await startHarness();
  try {
    h.runtime.addResource('u1', '/fw/chat/lobby');
    await problem(await h.send('POST', `${API}/tasks/t1/cancel`, undefined, { origin: 'https://evil.example' }), 403, 'origin_not_allowed');
    assert.equal(h.agent.taskList[0]!.state, 'working');
    const audit = (await (await h.get(`${API}/audit`)).json()) as AuditEntry[];
    assert.equal(audit[0]?.reason, 'origin not allowed');
    // the dashboard's own same-origin requests pass and are audited as from the dashboard
    const res = await h.send(
      'POST',
      `${API}/broadcasters/broadcast`,
      { broadcasterId: '/fw/chat/lobby', message: 'x' },
      { origin: h.base, referer: `${h.base}/fw/admin/` },
    );
    assert.equal(res.status, 200);
    assert.equal(((await (await h.get(`${API}/audit?limit=1`)).json()) as AuditEntry[])[0]?.source, 'dashboard');
  } finally {
    await h.close();
  }
});

test('the dashboard is served with a strict CSP, without traversal', async () => {
  const h = await startHarness({ 'fw.admin.auth.token': 'admin-token-0123456789' });
  try {
    const page = await h.get('/fw/admin/');
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-security-policy'), DASHBOARD_CSP);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await page.text(), /fw admin/);
    const js = await h.get('/fw/admin/app.js');
    assert.match(js.headers.get('content-type') ?? '', /^text\/javascript/);
    const bare = await fetch(`${h.base}/fw/admin`, { redirect: 'manual' });
    assert.equal(bare.status, 301);
    assert.equal(bare.headers.get('location'), '/fw/admin/');
    for (const evil of [
      '/fw/admin/..%2f..%2fpackage.json',
      '/fw/admin/%2e%2e/x',
      '/fw/admin/.hidden',
      '/fw/admin/a%5c..%5cb',
      '/fw/admin/missing.js',
    ]) {
      await problem(await h.get(evil), 404, 'not_found');
    }
  } finally {
    await h.close();
  }
});

test('with a token the dashboard page still loads (it shows a sign-in form) but its data does not', async () => {
  const h = await startHarness({ 'fw.admin.auth.token': 'admin-token-0123456789' });
  try {
    assert.equal((await h.get('/fw/admin/')).status, 200);
    const dash = { 'x-fw-admin-client': 'dashboard', referer: `${h.base}/fw/admin/` };
    for (const path of ['/overview', '/resources', '/events/recent', '/session', '/audit', '/metrics']) {
      await problem(await h.get(API + path, dash), 401, 'unauthorized');
      assert.equal((await h.get(API + path, { ...dash, authorization: 'Bearer admin-token-0123456789' })).status, 200, path);
    }
    await problem(await h.send('POST', `${API}/tasks/t1/cancel`, undefined, dash), 401, 'unauthorized');
    assert.equal(h.agent.taskList[0]!.state, 'working');
    const audit = (await (
      await h.get(`${API}/audit?action=cancel`, { authorization: 'Bearer admin-token-0123456789' })
    ).json()) as AuditEntry[];
    assert.deepEqual(
      audit.map((e) => [e.action, e.target, e.outcome, e.source]),
      [['cancel', 't1', 'refused', 'dashboard']],
    );
    const reads = (await (
      await h.get(`${API}/audit?action=read&limit=1000`, { authorization: 'Bearer admin-token-0123456789' })
    ).json()) as AuditEntry[];
    assert.equal(reads.length, 1, 'the refused reads of one caller are one record');
    assert.equal(reads[0]?.refusals?.count, 6, 'each refused read is counted');
    assert.equal(reads[0]?.refusals?.targets.length, 6, 'and its path named');
    assert.ok(reads.every((e) => e.outcome === 'refused' && e.source === 'dashboard'));
  } finally {
    await h.close();
  }
});

test('a body past fw.admin.max-body is a 413, one at the limit is accepted', async () => {
  const h = await startHarness({ 'fw.admin.max-body': 100 });
  try {
    h.runtime.addResource('u1', '/fw/a');
    const body = (n: number): string => {
      const base = JSON.stringify({ broadcasterId: '/fw/a', message: '' });
      return JSON.stringify({ broadcasterId: '/fw/a', message: 'x'.repeat(n - base.length) });
    };
    assert.equal(body(100).length, 100);
    assert.equal((await h.send('POST', `${API}/broadcasters/broadcast`, body(100))).status, 200);
    await problem(await h.send('POST', `${API}/broadcasters/broadcast`, body(101)), 413, 'payload_too_large');
  } finally {
    await h.close();
  }
});

test('the audit JSON Lines file is complete after a restart of the app', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-audit-app-'));
  const file = join(dir, 'audit.jsonl');
  try {
    const first = await startHarness({ 'fw.admin.audit.file': file }, { authorizer: (action) => action !== 'destroy' });
    first.runtime.addResource('u1', '/fw/a');
    await first.send('POST', `${API}/broadcasters/broadcast`, { broadcasterId: '/fw/a', message: 'm' });
    await first.send('DELETE', `${API}/broadcasters/${encodeURIComponent('/fw/a')}`);
    await first.send('DELETE', `${API}/resources/nope`);
    const before = (await (await first.get(`${API}/audit`)).json()) as AuditEntry[];
    await first.close();

    const second = await startHarness({ 'fw.admin.audit.file': file });
    try {
      const after = (await (await second.get(`${API}/audit`)).json()) as AuditEntry[];
      // The refusal record was still collecting before the restart; closing the app wrote it.
      const closed = before.map((e) => (e.refusals ? { ...e, refusals: { ...e.refusals, open: false } } : e));
      assert.deepEqual(after, closed);
      assert.deepEqual(
        after.map((e) => `${e.action}:${e.outcome}`),
        ['disconnect:failed', 'disconnect:allowed', 'destroy:refused', 'broadcast:allowed'],
      );
      await second.send('POST', `${API}/tasks/t1/cancel`);
      const seqs = (path: string) =>
        readFileSync(path, 'utf8')
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as AuditEntry).seq);
      assert.deepEqual(seqs(file), [1, 3, 4, 5], 'write records in audit.jsonl');
      assert.deepEqual(seqs(join(dir, 'audit.refusals.jsonl')), [2], 'refusal records in a file of their own');
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('opting into remote unauthenticated access warns at startup', async () => {
  const logger = new MemoryLogger();
  const h = await startHarness({ 'fw.admin.allow-remote-unauthenticated': true, logger });
  await h.close();
  const quiet = await startHarness({
    'fw.admin.allow-remote-unauthenticated': true,
    'fw.admin.auth.token': 'admin-token-0123456789',
    logger,
  });
  await quiet.close();
  const seen = logger.entries.filter((e) => e.level === 'warn' && e.fields.key === 'fw.admin.allow-remote-unauthenticated');
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.fields.module, 'admin');
});

test("under another fw.path the dashboard page points at that path's event stream and client", async () => {
  const h = await startHarness({ 'fw.path': '/rt' });
  try {
    writeFileSync(
      join(h.dashboardDir, 'index.html'),
      '<meta name="fw-admin-api" content="/api/admin/"><meta name="fw-admin-events" content="/fw/admin/events"><meta name="fw-client" content="/fw/client.js">',
    );
    const html = await (await h.get('/rt/admin/')).text();
    assert.equal(
      html,
      '<meta name="fw-admin-api" content="/api/admin/"><meta name="fw-admin-events" content="/rt/admin/events"><meta name="fw-client" content="/rt/client.js">',
    );
    assert.equal((await h.get('/fw/admin/')).status, 404);
  } finally {
    await h.close();
  }
});

test('GET nodes answers for the cluster when the cluster service is there', async () => {
  const h = await startHarness();
  try {
    const alone = (await (await h.get(`${API}/nodes`)).json()) as { self: boolean }[];
    assert.equal(alone.length, 1);
    assert.equal(alone[0]!.self, true);
    h.fw.services.provide('cluster', {
      handle: () => () => undefined,
      nodes: async () => [
        { id: 'a', self: true },
        { id: 'b', self: false },
      ],
    } as unknown as ClusterService);
    const res = await h.get(`${API}/nodes`);
    assert.equal(res.headers.get('x-total-count'), '2');
    assert.deepEqual(await res.json(), [
      { id: 'a', self: true },
      { id: 'b', self: false },
    ]);
  } finally {
    await h.close();
  }
});
