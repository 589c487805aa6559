/**
 * Attack: route a write through another node to skip the rules of the node that holds the target.
 * An operator on node A unicast into the admin event stream held by node B and got `200
 * delivered:true, node:node-b`: a forged ControlActionExecuted reached the admin's dashboard,
 * while the same call on B was a 403. Every cluster-routed control method now runs the TARGET
 * node's own rules (internal broadcasters, roles, its authorizer) before acting, and the caller
 * gets the same refusal as a local call. A real three-node cluster on a Redis this test starts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import WebSocket from 'ws';
import type { Framework } from '@fw/runtime';
import { waitFor } from '@fw/testing';
import type { AuditEntry, ControlAuthorizer } from '../../dist/index.js';
import { fakeAgent } from '../doubles.js';
import { API, bearer, expectProblem, TOKENS } from './helpers.js';
import { redisServerMissing, startCluster, ThrowawayRedis, type ClusterNode } from './cluster-nodes.js';

const OPERATOR = bearer(TOKENS.operator);
const EVENTS = '/fw/admin/events';

/** Node B's own rule: nothing may be sent to, or disconnect, a member of a vault room; task `t-locked` may not be canceled. */
function vaultRule(fw: () => Framework): ControlAuthorizer {
  return (action, target) => {
    if (action === 'cancel') return target !== 't-locked';
    if (action !== 'unicast' && action !== 'disconnect') return true;
    return !fw().runtime.getResource(target)?.path.startsWith('/fw/chat/vault');
  };
}

/** A raw WebSocket with the frames it received. */
async function socket(url: string): Promise<{ ws: WebSocket; frames: string[]; closed: Promise<[number, string]> }> {
  const ws = new WebSocket(url);
  const frames: string[] = [];
  ws.on('message', (d) => frames.push(String(d)));
  const closed = once(ws, 'close').then(([code, reason]) => [code as number, String(reason)] as [number, string]);
  await once(ws, 'open');
  return { ws, frames, closed };
}

async function uuidOn(node: ClusterNode, broadcaster: string): Promise<string> {
  return waitFor(`a member of ${broadcaster} on ${node.id}`, async () => {
    const res = await node.get(`${API}/resources?broadcaster=${encodeURIComponent(broadcaster)}`, bearer(TOKENS.viewer));
    const rows = (await res.json()) as { uuid: string; node: string }[];
    return rows.find((r) => r.node === node.id)?.uuid;
  });
}

describe('cluster-routed control runs the target node’s rules', { skip: redisServerMissing, timeout: 120_000 }, () => {
  let redis: ThrowawayRedis;
  let a: ClusterNode;
  let b: ClusterNode;
  let c: ClusterNode;
  const agentOnB = fakeAgent();

  before(async () => {
    redis = await ThrowawayRedis.start();
    let fwB: Framework | undefined;
    [a, b, c] = (await startCluster(redis, [
      { id: 'node-a' },
      { id: 'node-b', options: { authorizer: vaultRule(() => fwB!) } },
      { id: 'node-c' },
    ])) as [ClusterNode, ClusterNode, ClusterNode];
    fwB = b.fw;
    const now = new Date().toISOString();
    agentOnB.taskList.push(
      { id: 't-b', contextId: 'c', agentName: 'research', state: 'working', createdAt: now, updatedAt: now },
      { id: 't-locked', contextId: 'c', agentName: 'research', state: 'working', createdAt: now, updatedAt: now },
      { id: 't-done', contextId: 'c', agentName: 'research', state: 'completed', createdAt: now, updatedAt: now },
    );
    b.fw.services.provide('agent', agentOnB);
  });

  after(async () => {
    for (const node of [a, b, c]) await node?.close();
    await redis?.stop();
  });

  it('a unicast from node A into the admin event stream held by node B is 403 internal_broadcaster, as on B; nothing forged arrives', async () => {
    const dashboard = await socket(`${b.ws}${EVENTS}?access_token=${TOKENS.viewer}`);
    try {
      const uuid = await uuidOn(b, EVENTS);
      const forged = JSON.stringify({
        type: 'ControlActionExecuted',
        action: 'destroy',
        target: '/fw/chat/lobby',
        principal: 'ada',
        success: true,
      });
      const viaA = await a.send('POST', `${API}/resources/${uuid}/message`, { message: forged }, OPERATOR);
      const body = await expectProblem(viaA, 403, 'internal_broadcaster');
      assert.equal(body.node, 'node-b', 'the node whose rule refused');
      const onB = await b.send('POST', `${API}/resources/${uuid}/message`, { message: forged }, OPERATOR);
      await expectProblem(onB, 403, 'internal_broadcaster');

      // The stream is alive and in order: an event caused after the refusals arrives, nothing forged before it.
      b.fw.broadcasters.lookup('/fw/chat/after-refusal', true);
      await waitFor('a later event on the stream', () =>
        dashboard.frames.some((f) => f.includes('/fw/chat/after-refusal')) ? true : undefined,
      );
      assert.ok(!dashboard.frames.some((f) => f === forged || f.includes('"principal":"ada"')), 'no forged frame reached the dashboard');

      // A records the refusal (aggregated), naming node B.
      const refusals = (await a.audit('class=refusal&action=unicast')) as AuditEntry[];
      assert.equal(refusals.length, 1);
      assert.equal(refusals[0]?.principal, 'otto');
      assert.match(refusals[0]?.reason ?? '', /internal broadcasters are read-only \(on node node-b\)/);
      assert.deepEqual(
        ((await a.audit('class=action&action=unicast')) as AuditEntry[]).length,
        0,
        'never recorded as allowed: B refused before A wrote anything',
      );
    } finally {
      dashboard.ws.close();
    }
  });

  it("node B's authorizer refuses a unicast and a disconnect routed from A (403 forbidden); an allowed one still reaches B", async () => {
    const vault = await socket(`${b.ws}/fw/chat/vault`);
    const lobby = await socket(`${b.ws}/fw/chat/lobby`);
    try {
      const vaultId = await uuidOn(b, '/fw/chat/vault');
      const lobbyId = await uuidOn(b, '/fw/chat/lobby');
      const refused = await a.send('POST', `${API}/resources/${vaultId}/message`, { message: 'let me in' }, OPERATOR);
      const body = await expectProblem(refused, 403, 'forbidden');
      assert.match(String(body.detail), /refused by the authorizer/);
      await expectProblem(await a.send('DELETE', `${API}/resources/${vaultId}?reason=out`, undefined, OPERATOR), 403, 'forbidden');

      const allowed = await a.send('POST', `${API}/resources/${lobbyId}/message`, { message: 'hello b' }, OPERATOR);
      assert.equal(allowed.status, 200);
      assert.deepEqual(await allowed.json(), { uuid: lobbyId, delivered: true, node: 'node-b' });
      await waitFor('the lobby member got it', () => (lobby.frames.includes('hello b') ? true : undefined));
      assert.deepEqual(vault.frames, [], 'nothing reached the vault member');
      assert.equal(vault.ws.readyState, WebSocket.OPEN, 'the vault member is still connected');
      // The role rules run there too: a viewer is refused (here by A already, as B would).
      await expectProblem(
        await c.send('POST', `${API}/resources/${lobbyId}/message`, { message: 'x' }, bearer(TOKENS.viewer)),
        403,
        'forbidden',
      );
    } finally {
      vault.ws.close();
      lobby.ws.close();
    }
  });

  it('a cancel routed to node B runs its rules: refused by its authorizer, allowed otherwise, and a finished task is 409 (not 504)', async () => {
    await expectProblem(await a.send('POST', `${API}/tasks/t-locked/cancel`, undefined, OPERATOR), 403, 'forbidden');
    assert.equal(agentOnB.task('t-locked')?.state, 'working');
    const ok = await a.send('POST', `${API}/tasks/t-b/cancel`, undefined, OPERATOR);
    assert.equal(ok.status, 200);
    assert.equal(((await ok.json()) as { state: string }).state, 'canceled');
    await expectProblem(await c.send('POST', `${API}/tasks/t-done/cancel`, undefined, OPERATOR), 409, 'task_not_cancelable');
  });

  it('a broadcast to a broadcaster that is internal on node C only is 403 internal_broadcaster from A', async () => {
    c.fw.broadcasters.create('/fw/ops/internal', { internal: true });
    await expectProblem(
      await a.send('POST', `${API}/broadcasters/broadcast`, { broadcasterId: '/fw/ops/internal', message: 'x' }, OPERATOR),
      403,
      'internal_broadcaster',
    );
  });

  it('POST credentials/revoke on A cuts a principal off on every node: its stream on B closes (1008), its token is refused on C', async () => {
    const stream = await socket(`${b.ws}${EVENTS}?access_token=${TOKENS.viewer}`);
    try {
      await expectProblem(await a.send('POST', `${API}/credentials/revoke`, { principal: 'vera' }, OPERATOR), 403, 'forbidden');
      const res = await a.send('POST', `${API}/credentials/revoke`, { principal: 'vera' }, bearer(TOKENS.admin));
      assert.equal(res.status, 200);
      const revoked = (await res.json()) as { principal: string; revoked: boolean; closed: number; missing?: string[] };
      assert.deepEqual([revoked.principal, revoked.revoked, revoked.missing], ['vera', true, undefined]);
      assert.ok(revoked.closed >= 1, 'at least the stream below was closed');
      const [code, reason] = await stream.closed;
      assert.deepEqual([code, reason], [1008, 'credential_revoked']);
      assert.deepEqual(JSON.parse(stream.frames.at(-1)!), {
        type: 'SessionEnded',
        reason: 'revoked',
        detail: 'the credential was revoked',
      });
      await expectProblem(await c.get(`${API}/overview`, bearer(TOKENS.viewer)), 401, 'unauthorized');
    } finally {
      stream.ws.close();
    }
  });
});
