/**
 * The dashboard in a real browser (Debian's Chromium through playwright-core), against the admin
 * plane served by this package: when the server ends the event stream because the token expired
 * (a real JWT) or was revoked, the page says so and asks for a token, and does not keep
 * reconnecting with the dead one; and the audit view shows an aggregated refusal record (its
 * count, span and tallies).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { API, AUTH_TOKENS, bearer, flood, startAdmin, TOKENS, type AdminApp } from './helpers.js';
import { startIssuer, type Issuer } from './jwt-issuer.js';

const CHROMIUM = process.env.FW_CHROMIUM ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `Chromium not found at ${CHROMIUM} (apt-get install chromium)`;
const EVENTS = '/fw/admin/events';

async function newPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, errors };
}

async function signIn(page: Page, token: string): Promise<void> {
  await page.locator('#signin').waitFor();
  await page.fill('#signin input[name="token"]', token);
  await page.click('#signin button[type="submit"]');
  await page.locator('#signin').waitFor({ state: 'hidden' });
  await page.waitForFunction(() => document.getElementById('conn')?.dataset.state === 'connected');
}

/** Every attempt the page makes to open the event stream with `token` (WebSocket or HTTP). */
function streamAttempts(page: Page): { withToken(token: string): number } {
  const urls: string[] = [];
  page.on('websocket', (ws) => urls.push(ws.url()));
  page.on('request', (r) => {
    if (r.url().includes(EVENTS)) urls.push(r.url());
  });
  return { withToken: (token) => urls.filter((u) => new URL(u).searchParams.get('access_token') === token).length };
}

describe('dashboard: sessions that end, and aggregated refusals', { skip, timeout: 180_000 }, () => {
  let browser: Browser;
  let issuer: Issuer;

  before(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
    issuer = await startIssuer();
  });
  after(async () => {
    await browser?.close();
    await issuer?.close();
  });

  it('a JWT that expires: the page says the session expired, asks for a token, and does not reconnect with the dead one', async () => {
    const app = await startAdmin(issuer.settings);
    const { page, errors } = await newPage(browser);
    try {
      const attempts = streamAttempts(page);
      await page.goto(`${app.base}/fw/admin/`);
      const dying = await issuer.mint('vera', ['viewer'], 6);
      await signIn(page, dying);
      assert.ok(attempts.withToken(dying) >= 1, 'the stream was opened with the token');

      await page.locator('#signin-error', { hasText: 'Your session expired' }).waitFor({ timeout: 30_000 });
      assert.equal(await page.isVisible('#signin'), true);
      assert.notEqual(await page.getAttribute('#conn', 'data-state'), 'connected');
      assert.equal(await page.evaluate(() => sessionStorage.getItem('fw.admin.token')), null, 'the dead token is forgotten');
      const before = attempts.withToken(dying);

      // Signing in again works, and in all that time the page made no attempt with the dead token.
      await signIn(page, await issuer.mint('vera', ['viewer'], 3600));
      assert.equal(attempts.withToken(dying), before, 'no reconnect with the expired token');
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
      await app.close();
    }
  });

  it('a revoked principal: the page says access was revoked and asks for another token', async () => {
    const app = await startAdmin({ 'fw.auth.tokens': AUTH_TOKENS });
    const { page, errors } = await newPage(browser);
    try {
      await page.goto(`${app.base}/fw/admin/`);
      await signIn(page, TOKENS.viewer);
      const res = await app.send('POST', `${API}/credentials/revoke`, { principal: 'vera' }, bearer(TOKENS.admin));
      assert.equal(res.status, 200);
      await page.locator('#signin-error', { hasText: 'Your access was revoked' }).waitFor();
      assert.equal(await page.isVisible('#signin'), true);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
      await app.close();
    }
  });

  it('the audit view renders an aggregated refusal record: its count, span and the targets it gathered', async () => {
    const app: AdminApp = await startAdmin({ 'fw.auth.tokens': AUTH_TOKENS });
    const { page, errors } = await newPage(browser);
    try {
      await flood(25, 5, () => app.get(`${API}/overview`));
      for (const uuid of ['one', 'two', 'three']) await app.send('DELETE', `${API}/resources/${uuid}`);
      const [reads] = await app.audit('class=refusal&action=read', TOKENS.admin);
      const count = reads!.refusals!.count;
      assert.ok(count >= 25);

      await page.addInitScript((token) => sessionStorage.setItem('fw.admin.token', token), TOKENS.admin);
      await page.goto(`${app.base}/fw/admin/`);
      await page.waitForFunction(() => document.getElementById('conn')?.dataset.state === 'connected');
      await page.click('#tab-control');
      const readRow = page.locator('#audit-table tbody tr', { hasText: `${API}/overview` });
      await readRow.first().waitFor();
      const text = await readRow.first().innerText();
      assert.match(text, new RegExp(`×${count}\\b`), 'the count');
      assert.match(text, new RegExp(`${count} refused \\d{4}-\\d\\d-\\d\\d`), 'the span');
      assert.match(text, /still collecting/);
      const deleteRow = page.locator('#audit-table tbody tr', { hasText: 'disconnect' });
      assert.match(await deleteRow.first().innerText(), /\+2 more targets/);
      assert.match(await deleteRow.first().innerText(), /Targets: one ×1, two ×1, three ×1/);

      // The filter by class: refusals only.
      await page.selectOption('#audit-form select[name="class"]', 'refusal');
      await page.click('#audit-form button[type="submit"]');
      await page.waitForFunction(() =>
        [...document.querySelectorAll('#audit-table tbody tr')].every((tr) => /refused|invalid|error/.test(tr.textContent ?? '')),
      );
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
      await app.close();
    }
  });
});
