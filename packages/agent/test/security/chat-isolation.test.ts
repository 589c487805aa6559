/**
 * Attack: one chat client takes over another's conversation by presenting its session id on a new
 * connection (`?session=`). A principal resumes its own sessions only; an anonymous session is
 * resumed by the id it was given (server-generated, sent to that client only); a session stored
 * before owners existed is resumed by nobody. Performed over real WebSockets in both configurations.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Agent } from '../../dist/index.js';
import { ProbeRuntime, startApp, type TestApp } from '../helpers.js';
import { ChatClient, CONFIGURATIONS } from './helpers.js';

@Agent({ name: 'talker' })
class Talker {}

for (const config of CONFIGURATIONS) {
  const anonymous = config.token('alice') === undefined;

  describe(`chat sessions between callers, ${config.name}`, () => {
    let app: TestApp;
    before(async () => {
      app = await startApp((m) => m.mount(Talker), config.options, [new ProbeRuntime()]);
    });
    after(() => app.close());

    test('a session is resumed by its owner; bob presenting alice’s session id gets a new, empty one', async () => {
      const alice = await ChatClient.connect(app, 'talker', { token: config.token('alice') });
      const opened = await alice.session();
      assert.equal((await alice.ask('alice-chat-secret')).type, 'done');
      await alice.close();

      const bob = await ChatClient.connect(app, 'talker', { token: config.token('bob'), session: opened.id! });
      const bobs = await bob.session();
      if (anonymous) {
        // Anonymous: the session id is the capability of whoever holds it.
        assert.equal(bobs.resumed, true);
      } else {
        assert.equal(bobs.resumed, false);
        assert.notEqual(bobs.id, opened.id);
        assert.deepEqual(bobs.history, []);
        assert.ok(!JSON.stringify(bob.frames).includes('alice-chat-secret'));
      }
      await bob.close();

      const again = await ChatClient.connect(app, 'talker', { token: config.token('alice'), session: opened.id! });
      const resumed = await again.session();
      assert.equal(resumed.resumed, true);
      assert.ok(resumed.history?.some((m) => m.content === 'alice-chat-secret'));
      await again.close();
      await app.module.db.writes.flush();
      const row = await app.module.db.sessions.get(opened.id!);
      assert.match(row?.owner ?? '', anonymous ? /^anonymous:[\w-]{22}$/ : /^principal:alice$/);
    });

    test('a session stored before owners existed (no owner) is resumed by nobody', async () => {
      const id = randomUUID();
      await app.module.db.sessions.put({
        id,
        agent: 'talker',
        resource_uuid: null,
        owner: null,
        started_at: 1,
        last_activity_at: 1,
        ended_at: 2,
        end_reason: 'closed',
        message_count: 1,
      });
      await app.module.db.sessions.addMessage({ session_id: id, seq: 1, role: 'user', content: 'legacy-secret', at: 1 });
      const c = await ChatClient.connect(app, 'talker', { token: config.token('alice'), session: id });
      const s = await c.session();
      assert.equal(s.resumed, false);
      assert.ok(!JSON.stringify(c.frames).includes('legacy-secret'));
      await c.close();
    });
  });
}
