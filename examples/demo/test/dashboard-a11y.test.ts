/**
 * Accessibility (issue #17, acceptance 3): axe-core, injected into Debian's Chromium, finds no
 * serious or critical violation on the demo's chat page and on each dashboard tab, in the light
 * and the dark theme (the system's, and the dashboard's own theme button). The demo runs its
 * simulation, so the tables, charts, feed and graph are full, as an operator sees them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { startDemo, type Demo } from '../src/main.js';
import { launchBrowser, selectTab, skipBrowser, waitForConnState } from './dashboard-helpers.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const TABS = ['dashboard', 'agents', 'journal', 'control'] as const;

interface AxeNode { target: string[]; failureSummary?: string }
interface AxeViolation { id: string; impact: string | null; help: string; helpUrl: string; nodes: AxeNode[] }

/** Runs axe on the page as it is now; answers the serious and critical violations, readable. */
async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  }) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.helpUrl})\n${v.nodes.slice(0, 5).map((n) => `    at ${n.target.join(' ')}: ${(n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 300)}`).join('\n')}`);
}

describe('accessibility: axe-core on the chat page and every dashboard tab, light and dark', { skip: skipBrowser }, () => {
  let demo: Demo;
  let browser: Browser;

  before(async () => {
    demo = await startDemo({ port: 0, host: '127.0.0.1', simulation: true, config: { 'fw.admin.history.interval-ms': 500 } });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`the chat page (examples/demo/public) in ${scheme}`, async () => {
      const page = await newPage(browser, scheme);
      try {
        await page.goto(demo.url);
        await page.waitForLoadState('networkidle').catch(() => undefined);
        const found = await seriousViolations(page);
        assert.deepEqual(found, [], `the demo's chat page (examples/demo/public, owned by the demo) has serious or critical axe violations in ${scheme}:\n${found.join('\n')}`);
      } finally {
        await page.close();
      }
    });

    it(`each dashboard tab in ${scheme} (system theme)`, async () => {
      const page = await newPage(browser, scheme);
      try {
        await page.goto(`${demo.url}fw/admin/`);
        await waitForConnState(page, 'connected');
        for (const tab of TABS) {
          await selectTab(page, tab);
          await settle(page, tab);
          const found = await seriousViolations(page);
          assert.deepEqual(found, [], `dashboard tab ${tab} in ${scheme}:\n${found.join('\n')}`);
        }
      } finally {
        await page.close();
      }
    });
  }

  it('every control of every tab is reached with Tab alone, and shows a visible focus ring', async () => {
    const page = await newPage(browser, 'light');
    try {
      await page.goto(`${demo.url}fw/admin/`);
      await waitForConnState(page, 'connected');
      for (const tab of TABS) {
        await selectTab(page, tab);
        await settle(page, tab);
        // Number every control a keyboard user should reach (visible, enabled, in the tab order;
        // the tabs other than the selected one are reached with the arrow keys instead).
        const expected = await page.evaluate(() => {
          const all = [...document.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, summary, [tabindex]')];
          const reachable = all.filter((el) => el.tabIndex >= 0 && !(el as HTMLButtonElement).disabled && el.getClientRects().length > 0
            && !el.closest('[hidden], fieldset:disabled') && getComputedStyle(el).visibility !== 'hidden');
          reachable.forEach((el, i) => { el.dataset.a11yId = String(i); });
          return reachable.length;
        });
        await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
        await page.evaluate(() => window.scrollTo(0, 0));
        const reached = new Set<string>();
        const noRing: string[] = [];
        for (let i = 0; i < expected + 20 && reached.size < expected; i++) {
          await page.keyboard.press('Tab');
          const focus = await page.evaluate(() => {
            const el = document.activeElement as HTMLElement | null;
            if (!el || el === document.body) return null;
            const style = getComputedStyle(el);
            return { id: el.dataset.a11yId ?? null, ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 1, what: el.outerHTML.slice(0, 120) };
          });
          if (!focus) continue;
          if (focus.id !== null) reached.add(focus.id);
          if (!focus.ring) noRing.push(focus.what);
        }
        const missed = await page.evaluate((ids) => [...document.querySelectorAll<HTMLElement>('[data-a11y-id]')]
          .filter((el) => !ids.includes(el.dataset.a11yId ?? '')).map((el) => el.outerHTML.slice(0, 120)), [...reached]);
        assert.deepEqual(missed, [], `tab ${tab}: controls Tab never reached`);
        assert.deepEqual(noRing, [], `tab ${tab}: focused without a visible focus ring`);
        await page.evaluate(() => document.querySelectorAll<HTMLElement>('[data-a11y-id]').forEach((el) => { delete el.dataset.a11yId; }));
      }
    } finally {
      await page.close();
    }
  });

  it('the theme button: auto → light → dark, kept across a reload, and dark is as clean as the system dark', async () => {
    const page = await newPage(browser, 'light');
    try {
      await page.goto(`${demo.url}fw/admin/`);
      await waitForConnState(page, 'connected');
      const theme = () => page.evaluate(() => document.documentElement.dataset.theme ?? 'auto');
      const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(await theme(), 'auto');
      const light = await background();
      await page.click('#theme-toggle');
      assert.equal(await theme(), 'light');
      await page.keyboard.press('Enter'); // the button keeps focus: the keyboard cycles it too
      assert.equal(await theme(), 'dark');
      assert.notEqual(await background(), light, 'the dark theme changes the colours');
      assert.match(await page.getAttribute('#theme-toggle', 'aria-label') ?? '', /dark/);
      await page.reload();
      await waitForConnState(page, 'connected');
      assert.equal(await theme(), 'dark', 'the choice survives a reload');
      for (const tab of TABS) {
        await selectTab(page, tab);
        await settle(page, tab);
        const found = await seriousViolations(page);
        assert.deepEqual(found, [], `dashboard tab ${tab}, dark by the theme button:\n${found.join('\n')}`);
      }
    } finally {
      await page.close();
    }
  });
});

/**
 * A page that lets axe in: both pages forbid inline and foreign scripts by CSP, and addScriptTag
 * is one (dashboard-safety.test.ts checks the CSP on pages of its own).
 */
function newPage(browser: Browser, colorScheme: 'light' | 'dark'): Promise<Page> {
  return browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme, bypassCSP: true });
}

/** Waits until a tab shows its data (rows, a chart, a graph), so axe checks the real page. */
async function settle(page: Page, tab: (typeof TABS)[number]): Promise<void> {
  const ready: Record<typeof tab, string> = {
    dashboard: '#chart-conn svg polyline, #chart-conn svg circle',
    agents: '#agents-table tbody tr',
    journal: '#graph svg',
    control: '#audit-table table',
  };
  await page.locator(ready[tab]).first().waitFor({ timeout: 20_000 });
  // What is folded away is checked too: the charts' number tables, the coordination log.
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
}
