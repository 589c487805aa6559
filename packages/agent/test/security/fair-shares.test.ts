/**
 * Attack: one client takes a whole global limit (issue 24: all 100 AG-UI run slots, 429 for
 * everyone on every agent; the A2A task store filled with 1,000 live tasks, "task store is full"
 * for all; likewise all chat sessions). Each caller (a principal; anonymous: its address, IPv6 by
 * /64) holds at most its share of `fw.agent.agui.max-runs`, `fw.agent.tasks.max` and
 * `fw.agent.sessions.max`: at the share it passes, one more is refused (429, a JSON-RPC -32000 with
 * `data`, or a chat closed with the reason; with Retry-After) while the others still get in; the
 * whole capacity in use is a 503 `capacity_exhausted`. Anonymous callers come from three loopback
 * addresses; alice, bob and carol all come from one (a NAT: principals count apart).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from '../../dist/index.js';
import { ProbeRuntime, startApp, type TestApp } from '../helpers.js';
import { waitFor } from '@fw/testing';
import { AguiStream, cancelRun, ChatClient, CONFIGURATIONS, rpc, runInput } from './helpers.js';

@Agent({ name: 'worker', headless: true })
class Worker {}

@Agent({ name: 'lounge' })
class Lounge {}

const LIMITS = {
  'fw.agent.agui.max-runs': 5,
  'fw.agent.agui.max-runs-per-principal': 2,
  'fw.agent.agui.max-runs-per-address': 2,
  'fw.agent.tasks.max': 5,
  'fw.agent.tasks.max-per-principal': 2,
  'fw.agent.tasks.max-per-address': 2,
  'fw.agent.sessions.max': 5,
  'fw.agent.sessions.max-per-principal': 2,
  'fw.agent.sessions.max-per-address': 2,
};

const ADDRESSES = { alice: '127.0.0.2', bob: '127.0.0.3', carol: '127.0.0.4' } as const;

for (const config of CONFIGURATIONS) {
  const anonymous = config.token('alice') === undefined;
  const share = anonymous ? 'address' : 'principal';
  /** How a caller is identified: its token, or (anonymous) its own address. */
  const as = (who: 'alice' | 'bob' | 'carol') => ({ token: config.token(who), localAddress: anonymous ? ADDRESSES[who] : '127.0.0.1' });

  describe(`fair shares of the agent caps, ${config.name}`, () => {
    const probe = new ProbeRuntime();
    let app: TestApp;
    before(async () => {
      app = await startApp(
        (m) => {
          m.mount(Worker);
          m.mount(Lounge);
        },
        { ...config.options, ...LIMITS },
        [probe],
      );
    });
    after(() => app.close());

    test(`AG-UI runs: a ${share} runs its share (2), the next is 429; others still run; a full cap is 503`, async () => {
      const runs: { stream: AguiStream; runId: string; who: 'alice' | 'bob' | 'carol' }[] = [];
      const start = async (who: 'alice' | 'bob' | 'carol', runId: string) => {
        const stream = await AguiStream.start(app, 'worker', runInput(runId, `slow ${runId}`), as(who));
        if (stream.status === 200) runs.push({ stream, runId, who });
        return stream;
      };
      assert.equal((await start('alice', 'a1')).status, 200);
      assert.equal((await start('alice', 'a2')).status, 200);
      const over = await start('alice', 'a3');
      assert.equal(over.status, 429);
      assert.equal(over.headers.get('retry-after'), '1');
      assert.equal(over.problem?.code, 'limit_exceeded');
      assert.equal(over.problem?.limit, `fw.agent.agui.max-runs-per-${share}`);
      // Bob is not held back by alice's share.
      assert.equal((await start('bob', 'b1')).status, 200);
      assert.equal((await start('bob', 'b2')).status, 200);
      assert.equal((await start('carol', 'c1')).status, 200);
      // Five of five in use: carol is within her share, but nothing is left.
      const full = await start('carol', 'c2');
      assert.equal(full.status, 503);
      assert.equal(full.problem?.code, 'capacity_exhausted');
      assert.equal(full.headers.get('retry-after'), '1');
      // A run that ends gives its slot back to its owner.
      const first = runs[0]!;
      const key = await first.stream.runKey();
      assert.equal((await cancelRun(app, 'worker', 'a1', { token: config.token('alice'), runKey: key })).status, 202);
      await first.stream.finished();
      assert.equal((await start('alice', 'a4')).status, 200);
      for (const r of runs.slice(1)) {
        await cancelRun(app, 'worker', r.runId, { token: config.token(r.who), runKey: await r.stream.runKey() });
        await r.stream.finished();
      }
      assert.equal(app.module.host.limits.runs.inUse(), 0, 'a run that ended still holds its slot');
    });

    test(`A2A live tasks: a ${share} holds its share (2), the next send is a -32000 with data and Retry-After and never runs; a full cap is capacity_exhausted`, async () => {
      const send = (who: 'alice' | 'bob' | 'carol', text: string, version: '1.0' | '0.3' = '1.0') =>
        rpc(
          app,
          'worker',
          version === '1.0'
            ? {
                jsonrpc: '2.0',
                id: 1,
                method: 'SendMessage',
                params: {
                  message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] },
                  configuration: { returnImmediately: true },
                },
              }
            : {
                jsonrpc: '2.0',
                id: 1,
                method: 'message/send',
                params: {
                  message: { kind: 'message', messageId: `m-${text}`, role: 'user', parts: [{ kind: 'text', text }] },
                  configuration: { blocking: false },
                },
              },
          { ...as(who), version },
        );
      const live: { id: string; who: 'alice' | 'bob' | 'carol' }[] = [];
      const accepted = async (who: 'alice' | 'bob' | 'carol', text: string) => {
        const answer = await send(who, text);
        const task = (answer.body.result as { task?: { id: string } } | undefined)?.task;
        assert.ok(task, answer.text);
        live.push({ id: task.id, who });
      };
      await accepted('alice', 'slow t1');
      await accepted('alice', 'slow t2');
      const ran = probe.requests.length;
      for (const version of ['1.0', '0.3'] as const) {
        const over = await send('alice', 'slow t3', version);
        assert.equal(over.status, 200);
        assert.equal(over.body.error?.code, -32000, over.text);
        assert.equal(over.body.error?.data?.code, 'limit_exceeded');
        assert.equal(over.body.error?.data?.limit, `fw.agent.tasks.max-per-${share}`);
        assert.equal(over.body.error?.data?.retryAfter, 1);
        assert.equal(over.headers.get('retry-after'), '1');
      }
      assert.equal(probe.requests.length, ran, 'a refused send ran the model');
      await accepted('bob', 'slow t4');
      await accepted('bob', 'slow t5');
      await accepted('carol', 'slow t6');
      const full = await send('carol', 'slow t7');
      assert.equal(full.body.error?.code, -32000);
      assert.equal(full.body.error?.data?.code, 'capacity_exhausted');
      // A task that ends gives its share back.
      const cancel = await rpc(
        app,
        'worker',
        { jsonrpc: '2.0', id: 2, method: 'CancelTask', params: { id: live[0]!.id } },
        { ...as('alice'), version: '1.0' },
      );
      assert.equal((cancel.body.result as { status: { state: string } }).status.state, 'TASK_STATE_CANCELED', cancel.text);
      await accepted('alice', 'slow t8');
      for (const t of live.slice(1)) await app.module.view.cancelTask(t.id);
      assert.equal(app.module.host.limits.tasks.inUse(), 0, 'a task that ended (or a refused send) still holds its share');
    });

    test(`chat sessions: a ${share} holds its share (2), the next connection is closed saying why; others still chat; a full cap is refused too`, async () => {
      const open: ChatClient[] = [];
      /** Opens a chat; resolves with its session frame, or the reason it was closed with. */
      const connect = async (who: 'alice' | 'bob' | 'carol'): Promise<{ session?: string; closed?: string }> => {
        const c = await ChatClient.connect(app, 'lounge', as(who));
        let closed: string | undefined;
        c.ws.once('close', (_code, reason) => {
          closed = String(reason);
        });
        const outcome = await waitFor('a session or a close', () =>
          c.frames.find((f) => f.type === 'session') ? { session: c.frames[0]!.id } : closed !== undefined ? { closed } : undefined,
        );
        if (outcome.session) open.push(c);
        return outcome;
      };
      assert.ok((await connect('alice')).session);
      assert.ok((await connect('alice')).session);
      const over = await connect('alice');
      assert.match(over.closed ?? '', /fw\.agent\.sessions\.max: this (principal|client address) already holds its share \(2\)/);
      assert.ok((await connect('bob')).session);
      assert.ok((await connect('bob')).session);
      assert.ok((await connect('carol')).session);
      assert.match((await connect('carol')).closed ?? '', /fw\.agent\.sessions\.max: all 5 are in use/);
      // A session that ends gives its share back.
      await open[0]!.close();
      await waitFor('alice’s share freed', () => app.module.host.limits.sessions.inUse() === 4);
      assert.ok((await connect('alice')).session);
      for (const c of open.slice(1)) await c.close();
      await waitFor('every session share given back', () => app.module.host.limits.sessions.inUse() === 0);
    });
  });
}
