/**
 * The admin dashboard in a real browser (Debian's Chromium) against the running demo: live
 * counters and tables, broadcast / disconnect / cancel from the Control tab with their
 * confirmation, the event feed and the audit log, keyboard navigation, and live data on every
 * tab.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { Role, TaskState, type Message } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { HttpAgent, type BaseEvent } from '@ag-ui/client';
import { Agent, Coordinator, OnPrompt, agentModuleOf, mountAgent, type AgentContext, type CoordinatorContext } from '@fw/agent';
import {
  closeSession,
  connectClient,
  counter,
  openSession,
  selectTab,
  skipBrowser,
  waitForCounter,
  type Target,
  type TestClient,
} from './dashboard-helpers.js';
import { waitFor } from '@fw/testing';

const ROOM = '/fw/dash-e2e/room1';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A headless agent that works (streams a token every 50 ms) until it is cancelled. */
@Agent({ name: 'dash-slow', description: 'Works until cancelled', headless: true })
class SlowAgent {
  @OnPrompt()
  async *prompt(_message: string, ctx: AgentContext): AsyncIterable<string> {
    for (let i = 0; !ctx.signal.aborted; i++) {
      yield `t${i} `;
      await sleep(50);
    }
  }
}

@Agent({ name: 'dash-researcher', description: 'Finds facts', headless: true })
class Researcher {
  @OnPrompt()
  async prompt(message: string): Promise<string> {
    await sleep(30);
    return `facts on ${message}`;
  }
}

@Agent({ name: 'dash-writer', description: 'Fails on purpose', headless: true })
class Writer {
  @OnPrompt()
  prompt(): string {
    throw new Error('the writer is on strike');
  }
}

/** A coordinator whose run leaves every journal kind behind: dispatch, completion, failure, handoff, evaluation. */
@Coordinator({ name: 'dash-lead', fleet: ['dash-researcher', 'dash-writer'], headless: true })
class Lead {
  @OnPrompt()
  async prompt(message: string, ctx: CoordinatorContext): Promise<string> {
    await ctx.dispatch('dash-researcher', message, { skill: 'search' });
    await ctx.dispatch('dash-writer', message, { skill: 'draft' }).catch(() => undefined);
    ctx.handoff('dash-writer', 'dash-researcher', 'writer failed');
    await ctx.dispatch('dash-researcher', `${message} again`, { skill: 'draft' });
    ctx.evaluate('dash-researcher', { evaluator: 'dash-lead', score: 0.9, passed: true });
    return ctx.coordinationId;
  }
}

function userMessage(text: string): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  };
}

describe('dashboard in the browser', { skip: skipBrowser, timeout: 60_000 }, () => {
  let target: Target;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const clients: TestClient[] = [];

  before(async () => {
    ({ target, browser, page, errors } = await openSession((t) => {
      t.fw.handle('/dash-e2e/{room}', {});
      for (const a of [SlowAgent, Researcher, Writer, Lead]) mountAgent(t.fw, a);
    }));
  });

  after(() => closeSession({ clients, browser, target }));

  it('counts clients as they connect and lists them in the resource and broadcaster tables', async () => {
    // The counter starts at the server's value, without the page's own event stream (internal).
    const before = target.fw.resources.size - 1;
    await waitForCounter(page, 'connections', before);
    for (let i = 0; i < 3; i++) clients.push(await connectClient(target.url, ROOM));
    await waitForCounter(page, 'connections', before + 3);
    for (const c of clients) {
      await page.locator(`#res-table tr[data-key="${c.uuid}"]`).waitFor();
      await page.locator('#feed li[data-type="ResourceConnected"]', { hasText: c.uuid }).waitFor();
    }
    const row = page.locator(`#bc-table tr[data-key="${ROOM}"]`);
    await row.waitFor();
    await page.waitForFunction((id) => document.querySelector(`#bc-table tr[data-key="${id}"] td:nth-child(2)`)?.textContent === '3', ROOM);
  });

  it('sends a broadcast from the Control tab that reaches the clients, the feed and the audit log', async () => {
    await selectTab(page, 'control');
    const text = `hello from the dashboard ${Date.now()}`;
    await page.fill('#form-broadcast input[name="broadcasterId"]', ROOM);
    await page.fill('#form-broadcast textarea[name="message"]', text);
    await page.click('#form-broadcast button[type="submit"]');
    const result = page.locator('#form-broadcast .result');
    await page.waitForFunction(() => document.querySelector('#form-broadcast .result')?.getAttribute('data-kind') === 'success');
    assert.match(await result.innerText(), /delivered to 3 resources/);
    for (const c of clients) await waitFor('the broadcast at the client', () => c.messages.includes(text), 5000);

    const audit = page.locator('#audit-table tbody tr', { hasText: ROOM }).filter({ hasText: 'broadcast' });
    await audit.first().waitFor();
    assert.match(await audit.first().innerText(), /allowed/);

    await selectTab(page, 'dashboard');
    await page.locator('#feed li[data-type="MessageBroadcast"]', { hasText: ROOM }).first().waitFor();
    await page.locator('#feed li[data-type="ControlActionExecuted"]', { hasText: ROOM }).first().waitFor();
  });

  it('answers a broadcast to an unknown broadcaster with "not found"', async () => {
    await selectTab(page, 'control');
    await page.fill('#form-broadcast input[name="broadcasterId"]', '/fw/no/such/room');
    await page.fill('#form-broadcast textarea[name="message"]', 'anyone?');
    await page.click('#form-broadcast button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('#form-broadcast .result')?.getAttribute('data-kind') === 'not-found');
    assert.match(await page.locator('#form-broadcast .result').innerText(), /^Not found/);
  });

  it('disconnects a client by UUID with a reason, only after confirmation', async () => {
    const victim = clients[0]!;
    const connections = await counter(page, 'connections');
    await selectTab(page, 'control');
    const form = page.locator('#form-disconnect');
    await form.locator('input[name="uuid"]').fill(victim.uuid);
    await form.locator('input[name="reason"]').fill('maintenance window');

    // First time: the operator changes their mind.
    await form.locator('button[type="submit"]').click();
    await form.locator('.confirm').waitFor();
    assert.match(await form.locator('.confirm').innerText(), /maintenance window/);
    await form.locator('.confirm button', { hasText: 'Cancel' }).click();
    await page.waitForFunction(() => document.querySelector('#form-disconnect .confirm')?.hasAttribute('hidden'));
    assert.ok(target.fw.resources.get(victim.uuid), 'nothing happens without confirmation');
    assert.match(await form.locator('.result').innerText(), /Nothing was done/);

    await form.locator('button[type="submit"]').click();
    await form.locator('.confirm button', { hasText: 'Disconnect' }).click();
    await page.waitForFunction(() => document.querySelector('#form-disconnect .result')?.getAttribute('data-kind') === 'success');
    assert.equal(await victim.closed, 'maintenance window');
    clients.shift();

    await waitForCounter(page, 'connections', connections - 1);
    const audit = page.locator('#audit-table tbody tr', { hasText: victim.uuid });
    await audit.first().waitFor();
    assert.match(await audit.first().innerText(), /disconnect/);
    await selectTab(page, 'dashboard');
    const line = page.locator('#feed li[data-type="ResourceDisconnected"]', { hasText: victim.uuid });
    await line.first().waitFor();
    assert.match(await line.first().innerText(), /maintenance window/);
  });

  it('answers a disconnect of an unknown UUID with "not found"', async () => {
    await selectTab(page, 'control');
    const form = page.locator('#form-disconnect');
    await form.locator('input[name="uuid"]').fill('00000000-0000-4000-8000-000000000000');
    await form.locator('input[name="reason"]').fill('');
    await form.locator('button[type="submit"]').click();
    await form.locator('.confirm button', { hasText: 'Disconnect' }).click();
    await page.waitForFunction(() => document.querySelector('#form-disconnect .result')?.getAttribute('data-kind') === 'not-found');
  });

  it('answers a cancel of an unknown task with "not found"', async () => {
    await selectTab(page, 'control');
    const form = page.locator('#form-cancel');
    await form.locator('input[name="taskId"]').fill('no-such-task');
    // Escape at the confirmation does nothing.
    await form.locator('button[type="submit"]').click();
    await form.locator('.confirm button', { hasText: 'Cancel task' }).waitFor();
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.querySelector('#form-cancel .confirm')?.hasAttribute('hidden'));
    assert.match(await form.locator('.result').innerText(), /Nothing was done/);
    await form.locator('button[type="submit"]').click();
    await form.locator('.confirm button', { hasText: 'Cancel task' }).click();
    await page.waitForFunction(() => document.querySelector('#form-cancel .result')?.getAttribute('data-kind') === 'not-found');
  });

  it('cancels an in-flight A2A task from the page, after confirmation', async () => {
    const a2a = await new ClientFactory().createFromUrl(`${target.url}/fw/agent/dash-slow/a2a`);
    let taskId = '';
    let finalState: TaskState | undefined;
    const consumed = (async () => {
      for await (const ev of a2a.sendMessageStream({
        tenant: '',
        message: userMessage('work'),
        configuration: undefined,
        metadata: undefined,
      })) {
        if (ev.payload?.$case === 'task') taskId = ev.payload.value.id;
        if (ev.payload?.$case === 'statusUpdate') finalState = ev.payload.value.status?.state;
      }
    })();
    await waitFor('the task to start', () => taskId !== '', 10_000);

    await selectTab(page, 'control');
    const row = page.locator(`#tasks-table tr[data-key="${taskId}"]`);
    await row.filter({ hasText: 'working' }).waitFor();
    await row.locator('button', { hasText: 'Cancel…' }).click();
    const form = page.locator('#form-cancel');
    await form.locator('.confirm').waitFor();
    assert.equal(await form.locator('input[name="taskId"]').inputValue(), taskId);
    await form.locator('.confirm button', { hasText: 'Cancel task' }).click();
    await page.waitForFunction(() => document.querySelector('#form-cancel .result')?.getAttribute('data-kind') === 'success');
    assert.match(await form.locator('.result').innerText(), /canceled/);
    await consumed;
    assert.equal(finalState, TaskState.TASK_STATE_CANCELED, 'the A2A client sees the task canceled');
    await row.filter({ hasText: 'canceled' }).waitFor();
    await page.locator('#audit-table tbody tr', { hasText: taskId }).first().waitFor();

    // A task that already completed cannot be cancelled: refused, plainly.
    const quick = await new ClientFactory().createFromUrl(`${target.url}/fw/agent/dash-researcher/a2a`);
    const done = await quick.sendMessage({ tenant: '', message: userMessage('quick'), configuration: undefined, metadata: undefined });
    assert.ok('status' in done && done.status?.state === TaskState.TASK_STATE_COMPLETED);
    await form.locator('input[name="taskId"]').fill(done.id);
    await form.locator('button[type="submit"]').click();
    await form.locator('.confirm button', { hasText: 'Cancel task' }).click();
    await page.waitForFunction(() => document.querySelector('#form-cancel .result')?.getAttribute('data-kind') === 'refused');
    assert.match(await form.locator('.result').innerText(), /^Refused: .*can no longer be cancelled/);
  });

  it('lists an AG-UI run with its protocol and cancels it from the page; the AG-UI client sees it end cancelled', async () => {
    const runId = `dash-run-${randomUUID()}`;
    const agent = new HttpAgent({ url: `${target.url}/fw/agent/dash-slow/agui` });
    agent.messages = [{ id: 'u1', role: 'user', content: 'work' }];
    const events: BaseEvent[] = [];
    const run = agent.runAgent({ runId }, { onEvent: ({ event }) => void events.push(event) });

    await selectTab(page, 'control');
    const id = `agui:dash-slow:${runId}`;
    const row = page.locator(`#tasks-table tr[data-key="${id}"]`);
    await row.filter({ hasText: 'working' }).waitFor();
    await row.locator('td', { hasText: /^agui$/ }).waitFor(); // the Protocol column
    await row.locator('button', { hasText: 'Cancel…' }).click();
    const form = page.locator('#form-cancel');
    await form.locator('.confirm').waitFor();
    assert.equal(await form.locator('input[name="taskId"]').inputValue(), id);
    await form.locator('.confirm button', { hasText: 'Cancel task' }).click();
    await page.waitForFunction(() => document.querySelector('#form-cancel .result')?.getAttribute('data-kind') === 'success');
    await run;
    const last = events.at(-1) as BaseEvent & { outcome?: { type: string } };
    assert.equal(last.type, 'RUN_FINISHED');
    assert.deepEqual(last.outcome, { type: 'cancelled' });
  });

  it('draws the execution graph of a coordination in the Journal tab', async () => {
    const module = agentModuleOf(target.fw);
    assert.ok(module);
    const coordinationId = await module.host.run('dash-lead', { message: 'tides' }, new AbortController().signal);
    await selectTab(page, 'journal');
    await page.fill('#journal-form input[name="coordinationId"]', coordinationId);
    await page.click('#journal-form button[type="submit"]');
    await page.locator('#journal-table tbody tr', { hasText: 'failure' }).waitFor();
    assert.equal(
      await page.locator('#journal-table tbody tr').count(),
      8,
      'three dispatches, two completions, a failure, a handoff, an evaluation',
    );
    const graph = page.locator('#graph svg[role="img"]').first();
    await graph.waitFor();
    const text = (await graph.textContent()) ?? '';
    for (const name of ['dash-lead', 'dash-researcher', 'dash-writer']) assert.ok(text.includes(name), `node ${name}`);
    assert.match(text, /dispatch ×2/);
    assert.match(text, /failed/);
    assert.match(text, /handoff/);
    assert.equal((await page.locator('#graph .edge.failure path').count()) > 0, true, 'the failed dispatch is drawn as a failure');
    const timeline = (await page.locator('#graph svg.timeline').textContent()) ?? '';
    assert.match(timeline, /\d+ ms/);
    assert.match((await page.locator('#journal-log').textContent()) ?? '', /dash-writer/);
    await page.fill('#journal-form input[name="coordinationId"]', '');
  });

  it('filters the feed by type, pauses and resumes it, and keeps it bounded', async () => {
    await selectTab(page, 'dashboard');
    const emitSessions = (n: number, tag: string) => {
      for (let i = 0; i < n; i++) target.fw.events.emit('AgentSessionStarted', { agentName: 'feed-probe', sessionId: `${tag}-${i}` });
    };
    // Only one type shown.
    await page.click('#feed-filter button.all');
    for (const type of [
      'ResourceConnected',
      'ResourceDisconnected',
      'BroadcasterCreated',
      'BroadcasterDestroyed',
      'MessageBroadcast',
      'AgentSessionEnded',
      'TaskStateChanged',
      'AgentDispatched',
      'AgentCompleted',
      'TapeRunChanged',
      'ControlActionExecuted',
    ]) {
      await page.click(`#feed-filter button[data-type="${type}"]`);
    }
    assert.equal(await page.getAttribute('#feed-filter button[data-type="AgentSessionStarted"]', 'aria-pressed'), 'true');
    emitSessions(3, 'filtered');
    target.fw.events.emit('BroadcasterCreated', { id: '/fw/hidden-by-filter' });
    await page.locator('#feed li', { hasText: 'filtered-2' }).waitFor();
    assert.deepEqual(
      [...new Set(await page.locator('#feed li').evaluateAll((lis) => lis.map((li) => (li as HTMLElement).dataset.type)))],
      ['AgentSessionStarted'],
    );

    // Paused: nothing new is shown, the waiting count grows; resumed: it all appears.
    await page.click('#feed-pause');
    emitSessions(5, 'paused');
    await page.locator('#feed-status', { hasText: '5 new events waiting' }).waitFor();
    assert.equal(await page.locator('#feed li', { hasText: 'paused-' }).count(), 0);
    await page.click('#feed-pause');
    await page.locator('#feed li', { hasText: 'paused-4' }).waitFor();

    // Bounded: a burst larger than the limit leaves at most FEED_LIMIT lines.
    emitSessions(800, 'burst');
    await page.locator('#feed li', { hasText: 'burst-799' }).waitFor();
    assert.equal(await page.locator('#feed li').count(), 500);
    // An event hidden by the filter is kept, and shows once all types are shown again.
    target.fw.events.emit('BroadcasterCreated', { id: '/fw/hidden-then-shown' });
    emitSessions(1, 'marker');
    await page.locator('#feed li', { hasText: 'marker-0' }).waitFor();
    assert.equal(await page.locator('#feed li', { hasText: '/fw/hidden-then-shown' }).count(), 0);
    await page.click('#feed-filter button.all');
    await page.locator('#feed li', { hasText: '/fw/hidden-then-shown' }).waitFor();
  });

  it('fits laptop and wide screens without horizontal scrolling', async () => {
    for (const width of [1280, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      for (const tab of [
        'dashboard',
        'agents',
        'journal',
        'runs',
        'fleet',
        'rooms',
        'governance',
        'control',
        'playground',
        'evals',
      ] as const) {
        await selectTab(page, tab);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(overflow <= 0, `${tab} at ${width}px overflows by ${overflow}px`);
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('moves between tabs with the keyboard (ARIA tabs) and labels every form control', async () => {
    await selectTab(page, 'dashboard');
    await page.focus('#tab-dashboard');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getAttribute('#tab-agents', 'aria-selected'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'tab-agents');
    assert.equal(await page.isHidden('#panel-dashboard'), true);
    await page.keyboard.press('End');
    assert.equal(await page.getAttribute('#tab-evals', 'aria-selected'), 'true');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getAttribute('#tab-dashboard', 'aria-selected'), 'true', 'wraps around');
    await page.keyboard.press('Home');
    assert.equal(
      await page.evaluate(() => [...document.querySelectorAll('[role="tab"]')].filter((t) => (t as HTMLElement).tabIndex === 0).length),
      1,
      'one tab stop',
    );
    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll('input, select, textarea')]
        .filter((el) => (el as HTMLInputElement).labels?.length === 0 && !el.getAttribute('aria-label'))
        .map((el) => el.outerHTML),
    );
    assert.deepEqual(unlabelled, []);
  });

  it('shows live data on every tab', async () => {
    await selectTab(page, 'dashboard');
    // Each chart names what it shows in words (its SVG's accessible name) once a sample arrived.
    for (const id of ['chart-conn', 'chart-rate', 'chart-runs', 'chart-errors', 'chart-gaps']) {
      await page.waitForFunction((i) => /last \d+ min: /.test(document.querySelector(`#${i} .chart-summary`)?.textContent ?? ''), id, {
        timeout: 20_000,
      });
      assert.equal(await page.locator(`#${id} svg`).getAttribute('role'), 'img');
    }

    await selectTab(page, 'agents');
    const agentView = target.fw.services.get('agent');
    const agents = agentView?.agents() ?? [];
    for (const a of agents) await page.locator(`#agents-table tr[data-key="${a.name}"]`).waitFor();
    const runtimes = agentView?.runtimes() ?? [];
    for (const r of runtimes) await page.locator(`#runtimes-table tr[data-key="${r.name}"]`).waitFor();
    const active = runtimes.find((r) => r.active);
    if (active) assert.match(await page.locator(`#runtimes-table tr[data-key="${active.name}"]`).innerText(), /active/);
    const tools = target.fw.services.get('mcp')?.tools().length ?? 0;
    await page.locator('#mcp-views button', { hasText: `Tools ${tools}` }).waitFor();

    await selectTab(page, 'journal');
    await page
      .locator('#journal-count')
      .filter({ hasText: /events/ })
      .waitFor();
    await page.locator('#graph svg').first().waitFor();

    await selectTab(page, 'control');
    await page.locator('#audit-table tbody tr').first().waitFor();
    assert.deepEqual(errors, []);
  });
});
