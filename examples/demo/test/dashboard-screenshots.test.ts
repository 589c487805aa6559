/**
 * The screenshots of docs/dashboard.md and the README: the demo as `npm start` runs it (its
 * simulation on: rooms, ticker, a coordinator run), the chat page and one image per dashboard tab
 * at 1280 × 900 in light, and the overview and the Governance tab in dark. Each tab is checked to show live data before
 * it is taken. Saved to test-results/screenshots/, or to docs/images/ with FW_SCREENSHOTS=1
 * (`npm run screenshots`).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { startDemo, type Demo } from '../src/main.js';
import { IMAGES_DIR, launchBrowser, screenshot, selectTab, skipBrowser, waitForConnState } from './dashboard-helpers.js';

describe('dashboard screenshots', { skip: skipBrowser, timeout: 170_000 }, () => {
  let demo: Demo;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const started = Date.now();

  before(async () => {
    demo = await startDemo({ port: 0, host: '127.0.0.1', simulation: true, config: { 'fw.admin.history.interval-ms': 1000 } });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  const open = async (colorScheme: 'light' | 'dark', path: string): Promise<Page> => {
    const p = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme });
    p.setDefaultTimeout(20_000);
    p.on('pageerror', (e) => errors.push(e.message));
    await p.goto(`${demo.url}${path}`);
    return p;
  };

  it('captures the chat page and every tab with live data', async () => {
    const chat = await open('light', '');
    await chat.waitForFunction(() => document.querySelectorAll('#messages li').length >= 4);
    mkdirSync(IMAGES_DIR, { recursive: true });
    await chat.screenshot({ path: `${IMAGES_DIR}chat.png` });
    await chat.close();

    page = await open('light', 'fw/admin/');
    await waitForConnState(page, 'connected');
    // Half a minute of history gives the charts some shape (one sample a second here).
    await page.waitForTimeout(Math.max(0, started + 30_000 - Date.now()));
    await page.locator('#feed li[data-type="MessageBroadcast"]').first().waitFor();
    await page.waitForFunction(
      () => (document.querySelector('#chart-rate svg polyline')?.getAttribute('points')?.split(' ').length ?? 0) >= 10,
    );
    await screenshot(page, 'overview');

    await selectTab(page, 'agents');
    await page.locator('#agents-table tbody tr').first().waitFor();
    await page.locator('#runtimes-table tbody tr').first().waitFor();
    await screenshot(page, 'agents');

    await selectTab(page, 'journal');
    await page.locator('#graph svg g.node').first().waitFor();
    await screenshot(page, 'journal');

    await selectTab(page, 'control');
    await page.fill('#form-broadcast input[name="broadcasterId"]', '/fw/chat/lobby');
    await page.fill('#form-broadcast textarea[name="message"]', 'Maintenance at 22:00 UTC, expect a short reconnect.');
    await page.click('#form-broadcast button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('#form-broadcast .result')?.getAttribute('data-kind') === 'success');
    await page.locator('#audit-table tbody tr', { hasText: 'dashboard' }).first().waitFor();
    await screenshot(page, 'control');

    // The Governance tab with the switch armed for one agent and the demo's policies deciding.
    const arm = await fetch(`${demo.url}api/admin/governance/kill-switch/arm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'load test of the slow agent until 18:00', scope: 'slow' }),
    });
    assert.equal(arm.status, 200);
    await fetch(`${demo.url}api/admin/governance/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: 'assistant', action: 'tool_call', context: { tool_name: 'shell', arguments: { cmd: 'rm -rf /' } } }),
    });
    await selectTab(page, 'governance');
    await page.locator('#form-kill-switch[data-armed="true"]').waitFor();
    await page.locator('#policies-table tbody tr').first().waitFor();
    await page.locator('#decisions-table tbody tr', { hasText: 'no-shell' }).first().waitFor();
    await screenshot(page, 'governance');
    await page.close();

    const dark = await open('dark', 'fw/admin/');
    await waitForConnState(dark, 'connected');
    await dark.waitForFunction(
      () => (document.querySelector('#chart-rate svg polyline')?.getAttribute('points')?.split(' ').length ?? 0) >= 10,
    );
    await screenshot(dark, 'overview-dark');
    await selectTab(dark, 'governance');
    await dark.locator('#decisions-table tbody tr', { hasText: 'no-shell' }).first().waitFor();
    await screenshot(dark, 'governance-dark');
    await dark.close();
    assert.deepEqual(errors, []);
  });
});
