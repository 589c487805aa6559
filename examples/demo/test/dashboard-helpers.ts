/**
 * Shared pieces of the dashboard browser tests: Debian's Chromium through playwright-core (never
 * a downloaded browser), the running demo, fw clients from Node, and small readers of the page.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { connect, type FwClient } from '@fw/client/node';
import type { Framework } from '@fw/runtime';
import { startDemo } from '../src/main.js';

export const CHROMIUM = process.env.FW_CHROMIUM ?? '/usr/bin/chromium';

/** `false` when the browser tests can run, else why they are skipped. */
export const skipBrowser: string | false = existsSync(CHROMIUM)
  ? false
  : `Chromium not found at ${CHROMIUM}: install it (apt-get install chromium) to run the dashboard browser tests`;
if (skipBrowser) console.warn(`[dashboard tests] ${skipBrowser}`);

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
/**
 * Screenshots go to test-results/ (ignored by git) so a test run never dirties the work tree;
 * `FW_UPDATE_SCREENSHOTS=1 npm test -- dashboard-screenshots` refreshes the ones in docs/images/.
 */
export const IMAGES_DIR =
  process.env.FW_SCREENSHOTS === '1' || process.env.FW_UPDATE_SCREENSHOTS === '1'
    ? `${REPO_ROOT}docs/images/`
    : `${REPO_ROOT}test-results/screenshots/`;

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

export interface Target {
  url: string;
  fw: Framework;
  close(): Promise<void>;
}

/** The demo on loopback (an ephemeral port unless one is given, for restarts on the same port). */
export async function startTarget(port = 0): Promise<Target> {
  const demo = await startDemo({ port, host: '127.0.0.1' });
  return { url: demo.url.replace(/\/$/, ''), fw: demo.fw, close: () => demo.close() };
}

export interface OpenPage {
  page: Page;
  /** Uncaught page errors and console errors (other than the failed loads and sockets a server outage provokes). */
  errors: string[];
}

/** Opens the dashboard and waits until its event stream is connected. */
export async function openDashboard(browser: Browser, base: string, viewport = { width: 1280, height: 900 }): Promise<OpenPage> {
  const page = await browser.newPage({ viewport });
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource|WebSocket connection to .* failed/.test(m.text()))
      errors.push(`console: ${m.text()}`);
  });
  // Records CSP violations: an injected inline script or handler that got parsed would show here.
  await page.addInitScript(() => {
    const w = window as unknown as { __cspViolations: string[] };
    w.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__cspViolations.push(`${e.violatedDirective}: ${e.sample}`));
  });
  await page.goto(`${base}/fw/admin/`);
  await waitForConnState(page, 'connected');
  return { page, errors };
}

export interface Session extends OpenPage {
  target: Target;
  browser: Browser;
}

/** A suite's usual start: the demo (with `setup` run on it first), Chromium, the dashboard open. */
export async function openSession(setup?: (target: Target) => void): Promise<Session> {
  const target = await startTarget();
  setup?.(target);
  const browser = await launchBrowser();
  return { target, browser, ...(await openDashboard(browser, target.url)) };
}

/** A suite's usual end: its fw clients, the browser, the demo (whichever were started). */
export async function closeSession(parts: { clients?: TestClient[]; browser?: Browser; target?: Target }): Promise<void> {
  for (const c of parts.clients ?? []) c.client.close();
  await parts.browser?.close();
  await parts.target?.close();
}

export async function waitForConnState(page: Page, state: string, timeout = 15_000): Promise<void> {
  await page.waitForFunction((s) => document.getElementById('conn')?.dataset.state === s, state, { timeout });
}

/** The number a dashboard counter shows (`connections`, `broadcasters`, …). */
export async function counter(page: Page, key: string): Promise<number> {
  const text = await page.locator(`dd[data-counter="${key}"]`).getAttribute('data-value');
  return Number(String(text ?? '').replace(/,/g, ''));
}

export async function waitForCounter(page: Page, key: string, value: number, timeout = 10_000): Promise<void> {
  await page.waitForFunction(
    ([k, v]) => Number((document.querySelector(`dd[data-counter="${k}"]`) as HTMLElement | null)?.dataset.value?.replace(/,/g, '')) === v,
    [key, value] as const,
    { timeout },
  );
}

export async function selectTab(
  page: Page,
  name: 'dashboard' | 'agents' | 'journal' | 'runs' | 'fleet' | 'rooms' | 'governance' | 'control' | 'playground' | 'evals',
): Promise<void> {
  await page.click(`#tab-${name}`);
  await page.waitForFunction((n) => !document.getElementById(`panel-${n}`)?.hidden, name);
}

/** Saves a screenshot of the viewport as dashboard-<name>.png in IMAGES_DIR (small PNGs for the docs). */
export async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  mkdirSync(IMAGES_DIR, { recursive: true });
  await page.screenshot({ path: `${IMAGES_DIR}dashboard-${name}.png`, fullPage });
}

export interface TestClient {
  client: FwClient;
  uuid: string;
  messages: string[];
  /** Resolves with the reason when the server closes the client. */
  closed: Promise<string>;
}

/** An fw client (WebSocket, fw protocol) connected to `path` on the target; resolves once open. */
export async function connectClient(base: string, path: string): Promise<TestClient> {
  const client = connect(`${base}${path}`, { transports: ['websocket'], reconnect: false });
  const messages: string[] = [];
  client.onMessage((data) => messages.push(data));
  const closed = new Promise<string>((resolve) => client.onClose(resolve));
  await new Promise<void>((resolve, reject) => {
    if (client.state === 'open') return resolve();
    const off = client.onStateChange((s) => {
      if (s === 'open') {
        off();
        resolve();
      }
    });
    void closed.then((reason) => reject(new Error(`client closed before opening: ${reason}`)));
  });
  return { client, uuid: client.uuid!, messages, closed };
}
