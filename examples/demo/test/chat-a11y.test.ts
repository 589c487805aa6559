/**
 * Accessibility of the demo's chat page (issue #17, acceptance 3): axe-core, injected into
 * Chromium, finds no serious or critical violation in light and dark, with the simulation running
 * (messages arriving, the ticker, the agents panel).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startDemo, type Demo } from '../src/main.js';
import { launchBrowser, skipBrowser } from './dashboard-helpers.js';
import { newPage, seriousViolations } from './dashboard-a11y-support.js';

describe('accessibility: axe-core on the chat page, light and dark', { skip: skipBrowser }, () => {
  let demo: Demo;
  let browser: Browser;

  before(async () => {
    demo = await startDemo({ port: 0, host: '127.0.0.1', simulation: true });
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
        assert.deepEqual(
          found,
          [],
          `the demo's chat page (examples/demo/public, owned by the demo) has serious or critical axe violations in ${scheme}:\n${found.join('\n')}`,
        );
      } finally {
        await page.close();
      }
    });
  }
});
