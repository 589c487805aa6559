/** Shared pieces of the accessibility tests: axe-core injected into a page, pages axe may run in, tabs filled with data. */
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
export const TABS = ['dashboard', 'agents', 'journal', 'runs', 'fleet', 'rooms', 'governance', 'control', 'playground', 'evals'] as const;

interface AxeNode {
  target: string[];
  failureSummary?: string;
}
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: AxeNode[];
}

/** Runs axe on the page as it is now; answers the serious and critical violations, readable. */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  })) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} (${v.helpUrl})\n${v.nodes
          .slice(0, 5)
          .map((n) => `    at ${n.target.join(' ')}: ${(n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 300)}`)
          .join('\n')}`,
    );
}

/**
 * A page that lets axe in: both pages forbid inline and foreign scripts by CSP, and addScriptTag
 * is one (dashboard-safety.test.ts checks the CSP on pages of its own).
 */
export function newPage(browser: Browser, colorScheme: 'light' | 'dark'): Promise<Page> {
  return browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme, bypassCSP: true });
}

/** Waits until a tab shows its data (rows, a chart, a graph), so axe checks the real page. */
export async function settle(page: Page, tab: (typeof TABS)[number]): Promise<void> {
  const ready: Record<typeof tab, string> = {
    dashboard: '#chart-conn svg polyline, #chart-conn svg circle',
    agents: '#agents-table tbody tr',
    journal: '#graph svg',
    runs: '#runs-table tbody tr',
    fleet: '#fleet-health table',
    rooms: '#room-members-table tbody tr', // the lobby's agent member is always there
    governance: '#policies-table tbody tr',
    control: '#audit-table table',
    playground: '#playground-form select option',
    evals: '#evals-runs table',
  };
  // Attached, not visible: a flat line (a steady count) has an empty bounding box.
  await page.locator(ready[tab]).first().waitFor({ state: 'attached', timeout: 20_000 });
  // The Runs tab is checked with a run open: its waterfall, step-through and replay controls.
  if (tab === 'runs') {
    await page.locator(ready[tab]).first().click();
    await page.locator('#run-waterfall svg.waterfall').waitFor({ state: 'attached', timeout: 20_000 });
  }
  // What is folded away is checked too: the charts' number tables, the coordination log.
  await page.evaluate(() =>
    document.querySelectorAll('details').forEach((d) => {
      d.open = true;
    }),
  );
}
