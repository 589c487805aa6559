/**
 * Issue 26 item 1 beyond chat, A2A and AG-UI: a coordinator's dispatch to an agent under the
 * switch is refused (the coordinator's run fails with the reason), and a tool called on the
 * agent's own MCP endpoint is refused, both without running the agent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcp } from '@fw/mcp';
import { Agent, AgentTool, Coordinator, OnPrompt, type CoordinatorContext } from '@fw/agent';
import { API, bearer, startGovApp, TOKENS } from './apps.js';

let lookups = 0;

@Agent({ name: 'clerk', description: 'Looks words up', headless: true })
class Clerk {
  @AgentTool({ description: 'Looks a word up', input: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] } })
  lookup(input: { word: string }) {
    lookups++;
    return `definition of ${input.word}`;
  }
}

@Coordinator({ name: 'lead', fleet: ['writer'] })
class Lead {
  @OnPrompt()
  async prompt(message: string, ctx: CoordinatorContext): Promise<string> {
    return (await ctx.dispatch('writer', message)).text;
  }
}

test('armed for one agent: a coordinator’s dispatch to it is refused, and so is a tool called on its MCP endpoint', async () => {
  const app = await startGovApp({}, [], [mcp()], [Clerk, Lead]);
  const client = new Client({ name: 'gov-surfaces', version: '1.0.0' });
  try {
    const a2a = async (agent: string): Promise<string> =>
      (
        await app.send('POST', `/fw/agent/${agent}/a2a`, {
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'hi' }] } },
        })
      ).text();
    assert.match(await a2a('lead'), /"state":"completed"/, 'the coordinator works before');

    assert.equal((await app.send('POST', `${API}/governance/kill-switch/arm`, { reason: 'writer loops', scope: 'writer' })).status, 200);
    const before = app.model.requests;
    const led = await a2a('lead');
    assert.match(led, /"state":"failed"/);
    assert.match(led, /kill switch is armed for agent 'writer' \(writer loops\)/);
    assert.equal(app.model.requests, before, 'the refused dispatch never called the model');

    assert.equal((await app.send('POST', `${API}/governance/kill-switch/arm`, { reason: 'clerk too', scope: 'clerk' })).status, 200);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.base}/fw/agent/clerk/mcp`), { requestInit: { headers: bearer(TOKENS.operator) } }),
    );
    const refused = await client.callTool({ name: 'lookup', arguments: { word: 'a' } }).then(
      (r) => JSON.stringify(r),
      (err: Error) => err.message,
    );
    assert.match(refused, /kill switch is armed for agent 'clerk' \(clerk too\)/);
    assert.equal(lookups, 0, 'the tool never ran');

    assert.equal((await app.send('POST', `${API}/governance/kill-switch/disarm`, {})).status, 200);
    const ok = await client.callTool({ name: 'lookup', arguments: { word: 'a' } });
    assert.match(JSON.stringify(ok), /definition of a/);
  } finally {
    await client.close();
    await app.close();
  }
});
