// Agents on the chat page (issue #17, Build 2 and Acceptance 2): the page talks to the demo agents
// over AG-UI with streamed tokens and tool calls shown as they happen; a run of the slow agent
// started on the page and cancelled from elsewhere — the admin REST cancel the dashboard uses, the
// admin MCP tool `fw_cancel_task` through the official MCP SDK client — shows "cancelled" on the
// page within one second of the cancel's answer; so does the page's own Stop button, pressed from
// the keyboard. Real Chromium, real sockets on loopback.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDemo, type Demo } from '../src/main.js';

const CHROMIUM = process.env.FW_CHROMIUM ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `Chromium not found at ${CHROMIUM}`;
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** Acceptance 2: cancelled on the page within one second of the cancel. */
const CANCEL_SHOWN_WITHIN_MS = 1000;

let demo: Demo;
let browser: Browser;

before(async () => {
  if (skip) return;
  // Long enough that every cancel below lands while the run works; short enough that a test that
  // failed to cancel does not hang for 20 s.
  demo = await startDemo({
    port: 0,
    host: '127.0.0.1',
    config: { configFile: false, 'demo.slow-agent.duration': '30s', 'fw.admin.mcp-write-tools': true },
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});

after(async () => {
  await browser?.close();
  await demo?.close();
});

async function openPage(on: Demo = demo): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(on.url);
  await page.waitForFunction(() => (document.getElementById('agent-choice') as HTMLSelectElement | null)?.options.length === 4);
  return { page, errors };
}

/** Starts the slow agent from the page and waits for its first progress step; returns the admin task id. */
async function startSlowRun(page: Page): Promise<string> {
  await page.selectOption('#agent-choice', 'slow');
  await page.fill('#agent-prompt', 'a long job');
  await page.click('#agent-send');
  await page.waitForFunction(() => document.getElementById('agent-status')?.dataset.state === 'running');
  await page.waitForFunction(() => document.getElementById('agent-transcript')?.textContent?.includes('Working on "a long job"'));
  const taskId = (await page.textContent('#agent-run-id')) ?? '';
  assert.match(taskId, /^agui:slow:[0-9a-f-]{36}$/);
  return taskId;
}

/** Waits for "cancelled" on the page; returns how long after `since` (ms, Date.now clock) the page showed it. */
async function cancelledAfter(page: Page, since: number): Promise<number> {
  await page.waitForFunction(() => document.getElementById('agent-status')?.dataset.state === 'canceled', undefined, { timeout: 10_000 });
  const at = Number(await page.getAttribute('#agent-status', 'data-at'));
  // The dashboard's word (A2A's): "canceled", on the page too.
  assert.equal(await page.textContent('#agent-status'), 'canceled');
  return at - since;
}

/** The stored run's state once it left `running` (the store is written behind; bounded wait). */
async function runState(runId: string): Promise<string | undefined> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const runs = (await (await fetch(`${demo.url}api/admin/runs?agent=slow&limit=50`)).json()) as { ref: string | null; state: string }[];
    const state = runs.find((r) => r.ref === runId)?.state;
    if ((state !== undefined && state !== 'running') || Date.now() > deadline) return state;
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('the assistant streams its answer token by token and shows its tool call as it happens', { skip }, async () => {
  const { page, errors } = await openPage();
  try {
    await page.selectOption('#agent-choice', 'assistant');
    await page.fill('#agent-prompt', 'please stream this answer one word at a time so that a person can read it');
    await page.click('#agent-send');
    // Streaming: part of the answer is on the page while the run is still running.
    await page.waitForFunction(() => {
      const answer = document.querySelector('#agent-transcript li.assistant')?.textContent ?? '';
      return (
        document.getElementById('agent-status')?.dataset.state === 'running' && answer.startsWith('You ') && !answer.endsWith('read it')
      );
    });
    await page.waitForFunction(() => document.getElementById('agent-status')?.dataset.state === 'finished');
    assert.equal(
      await page.locator('#agent-transcript li.assistant').last().textContent(),
      'You said: please stream this answer one word at a time so that a person can read it',
    );

    await page.fill('#agent-prompt', '/roll {"sides": 20}');
    await page.press('#agent-prompt', 'Enter');
    await page.waitForFunction(
      () =>
        document.getElementById('agent-status')?.dataset.state === 'finished' &&
        document.getElementById('agent-transcript')?.textContent?.includes('Tool roll returned'),
    );
    const tools = await page.locator('#agent-transcript li.tool').allTextContents();
    assert.ok(tools.includes('tool roll({"sides":20})'), tools.join(' | '));
    const result = tools.find((t) => t.trim().startsWith('↳'));
    assert.match(result ?? '', /↳ \d+$/);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});

test('the slow agent streams progress; cancelled with the admin REST cancel (as the dashboard does), the page shows it within 1 s', {
  skip,
}, async () => {
  const { page, errors } = await openPage();
  try {
    const taskId = await startSlowRun(page);
    await page.waitForFunction(() => document.getElementById('agent-transcript')?.textContent?.includes('step 1/10 done'), undefined, {
      timeout: 15_000,
    });
    assert.equal(await page.getAttribute('#agent-status', 'data-state'), 'running', 'still running when cancelled');
    // The admin plane lists the run in flight, as the dashboard's Tasks tab shows it.
    const tasks = (await (await fetch(`${demo.url}api/admin/tasks?limit=100`)).json()) as { id: string; state: string }[];
    assert.ok(
      tasks.some((t) => t.id === taskId),
      `the run ${taskId} is listed among ${tasks.map((t) => t.id).join(', ')}`,
    );

    const res = await fetch(`${demo.url}api/admin/tasks/${encodeURIComponent(taskId)}/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'cancelled from the dashboard' }),
    });
    const answered = Date.now();
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(((await res.json()) as { state: string }).state, 'canceled', 'the dashboard is told the run is canceled');
    const shownAfter = await cancelledAfter(page, answered);
    assert.ok(shownAfter < CANCEL_SHOWN_WITHIN_MS, `the page showed "cancelled" ${shownAfter} ms after the cancel answered`);
    console.log(`# admin REST cancel → page shows cancelled: ${shownAfter} ms after the cancel's answer`);
    assert.ok(!(await page.textContent('#agent-transcript'))?.includes('Finished'));
    // The dashboard's view of it: the stored run is cancelled.
    assert.equal(await runState(taskId.split(':')[2]!), 'cancelled');
    assert.equal(await page.isDisabled('#agent-stop'), true);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});

test('cancelled from the dashboard itself (its Control tab, clicked in Chromium): the chat page shows it within 1 s', {
  skip,
}, async () => {
  const { page, errors } = await openPage();
  const dashboard = await browser.newPage();
  try {
    const taskId = await startSlowRun(page);
    await page.waitForFunction(() => document.getElementById('agent-transcript')?.textContent?.includes('step 1/10 done'), undefined, {
      timeout: 15_000,
    });
    await dashboard.goto(`${demo.url}fw/admin/`);
    await dashboard.getByRole('tab', { name: 'Control' }).click();
    const form = dashboard.locator('#form-cancel');
    await form.locator('input[name="taskId"]').fill(taskId);
    await form.locator('button[type="submit"]').click();
    // The dashboard asks first; the operator confirms.
    await form.locator('.confirm').getByRole('button', { name: 'Cancel task', exact: true }).click();
    await form.locator('.result', { hasText: 'is now' }).waitFor({ timeout: 10_000 });
    const answered = Date.now();
    assert.match((await form.locator('.result').textContent()) ?? '', /is now canceled\./, 'the dashboard says the run is cancelled');
    const shownAfter = await cancelledAfter(page, answered);
    assert.ok(shownAfter < CANCEL_SHOWN_WITHIN_MS, `the page showed "cancelled" ${shownAfter} ms after the dashboard said so`);
    console.log(`# dashboard Control tab cancel → page shows cancelled: ${shownAfter} ms after the dashboard's answer`);
    assert.equal(await runState(taskId.split(':')[2]!), 'cancelled');
    assert.deepEqual(errors, []);
  } finally {
    await dashboard.close();
    await page.close();
  }
});

test('the same from the admin MCP tool fw_cancel_task (official MCP SDK client on /fw/admin/mcp)', { skip }, async () => {
  const { page, errors } = await openPage();
  const mcp = new Client({ name: 'chat-agents-test', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${demo.url}fw/admin/mcp`)));
  try {
    const taskId = await startSlowRun(page);
    const listed = await mcp.callTool({ name: 'fw_list_tasks', arguments: { agent: 'slow' } });
    assert.match(JSON.stringify(listed.content), new RegExp(taskId));
    const result = await mcp.callTool({ name: 'fw_cancel_task', arguments: { taskId, reason: 'cancelled over MCP' } });
    const answered = Date.now();
    assert.notEqual(result.isError, true, JSON.stringify(result.content));
    assert.match(JSON.stringify(result.content), /\\"state\\":\\"canceled\\"/, 'the MCP client is told the run is canceled');
    const shownAfter = await cancelledAfter(page, answered);
    assert.ok(shownAfter < CANCEL_SHOWN_WITHIN_MS, `the page showed "cancelled" ${shownAfter} ms after fw_cancel_task answered`);
    console.log(`# fw_cancel_task → page shows cancelled: ${shownAfter} ms after the tool's answer`);
    assert.equal(await runState(taskId.split(':')[2]!), 'cancelled');
    // A second cancel of the same run is refused: it is over.
    const again = await mcp.callTool({ name: 'fw_cancel_task', arguments: { taskId } });
    assert.equal(again.isError, true);
    assert.deepEqual(errors, []);
  } finally {
    await mcp.close();
    await page.close();
  }
});

test('Stop on the page, pressed from the keyboard, cancels the run on the server', { skip }, async () => {
  const { page, errors } = await openPage();
  try {
    const taskId = await startSlowRun(page);
    assert.equal(await page.isEnabled('#agent-stop'), true);
    await page.focus('#agent-stop');
    const pressed = Date.now();
    await page.keyboard.press('Enter');
    const shownAfter = await cancelledAfter(page, pressed);
    assert.ok(shownAfter < CANCEL_SHOWN_WITHIN_MS, `"cancelled" ${shownAfter} ms after Stop`);
    assert.equal(await runState(taskId.split(':')[2]!), 'cancelled');
    // The page is ready for the next question.
    assert.equal(await page.isEnabled('#agent-send'), true);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});

test('with fw.auth.tokens set, the agents panel asks for a token on 401 and then runs and stops with it', { skip }, async () => {
  const token = 'chat-page-token-0123456789';
  const guarded = await startDemo({
    port: 0,
    host: '127.0.0.1',
    config: { configFile: false, 'fw.auth.tokens': `alice:viewer:${token}`, 'demo.simulation': false, 'demo.slow-agent.duration': '30s' },
  });
  const { page, errors } = await openPage(guarded).catch(async (err: unknown) => {
    await guarded.close();
    throw err;
  });
  const state = (s: string) => page.waitForFunction((want) => document.getElementById('agent-status')?.dataset.state === want, s);
  try {
    assert.equal(await page.isVisible('#agent-token'), false, 'no token field until the server asks for one');
    await page.selectOption('#agent-choice', 'assistant');
    await page.fill('#agent-prompt', 'hello with a token');
    await page.click('#agent-send');
    await state('error');
    assert.equal(await page.isVisible('#agent-token'), true);
    assert.match((await page.textContent('#agent-transcript')) ?? '', /requires a credential/);
    // The prompt is kept for the next try; a wrong token is refused the same way.
    assert.equal(await page.inputValue('#agent-prompt'), 'hello with a token');
    await page.fill('#agent-token', 'not-the-token-0000000000');
    await page.click('#agent-send');
    await page.waitForFunction(
      () => (document.getElementById('agent-transcript')?.textContent?.match(/requires a credential/g) ?? []).length === 2,
    );
    await page.fill('#agent-token', token);
    await page.click('#agent-send');
    await state('finished');
    assert.equal(await page.locator('#agent-transcript li.assistant').last().textContent(), 'You said: hello with a token');
    // Stop sends the token too: the slow run is cancelled on the server.
    await page.selectOption('#agent-choice', 'slow');
    await page.fill('#agent-prompt', 'a long job');
    await page.click('#agent-send');
    await page.waitForFunction(() => document.getElementById('agent-transcript')?.textContent?.includes('Working on "a long job"'));
    await page.click('#agent-stop');
    await state('canceled');
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    await guarded.close();
  }
});
