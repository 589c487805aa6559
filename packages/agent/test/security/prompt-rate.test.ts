/**
 * Attack: one client floods an agent with prompts, each of which runs the model (the operator's
 * money, everyone's capacity). Every caller (a principal; anonymous: its address) starts at most
 * `fw.agent.prompts.burst` prompts at once and `fw.agent.prompts.per-minute` after that, across
 * chat turns, A2A sends (1.0 and 0.3) and AG-UI runs: at the burst it passes, one more is refused
 * (429 with Retry-After; A2A: a JSON-RPC -32000 whose data has the code and retryAfter, plus the
 * header; chat: an error frame), and another caller is untouched. Both configurations.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from '../../dist/index.js';
import { ProbeRuntime, startApp } from '../helpers.js';
import { AguiStream, ChatClient, CONFIGURATIONS, rpc, runInput, sendBody } from './helpers.js';

@Agent({ name: 'oracle' })
class Oracle {}

/** Three prompts at once, then one every 20 s: the fourth in a row waits up to 20 s. */
const RATE = { 'fw.agent.prompts.per-minute': 3, 'fw.agent.prompts.burst': 3 };
const ADDRESSES = { alice: '127.0.0.2', bob: '127.0.0.3' } as const;

for (const config of CONFIGURATIONS) {
  const anonymous = config.token('alice') === undefined;
  const as = (who: 'alice' | 'bob') => ({ token: config.token(who), localAddress: anonymous ? ADDRESSES[who] : '127.0.0.1' });
  const app = () => startApp((m) => m.mount(Oracle), { ...config.options, ...RATE }, [new ProbeRuntime()]);

  describe(`the prompt rate per caller, ${config.name}`, () => {
    test('A2A: three sends pass, the fourth is -32000 rate_limited with retryAfter and Retry-After; bob still sends', async () => {
      const a = await app();
      try {
        for (const version of ['1.0', '0.3', '1.0'] as const) {
          const ok = await rpc(a, 'oracle', sendBody('hello', version), { ...as('alice'), version });
          assert.ok(ok.body.result, ok.text);
        }
        for (const version of ['1.0', '0.3'] as const) {
          const refused = await rpc(a, 'oracle', sendBody('hello', version), { ...as('alice'), version });
          assert.equal(refused.body.error?.code, -32000, refused.text);
          const data = refused.body.error?.data as { code: string; limit: string; retryAfter: number };
          assert.equal(data.code, 'rate_limited');
          assert.equal(data.limit, 'fw.agent.prompts.per-minute');
          // The next token comes 20 s after the burst was spent (less the time these requests took).
          assert.ok(data.retryAfter >= 1 && data.retryAfter <= 20, String(data.retryAfter));
          assert.equal(refused.headers.get('retry-after'), String(data.retryAfter));
        }
        // Reads do not run the model and are not counted.
        const read = await rpc(a, 'oracle', { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }, { ...as('alice'), version: '1.0' });
        assert.ok(read.body.result, read.text);
        assert.ok((await rpc(a, 'oracle', sendBody('hello', '1.0'), { ...as('bob'), version: '1.0' })).body.result);
      } finally {
        await a.close();
      }
    });

    test('AG-UI: three runs pass, the fourth is 429 rate_limited with Retry-After; bob still runs', async () => {
      const a = await app();
      try {
        for (let i = 0; i < 3; i++) {
          const run = await AguiStream.start(a, 'oracle', runInput(`r${i}`, 'hello'), as('alice'));
          assert.equal(run.status, 200);
          await run.finished();
        }
        const refused = await AguiStream.start(a, 'oracle', runInput('r3', 'hello'), as('alice'));
        assert.equal(refused.status, 429);
        assert.equal(refused.problem?.code, 'rate_limited');
        const wait = Number(refused.headers.get('retry-after'));
        assert.ok(wait >= 1 && wait <= 20, String(wait));
        assert.equal((await AguiStream.start(a, 'oracle', runInput('b0', 'hello'), as('bob'))).status, 200);
      } finally {
        await a.close();
      }
    });

    test('chat: three turns are answered, the fourth gets a rate_limited error frame; the session stays open; bob still chats', async () => {
      const a = await app();
      try {
        const alice = await ChatClient.connect(a, 'oracle', as('alice'));
        for (let i = 0; i < 3; i++) assert.equal((await alice.ask(`turn ${i}`)).type, 'done');
        const refused = await alice.ask('turn 3');
        assert.equal(refused.type, 'error');
        assert.equal(refused.code, 'rate_limited');
        assert.ok(refused.retryAfter! >= 1 && refused.retryAfter! <= 20, String(refused.retryAfter));
        const bob = await ChatClient.connect(a, 'oracle', as('bob'));
        assert.equal((await bob.ask('hi')).type, 'done');
        await alice.close();
        await bob.close();
      } finally {
        await a.close();
      }
    });
  });
}
