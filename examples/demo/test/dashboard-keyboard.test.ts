/**
 * Keyboard and themes (issue #17, build item 3): every control of every dashboard tab is reached
 * with Tab alone and shows a visible focus ring; the theme button cycles auto, light and dark,
 * by mouse and keyboard, is kept across a reload, and its dark is as clean for axe as the system's.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startDemo, type Demo } from '../src/main.js';
import { launchBrowser, selectTab, skipBrowser, waitForConnState } from './dashboard-helpers.js';
import { newPage, seriousViolations, settle, TABS } from './dashboard-a11y-support.js';

describe('keyboard and themes: Tab reaches every control, the theme button works', { skip: skipBrowser }, () => {
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
          const reachable = all.filter(
            (el) =>
              el.tabIndex >= 0 &&
              !(el as HTMLButtonElement).disabled &&
              el.getClientRects().length > 0 &&
              !el.closest('[hidden], fieldset:disabled') &&
              getComputedStyle(el).visibility !== 'hidden',
          );
          reachable.forEach((el, i) => {
            el.dataset.a11yId = String(i);
          });
          return reachable.length;
        });
        await page.evaluate(() => {
          (document.activeElement as HTMLElement | null)?.blur();
          window.scrollTo(0, 0);
          // Each focus is recorded in the page, so the walk costs one key press per control.
          const w = window as unknown as { __reached: Set<string>; __noRing: string[] };
          w.__reached = new Set();
          w.__noRing = [];
          document.addEventListener('focusin', (e) => {
            const el = e.target as HTMLElement;
            if (el.dataset.a11yId !== undefined) w.__reached.add(el.dataset.a11yId);
            const style = getComputedStyle(el);
            if (style.outlineStyle === 'none' || parseFloat(style.outlineWidth) < 1) w.__noRing.push(el.outerHTML.slice(0, 120));
          });
        });
        for (let i = 0; i < expected + 20; i++) await page.keyboard.press('Tab');
        const { reached, noRing } = await page.evaluate(() => {
          const w = window as unknown as { __reached: Set<string>; __noRing: string[] };
          return { reached: [...w.__reached], noRing: w.__noRing };
        });
        const missed = await page.evaluate(
          (ids) =>
            [...document.querySelectorAll<HTMLElement>('[data-a11y-id]')]
              .filter((el) => !ids.includes(el.dataset.a11yId ?? ''))
              .map((el) => el.outerHTML.slice(0, 120)),
          reached,
        );
        assert.deepEqual(missed, [], `tab ${tab}: controls Tab never reached`);
        assert.deepEqual([...new Set(noRing)], [], `tab ${tab}: focused without a visible focus ring`);
        await page.evaluate(() =>
          document.querySelectorAll<HTMLElement>('[data-a11y-id]').forEach((el) => {
            delete el.dataset.a11yId;
          }),
        );
      }
    } finally {
      await page.close();
    }
  });

  it('the theme button: auto → light → dark by mouse and keyboard, kept across a reload, as clean as the system dark', async () => {
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
      assert.match((await page.getAttribute('#theme-toggle', 'aria-label')) ?? '', /dark/);
      await page.reload();
      await waitForConnState(page, 'connected');
      assert.equal(await theme(), 'dark', 'the choice survives a reload');
      // The colours are the system-dark ones (the same light-dark() pairs): one tab shows the switch took.
      await selectTab(page, 'dashboard');
      await settle(page, 'dashboard');
      const found = await seriousViolations(page);
      assert.deepEqual(found, [], `dashboard, dark by the theme button:\n${found.join('\n')}`);
    } finally {
      await page.close();
    }
  });
});
