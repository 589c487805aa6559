/**
 * Attack: a principal whose credential was revoked (or expired) keeps receiving an agent's answer
 * on a stream it opened before. An AG-UI run is cancelled with its stream; an A2A stream is closed
 * (the task goes on: A2A tasks outlive streams); a chat session is closed; the principal's next
 * request is refused. Only meaningful with credentials: performed with fw.auth.tokens.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '@fw/testing';
import { Agent } from '../../dist/index.js';
import { ProbeRuntime, startApp, type TestApp } from '../helpers.js';
import { AguiStream, ChatClient, CONFIGURATIONS, fetchAs, rpc, runInput, sendBody } from './helpers.js';

@Agent({ name: 'streamer' })
class Streamer {}

const config = CONFIGURATIONS.find((c) => c.token('alice') !== undefined)!;
const probe = new ProbeRuntime();
let app: TestApp;
before(async () => {
  app = await startApp((m) => m.mount(Streamer), config.options, [probe]);
});
after(() => app.close());

test('revoking alice ends her AG-UI run, her A2A stream and her chat; bob’s go on; her next call is 401', async () => {
  const alice = config.token('alice');
  const bob = config.token('bob');
  const run = await AguiStream.start(app, 'streamer', runInput('r-alice', 'slow alice'), { token: alice });
  const bobsRun = await AguiStream.start(app, 'streamer', runInput('r-bob', 'slow bob'), { token: bob });
  const res = await fetchAs({ token: alice })(`${app.base}/fw/agent/streamer/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify(sendBody('slow alice a2a', '1.0', { stream: true })),
  });
  const reader = res.body!.getReader();
  let a2aEnded = false;
  void (async () => {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      /* events */
    }
    a2aEnded = true;
  })();
  const aliceChat = await ChatClient.connect(app, 'streamer', { token: alice });
  const bobChat = await ChatClient.connect(app, 'streamer', { token: bob });
  await aliceChat.session();
  await bobChat.session();
  let chatReason: string | undefined;
  aliceChat.ws.once('close', (_code, reason) => {
    chatReason = String(reason);
  });
  await waitFor(
    'all three streaming',
    () =>
      [run, bobsRun].every((r) => r.events.some((e) => e.type === 'TEXT_MESSAGE_CONTENT')) &&
      app.module.view.tasks().some((t) => t.state === 'working'),
  );

  app.fw.credentials.revoke('alice');

  const last = await run.finished();
  assert.deepEqual(last.outcome, { type: 'cancelled' });
  await waitFor('alice’s A2A stream closed', () => a2aEnded);
  assert.equal(await waitFor('alice’s chat closed', () => chatReason), 'credential_revoked');
  assert.equal(bobsRun.ended, false, 'bob’s run was ended by alice’s revocation');
  assert.equal((await bobChat.ask('still there?')).type, 'done');
  assert.equal((await rpc(app, 'streamer', sendBody('again', '1.0'), { token: alice, version: '1.0' })).status, 401);
  assert.equal((await AguiStream.start(app, 'streamer', runInput('r2', 'again'), { token: alice })).status, 401);
  assert.equal(app.fw.credentials.watching, 2, 'only bob’s run and chat are still watched');
  await bobChat.close();
  await waitFor('bob’s chat no longer watched', () => app.fw.credentials.watching === 1);
});
