/**
 * Accessibility (issue #17, acceptance 3): axe-core, injected into Debian's Chromium, finds no
 * serious or critical violation on each dashboard tab, in the light and the dark theme (the
 * chat page: chat-a11y.test.ts; the theme button: dashboard-keyboard.test.ts). The demo runs its
 * simulation, so the tables, charts, feed and graph are full, as an operator sees them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startDemo, type Demo } from '../src/main.js';
import { launchBrowser, selectTab, skipBrowser, waitForConnState } from './dashboard-helpers.js';
import { newPage, seriousViolations, settle, TABS } from './dashboard-a11y-support.js';

describe('accessibility: axe-core on every dashboard tab, light and dark', { skip: skipBrowser }, () => {
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
});
