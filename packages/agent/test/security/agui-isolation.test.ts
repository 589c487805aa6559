/**
 * Attack: one AG-UI client cancels another's run by its run id (issue 24: bob cancelled alice's
 * run, 202), or learns that a run id is in use. AG-UI run ids are chosen by the client, so they
 * prove nothing: a principal cancels its own runs only, and an anonymous run is cancelled with the
 * owner key its RUN_STARTED carried. Performed over real HTTP/SSE in both configurations.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '@fw/testing';
import { Agent } from '../../dist/index.js';
import { ProbeRuntime, startApp, type TestApp } from '../helpers.js';
import { AguiStream, cancelRun, CONFIGURATIONS, runInput } from './helpers.js';

@Agent({ name: 'runner', headless: true })
class Runner {}

for (const config of CONFIGURATIONS) {
  const anonymous = config.token('alice') === undefined;

  describe(`AG-UI runs between callers, ${config.name}`, () => {
    const probe = new ProbeRuntime();
    let app: TestApp;
    before(async () => {
      app = await startApp((m) => m.mount(Runner), config.options, [probe]);
    });
    after(() => app.close());

    test('bob cannot cancel alice’s run by its run id: 404 exactly like an unknown run, and her run goes on', async () => {
      const alice = config.token('alice');
      const bob = config.token('bob');
      const run = await AguiStream.start(app, 'runner', runInput('alice-run', 'slow alice'), { token: alice });
      assert.equal(run.status, 200);
      const key = await run.runKey();
      assert.equal(key !== undefined, anonymous, 'an owner key is issued to anonymous runs only');
      await waitFor('tokens streaming', () => run.events.some((e) => e.type === 'TEXT_MESSAGE_CONTENT'));
      const aborts = probe.aborts;

      const refused = await cancelRun(app, 'runner', 'alice-run', { token: bob });
      const unknown = await cancelRun(app, 'runner', 'no-such-run', { token: bob });
      assert.equal(refused.status, 404);
      assert.equal(
        JSON.stringify(refused.body).replaceAll('alice-run', '<id>'),
        JSON.stringify(unknown.body).replaceAll('no-such-run', '<id>'),
      );
      if (anonymous) {
        // Without the key, or with a wrong one, the run id alone is nothing.
        assert.equal((await cancelRun(app, 'runner', 'alice-run', { runKey: 'A'.repeat(22) })).status, 404);
        assert.equal((await cancelRun(app, 'runner', 'alice-run', { runKey: `${key!.slice(0, -1)}x` })).status, 404);
      }
      assert.equal(run.ended, false);
      assert.equal(probe.aborts, aborts, 'alice’s run was aborted by bob');

      const own = await cancelRun(app, 'runner', 'alice-run', { token: alice, runKey: key });
      assert.equal(own.status, 202);
      assert.deepEqual((await run.finished()).outcome, { type: 'cancelled' });
    });

    test('bob starting a run with alice’s run id learns nothing and touches nothing: two runs, each cancelled by its owner', async () => {
      const alice = config.token('alice');
      const bob = config.token('bob');
      const hers = await AguiStream.start(app, 'runner', runInput('shared-id', 'slow hers'), { token: alice });
      await hers.runKey();
      // Before: 400 "run 'shared-id' is already in progress" told bob alice's run id was live.
      const his = await AguiStream.start(app, 'runner', runInput('shared-id', 'slow his'), { token: bob });
      assert.equal(his.status, 200, JSON.stringify(his.problem));
      const hisKey = await his.runKey();
      const herKey = await hers.runKey();
      // The admin plane sees both, under distinct ids.
      const ids = app.module.view
        .tasks({ agentName: 'runner' })
        .filter((t) => t.protocol === 'agui')
        .map((t) => t.id);
      assert.equal(new Set(ids).size, 2, JSON.stringify(ids));
      assert.equal((await cancelRun(app, 'runner', 'shared-id', { token: bob, runKey: hisKey })).status, 202);
      assert.deepEqual((await his.finished()).outcome, { type: 'cancelled' });
      assert.equal(hers.ended, false, 'bob’s cancel ended alice’s run');
      assert.equal((await cancelRun(app, 'runner', 'shared-id', { token: alice, runKey: herKey })).status, 202);
      assert.deepEqual((await hers.finished()).outcome, { type: 'cancelled' });
    });

    test('the run record in the store names its owner', async () => {
      const run = await AguiStream.start(app, 'runner', runInput('recorded', 'hello'), { token: config.token('alice') });
      await run.finished();
      const rows = await app.module.view.runs!({ protocol: 'agui' });
      const row = rows.find((r) => r.ref === 'recorded');
      assert.equal(row?.owner, anonymous ? 'anonymous' : 'principal:alice');
      const stored = await app.module.db.runs.list({ protocol: 'agui' });
      const raw = stored.find((r) => r.ref === 'recorded')?.owner;
      assert.match(raw ?? '', anonymous ? /^anonymous:[\w-]{22}$/ : /^principal:alice$/);
    });
  });
}
