/**
 * Everything the data plane controls is rendered as text: injection payloads in a message, a
 * broadcaster id, an agent name and a disconnect reason show up literally on the page and run
 * nothing. Asserted in the browser: the flag an executed payload would set stays unset, no
 * element or event-handler attribute from a payload exists, and the CSP saw no violation.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { Agent, mountAgent } from '@fw/agent';
import { closeSession, connectClient, openSession, selectTab, skipBrowser, type Target } from './dashboard-helpers.js';

/** Each payload sets `window.__pwned` if it is ever parsed as HTML or executed. */
const IMG = `<img src=x onerror="window.__pwned='img'">`;
const SCRIPT = `<script>window.__pwned='script'</script>`;
const BREAK_DOUBLE = `"><svg onload="window.__pwned='svg'"><b title="`;
const BREAK_SINGLE = `' onmouseover='window.__pwned=1' autofocus onfocus='window.__pwned=2' x='`;
const EVIL = `${IMG}${SCRIPT}${BREAK_DOUBLE}${BREAK_SINGLE}`;

async function assertInert(page: Page): Promise<void> {
  const report = await page.evaluate(() => {
    const all = [...document.querySelectorAll('*')];
    return {
      pwned: (window as unknown as { __pwned?: unknown }).__pwned ?? null,
      imgs: document.querySelectorAll('img').length,
      // The page's own SVG: the execution graph and the charts (svg.tchart, built by charts.js).
      svgs: [...document.querySelectorAll('svg')].filter((s) => !s.closest('#graph') && !s.matches('svg.tchart')).length,
      inlineScripts: document.querySelectorAll('script:not([src])').length,
      handlerAttributes: all.flatMap((el) =>
        [...el.attributes].filter((a) => a.name.startsWith('on')).map((a) => `${el.tagName}[${a.name}]`),
      ),
      csp: (window as unknown as { __cspViolations: string[] }).__cspViolations,
    };
  });
  assert.deepEqual(report, { pwned: null, imgs: 0, svgs: 0, inlineScripts: 0, handlerAttributes: [], csp: [] });
}

describe('dashboard renders data-plane text as text', { skip: skipBrowser, timeout: 60_000 }, () => {
  let target: Target;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  before(async () => {
    ({ target, browser, page, errors } = await openSession((t) => t.fw.handle('/dash-safety/{room}', {})));
  });

  after(() => closeSession({ browser, target }));

  it('is served with a Content-Security-Policy that forbids inline scripts', async () => {
    for (const file of ['', 'app.js', 'app.css']) {
      const res = await fetch(`${target.url}/fw/admin/${file}`);
      assert.equal(res.status, 200);
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    }
  });

  it('shows a hostile broadcaster id literally in the feed and the table', async () => {
    const id = `/fw/evil/${EVIL}`;
    target.fw.broadcasters.create(id);
    const line = page.locator('#feed li[data-type="BroadcasterCreated"]').filter({ hasText: IMG });
    await line.first().waitFor();
    assert.ok((await line.first().textContent())?.includes(id));
    await page.waitForFunction((x) => [...document.querySelectorAll('#bc-table code')].some((c) => c.textContent === x), id);
    await assertInert(page);
  });

  it('shows a hostile message and a hostile broadcaster id typed into the Control tab literally', async () => {
    const client = await connectClient(target.url, '/fw/dash-safety/room');
    try {
      await selectTab(page, 'control');
      await page.fill('#form-broadcast input[name="broadcasterId"]', '/fw/dash-safety/room');
      await page.fill('#form-broadcast textarea[name="message"]', EVIL);
      await page.click('#form-broadcast button[type="submit"]');
      await page.waitForFunction(() => document.querySelector('#form-broadcast .result')?.getAttribute('data-kind') === 'success');
      const shown = await page.locator('#form-broadcast .result').textContent();
      assert.ok(shown?.includes(EVIL.slice(0, 119)), `the message is shown as typed: ${shown}`);

      // An unknown hostile id comes back in the server's "not found" detail: still text.
      await page.fill('#form-broadcast input[name="broadcasterId"]', `/fw/${EVIL}`);
      await page.click('#form-broadcast button[type="submit"]');
      await page.waitForFunction(() => document.querySelector('#form-broadcast .result')?.getAttribute('data-kind') === 'not-found');
      assert.ok((await page.locator('#form-broadcast .result').textContent())?.includes(IMG));

      await page.locator('#audit-table tbody tr').filter({ hasText: IMG }).first().waitFor();
      await assertInert(page);
    } finally {
      client.client.close();
    }
  });

  it('shows a hostile disconnect reason literally in the confirmation, the result and the feed', async () => {
    const client = await connectClient(target.url, '/fw/dash-safety/room');
    await selectTab(page, 'control');
    const form = page.locator('#form-disconnect');
    await form.locator('input[name="uuid"]').fill(client.uuid);
    await form.locator('input[name="reason"]').fill(EVIL);
    await form.locator('button[type="submit"]').click();
    await form.locator('.confirm').waitFor();
    assert.ok((await form.locator('.confirm').textContent())?.includes(EVIL));
    await assertInert(page);
    await form.locator('.confirm button', { hasText: 'Disconnect' }).click();
    assert.equal(await client.closed, EVIL);
    await page.waitForFunction(() => document.querySelector('#form-disconnect .result')?.getAttribute('data-kind') === 'success');
    await selectTab(page, 'dashboard');
    const line = page.locator('#feed li[data-type="ResourceDisconnected"]').filter({ hasText: client.uuid });
    await line.first().waitFor();
    assert.ok((await line.first().textContent())?.includes(EVIL));
    await assertInert(page);
  });

  it('shows a hostile agent name literally in the agents table and the feed', async () => {
    @Agent({ name: EVIL, description: SCRIPT, headless: true })
    class HostileAgent {}
    mountAgent(target.fw, HostileAgent);
    // Session and coordination events name agents too; they reach the feed as they are.
    target.fw.events.emit('AgentSessionStarted', { agentName: EVIL, sessionId: BREAK_DOUBLE });
    target.fw.events.emit('AgentDispatched', { coordinationId: IMG, coordinator: SCRIPT, agent: EVIL, skill: BREAK_SINGLE });
    target.fw.events.emit('TaskStateChanged', { taskId: IMG, agentName: EVIL, oldState: SCRIPT, newState: BREAK_DOUBLE });
    for (const type of ['AgentSessionStarted', 'AgentDispatched', 'TaskStateChanged']) {
      const line = page.locator(`#feed li[data-type="${type}"]`).filter({ hasText: IMG });
      await line.first().waitFor();
      assert.ok((await line.first().textContent())?.includes(EVIL));
    }
    await selectTab(page, 'agents');
    await page.waitForFunction(
      (name) => [...document.querySelectorAll('#agents-table tr')].some((tr) => (tr as HTMLElement).dataset.key === name),
      EVIL,
    );
    assert.ok((await page.locator('#agents-table').textContent())?.includes(EVIL));
    await assertInert(page);
    assert.deepEqual(errors, []);
  });
});
