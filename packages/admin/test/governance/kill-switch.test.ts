/**
 * Issue 26 item 1 on one node, over real sockets: the kill switch refuses new runs on chat, A2A
 * and AG-UI with a clear error, stops the streaming run in flight (recorded cancelled with the
 * reason), lets runs through again once disarmed; a viewer is refused; every write is audited and
 * evented; a restarted node starts armed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcp } from '@fw/mcp';
import { waitFor } from '@fw/testing';
import type { AuditEntry, KillSwitchReport } from '../../dist/index.js';
import { adminEvents, API, bearer, chat, startGovApp, TOKENS, type GovApp } from './apps.js';

const ARM = `${API}/governance/kill-switch/arm`;
const DISARM = `${API}/governance/kill-switch/disarm`;
const HEALTH = `${API}/governance/health`;

async function a2aSend(app: GovApp, agent: string, text: string): Promise<string> {
  const res = await app.send('POST', `/fw/agent/${agent}/a2a`, {
    jsonrpc: '2.0',
    id: 1,
    method: 'message/send',
    params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }] } },
  });
  return res.text();
}

async function aguiRun(app: GovApp, agent: string, text: string): Promise<string> {
  const res = await app.send('POST', `/fw/agent/${agent}/agui`, {
    threadId: randomUUID(),
    runId: randomUUID(),
    messages: [{ id: 'u1', role: 'user', content: text }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  });
  return res.text();
}

async function audit(app: GovApp, action: string): Promise<AuditEntry[]> {
  const res = await app.get(`${API}/audit?limit=1000&action=${encodeURIComponent(action)}`);
  assert.equal(res.status, 200);
  return (await res.json()) as AuditEntry[];
}

test('armed: chat, A2A and AG-UI runs are refused with a clear error, the streaming run in flight stops (recorded cancelled); disarmed: they run again; a viewer is refused; audited and evented', async () => {
  const app = await startGovApp();
  const stream = await adminEvents(app);
  const client = await chat(app, 'writer');
  try {
    // Before: everything runs.
    let from = client.frames.length;
    client.prompt('hello');
    assert.equal((await client.next('done', from)).text, 'ok');

    // A streaming run in flight.
    from = client.frames.length;
    client.prompt('write forever');
    await client.next('token', from);

    // A viewer may read the state but not arm it: 403, audited as refused, nothing changes.
    const refused = await app.send('POST', ARM, { reason: 'viewer tries' }, TOKENS.viewer);
    assert.equal(refused.status, 403);
    const health0 = (await (await app.get(HEALTH)).json()) as KillSwitchReport;
    assert.equal(health0.armed, false);
    assert.ok((await audit(app, 'kill-switch.arm')).some((e) => e.outcome === 'refused' && e.principal === 'vera'));

    // A malformed arm (no reason) is refused as invalid and changes nothing.
    assert.equal((await app.send('POST', ARM, { scope: '*' })).status, 400);
    assert.equal(((await (await app.get(HEALTH)).json()) as KillSwitchReport).armed, false);

    const armed = await app.send('POST', ARM, { reason: 'runaway spend' });
    assert.equal(armed.status, 200);
    const report = (await armed.json()) as KillSwitchReport;
    assert.equal(report.armed, true);
    assert.equal(report.scope, '*');
    assert.equal(report.reason, 'runaway spend');
    assert.equal(report.operator, 'otto');
    assert.ok(report.armedAt && Date.parse(report.armedAt) > 0);
    assert.equal(report.nodes.length, 1);
    assert.ok(Date.parse(report.nodes[0]!.ackAt) > 0);

    // The run in flight stopped: its client reads why, and the run is recorded cancelled with the reason.
    const stopped = await client.next('error', from);
    assert.equal(stopped.code, 'kill_switch_armed');
    assert.match(String(stopped.message), /kill switch is armed \(runaway spend\)/);
    const runs = await waitFor('the stopped run recorded cancelled', async () => {
      const list = (await (await app.get(`${API}/runs?protocol=chat&agentName=writer`)).json()) as {
        state: string;
        error: string | null;
      }[];
      return list.find((r) => r.state === 'cancelled');
    });
    assert.match(String(runs.error), /runaway spend/);

    // New runs are refused on every surface, and the model is never called.
    const calls = app.model.requests;
    from = client.frames.length;
    client.prompt('hello again');
    const chatRefusal = await client.next('error', from);
    assert.equal(chatRefusal.code, 'kill_switch_armed');
    assert.match(await a2aSend(app, 'writer', 'hello'), /kill switch is armed/);
    assert.match(await aguiRun(app, 'helper', 'hello'), /RUN_ERROR[^\n]*kill switch is armed/);
    assert.equal(app.model.requests, calls, 'no model call while armed');

    const health = (await (await app.get(HEALTH)).json()) as KillSwitchReport;
    assert.deepEqual(
      { armed: health.armed, reason: health.reason, operator: health.operator, nodes: health.nodes.map((n) => n.armed) },
      { armed: true, reason: 'runaway spend', operator: 'otto', nodes: [true] },
    );

    // Disarmed: runs go through again.
    const disarmed = await app.send('POST', DISARM, { reason: 'fixed' });
    assert.equal(disarmed.status, 200);
    assert.equal(((await disarmed.json()) as KillSwitchReport).armed, false);
    from = client.frames.length;
    client.prompt('hello once more');
    assert.equal((await client.next('done', from)).text, 'ok');
    assert.match(await a2aSend(app, 'writer', 'hello'), /"state":"completed"/);

    // Audited (allowed, by whom) and evented on /fw/admin/events.
    assert.ok((await audit(app, 'kill-switch.arm')).some((e) => e.outcome === 'allowed' && e.principal === 'otto' && e.target === '*'));
    assert.ok((await audit(app, 'kill-switch.disarm')).some((e) => e.outcome === 'allowed' && e.principal === 'otto'));
    const changes = await waitFor('both changes on the event stream', () => {
      const c = stream.events.filter((e) => e.type === 'KillSwitchChanged');
      return c.length >= 2 ? c : undefined;
    });
    assert.deepEqual(
      changes.map((c) => [c.armed, c.reason, c.operator]),
      [
        [true, 'runaway spend', 'otto'],
        [false, 'fixed', 'otto'],
      ],
    );
    assert.equal(changes[0]!.stopped, 1, 'the run in flight was stopped');
    assert.ok(stream.events.some((e) => e.type === 'ControlActionExecuted' && e.action === 'kill-switch.arm' && e.success === true));
  } finally {
    await client.close();
    await stream.close();
    await app.close();
  }
});

test('a scope of one agent refuses that agent only', async () => {
  const app = await startGovApp();
  try {
    const armed = await app.send('POST', ARM, { reason: 'helper misbehaves', scope: 'helper' });
    assert.equal(armed.status, 200);
    assert.equal(((await armed.json()) as KillSwitchReport).scope, 'helper');
    assert.match(await a2aSend(app, 'helper', 'hi'), /kill switch is armed for agent 'helper' \(helper misbehaves\)/);
    assert.match(await a2aSend(app, 'writer', 'hi'), /"state":"completed"/);
  } finally {
    await app.close();
  }
});

test('a node restarted while armed starts armed (the store keeps the switch); disarmed, it restarts disarmed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-gov-'));
  try {
    let app = await startGovApp({ 'fw.data-dir': dir });
    assert.equal((await app.send('POST', ARM, { reason: 'incident 42' })).status, 200);
    await app.close();

    app = await startGovApp({ 'fw.data-dir': dir });
    try {
      const health = (await (await app.get(HEALTH)).json()) as KillSwitchReport;
      assert.deepEqual([health.armed, health.reason, health.operator], [true, 'incident 42', 'otto']);
      assert.match(await a2aSend(app, 'writer', 'hi'), /kill switch is armed \(incident 42\)/);
      assert.equal(app.model.requests, 0);
      assert.equal((await app.send('POST', DISARM, {})).status, 200);
    } finally {
      await app.close();
    }

    app = await startGovApp({ 'fw.data-dir': dir });
    try {
      assert.equal(((await (await app.get(HEALTH)).json()) as KillSwitchReport).armed, false);
      assert.match(await a2aSend(app, 'writer', 'hi'), /"state":"completed"/);
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the admin MCP tools arm, read and disarm the switch, each with its role and audited as mcp', async () => {
  const app = await startGovApp({ 'fw.admin.mcp-tools': true, 'fw.admin.mcp-write-tools': true }, [], [mcp()]);
  const connect = async (token: string): Promise<Client> => {
    const client = new Client({ name: 'gov-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.base}/fw/admin/mcp`), { requestInit: { headers: bearer(token) } }),
    );
    return client;
  };
  const textOf = (r: unknown): string => ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;
  const viewer = await connect(TOKENS.viewer);
  const operator = await connect(TOKENS.operator);
  try {
    const refused = await viewer.callTool({ name: 'fw_kill_switch_arm', arguments: { reason: 'viewer' } });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /forbidden/);

    const armed = await operator.callTool({ name: 'fw_kill_switch_arm', arguments: { reason: 'from an AI operator', scope: 'writer' } });
    assert.notEqual(armed.isError, true, textOf(armed));
    assert.deepEqual((({ armed: a, scope, operator: o }) => ({ a, scope, o }))(JSON.parse(textOf(armed)) as KillSwitchReport), {
      a: true,
      scope: 'writer',
      o: 'otto',
    });
    const health = JSON.parse(textOf(await viewer.callTool({ name: 'fw_governance_health', arguments: {} }))) as KillSwitchReport;
    assert.equal(health.armed, true);
    assert.match(await a2aSend(app, 'writer', 'hi'), /kill switch is armed for agent 'writer'/);

    const off = await operator.callTool({ name: 'fw_kill_switch_disarm', arguments: { reason: 'done' } });
    assert.equal((JSON.parse(textOf(off)) as KillSwitchReport).armed, false);
    const records = await audit(app, 'kill-switch.arm');
    assert.ok(records.some((e) => e.source === 'mcp' && e.outcome === 'allowed' && e.principal === 'otto'));
    assert.ok(records.some((e) => e.source === 'mcp' && e.outcome === 'refused' && e.principal === 'vera'));
  } finally {
    await viewer.close();
    await operator.close();
    await app.close();
  }
});
