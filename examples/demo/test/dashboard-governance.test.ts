/**
 * The Governance tab in Chromium against the demo (its own policy file loaded): the kill switch
 * follows an arm from another client live and is disarmed and armed from the page with its
 * confirmation, the policies are listed, a decision appears as it is made, Stop… on an agent
 * session stops its model call while the user stays connected, hostile strings in a policy's
 * name, reason and arguments show as text, an order waiting for approval shows live and is
 * approved and denied from the page, spend and budgets are shown, a server without those endpoints
 * hides their panels, both themes colour the tab, and a viewer is shown no write control (and the
 * server refuses it anyway).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Browser, Page } from 'playwright-core';
import WebSocket from 'ws';
import type { AdminService } from '@fw/admin';
import { waitFor } from '@fw/testing';
import { startDemo, type Demo } from '../src/main.js';
import { launchBrowser, selectTab, skipBrowser, waitForConnState } from './dashboard-helpers.js';

/** Each payload sets `window.__pwned` if it is ever parsed as HTML or executed. */
const IMG = `<img src=x onerror="window.__pwned='img'">`;
const SCRIPT = `<script>window.__pwned='script'</script>`;
const EVIL = `${IMG}${SCRIPT}"><svg onload="window.__pwned='svg'">`;

const VIEWER = 'governance-viewer-token-0123';
const OPERATOR = 'governance-operator-token-0123';

async function openGovernance(browser: Browser, demo: Demo, colorScheme: 'light' | 'dark' = 'light', token?: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme });
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (e) => assert.fail(`page error: ${e.message}`));
  await page.addInitScript((t) => {
    const w = window as unknown as { __cspViolations: string[] };
    w.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__cspViolations.push(`${e.violatedDirective}: ${e.sample}`));
    if (t) sessionStorage.setItem('fw.admin.token', t);
  }, token ?? '');
  await page.goto(`${demo.url}fw/admin/#governance`);
  await waitForConnState(page, 'connected');
  await page.waitForFunction(() => !document.getElementById('panel-governance')?.hidden);
  return page;
}

async function assertInert(page: Page): Promise<void> {
  const report = await page.evaluate(() => ({
    pwned: (window as unknown as { __pwned?: unknown }).__pwned ?? null,
    imgs: document.querySelectorAll('img').length,
    svgs: [...document.querySelectorAll('svg')].filter((s) => !s.closest('#graph') && !s.matches('svg.tchart, svg.bars')).length,
    handlerAttributes: [...document.querySelectorAll('*')].flatMap((el) =>
      [...el.attributes].filter((a) => a.name.startsWith('on')).map((a) => `${el.tagName}[${a.name}]`),
    ),
    csp: (window as unknown as { __cspViolations: string[] }).__cspViolations,
  }));
  assert.deepEqual(report, { pwned: null, imgs: 0, svgs: 0, handlerAttributes: [], csp: [] });
}

const post = async (demo: Demo, path: string, body?: unknown, token?: string): Promise<Response> =>
  fetch(`${demo.url}api/admin/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe('the Governance tab', { skip: skipBrowser, timeout: 120_000 }, () => {
  let demo: Demo;
  let browser: Browser;
  let page: Page;

  before(async () => {
    // Tokens slow enough that a model call is still in flight when Stop… is clicked.
    demo = await startDemo({ port: 0, host: '127.0.0.1', config: { configFile: false, 'demo.token-delay': '1s' } });
    browser = await launchBrowser();
    page = await openGovernance(browser, demo);
  });

  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  it("lists the demo's policies with their mode", async () => {
    for (const name of ['no-shell', 'fair-dice', 'runaway-runs', 'trial-short-prompts'])
      await page.locator(`#policies-table tr[data-key="${name}"]`).waitFor();
    assert.match(await page.locator('#policies-table tr[data-key="trial-short-prompts"]').innerText(), /dry-run/);
    assert.match(await page.locator('#policies-file').innerText(), /policies\.json · sha256 [0-9a-f]{12}/);
  });

  it('follows an arm from another client live, then disarms and arms from the page with a confirmation', async () => {
    await page.locator('#form-kill-switch[data-armed="false"]').waitFor();
    const armed = await post(demo, 'governance/kill-switch/arm', { reason: 'spend spike from the API' });
    assert.equal(armed.status, 200);
    await page.locator('#form-kill-switch[data-armed="true"]').waitFor();
    assert.match(await page.locator('#kill-switch-summary').innerText(), /Armed for every agent.*spend spike from the API/);
    await page.locator('#kill-switch-nodes tbody tr', { hasText: 'armed' }).waitFor();

    const form = page.locator('#form-kill-switch');
    await form.locator('button[name="disarm"]').click();
    await form.locator('.confirm').waitFor();
    await form.locator('.confirm button', { hasText: 'Disarm' }).click();
    await page.waitForFunction(() => document.querySelector('#form-kill-switch .result')?.getAttribute('data-kind') === 'success');
    assert.match(await form.locator('.result').innerText(), /Disarmed; 1 node acknowledged/);
    await page.locator('#form-kill-switch[data-armed="false"]').waitFor();
    assert.equal(((await (await fetch(`${demo.url}api/admin/governance/health`)).json()) as { armed: boolean }).armed, false);

    // Arming needs a reason; Cancel does nothing.
    await form.locator('button[name="arm"]').click();
    assert.equal(await form.locator('.result').getAttribute('data-kind'), 'error');
    await form.locator('input[name="reason"]').fill('maintenance window');
    await form.locator('input[name="scope"]').fill('slow');
    await form.locator('button[name="arm"]').click();
    await form.locator('.confirm', { hasText: 'maintenance window' }).waitFor();
    await form.locator('.confirm button', { hasText: 'Cancel' }).click();
    assert.match(await form.locator('.result').innerText(), /Nothing was done/);
    assert.equal(((await (await fetch(`${demo.url}api/admin/governance/health`)).json()) as { armed: boolean }).armed, false);

    await form.locator('button[name="arm"]').click();
    await form.locator('.confirm button', { hasText: 'Arm' }).click();
    await page.locator('#form-kill-switch[data-armed="true"]').waitFor();
    const health = (await (await fetch(`${demo.url}api/admin/governance/health`)).json()) as {
      armed: boolean;
      scope: string;
      reason: string;
    };
    assert.deepEqual([health.armed, health.scope, health.reason], [true, 'slow', 'maintenance window']);
    // The audit log has the page's writes, from the dashboard.
    const audit = (await (await fetch(`${demo.url}api/admin/audit?action=kill-switch.arm&limit=10`)).json()) as { source: string }[];
    assert.ok(audit.some((a) => a.source === 'dashboard'));
    assert.equal((await post(demo, 'governance/kill-switch/disarm', {})).status, 200);
    await page.locator('#form-kill-switch[data-armed="false"]').waitFor();
  });

  it('shows a decision as it is made: a denied tool, with the policy that denied it', async () => {
    const res = await post(demo, 'governance/check', { agent_id: 'assistant', action: 'tool_call', context: { tool_name: 'shell' } });
    assert.equal(((await res.json()) as { matched_policy: string }).matched_policy, 'no-shell');
    const row = page.locator('#decisions-table tbody tr', { hasText: 'shell access is not for agents' });
    await row.first().waitFor();
    const text = await row.first().innerText();
    assert.match(text, /deny/);
    assert.match(text, /no-shell/);
    // The policy's counter follows.
    await page.waitForFunction(() =>
      /\b1\b/.test((document.querySelector('#policies-table tr[data-key="no-shell"] td:nth-child(5)') as HTMLElement)?.innerText ?? ''),
    );
  });

  it('renders hostile policy names, reasons and arguments as text', async () => {
    const service = demo.fw.services.get('admin') as AdminService;
    const remove = service.governance.usePolicy({
      name: EVIL,
      description: SCRIPT,
      evaluate: (r) => (r.tool === 'hostile-tool' ? { decision: 'deny', reason: EVIL } : undefined),
    });
    try {
      await post(demo, 'governance/check', {
        agent_id: EVIL,
        action: 'tool_call',
        context: { tool_name: 'hostile-tool', arguments: { note: EVIL }, principal: SCRIPT },
      });
      const row = page.locator('#decisions-table tbody tr', { hasText: IMG }).first();
      await row.waitFor();
      const text = await row.innerText();
      assert.ok(text.includes(EVIL), `the policy name and reason show as typed: ${text}`);
      assert.ok(text.includes(JSON.stringify({ note: EVIL })), 'the arguments show as JSON text');
      assert.ok(text.includes(SCRIPT), 'the principal shows as text');
      await page.waitForFunction(
        (name) => [...document.querySelectorAll('#policies-table tr')].some((tr) => (tr as HTMLElement).dataset.key === name),
        EVIL,
      );
      await assertInert(page);
    } finally {
      remove();
    }
  });

  it('stops a session’s model call from its row in the Agents tab; the user stays connected', async () => {
    const socket = new WebSocket(`${demo.url.replace(/^http/, 'ws')}fw/agent/assistant`);
    const frames: { type: string; [k: string]: unknown }[] = [];
    socket.on('message', (d) => {
      try {
        frames.push(JSON.parse(String(d)));
      } catch {
        // a heartbeat
      }
    });
    await once(socket, 'open');
    try {
      const session = await waitFor('the session frame', () => frames.find((f) => f.type === 'session')?.id as string | undefined);
      socket.send(
        JSON.stringify({ text: 'tell me a long story about transports, broadcasters, agents, tools, policies and the kill switch' }),
      );
      await waitFor('a first token', () => (frames.some((f) => f.type === 'token') ? true : undefined));

      await selectTab(page, 'agents');
      await page.locator('#agents-table tr[data-key="assistant"]').click();
      const row = page.locator(`#sessions-table tr[data-key="${session}"]`);
      await row.locator('button', { hasText: 'Stop…' }).click();
      const form = page.locator('#form-cancel-inflight');
      await form.locator('.confirm', { hasText: session }).waitFor();
      await form.locator('.confirm button', { hasText: 'Stop model call' }).click();
      await page.waitForFunction(() => document.querySelector('#form-cancel-inflight .result')?.getAttribute('data-kind') === 'success');
      assert.match(await form.locator('.result').innerText(), /Stopped the model call of session/);
      const cancelled = await waitFor('the cancelled frame', () => frames.find((f) => f.type === 'cancelled'));
      assert.ok(cancelled);
      assert.equal(socket.readyState, WebSocket.OPEN, 'the user stays connected');

      // Nothing in flight now: the same button says so.
      await row.locator('button', { hasText: 'Stop…' }).click();
      await form.locator('.confirm button', { hasText: 'Stop model call' }).click();
      await form.locator('.result', { hasText: 'Nothing was in flight' }).waitFor();
    } finally {
      socket.close();
      await selectTab(page, 'governance');
    }
  });

  it('shows an order waiting for approval live, approves one and denies another with a reason; hostile arguments stay text', async () => {
    const socket = new WebSocket(`${demo.url.replace(/^http/, 'ws')}fw/agent/assistant`);
    const frames: { type: string; [k: string]: unknown }[] = [];
    socket.on('message', (d) => {
      try {
        frames.push(JSON.parse(String(d)));
      } catch {
        // a heartbeat
      }
    });
    await once(socket, 'open');
    try {
      await waitFor('the session frame', () => (frames.some((f) => f.type === 'session') ? true : undefined));
      const form = page.locator('#form-approval');

      socket.send(JSON.stringify({ text: '/order {"item": "coffee"}' }));
      const coffee = page.locator('#approvals-table tbody tr', { hasText: 'coffee' });
      await coffee.waitFor();
      assert.match(await coffee.innerText(), /assistant[\s\S]*order/);
      await coffee.locator('button', { hasText: 'Approve…' }).click();
      await form.locator('.confirm', { hasText: 'coffee' }).waitFor();
      await form.locator('.confirm button', { hasText: 'Approve' }).click();
      await form.locator('.result[data-kind="success"]', { hasText: 'approved' }).waitFor();
      const done = await waitFor('the answer after the approval', () => frames.find((f) => f.type === 'done'));
      assert.match(String(done.text), /ordered one coffee/);
      await coffee.waitFor({ state: 'detached' });

      const from = frames.length;
      socket.send(JSON.stringify({ text: `/order {"item": ${JSON.stringify(EVIL)}}` }));
      // In the JSON text of the arguments the payload's quotes are escaped: look for what has none.
      const hostile = page.locator('#approvals-table tbody tr', { hasText: '<img src=x onerror=' });
      await hostile.waitFor();
      assert.ok((await hostile.innerText()).includes(JSON.stringify({ item: EVIL })), 'the arguments show as JSON text');
      await assertInert(page);
      await form.locator('input[name="reason"]').fill(`not today ${SCRIPT}`);
      await hostile.locator('button', { hasText: 'Deny…' }).click();
      await form.locator('.confirm', { hasText: SCRIPT }).waitFor();
      await form.locator('.confirm button', { hasText: 'Deny' }).click();
      await form.locator('.result[data-kind="success"]', { hasText: 'denied' }).waitFor();
      // The chat is told at once (its answer then streams at this demo's slow token pace).
      const denied = await waitFor('the chat told of the denial', () =>
        frames.slice(from).find((f) => f.type === 'approval' && f.status === 'denied'),
      );
      assert.match(String(denied.message), /was denied: not today/);
      await assertInert(page);
    } finally {
      socket.close();
    }
  });

  it('shows spend by agent and the budgets of the policy file', async () => {
    // The runs above went through the offline model, which reports tokens (and has no price).
    await page.locator('#spend-table tr[data-key="assistant"]').waitFor();
    assert.match(await page.locator('#spend-chart-note').innerText(), /Tokens by key/);
    assert.match((await page.locator('#spend-chart svg').getAttribute('aria-label')) ?? '', /assistant \d+ tokens/);
    await page.locator('#spend-form select[name="by"]').selectOption('model');
    await page.locator('#spend-table tr[data-key="offline-echo"]').waitFor();
    for (const id of ['slow-daily', 'each-run']) await page.locator(`#budgets-table tr[data-key="${id}"]`).waitFor();
    assert.match(
      await page.locator('#budgets-table tr[data-key="slow-daily"]').innerText(),
      /agent\s+slow[\s\S]*20,000 tokens[\s\S]*50,000 tokens[\s\S]*ok/,
    );
  });

  it('hides the Spend and Approvals panels behind a note on a server without their endpoints', async () => {
    const older = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      // An older fw: these endpoints answer 404 as an unknown admin path does.
      await older.route(/\/api\/admin\/(spend|governance\/budgets|approvals)(\?|$)/, (route) =>
        route.fulfill({
          status: 404,
          contentType: 'application/problem+json',
          body: JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found', detail: 'no such route' }),
        }),
      );
      await older.goto(`${demo.url}fw/admin/#governance`);
      await waitForConnState(older, 'connected');
      await older.locator('#spend-absent').waitFor();
      await older.locator('#approvals-absent').waitFor();
      assert.equal(await older.locator('#spend-body').isHidden(), true);
      assert.equal(await older.locator('#approvals-body').isHidden(), true);
      // The rest of the tab works.
      await older.locator('#policies-table tr[data-key="no-shell"]').waitFor();
    } finally {
      await older.close();
    }
  });

  it('follows the theme: the dark page colours the tab differently', async () => {
    const dark = await openGovernance(browser, demo, 'dark');
    try {
      await dark.locator('#policies-table tbody tr').first().waitFor();
      const colours = async (p: Page) =>
        p.evaluate(() => {
          const card = getComputedStyle(document.getElementById('form-kill-switch')!);
          return `${card.backgroundColor}|${card.color}`;
        });
      assert.notEqual(await colours(dark), await colours(page));
    } finally {
      await dark.close();
    }
  });
});

describe('the Governance tab for a viewer', { skip: skipBrowser, timeout: 60_000 }, () => {
  let demo: Demo;
  let browser: Browser;

  before(async () => {
    demo = await startDemo({
      port: 0,
      host: '127.0.0.1',
      config: { configFile: false, 'fw.auth.tokens': `vera:viewer:${VIEWER},otto:operator:${OPERATOR}` },
    });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  it('shows the state but no write control, and the server refuses the write anyway', async () => {
    const page = await openGovernance(browser, demo, 'light', VIEWER);
    await page.locator('#form-kill-switch[data-armed="false"]').waitFor();
    await page.locator('#policies-table tr[data-key="no-shell"]').waitFor();
    for (const form of ['#form-kill-switch', '#form-policies']) {
      await page.locator(`${form} .unavailable`, { hasText: 'vera (viewer) may not' }).waitFor();
      assert.equal(await page.locator(`${form} fieldset`).isHidden(), true);
      assert.equal(await page.locator(`${form} fieldset`).evaluate((f) => (f as HTMLFieldSetElement).disabled), true);
    }
    await page.locator('#form-approval .unavailable', { hasText: 'may not approve or deny' }).waitFor();
    await selectTab(page, 'agents');
    await page.locator('#form-cancel-inflight .unavailable', { hasText: 'may not stop model calls' }).waitFor();
    assert.equal(await page.locator('#sessions-table button', { hasText: 'Stop…' }).count(), 0);
    assert.equal((await post(demo, 'governance/kill-switch/arm', { reason: 'x' }, VIEWER)).status, 403);

    // The operator's arm reaches the viewer's page live.
    await selectTab(page, 'governance');
    assert.equal((await post(demo, 'governance/kill-switch/arm', { reason: 'operator says so' }, OPERATOR)).status, 200);
    await page.locator('#kill-switch-summary', { hasText: 'operator says so' }).waitFor();
    assert.match(await page.locator('#kill-switch-summary').innerText(), /by otto/);
    await page.close();
  });
});
