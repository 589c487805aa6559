/**
 * The dashboard as each role sees it (real Chromium): the principal and role in the header; a
 * viewer sees no write control anywhere; an operator sees broadcast and disconnect but no
 * destroy; the internal broadcaster is labelled and offers no control to anyone.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { agentModuleOf } from '@fw/agent';
import { launchBrowser, selectTab, skipBrowser, startTarget, waitForConnState, type Target } from '../dashboard-helpers.js';

const VIEWER = 'dash-viewer-token-0123456';
const OPERATOR = 'dash-operator-token-01234';

async function signIn(browser: Browser, base: string, token: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${base}/fw/admin/`);
  await page.locator('#signin').waitFor();
  await page.fill('#signin input[name="token"]', token);
  await page.click('#signin button[type="submit"]');
  await page.locator('#signin').waitFor({ state: 'hidden' });
  await waitForConnState(page, 'connected');
  return page;
}

describe('dashboard by role', { skip: skipBrowser, timeout: 90_000 }, () => {
  let target: Target;
  let browser: Browser;
  let rolledRunId: string;

  before(async () => {
    process.env.FW_AUTH_TOKENS = `vera:viewer:${VIEWER},otto:operator:${OPERATOR}`;
    target = await startTarget();
    target.fw.broadcasters.lookup('/fw/chat/roles-room', true);
    // One taped run with a tool call (the demo's offline model calls the tool a slash names).
    const module = agentModuleOf(target.fw)!;
    await module.host.run('assistant', { message: '/roll {"sides": 20}' }, new AbortController().signal);
    rolledRunId = (await module.tape!.runs({ agent: 'assistant' }))[0]!.id;
    browser = await launchBrowser();
  });

  after(async () => {
    delete process.env.FW_AUTH_TOKENS;
    await browser?.close();
    await target?.close();
  });

  it('a viewer sees the principal and role, and no write control', async () => {
    const page = await signIn(browser, target.url, VIEWER);
    await page.locator('#principal', { hasText: 'Signed in as vera (viewer)' }).waitFor();
    const room = page.locator('#bc-table tr[data-key="/fw/chat/roles-room"]');
    await room.waitFor();
    const events = page.locator('#bc-table tr[data-key="/fw/admin/events"]');
    await events.waitFor();
    assert.match(await events.innerText(), /internal/);
    assert.equal(await page.locator('#bc-table button', { hasText: 'Send' }).count(), 0);
    assert.equal(await page.locator('#res-table button', { hasText: 'Disconnect' }).count(), 0);
    await selectTab(page, 'control');
    for (const form of ['broadcast', 'disconnect', 'cancel']) {
      assert.equal(await page.locator(`#form-${form} fieldset`).isVisible(), false, `${form} form hidden`);
      assert.match(await page.locator(`#form-${form} .unavailable`).innerText(), /vera \(viewer\) may not/);
    }
    assert.equal(await page.locator('button', { hasText: 'Destroy broadcaster' }).isVisible(), false);
    // The run tape is content: a viewer's Runs tab shows its structure and timings, says why
    // there is no more, and shows none of what the run was told or answered.
    await selectTab(page, 'runs');
    await page.locator('#runs-refused').waitFor();
    assert.equal(await page.getAttribute('#runs-refused', 'data-code'), 'content_forbidden');
    assert.match(await page.locator('#runs-refused').innerText(), /needs the 'operator' role/);
    const row = page.locator(`#runs-table tr[data-key="${rolledRunId}"]`);
    await row.click();
    await page.locator('#run-waterfall svg.waterfall').waitFor();
    const kinds = await page.$$eval('#run-waterfall g.wf-row', (gs) => gs.map((g) => (g as SVGGElement).dataset.kind));
    assert.deepEqual(kinds, ['run', 'model', 'tool', 'model']);
    const next = page.locator('#run-steps button', { hasText: 'Next step' });
    const seen: string[] = [];
    for (;;) {
      seen.push(await page.locator('#run-steps .step-body').innerText());
      if (await next.isDisabled()) break;
      await next.click();
    }
    const all = seen.join('\n');
    assert.match(all, /Tool\s+roll/);
    assert.match(all, /Content not shown/);
    assert.ok(!all.includes('sides') && !all.includes('Tool roll returned'), 'no argument, result or answer');
    assert.equal(await page.locator('#run-replay button.primary').isDisabled(), true);
    await page.context().close();
  });

  it('an operator broadcasts but sees no destroy; nobody gets a control on the internal broadcaster', async () => {
    const page = await signIn(browser, target.url, OPERATOR);
    await page.locator('#principal', { hasText: 'Signed in as otto (operator)' }).waitFor();
    await page.locator('#bc-table tr[data-key="/fw/chat/roles-room"] button', { hasText: 'Send' }).waitFor();
    assert.equal(await page.locator('#bc-table tr[data-key="/fw/admin/events"] button').count(), 0);
    await selectTab(page, 'control');
    assert.equal(await page.locator('#form-broadcast fieldset').isVisible(), true);
    assert.equal(await page.locator('button', { hasText: 'Destroy broadcaster' }).isVisible(), false);
    // An operator reads the tape's content and may replay.
    await selectTab(page, 'runs');
    await page.locator(`#runs-table tr[data-key="${rolledRunId}"]`).click();
    await page.locator('#run-waterfall svg.waterfall').waitFor();
    assert.equal(await page.locator('#runs-refused').isVisible(), false);
    assert.equal(await page.locator('#run-replay button.primary').isDisabled(), false);
    await page.context().close();
  });
});
