/**
 * Issue #17, acceptance 1 (the dashboard's part): 10 seconds after the demo starts, with no action
 * but opening the page, the dashboard's overview shows connections, broadcasts and agent runs above
 * zero, read from the DOM; the journal tab draws the start-up coordination as a graph (SVG nodes);
 * the charts already have samples. The demo runs as `npm start` runs it (its simulation on).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDemo } from '../src/main.js';
import { counter, launchBrowser, selectTab, skipBrowser, waitForConnState } from './dashboard-helpers.js';

test('10 s after start, with no action, the dashboard shows connections, broadcasts and agent runs, and the journal a graph', {
  skip: skipBrowser,
}, async () => {
  const started = Date.now();
  const demo = await startDemo({ port: 0, host: '127.0.0.1', simulation: true });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(20_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${demo.url}fw/admin/`);
    await waitForConnState(page, 'connected');
    await page.waitForTimeout(Math.max(0, started + 10_000 - Date.now()));

    // Read from the DOM: what the counters show, not what the API says. A loaded machine may still
    // be refreshing at the 10 s mark, hence a short grace for each.
    for (const key of ['connections', 'broadcasts', 'agentRuns']) {
      await page
        .waitForFunction(
          (k) => Number((document.querySelector(`dd[data-counter="${k}"]`) as HTMLElement | null)?.dataset.value?.replace(/,/g, '')) > 0,
          key,
          { timeout: 5000 },
        )
        .catch(async () => assert.fail(`the ${key} counter shows ${await counter(page, key)} 10 s after start`));
    }
    // The dashboards' own connection is not a user's: connections counts the simulation's clients.
    assert.match(await page.locator('dd[data-counter="connections"] .sub').innerText(), /\+1 internal/);

    // The charts have samples (the first one 5 s after start) and say so in words.
    await page.waitForFunction(
      () => /WebSocket [1-9]/.test(document.querySelector('#chart-conn .chart-summary')?.textContent ?? ''),
      undefined,
      { timeout: 10_000 },
    );
    assert.ok((await page.locator('#chart-rate svg polyline, #chart-rate svg circle').count()) > 0);

    // The journal tab draws the coordination the demo ran at start: nodes of the execution graph.
    await selectTab(page, 'journal');
    await page.locator('#graph svg g.node').first().waitFor({ timeout: 10_000 });
    const nodes = await page.locator('#graph svg g.node').count();
    assert.ok(nodes >= 3, `the start-up coordination has a coordinator and two agents, drawn: ${nodes}`);
    assert.ok((await page.locator('#graph svg g.node.coordinator').count()) >= 1);
    assert.ok((await page.locator('#graph svg g.edge').count()) >= 2);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await demo.close();
  }
});
