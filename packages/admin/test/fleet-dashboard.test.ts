/**
 * The Fleet tab in a real browser (Debian's Chromium through playwright-core): the flow graph of
 * the journal's window and the health table, live over the event stream. A local agent that
 * fails opens its breaker: the table says so without a reload; after the open duration it shows
 * half-open, and a successful probe closes it. The failure's text (markup) stays text. Both
 * themes; screenshots to test-results/screenshots/, or docs/images/ with FW_SCREENSHOTS=1.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Framework } from '@fw/runtime';
import { Agent, AgentModule, Coordinator, OnPrompt, type CoordinatorContext } from '@fw/agent';
import { admin } from '../dist/index.js';

const CHROMIUM = process.env.FW_CHROMIUM ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `Chromium not found at ${CHROMIUM} (apt-get install chromium)`;
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const IMAGES = process.env.FW_SCREENSHOTS === '1' ? `${REPO_ROOT}docs/images/` : `${REPO_ROOT}test-results/screenshots/`;

const state = { failing: false };

@Agent({ name: 'researcher', headless: true })
class Researcher {
  @OnPrompt()
  async prompt(m: string): Promise<string> {
    await new Promise((r) => setTimeout(r, 12));
    return `notes on ${m}`;
  }
}

@Agent({ name: 'fact-checker', headless: true })
class FactChecker {
  @OnPrompt()
  prompt(): string {
    if (state.failing) throw new Error('<img src=x onerror="window.__xss=1">source unreachable');
    return 'verified';
  }
}

@Agent({ name: 'writer', headless: true })
class Writer {
  @OnPrompt()
  prompt(m: string): string {
    return `article: ${m}`;
  }
}

@Coordinator({ name: 'newsroom', fleet: ['researcher', 'fact-checker', 'writer'] })
class Newsroom {
  @OnPrompt()
  async prompt(message: string, ctx: CoordinatorContext): Promise<string> {
    const notes = await ctx.dispatch('researcher', message);
    await Promise.all([ctx.dispatch('fact-checker', notes.text).catch(() => undefined), ctx.dispatch('writer', notes.text)]);
    return 'published';
  }
}

describe('dashboard: the Fleet tab', { skip, timeout: 120_000 }, () => {
  let browser: Browser;
  let fw: Framework;
  let agents: AgentModule;
  let base = '';

  before(async () => {
    fw = new Framework({
      configFile: false,
      env: {},
      'fw.data-dir': '',
      'fw.ai.auto': false,
      'fw.agent.circuit.per-agent': 'fact-checker=3/2s',
    });
    agents = new AgentModule();
    await fw.use(agents);
    [Researcher, FactChecker, Writer, Newsroom].forEach((c) => agents.mount(c));
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

  const run = () => agents.host.run('newsroom', { message: 'tides' }, new AbortController().signal);
  const breakerOf = (page: Page, agent: string) =>
    page.locator('#fleet-health tbody tr', { hasText: agent }).locator('.badge', { hasText: /^(closed|open|half-open)$/ });

  it('draws the flow graph and the health table, and follows the breaker live in both themes', async () => {
    for (let i = 0; i < 3; i++) await run();
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
    page.setDefaultTimeout(20_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/fw/admin/#fleet`);
    await page.waitForFunction(() => document.getElementById('conn')?.dataset.state === 'connected');

    // The flow graph: the coordinator and its three agents, one edge line each with count, average and p95.
    await page.locator('#fleet-flow svg g.node').nth(3).waitFor();
    const nodes = await page.locator('#fleet-flow svg g.node > text:first-of-type').allTextContents();
    assert.deepEqual(nodes.sort(), ['fact-checker', 'newsroom', 'researcher', 'writer']);
    const lines = await page.locator('#fleet-flow svg text.edge-line').allTextContents();
    assert.equal(lines.length, 3);
    // Each line and its tooltip (the title element inside it): counts, average, p95, no failure.
    for (const line of lines) assert.match(line, /^×3 · avg \d+ ms · p95 \d+ msnewsroom → \S+: 3 dispatches, 3 succeeded, 0 failed/);
    assert.match((await page.textContent('#fleet-flow-count')) ?? '', /last 15 minutes: 3 edges from 18 events/);

    // The health table: every fleet agent closed.
    await page.locator('#fleet-health tbody tr').nth(2).waitFor();
    for (const a of ['researcher', 'fact-checker', 'writer']) assert.equal(await breakerOf(page, a).textContent(), 'closed');

    // The fact checker starts failing: its third failure opens the breaker, shown without a reload.
    state.failing = true;
    for (let i = 0; i < 3; i++) await run();
    await breakerOf(page, 'fact-checker')
      .filter({ hasText: /^open$/ })
      .waitFor();
    const row = page.locator('#fleet-health tbody tr', { hasText: 'fact-checker' });
    assert.match((await row.textContent()) ?? '', /source unreachable/);
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined, 'markup in data stays text');
    assert.equal(await page.locator('#fleet-health img').count(), 0);
    // The graph follows: the failed calls are on the fact checker's edge.
    await page.waitForFunction(() =>
      [...document.querySelectorAll('#fleet-flow svg text.edge-line')].some((t) => /×6 .*3 failed/.test(t.textContent ?? '')),
    );
    mkdirSync(IMAGES, { recursive: true });
    await page.screenshot({ path: `${IMAGES}fleet.png`, fullPage: true });

    // After the open duration (2 s here) the breaker half-opens by itself, live.
    await breakerOf(page, 'fact-checker')
      .filter({ hasText: /^half-open$/ })
      .waitFor({ timeout: 6000 });
    // The agent recovered: the probe succeeds and closes the breaker.
    state.failing = false;
    await run();
    await breakerOf(page, 'fact-checker')
      .filter({ hasText: /^closed$/ })
      .waitFor();

    // Another window: the whole journal.
    await page.selectOption('#fleet-window', '0');
    await page.waitForFunction(() => /^whole journal:/.test(document.getElementById('fleet-flow-count')?.textContent ?? ''));

    // The Journal tab draws the newest coordination's causal tree: a fan-out under the researcher's answer.
    await page.click('#tab-journal');
    await page.locator('#graph .tree').waitFor();
    const fanOut = page.locator('#graph .tree > li > ul > li[data-kind="completion"] > ul > li[data-kind="dispatch"]');
    assert.equal(await fanOut.count(), 2);
    assert.deepEqual(errors, []);
    await page.close();

    const dark = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    await dark.goto(`${base}/fw/admin/#fleet`);
    await dark.locator('#fleet-flow svg g.node').nth(3).waitFor();
    await dark.locator('#fleet-health tbody tr').nth(2).waitFor();
    const background = await dark.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.notEqual(background, 'rgb(255, 255, 255)', 'the dark theme is applied');
    await dark.screenshot({ path: `${IMAGES}fleet-dark.png`, fullPage: true });
    await dark.close();
  });
});
