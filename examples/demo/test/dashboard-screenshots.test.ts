/**
 * The screenshots of docs/dashboard.md: the demo with some life in it (chat clients, broadcasts,
 * an agent chat session, a coordination, an A2A task), one image per tab at 1280 × 900, saved to
 * docs/images/dashboard-*.png. Each tab is checked to show that live data before it is taken.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { Role } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { agentModuleOf } from '@fw/agent';
import type { AgentInfo } from '@fw/agent';
import {
  closeSession, connectClient, openSession, screenshot, selectTab, skipBrowser, until, type Target, type TestClient,
} from './dashboard-helpers.js';

describe('dashboard screenshots', { skip: skipBrowser, timeout: 60_000 }, () => {
  let target: Target;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const clients: TestClient[] = [];

  before(async () => {
    ({ target, browser, page, errors } = await openSession());
  });

  after(() => closeSession({ clients, browser, target }));

  const post = (path: string, body: unknown) => fetch(`${target.url}/api/admin/${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });

  it('captures every tab with live data', async () => {
    const rooms = ['/fw/chat/lobby', '/fw/chat/lobby', '/fw/chat/lobby', '/fw/chat/ops', '/fw/chat/ops', '/fw/chat/support'];
    for (const room of rooms) {
      clients.push(await connectClient(target.url, room));
      await new Promise((r) => setTimeout(r, 150)); // a visible ramp on the connections chart
    }
    for (const [i, text] of ['deploy finished', 'standup in 5 minutes', 'lunch?'].entries()) {
      assert.equal((await post('broadcasters/broadcast', { broadcasterId: rooms[i * 2]!, message: text })).status, 200);
    }
    const agentView = target.fw.services.get('agent');
    const agents = agentView?.agents() ?? [];
    const coordinator = agents.find((a) => a.kind === 'coordinator');
    const module = agentModuleOf(target.fw);
    if (coordinator && module) {
      for (const q of ['What is a broadcaster?', 'How does resume work?']) await module.host.run(coordinator.name, { message: q }, new AbortController().signal);
    }
    const a2aAgent = agents.find((a) => a.kind === 'agent' && a.protocols.includes('a2a'));
    if (a2aAgent) {
      const a2a = await new ClientFactory().createFromUrl(`${target.url}${a2aAgent.path}/a2a`);
      await a2a.sendMessage({
        tenant: '', configuration: undefined, metadata: undefined,
        message: {
          messageId: randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER, metadata: undefined, extensions: [], referenceTaskIds: [],
          parts: [{ content: { $case: 'text', value: 'What does the admin plane audit?' }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
        },
      });
    }
    const chatty = agents.find((a) => a.kind === 'agent' && !a.headless);
    if (chatty) {
      const session = await connectClient(target.url, chatty.path);
      clients.push(session);
      session.client.send('hello');
      await until(() => session.messages.length > 0, 5000, 'the agent to answer');
    }

    await selectTab(page, 'dashboard');
    await page.locator('#feed li[data-type="MessageBroadcast"]').first().waitFor();
    await page.waitForTimeout(2500); // a few chart samples
    await screenshot(page, 'overview');

    await selectTab(page, 'agents');
    for (const a of agents) await page.locator(`#agents-table tr[data-key="${a.name}"]`).waitFor();
    if (chatty) {
      await page.click(`#agents-table tr[data-key="${chatty.name}"]`);
      await page.locator('#sessions-table tbody tr').first().waitFor();
    }
    await screenshot(page, 'agents');

    await selectTab(page, 'journal');
    if (coordinator) await page.locator('#graph svg[role="img"]').first().waitFor();
    await screenshot(page, 'journal', true);

    await selectTab(page, 'control');
    await page.locator('#audit-table tbody tr').first().waitFor();
    if (a2aAgent) await page.locator('#tasks-table tbody tr').first().waitFor();
    await page.fill('#form-broadcast input[name="broadcasterId"]', '/fw/chat/lobby');
    await page.fill('#form-broadcast textarea[name="message"]', 'Maintenance at 22:00 UTC, expect a short reconnect.');
    await page.click('#form-broadcast button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('#form-broadcast .result')?.getAttribute('data-kind') === 'success');
    await page.locator('#audit-table tbody tr', { hasText: 'dashboard' }).first().waitFor();
    await screenshot(page, 'control');
    assert.deepEqual(errors, []);
  });
});
