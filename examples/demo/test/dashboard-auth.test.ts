/**
 * Token authentication and the authorizer, as the page shows them: a sign-in form when the API
 * answers 401 (wrong token refused, right token kept for the tab), the event stream signed in
 * too, controls the principal may not use shown as unavailable, and a refusal by the authorizer
 * reported plainly.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { connectClient, launchBrowser, selectTab, skipBrowser, startTarget, waitForConnState, type Target } from './dashboard-helpers.js';

const TOKEN = 'dashboard-test-token';

describe('dashboard with token authentication', { skip: skipBrowser, timeout: 60_000 }, () => {
  let target: Target;
  let browser: Browser;
  let page: Page;
  const sockets: string[] = [];

  before(async () => {
    process.env.FW_ADMIN_AUTH_TOKEN = TOKEN;
    target = await startTarget();
    target.fw.handle('/dash-auth/{room}', {});
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(10_000);
    page.on('websocket', (ws) => sockets.push(ws.url()));
  });

  after(async () => {
    delete process.env.FW_ADMIN_AUTH_TOKEN;
    await browser?.close();
    await target?.close();
  });

  it('asks for the token, refuses a wrong one and keeps the right one for the tab', async () => {
    await page.goto(`${target.url}/fw/admin/`);
    await page.locator('#signin').waitFor();
    assert.notEqual(await page.getAttribute('#conn', 'data-state'), 'connected');

    await page.fill('#signin input[name="token"]', 'not-the-token');
    await page.click('#signin button[type="submit"]');
    await page.locator('#signin-error', { hasText: 'not accepted' }).waitFor();
    assert.equal(await page.isVisible('#signin'), true);

    await page.fill('#signin input[name="token"]', TOKEN);
    await page.click('#signin button[type="submit"]');
    await page.locator('#signin').waitFor({ state: 'hidden' });
    await waitForConnState(page, 'connected');
    assert.match(await page.locator('#principal').innerText(), /Signed in as admin/);
    assert.ok(
      sockets.some((u) => new URL(u).searchParams.get('access_token') === TOKEN),
      'the event stream carries the token',
    );

    // Kept in sessionStorage: a reload does not ask again.
    await page.reload();
    await waitForConnState(page, 'connected');
    assert.equal(await page.isVisible('#signin'), false);
  });

  it('shows the controls the authorizer forbids as unavailable and reports a refusal', async () => {
    target.fw.services.provide(
      'admin.authorizer',
      (action: string, target: string) => action !== 'disconnect' && !(action === 'broadcast' && target === '/fw/dash-auth/locked'),
    );
    await page.reload();
    await waitForConnState(page, 'connected');
    await selectTab(page, 'control');
    await page.locator('#form-disconnect .unavailable', { hasText: 'may not disconnect' }).waitFor();
    assert.equal(await page.locator('#form-disconnect button[type="submit"]').isDisabled(), true);
    assert.equal(await page.locator('#form-disconnect input[name="uuid"]').isDisabled(), true);
    assert.equal(await page.locator('#form-broadcast button[type="submit"]').isDisabled(), false);

    const client = await connectClient(target.url, '/fw/dash-auth/locked');
    try {
      await page.fill('#form-broadcast input[name="broadcasterId"]', '/fw/dash-auth/locked');
      await page.fill('#form-broadcast textarea[name="message"]', 'let me in');
      await page.click('#form-broadcast button[type="submit"]');
      await page.waitForFunction(() => document.querySelector('#form-broadcast .result')?.getAttribute('data-kind') === 'refused');
      assert.match(await page.locator('#form-broadcast .result').innerText(), /^Refused/);
      assert.deepEqual(client.messages, [], 'nothing was delivered');
      const row = page.locator('#audit-table tbody tr', { hasText: '/fw/dash-auth/locked' });
      await row.first().waitFor();
      assert.match(await row.first().innerText(), /refused/);
    } finally {
      client.client.close();
    }
  });

  it('signs out', async () => {
    await page.click('#sign-out');
    await page.locator('#signin').waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('fw.admin.token')), null);
  });
});
