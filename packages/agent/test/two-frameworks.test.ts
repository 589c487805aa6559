/**
 * No process-global state: decorating an agent class registers nothing; two frameworks in one
 * process serve only the agents mounted on each, and two agents of the same name with different
 * handlers stay apart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '@fw/runtime';
import { Agent, OnPrompt, agents, mountAgent } from '../dist/index.js';

@Agent({ name: 'echo', headless: true })
class EchoA {
  @OnPrompt()
  prompt(message: string): string {
    return `a heard ${message}`;
  }
}

@Agent({ name: 'echo', headless: true })
class EchoB {
  @OnPrompt()
  prompt(message: string): string {
    return `b heard ${message}`;
  }
}

@Agent({ name: 'never-mounted', headless: true })
class NeverMounted {}

async function ask(port: number, agent: string, text: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/fw/agent/${agent}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: '1', role: 'ROLE_USER', parts: [{ text }] } },
    }),
  });
  return { status: res.status, text: await res.text() };
}

test('two frameworks in one process: each serves only the agents mounted on it', async () => {
  const options = { configFile: false, 'fw.data-dir': '', 'fw.ai.auto': false } as const;
  const a = new Framework(options);
  const b = new Framework(options);
  await a.use(agents({ agents: [EchoA] }));
  mountAgent(b, EchoB); // before the module: kept on b until it is installed
  await b.use(agents());
  const pa = (await a.listen(0, '127.0.0.1')).port;
  const pb = (await b.listen(0, '127.0.0.1')).port;
  try {
    assert.match((await ask(pa, 'echo', 'x')).text, /a heard x/);
    assert.match((await ask(pb, 'echo', 'y')).text, /b heard y/);
    assert.deepEqual(
      a.services
        .get('agent')!
        .agents()
        .map((x) => x.name),
      ['echo'],
    );
    assert.ok(NeverMounted);
    assert.equal((await ask(pa, 'never-mounted', 'z')).status, 404, 'a decorated class is not served until mounted');
    await b.close();
    assert.match((await ask(pa, 'echo', 'again')).text, /a heard again/, 'a works after b closed');
  } finally {
    await b.close();
    await a.close();
  }
});
