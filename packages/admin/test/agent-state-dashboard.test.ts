/**
 * The agent state in the dashboard's Agents tab, in a real browser (Debian's Chromium through
 * playwright-core): selecting an agent with memory lists its facts, the form adds one and a
 * button removes it; selecting a session shows its conversation and "Clear conversation" empties
 * it. Markup in facts and messages stays text.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { Framework } from '@fw/runtime';
import { Agent, AgentModule, OnPrompt } from '@fw/agent';
import { admin } from '../dist/index.js';

const CHROMIUM = process.env.FW_CHROMIUM ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `Chromium not found at ${CHROMIUM} (apt-get install chromium)`;
const MARKUP = '<img src=x onerror="window.__xss=1">';
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const IMAGES = process.env.FW_SCREENSHOTS === '1' ? `${REPO_ROOT}docs/images/` : `${REPO_ROOT}test-results/screenshots/`;

@Agent({ name: 'concierge', memory: true })
class Concierge {
  @OnPrompt()
  prompt(): string {
    return 'ok';
  }
}

describe('dashboard: agent state in the Agents tab', { skip, timeout: 120_000 }, () => {
  let browser: Browser;
  let fw: Framework;
  let agents: AgentModule;
  let base = '';

  before(async () => {
    fw = new Framework({ configFile: false, env: {}, 'fw.data-dir': '', 'fw.ai.auto': false });
    agents = new AgentModule();
    await fw.use(agents);
    agents.mount(Concierge);
    await fw.use(admin());
    const { port } = await fw.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
  });
  after(async () => {
    await browser?.close();
    await fw?.close();
  });

  it('lists, adds and removes facts, reads and clears a conversation', async () => {
    const session = agents.host.sessions.start('concierge', null, null);
    await agents.host.sessions.remember(session, { role: 'user', content: `hello ${MARKUP}` }, { role: 'assistant', content: 'hi there' });
    await agents.host.memory!.add('concierge', `likes ${MARKUP} tea`, null);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(20_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/fw/admin/#agents`);
    await page.locator('#agents-table tbody tr', { hasText: 'concierge' }).click();

    // The facts: markup shown as text.
    await page.locator('#state-facts li').first().waitFor();
    assert.equal(await page.textContent('#state-title'), 'State of concierge');
    assert.equal(await page.locator('#state-facts .fact').first().textContent(), `likes ${MARKUP} tea`);
    // Add one through the form: listed first (newest first).
    await page.fill('#state-fact-form input[name="content"]', 'prefers the window seat');
    await page.click('#state-fact-form button[type="submit"]');
    await page.locator('#state-facts .fact', { hasText: 'prefers the window seat' }).waitFor();
    assert.equal(await page.locator('#state-facts .fact').first().textContent(), 'prefers the window seat');
    assert.equal((await agents.host.memory!.list('concierge')).length, 2);
    // Remove the first one.
    await page.locator('#state-facts li', { hasText: 'likes' }).getByRole('button', { name: 'Remove' }).click();
    await page.waitForFunction(() => document.querySelectorAll('#state-facts li').length === 1);
    assert.deepEqual(
      (await agents.host.memory!.list('concierge')).map((f) => f.content),
      ['prefers the window seat'],
    );

    // The conversation of the session.
    await page.locator('#sessions-table tbody tr').first().click();
    await page.locator('#state-conversation li').nth(1).waitFor();
    assert.deepEqual(await page.locator('#state-conversation li').allTextContents(), [`user: hello ${MARKUP}`, 'assistant: hi there']);
    mkdirSync(IMAGES, { recursive: true });
    await page.locator('#agent-state').screenshot({ path: `${IMAGES}agent-state.png` });
    await page.click('#state-clear');
    await page.locator('#state-conversation .empty', { hasText: 'The conversation is empty.' }).waitFor();
    assert.match((await page.textContent('#state-status')) ?? '', /Conversation cleared \(2 messages\)/);
    assert.deepEqual(session.history, []);

    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
    assert.equal(await page.locator('#agent-state img').count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
