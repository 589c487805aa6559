/**
 * The admin dashboard in a real browser (Debian's Chromium) against the running demo: live
 * counters and tables, broadcast / disconnect / cancel from the Control tab with their
 * confirmation, the event feed and the audit log, keyboard navigation, and a screenshot of
 * each tab for docs/dashboard.md.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import {
  connectClient, counter, launchBrowser, openDashboard, screenshot, selectTab, skipBrowser, startTarget,
  until, waitForCounter, type Target, type TestClient,
} from './dashboard-helpers.js';

const ROOM = '/fw/dash-e2e/room1';

describe('dashboard in the browser', { skip: skipBrowser }, () => {
  let target: Target;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const clients: TestClient[] = [];

  before(async () => {
    target = await startTarget();
    target.fw.handle('/dash-e2e/{room}', {});
    browser = await launchBrowser();
    ({ page, errors } = await openDashboard(browser, target.url));
  });

  after(async () => {
    for (const c of clients) c.client.close();
    await browser?.close();
    await target?.close();
  });

  it('counts clients as they connect and lists them in the resource and broadcaster tables', async () => {
    const before = await counter(page, 'connections');
    assert.equal(before, target.fw.resources.size, 'the counter starts at the server value');
    for (let i = 0; i < 3; i++) clients.push(await connectClient(target.url, ROOM));
    await waitForCounter(page, 'connections', before + 3);
    for (const c of clients) {
      await page.locator(`#res-table tr[data-key="${c.uuid}"]`).waitFor();
      await page.locator('#feed li[data-type="ResourceConnected"]', { hasText: c.uuid }).waitFor();
    }
    const row = page.locator(`#bc-table tr[data-key="${ROOM}"]`);
    await row.waitFor();
    await page.waitForFunction((id) => document.querySelector(`#bc-table tr[data-key="${id}"] td:nth-child(2)`)?.textContent === '3', ROOM);
  });

  it('sends a broadcast from the Control tab that reaches the clients, the feed and the audit log', async () => {
    await selectTab(page, 'control');
    const text = `hello from the dashboard ${Date.now()}`;
    await page.fill('#form-broadcast input[name="broadcasterId"]', ROOM);
    await page.fill('#form-broadcast textarea[name="message"]', text);
    await page.click('#form-broadcast button[type="submit"]');
    const result = page.locator('#form-broadcast .result');
    await page.waitForFunction(() => document.querySelector('#form-broadcast .result')?.getAttribute('data-kind') === 'success');
    assert.match(await result.innerText(), /delivered to 3 resources/);
    for (const c of clients) await until(() => c.messages.includes(text), 5000, 'the broadcast at the client');

    const audit = page.locator('#audit-table tbody tr', { hasText: ROOM }).filter({ hasText: 'broadcast' });
    await audit.first().waitFor();
    assert.match(await audit.first().innerText(), /success/);

    await selectTab(page, 'dashboard');
    await page.locator('#feed li[data-type="MessageBroadcast"]', { hasText: ROOM }).first().waitFor();
    await page.locator('#feed li[data-type="ControlActionExecuted"]', { hasText: ROOM }).first().waitFor();
  });

  it('answers a broadcast to an unknown broadcaster with "not found"', async () => {
    await selectTab(page, 'control');
    await page.fill('#form-broadcast input[name="broadcasterId"]', '/fw/no/such/room');
    await page.fill('#form-broadcast textarea[name="message"]', 'anyone?');
    await page.click('#form-broadcast button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('#form-broadcast .result')?.getAttribute('data-kind') === 'not-found');
    assert.match(await page.locator('#form-broadcast .result').innerText(), /^Not found/);
  });

  it('disconnects a client by UUID with a reason, only after confirmation', async () => {
    const victim = clients[0]!;
    const connections = await counter(page, 'connections');
    await selectTab(page, 'control');
    const form = page.locator('#form-disconnect');
    await form.locator('input[name="uuid"]').fill(victim.uuid);
    await form.locator('input[name="reason"]').fill('maintenance window');

    // First time: the operator changes their mind.
    await form.locator('button[type="submit"]').click();
    await form.locator('.confirm').waitFor();
    assert.match(await form.locator('.confirm').innerText(), /maintenance window/);
    await form.locator('.confirm button', { hasText: 'Cancel' }).click();
    await page.waitForFunction(() => document.querySelector('#form-disconnect .confirm')?.hasAttribute('hidden'));
    assert.ok(target.fw.resources.get(victim.uuid), 'nothing happens without confirmation');
    assert.match(await form.locator('.result').innerText(), /Nothing was done/);

    await form.locator('button[type="submit"]').click();
    await form.locator('.confirm button', { hasText: 'Disconnect' }).click();
    await page.waitForFunction(() => document.querySelector('#form-disconnect .result')?.getAttribute('data-kind') === 'success');
    assert.equal(await victim.closed, 'maintenance window');
    clients.shift();

    await waitForCounter(page, 'connections', connections - 1);
    const audit = page.locator('#audit-table tbody tr', { hasText: victim.uuid });
    await audit.first().waitFor();
    assert.match(await audit.first().innerText(), /disconnect/);
    await selectTab(page, 'dashboard');
    const line = page.locator('#feed li[data-type="ResourceDisconnected"]', { hasText: victim.uuid });
    await line.first().waitFor();
    assert.match(await line.first().innerText(), /maintenance window/);
  });

  it('answers a disconnect of an unknown UUID with "not found"', async () => {
    await selectTab(page, 'control');
    const form = page.locator('#form-disconnect');
    await form.locator('input[name="uuid"]').fill('00000000-0000-4000-8000-000000000000');
    await form.locator('input[name="reason"]').fill('');
    await form.locator('button[type="submit"]').click();
    await form.locator('.confirm button', { hasText: 'Disconnect' }).click();
    await page.waitForFunction(() => document.querySelector('#form-disconnect .result')?.getAttribute('data-kind') === 'not-found');
  });

  it('answers a cancel of an unknown task with "not found"', async () => {
    await selectTab(page, 'control');
    const form = page.locator('#form-cancel');
    await form.locator('input[name="taskId"]').fill('no-such-task');
    await form.locator('button[type="submit"]').click();
    await form.locator('.confirm button', { hasText: 'Cancel task' }).click();
    await page.waitForFunction(() => document.querySelector('#form-cancel .result')?.getAttribute('data-kind') === 'not-found');
  });

  it('moves between tabs with the keyboard (ARIA tabs) and labels every form control', async () => {
    await selectTab(page, 'dashboard');
    await page.focus('#tab-dashboard');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getAttribute('#tab-agents', 'aria-selected'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'tab-agents');
    assert.equal(await page.isHidden('#panel-dashboard'), true);
    await page.keyboard.press('End');
    assert.equal(await page.getAttribute('#tab-control', 'aria-selected'), 'true');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getAttribute('#tab-dashboard', 'aria-selected'), 'true', 'wraps around');
    await page.keyboard.press('Home');
    assert.equal(await page.evaluate(() => [...document.querySelectorAll('[role="tab"]')].filter((t) => (t as HTMLElement).tabIndex === 0).length), 1, 'one tab stop');
    const unlabelled = await page.evaluate(() => [...document.querySelectorAll('input, select, textarea')]
      .filter((el) => (el as HTMLInputElement).labels?.length === 0 && !el.getAttribute('aria-label'))
      .map((el) => el.outerHTML));
    assert.deepEqual(unlabelled, []);
  });

  it('shows live data on every tab (screenshots saved to docs/images)', async () => {
    await selectTab(page, 'dashboard');
    await page.waitForTimeout(1200); // let the charts draw a few samples
    await screenshot(page, 'overview');

    await selectTab(page, 'agents');
    const agentView = target.fw.services.get<{ agents(): { name: string }[]; runtimes(): { name: string; active: boolean }[] }>('agent');
    const agents = agentView?.agents() ?? [];
    for (const a of agents) await page.locator(`#agents-table tr[data-key="${a.name}"]`).waitFor();
    const runtimes = agentView?.runtimes() ?? [];
    for (const r of runtimes) await page.locator(`#runtimes-table tr[data-key="${r.name}"]`).waitFor();
    const active = runtimes.find((r) => r.active);
    if (active) assert.match(await page.locator(`#runtimes-table tr[data-key="${active.name}"]`).innerText(), /active/);
    await screenshot(page, 'agents');

    await selectTab(page, 'journal');
    await page.locator('#journal-count').filter({ hasText: /events/ }).waitFor();
    await screenshot(page, 'journal');

    await selectTab(page, 'control');
    await page.locator('#audit-table tbody tr').first().waitFor();
    await screenshot(page, 'control');
    assert.deepEqual(errors, []);
  });
});
