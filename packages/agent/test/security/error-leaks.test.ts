/**
 * Attack (information disclosure): make the server fail and read what the failure says (issue 25
 * item 8: a store error `connect ECONNREFUSED 127.0.0.1:…` reached the client). Two real faults:
 * the agents' PostgreSQL goes away under a running server (a TCP proxy in front of the shared
 * PostgreSQL is shut, so the driver's own error names the proxy's address), and an agent's code
 * throws an error that names an internal address. Every client-facing answer (A2A 1.0 and 0.3,
 * blocking and streaming, AG-UI, chat) is generic; the cause is in the server log.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { MemoryLogger } from '@fw/runtime';
import { createTestDatabase, waitFor, type TestDatabase } from '@fw/testing';
import { Agent, OnPrompt } from '../../dist/index.js';
import { ProbeRuntime, startApp, type TestApp } from '../helpers.js';
import { AguiStream, ChatClient, CONFIGURATIONS, INTERNALS, rpc, runInput, sendBody } from './helpers.js';

@Agent({ name: 'plain' })
class Plain {}

@Agent({ name: 'leaky' })
class Leaky {
  @OnPrompt()
  prompt(): string {
    // What a database driver or an HTTP client says when its backend is down.
    throw new Error('connect ECONNREFUSED 10.20.30.40:5432 (/srv/app/node_modules/pg/lib/client.js)');
  }
}

/** A TCP proxy to `port` on loopback that can be shut, with every connection through it. */
async function tcpProxy(port: number): Promise<{ port: number; shut(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    shut: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
}

/** Every answer a client got, to search for internal details. */
const answers: string[] = [];
const clean = (what: string, text: string): void => {
  answers.push(text);
  assert.ok(!INTERNALS.test(text), `${what} shows an internal detail: ${text}`);
};

describe('the agents’ PostgreSQL goes away under a running server', () => {
  let db: TestDatabase;
  let proxy: Awaited<ReturnType<typeof tcpProxy>>;
  let app: TestApp;
  const logger = new MemoryLogger();
  before(async () => {
    db = await createTestDatabase();
    const url = new URL(db.url);
    proxy = await tcpProxy(Number(url.port || 5432));
    url.port = String(proxy.port);
    app = await startApp((m) => m.mount(Plain), { 'fw.store.postgres-url': url.href, logger }, [new ProbeRuntime()]);
  });
  after(async () => {
    await app.close().catch(() => undefined);
    await proxy.shut();
    await db.drop();
  });

  test('A2A (1.0, 0.3, blocking and streaming), AG-UI and chat answer generically; the log has the driver’s error', async () => {
    // Working first: the store is reached through the proxy.
    const ok = await rpc(app, 'plain', sendBody('hello', '1.0'), { version: '1.0' });
    assert.ok(ok.body.result, ok.text);
    const first = await ChatClient.connect(app, 'plain');
    const session = (await first.session()).id!;
    await first.close();
    await waitFor('the first session ended', () => app.module.view.sessions('plain').length === 0);

    await proxy.shut();

    for (const version of ['1.0', '0.3'] as const) {
      for (const stream of [false, true]) {
        const answer = await rpc(app, 'plain', sendBody(`hello ${version}`, version, { stream }), { version });
        assert.ok(answer.status < 500, answer.text);
        clean(`A2A ${version}${stream ? ' stream' : ''}`, answer.text);
        assert.match(answer.text, /the agent store is unavailable/);
      }
    }
    const run = await AguiStream.start(app, 'plain', runInput('r-down', 'hello'));
    const last = await run.finished();
    clean('AG-UI', JSON.stringify(run.events));
    assert.equal(last.type, 'RUN_ERROR');
    assert.equal(last.code, 'store_unavailable');

    const chat = await ChatClient.connect(app, 'plain');
    await chat.session();
    const frame = await chat.ask('hello');
    clean('chat', JSON.stringify(frame));
    assert.equal(frame.code, 'store_unavailable');
    await chat.close();

    // Resuming a session reads the store: the close reason is what the client gets.
    const resumer = await ChatClient.connect(app, 'plain', { session });
    const reason = await new Promise<string>((resolve) => resumer.ws.once('close', (_code, r) => resolve(String(r))));
    clean('chat resume', reason);
    assert.match(reason, /the agent store is unavailable/);

    // The operator finds the cause in the log.
    const logged = JSON.stringify(logger.entries);
    assert.match(logged, /ECONNREFUSED|Connection terminated|connect/);
    assert.equal(answers.length, 7);
    // The failed sends and runs gave their shares back.
    const limits = app.module.host.limits;
    await waitFor('every share given back', () => limits.runs.inUse() === 0 && limits.tasks.inUse() === 0);
    // No task stays live for nobody, and no run goes on for it.
    await waitFor('no run in flight', () => app.module.a2a.get('plain')!.executor.inFlight === 0);
    assert.deepEqual(
      app.module.view.tasks().filter((t) => t.state === 'submitted' || t.state === 'working'),
      [],
    );
  });
});

for (const config of CONFIGURATIONS) {
  describe(`an agent’s own error names an internal address, ${config.name}`, () => {
    let app: TestApp;
    const logger = new MemoryLogger();
    before(async () => {
      app = await startApp((m) => m.mount(Leaky), { ...config.options, logger });
    });
    after(() => app.close());

    test('A2A, AG-UI and chat answer with a reference; the log has the error under that reference', async () => {
      const token = config.token('alice');
      const refs: string[] = [];
      const refOf = (text: string): void => {
        const ref = /internal error \(ref ([0-9a-f]{12})\)/.exec(text)?.[1];
        assert.ok(ref, text);
        refs.push(ref);
      };
      for (const version of ['1.0', '0.3'] as const) {
        const answer = await rpc(app, 'leaky', sendBody('hi', version), { token, version });
        clean(`A2A ${version}`, answer.text);
        refOf(answer.text);
      }
      const run = await AguiStream.start(app, 'leaky', runInput(randomUUID(), 'hi'), { token });
      const last = await run.finished();
      clean('AG-UI', JSON.stringify(run.events));
      assert.equal(last.type, 'RUN_ERROR');
      refOf(String(last.message));
      const chat = await ChatClient.connect(app, 'leaky', { token });
      const frame = await chat.ask('hi');
      clean('chat', JSON.stringify(frame));
      refOf(String(frame.message));
      await chat.close();
      for (const ref of refs) {
        const line = logger.entries.find((e) => e.fields.ref === ref);
        assert.match(JSON.stringify(line?.fields.error), /ECONNREFUSED 10\.20\.30\.40:5432/, `reference ${ref} is not in the log`);
      }
    });
  });
}
