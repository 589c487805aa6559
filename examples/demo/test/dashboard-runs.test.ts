/**
 * The Runs tab in real Chromium against the demo as `npm start` runs it (its simulation on, so the
 * tape has the coordinator's run and the scripted chats from the first start): the list and its
 * filters, a new run arriving live, a coordination's waterfall with its dispatches, step-through
 * of a chat run's tool call, replay of a run whose tool changed (a divergence, side by side), and
 * hostile tool arguments and model output (`<img onerror>`, `</script>`, bidi overrides,
 * zero-width characters) rendered as text: the test fails if anything from them is parsed or run.
 * Light and dark. Screenshots of the tab go to docs/images/ with FW_SCREENSHOTS=1.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { Agent, AgentTool, agentModuleOf, mountAgent, type AiRequest, type AiStreamPart, type ModelProvider } from '@fw/agent';
import { waitFor } from '@fw/testing';
import { startDemo, type Demo } from '../src/main.js';
import { launchBrowser, screenshot, skipBrowser, waitForConnState } from './dashboard-helpers.js';

/** Each payload sets `window.__pwned` if it is ever parsed as HTML or executed. */
const IMG = `<img src=x onerror="window.__pwned='img'">`;
const SCRIPT = `</script><script>window.__pwned='script'</script>`;
const SVG = `"><svg onload="window.__pwned='svg'">`;
const RLO = '\u202e';
const ZWSP = '\u200b';
const EVIL = `${IMG}${SCRIPT}${SVG} ${RLO}gnp.exe${ZWSP}x`;

/** A model that asks for one tool call with hostile arguments, then answers with hostile text. */
class HostileModel implements ModelProvider {
  readonly name = 'hostile-script';
  readonly priority = 0;
  readonly capabilities = ['streaming', 'tools'];
  readonly models = ['hostile-1'];
  isAvailable() {
    return true;
  }
  async *stream(request: AiRequest): AsyncIterable<AiStreamPart> {
    if (!request.messages.some((m) => m.role === 'tool')) {
      yield { type: 'tool-call', toolCallId: 'h1', toolName: 'measure', input: { thing: `${RLO}${EVIL}`, [`${IMG}key`]: SCRIPT } };
      yield { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 21, outputTokens: 8 } };
      return;
    }
    yield { type: 'text', delta: `Answer: ${EVIL}` };
    yield { type: 'finish', reason: 'stop', usage: { inputTokens: 34, outputTokens: 6 } };
  }
}

let unit = 'm';

@Agent({ name: 'surveyor', headless: true, description: 'Measures things (the Runs tab test)' })
class Surveyor {
  @AgentTool({ description: 'Measures a thing', input: { type: 'object', properties: { thing: { type: 'string' } }, required: ['thing'] } })
  measure(input: { thing: string }) {
    return `${input.thing}: ${input.thing.length} ${unit}`;
  }
}

async function assertInert(page: Page): Promise<void> {
  const report = await page.evaluate(() => {
    const all = [...document.querySelectorAll('*')];
    return {
      pwned: (window as unknown as { __pwned?: unknown }).__pwned ?? null,
      imgs: document.querySelectorAll('img').length,
      // The page's own SVG: the charts, the execution graph and the waterfall (built by the page, not parsed).
      foreignSvgs: [...document.querySelectorAll('svg')].filter((s) => !s.closest('#graph') && !s.matches('svg.tchart, svg.waterfall'))
        .length,
      svgInWaterfall: document.querySelectorAll('svg.waterfall svg').length,
      inlineScripts: document.querySelectorAll('script:not([src])').length,
      handlerAttributes: all.flatMap((el) =>
        [...el.attributes].filter((a) => a.name.startsWith('on')).map((a) => `${el.tagName}[${a.name}]`),
      ),
      csp: (window as unknown as { __cspViolations: string[] }).__cspViolations,
    };
  });
  assert.deepEqual(report, { pwned: null, imgs: 0, foreignSvgs: 0, svgInWaterfall: 0, inlineScripts: 0, handlerAttributes: [], csp: [] });
}

describe('the Runs tab', { skip: skipBrowser, timeout: 150_000 }, () => {
  let demo: Demo;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const model = new HostileModel();

  const runAgent = async (agent: string, message: string): Promise<string> => {
    const module = agentModuleOf(demo.fw)!;
    // A slash command goes to the demo's own offline model (which calls the tool it names); anything else to the hostile one.
    const provider = message.startsWith('/') ? undefined : model;
    await module.host.run(agent, { message, ...(provider ? { provider } : {}) }, new AbortController().signal);
    const runs = await module.tape!.runs({ agent });
    return runs[0]!.id;
  };

  const openPage = async (colorScheme: 'light' | 'dark'): Promise<Page> => {
    const p = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme });
    p.setDefaultTimeout(20_000);
    p.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    p.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(`console: ${m.text()}`);
    });
    await p.addInitScript(() => {
      const w = window as unknown as { __cspViolations: string[] };
      w.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => w.__cspViolations.push(`${e.violatedDirective}: ${e.sample}`));
    });
    await p.goto(`${demo.url}fw/admin/#runs`);
    await waitForConnState(p, 'connected');
    await p.waitForFunction(() => !document.getElementById('panel-runs')?.hidden);
    return p;
  };

  const openRun = async (p: Page, runId: string): Promise<void> => {
    await p.locator(`#runs-table tr[data-key="${runId}"]`).click();
    await p.waitForFunction((id) => document.getElementById('run-id')?.textContent === id, runId);
    // The waterfall of this run, not the one shown before it (it is replaced when the tape answers).
    await p.locator(`#run-waterfall[data-run="${runId}"] svg.waterfall`).waitFor();
  };

  const rowKeys = (p: Page): Promise<string[]> =>
    p.$$eval('#runs-table tbody tr', (trs) => trs.map((tr) => (tr as HTMLElement).dataset.key ?? ''));

  before(async () => {
    // The hostile model's calls are priced (3 and 15 per million tokens): the waterfall shows their cost.
    // The slow agent works 3 s: long enough to be seen open, then ended, in the list.
    demo = await startDemo({
      port: 0,
      host: '127.0.0.1',
      simulation: true,
      config: {
        'fw.agent.prices': JSON.stringify({ 'hostile-1': { input: 3, output: 15 } }),
        'demo.slow-agent.duration': '3s',
      },
    });
    mountAgent(demo.fw, Surveyor);
    browser = await launchBrowser();
    // The demo's first start: its coordination and its scripted chats are on the tape.
    await waitFor(
      'the demo simulation on the tape',
      async () => {
        const runs = await agentModuleOf(demo.fw)!.tape!.runs({ limit: 100 });
        const chats = runs.filter((r) => r.agent === 'assistant' && r.protocol === 'chat' && r.status === 'completed');
        return chats.length >= 3 && runs.some((r) => r.agent === 'lead' && r.status === 'completed') ? true : undefined;
      },
      40_000,
    );
    page = await openPage('light');
  });

  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  it('lists the demo runs, filters them, and shows a new run live', async () => {
    await page.locator('#runs-table tbody tr').nth(5).waitFor();
    const text = await page.locator('#runs-table').innerText();
    for (const agent of ['lead', 'research', 'assistant']) assert.match(text, new RegExp(`\\b${agent}\\b`));
    await screenshot(page, 'runs-list');

    await page.fill('#runs-form input[name="agent"]', 'assistant');
    await page.selectOption('#runs-form select[name="status"]', 'completed');
    await page.click('#runs-form button[type="submit"]');
    await page.waitForFunction(() =>
      [...document.querySelectorAll('#runs-table tbody tr')].every((tr) => tr.children[1]?.textContent === 'assistant'),
    );
    const assistantOnly = await page.$$eval('#runs-table tbody tr', (trs) => trs.map((tr) => tr.children[1]?.textContent));
    assert.ok(assistantOnly.length >= 4, `the chats and the dispatch: ${assistantOnly.length}`);
    // Since a time to come: nothing; a principal nobody is: nothing.
    await page.fill('#runs-form input[name="since"]', '2099-01-01T00:00:00');
    await page.click('#runs-form button[type="submit"]');
    await page.locator('#runs-table .empty', { hasText: 'No taped runs match.' }).waitFor({ state: 'visible' });
    await page.fill('#runs-form input[name="since"]', '');
    await page.fill('#runs-form input[name="principal"]', 'nobody-at-all');
    await page.click('#runs-form button[type="submit"]');
    await page.locator('#runs-table .empty', { hasText: 'No taped runs match.' }).waitFor({ state: 'visible' });
    await page.click('#runs-form button[type="reset"]');
    await page.waitForFunction(() =>
      [...document.querySelectorAll('#runs-table tbody tr')].some((tr) => tr.children[1]?.textContent === 'lead'),
    );

    // Live: the tab only refetches on TapeRunChanged events, so a row that appears came with one.
    const before = new Set(await rowKeys(page));
    const id = await runAgent('surveyor', '/measure {"thing": "rope"}');
    assert.ok(!before.has(id));
    await page.locator(`#runs-table tr[data-key="${id}"]`).waitFor();
    assert.match(await page.locator(`#runs-table tr[data-key="${id}"]`).innerText(), /surveyor/);

    // A status change arrives live too: a run seen open, then completed, with no reload.
    const slow = agentModuleOf(demo.fw)!.host.run('slow', { message: 'a short job' }, new AbortController().signal);
    const slowId = await waitFor(
      'the slow run on the tape',
      async () => (await agentModuleOf(demo.fw)!.tape!.runs({ agent: 'slow', status: 'open' }))[0]?.id,
      10_000,
    );
    const slowRow = page.locator(`#runs-table tr[data-key="${slowId}"]`);
    await slowRow.locator('.badge', { hasText: 'open' }).waitFor();
    await slow;
    await slowRow.locator('.badge', { hasText: 'completed' }).waitFor();
  });

  it('draws a coordination as a waterfall with its dispatches, and steps through a chat run', async () => {
    const runs = await agentModuleOf(demo.fw)!.tape!.runs({ limit: 200 });
    const lead = runs.find((r) => r.agent === 'lead' && r.protocol === 'a2a')!;
    await openRun(page, lead.id);
    const kinds = await page.$$eval('#run-waterfall g.wf-row', (gs) => gs.map((g) => (g as SVGGElement).dataset.kind));
    assert.equal(kinds.filter((k) => k === 'run').length, 3, `lead and its two dispatches: ${kinds.join(' ')}`);
    assert.ok(kinds.includes('model'), 'the dispatched agents called the model');
    assert.ok(kinds.includes('handoff'), "the coordinator's handoff is marked");
    await page.locator('#run-detail').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await screenshot(page, 'runs-waterfall');

    // A child run's row opens that run.
    const research = runs.find((r) => r.agent === 'research' && r.parentRunId === lead.id)!;
    await page.locator(`#run-waterfall g.wf-row.run[data-run-id="${research.id}"]`).click();
    await page.waitForFunction((id) => document.getElementById('run-id')?.textContent === id, research.id);

    // Step-through of the chat run that rolled a die: to its tool call with the arguments and the result.
    const chats = runs.filter((r) => r.agent === 'assistant' && r.protocol === 'chat');
    let roll: string | undefined;
    for (const r of chats) {
      const steps = await agentModuleOf(demo.fw)!.tape!.steps(r.id);
      if (steps.some((s) => s.kind === 'tool-call' && s.body.toolName === 'roll')) roll = r.id;
    }
    assert.ok(roll, 'a chat run rolled the die');
    await page.fill('#runs-form input[name="agent"]', 'assistant');
    await page.click('#runs-form button[type="submit"]');
    await openRun(page, roll);
    assert.equal(await page.getAttribute('#run-steps', 'data-kind'), 'input');
    assert.match(await page.locator('#run-steps .step-position').innerText(), /^Step 1 of \d+$/);
    const next = page.locator('#run-steps button', { hasText: 'Next step' });
    while ((await page.getAttribute('#run-steps', 'data-kind')) !== 'tool-call') {
      assert.equal(await next.isDisabled(), false, 'a tool call comes before the end');
      await next.click();
    }
    const body = await page.locator('#run-steps .step-body').innerText();
    assert.match(body, /Tool roll/);
    assert.match(body, /"sides": 20/, 'the arguments, pretty-printed');
    await page.locator('#run-waterfall').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await screenshot(page, 'runs-steps');
    // Keyboard: the left arrow goes back to the model output that asked for it.
    await page.locator('#run-steps .step-body').focus();
    await page.keyboard.press('ArrowLeft');
    assert.equal(await page.getAttribute('#run-steps', 'data-kind'), 'model-response');

    // Re-run with the live model (the demo's offline one rolls the die again) and compare step by step.
    await page.click('#run-rerun button');
    await page.waitForFunction(() =>
      ['success', 'diverged'].includes(document.querySelector('#run-rerun .result')?.getAttribute('data-kind') ?? ''),
    );
    const steps = await page.$$eval('#run-rerun table.compare tbody tr', (trs) => trs.map((tr) => (tr as HTMLElement).dataset.seq));
    assert.equal(steps.length, 7, `the seven steps of the chat run, paired: ${steps.join(',')}`);
    assert.match(await page.locator('#run-rerun table.compare').innerText(), /"sides": 20/);
    await page.click('#runs-form button[type="reset"]');
  });

  it('replays a run whose tool changed and shows the divergence beside the recorded run', async () => {
    const id = (await agentModuleOf(demo.fw)!.tape!.runs({ agent: 'surveyor' })).find((r) => r.status === 'completed')!.id;
    await page.locator(`#runs-table tr[data-key="${id}"]`).waitFor();
    await openRun(page, id);
    // Unchanged code: the replay does what the tape says.
    await page.click('#run-replay button.primary');
    await page.waitForFunction(() => document.querySelector('#run-replay .result')?.getAttribute('data-kind') === 'success');
    assert.equal(await page.locator('#run-replay .divergence').count(), 0);

    unit = 'cm'; // the tool changed
    try {
      await page.click('#run-replay button.primary');
      await page.waitForFunction(() => document.querySelector('#run-replay .result')?.getAttribute('data-kind') === 'diverged');
    } finally {
      unit = 'm';
    }
    const divergence = await page.locator('#run-replay .divergence').innerText();
    assert.match(divergence, /diverged: tool-call/);
    assert.match(divergence, /tool call 0 \(measure\): another result/);
    assert.match(divergence, /Recorded/);
    assert.match(divergence, /Replayed/);
    const differing = await page.$$eval('#run-replay table.compare tr.differs', (trs) =>
      trs.map((tr) => (tr as HTMLElement).dataset.index),
    );
    assert.ok(differing.includes('0'), `the first tool call is marked: ${differing.join(',')}`);
    const compare = await page.locator('#run-replay table.compare').innerText();
    assert.match(compare, /\d+ m\b/);
    assert.match(compare, /\d+ cm\b/);
    // The replay's own run is on the tape, one click away.
    const replayRun = (await page.locator('#run-replay .replay-open').innerText()).trim();
    assert.match(replayRun, /^[0-9a-f-]{36}$/);
    await page.locator('#run-replay').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await screenshot(page, 'runs-replay');
  });

  it('renders hostile tool arguments and model output as text, in the list, the waterfall, the steps and the replay', async () => {
    const id = await runAgent('surveyor', `Measure this: ${EVIL}`);
    await page.locator(`#runs-table tr[data-key="${id}"]`).waitFor();
    await openRun(page, id);
    // Labels are cut to fit; each row's title holds the whole label.
    const label = await page.$$eval('#run-waterfall g.wf-row title', (ts) => ts.map((t) => t.textContent).join('\n'));
    assert.ok(label.includes('<img src=x'), `the tool label shows the arguments as text: ${label}`);
    assert.ok(label.includes('⟨U+202E⟩'), 'the bidi override is marked, not applied');
    assert.ok(!label.includes(RLO) && !label.includes(ZWSP), 'no invisible character reaches the waterfall');
    // Tokens and cost per model call: 21 in, 8 out at 3 and 15 per million.
    const info = await page.$$eval('#run-waterfall g.wf-row.model text.wf-info', (ts) => ts.map((t) => t.textContent));
    assert.match(info[0] ?? '', /21 in \/ 8 out · cost 0\.000183$/);

    const seen: string[] = [];
    const next = page.locator('#run-steps button', { hasText: 'Next step' });
    for (;;) {
      seen.push(await page.locator('#run-steps .step-body').innerText());
      await assertInert(page);
      if (await next.isDisabled()) break;
      await next.click();
    }
    const all = seen.join('\n');
    for (const part of [IMG, SCRIPT, SVG, `${IMG}key`])
      assert.ok(all.includes(part) || all.includes(JSON.stringify(part).slice(1, -1)), `shown literally: ${part}`);
    assert.ok(all.includes(`Answer: ${IMG}`), 'the model output, literally');
    // The invisible characters are shown as marks, not applied to the text around them.
    const marks = await page.$$eval('#run-steps .ctl', (els) => els.map((e) => e.textContent));
    assert.deepEqual([...new Set(marks)].sort(), ['U+200B', 'U+202E']);

    await page.click('#run-replay button.primary');
    await page.waitForFunction(() =>
      ['success', 'diverged'].includes(document.querySelector('#run-replay .result')?.getAttribute('data-kind') ?? ''),
    );
    assert.ok((await page.locator('#run-replay table.compare').innerText()).includes(IMG));
    await assertInert(page);
    assert.deepEqual(errors, []);
  });

  it('is readable in the dark theme too', async () => {
    const dark = await openPage('dark');
    try {
      const lead = (await agentModuleOf(demo.fw)!.tape!.runs({ agent: 'lead' }))[0]!;
      await openRun(dark, lead.id);
      await dark.locator('#run-detail').evaluate((el) => el.scrollIntoView({ block: 'start' }));
      const colours = async (p: Page) =>
        p.evaluate(() => ({
          panel: getComputedStyle(document.querySelector('#run-detail')!).backgroundColor,
          text: getComputedStyle(document.querySelector('#run-waterfall text.wf-label')!).fill,
          model: getComputedStyle(document.querySelector('#run-waterfall rect.wf-model')!).fill,
        }));
      await openRun(page, lead.id);
      const light = await colours(page);
      const night = await colours(dark);
      assert.notEqual(light.panel, night.panel);
      assert.notEqual(light.text, night.text);
      assert.notEqual(light.model, night.model);
      // Light text on the dark panel: its luminance is above the panel's.
      const lum = (c: string) => (c.match(/\d+/g) ?? []).slice(0, 3).reduce((a, v) => a + Number(v), 0);
      assert.ok(lum(night.text) > lum(night.panel), `${night.text} on ${night.panel}`);
      await screenshot(dark, 'runs-waterfall-dark');
      assert.deepEqual(errors, []);
    } finally {
      await dark.close();
    }
  });
});
