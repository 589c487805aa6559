/**
 * The Playground and Evals tabs in a real browser (Debian's Chromium through playwright-core),
 * against agents answered by a local OpenAI-compatible model server on loopback that says hostile
 * things (markup, script tags): the operator chats with a chat agent over its real chat socket
 * and with a headless one over AG-UI and sees each run's steps as they are recorded; the run is
 * the operator's. In the Evals tab the datasets and their (hostile) cases show, an eval run
 * starts (202, its progress), a second start while it runs is shown as 409, results per case and
 * the baseline's pass rate over time are drawn. Nothing the model or a case says becomes markup.
 * Screenshots go to test-results/screenshots/ (FW_UPDATE_SCREENSHOTS=1: docs/images/).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Framework } from '@fw/runtime';
import { waitFor } from '@fw/testing';
import { Agent, AgentModule } from '@fw/agent';
import { admin } from '../dist/index.js';
import { contentText, startLocalModel, type LocalModel } from './local-model.js';

const CHROMIUM = process.env.FW_CHROMIUM ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `Chromium not found at ${CHROMIUM} (apt-get install chromium)`;
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const IMAGES = process.env.FW_UPDATE_SCREENSHOTS === '1' ? `${REPO_ROOT}docs/images/` : `${REPO_ROOT}test-results/screenshots/`;

const OPERATOR = 'operator-token-0123456789';
/** What the model says around the prompt: markup that must stay text. */
const HOSTILE = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
const CASE_INPUT = '<b id="injected">Ada</b><svg onload="window.__xss=3">';

@Agent({ name: 'echo', description: 'Answers over its chat socket' })
class Echo {}

@Agent({ name: 'quiet', headless: true, description: 'Headless: AG-UI only' })
class Quiet {}

describe('dashboard: the Playground and Evals tabs', { skip, timeout: 240_000 }, () => {
  let browser: Browser;
  let model: LocalModel;
  let fw: Framework;
  let base = '';

  before(async () => {
    model = await startLocalModel((body) => `Echo ${contentText(body.messages.at(-1)?.content)} ${HOSTILE}`);
    fw = new Framework({
      configFile: false,
      env: {},
      'fw.data-dir': '',
      'fw.ai.auto': true,
      'fw.ai.base-url': model.url,
      'fw.ai.model': 'local-model',
      'fw.heartbeat.interval': 0,
      'fw.log.level': 'warn',
      'fw.auth.tokens': `otto:operator:${OPERATOR}`,
    });
    await fw.use(new AgentModule({ agents: [Echo, Quiet] }));
    await fw.use(admin());
    const { port } = await fw.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
    mkdirSync(IMAGES, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await fw?.close();
    await model?.close();
  });

  async function open(tab: string, theme: 'light' | 'dark' = 'light'): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, colorScheme: theme });
    page.setDefaultTimeout(20_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('dialog', (d) => {
      errors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    await page.goto(`${base}/fw/admin/#${tab}`);
    await page.locator('#signin').waitFor();
    await page.fill('#signin input[name="token"]', OPERATOR);
    await page.click('#signin button[type="submit"]');
    await page.locator('#signin').waitFor({ state: 'hidden' });
    await page.waitForFunction(() => document.getElementById('conn')?.dataset.state === 'connected');
    return { page, errors };
  }

  const api = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const res = await fetch(`${base}/api/admin${path}`, {
      ...init,
      headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
    });
    assert.ok(res.ok, `${path}: ${res.status}`);
    return (await res.json()) as T;
  };

  /** No markup from the model or a case made it into the page. */
  async function assertInert(page: Page): Promise<void> {
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined, 'no injected script ran');
    assert.equal(await page.locator('main img, main script, #injected, main svg[onload]').count(), 0, 'no injected element');
  }

  it('Playground: chat over the chat socket and over AG-UI, the run live from the tape, owned by the operator; hostile output stays text', async () => {
    const { page, errors } = await open('playground');
    try {
      await page.locator('#playground-form select[name="agent"] option[value="echo"]').waitFor({ state: 'attached' });
      assert.deepEqual(await page.locator('#playground-form select[name="agent"] option').allInnerTexts(), [
        'echo (chat)',
        'quiet (AG-UI)',
      ]);
      await page.selectOption('#playground-form select[name="agent"]', 'echo');
      await page.fill('#playground-form textarea[name="message"]', CASE_INPUT);
      await page.click('#playground-form button[type="submit"]');

      const answer = `Echo ${CASE_INPUT} ${HOSTILE}`;
      await page.locator('.pg-msg.pg-agent .pg-text', { hasText: 'Echo' }).waitFor();
      await page.waitForFunction(
        (text) => [...document.querySelectorAll('.pg-agent .pg-text')].some((e) => e.textContent === text),
        answer,
      );
      assert.equal(await page.locator('.pg-msg.pg-user .pg-text').first().textContent(), CASE_INPUT);
      // The run, step by step from the tape, until it ended.
      await page.waitForFunction(() => document.getElementById('playground-run')?.dataset.status === 'completed');
      await page.locator('#playground-steps .pg-step[data-kind="end"]').waitFor();
      assert.deepEqual(
        await page.locator('#playground-steps .pg-step').evaluateAll((li) => li.map((e) => (e as HTMLElement).dataset.kind)),
        ['input', 'model-request', 'model-response', 'end'],
      );
      assert.equal(await page.locator('#playground-steps .pg-step[data-kind="input"] .pg-step-text').textContent(), CASE_INPUT);
      const runId = await page.locator('#playground-run').getAttribute('data-run-id');
      const run = (await api<{ id: string; principal: string; protocol: string; sessionId: string }[]>('/tape/runs?agent=echo')).find(
        (r) => r.id === runId,
      );
      assert.equal(run?.principal, 'otto', "the operator's principal owns the run");
      assert.equal(run?.protocol, 'chat');
      await assertInert(page);
      await page.screenshot({ path: `${IMAGES}dashboard-playground.png`, fullPage: true });

      // A headless agent, over AG-UI.
      await page.selectOption('#playground-form select[name="agent"]', 'quiet');
      await page.fill('#playground-form textarea[name="message"]', 'hello quiet');
      await page.click('#playground-form button[type="submit"]');
      await page.waitForFunction(
        (text) => [...document.querySelectorAll('.pg-agent .pg-text')].some((e) => e.textContent === text),
        `Echo hello quiet ${HOSTILE}`,
      );
      await page.waitForFunction(() => document.getElementById('playground-run')?.dataset.status === 'completed');
      const aguiRunId = await page.locator('#playground-run').getAttribute('data-run-id');
      const aguiRun = (await api<{ id: string; principal: string; protocol: string }[]>('/tape/runs?agent=quiet')).find(
        (r) => r.id === aguiRunId,
      );
      assert.deepEqual([aguiRun?.principal, aguiRun?.protocol], ['otto', 'agui']);
      await assertInert(page);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  it('Evals: datasets and hostile cases, a 202 eval run with progress, 409 while it runs, results per case, the baseline over time', async () => {
    // A dataset of the echo agent's runs: one case expects what it says, one does not.
    const runs = await api<{ id: string }[]>('/tape/runs?agent=echo');
    assert.ok(runs.length >= 1);
    await api('/evals/dataset/promote', { method: 'POST', body: JSON.stringify({ runId: runs[0]!.id, dataset: 'echoes' }) });
    await api('/evals/dataset/promote', {
      method: 'POST',
      body: JSON.stringify({ runId: runs[0]!.id, dataset: 'echoes', expected: `<i id="injected">never</i>` }),
    });
    const { page, errors } = await open('evals');
    try {
      await page.locator('#evals-datasets tr', { hasText: 'echoes' }).waitFor();
      await page.locator('#evals-cases td', { hasText: CASE_INPUT }).first().waitFor();

      // Held at the model: the first start is 202 and in progress, the second is refused 409.
      let release!: () => void;
      model.hold = new Promise<void>((r) => (release = r));
      await page.fill('#evals-form input[name="dataset"]', 'echoes');
      await page.fill('#evals-form input[name="agent"]', 'echo');
      await page.selectOption('#evals-form select[name="scorer"]', 'exact');
      await page.click('#evals-form button[type="submit"]');
      await page.locator('#evals-status', { hasText: 'started (202)' }).waitFor();
      await page.locator('#evals-runs .badge', { hasText: 'running' }).waitFor();
      await page.click('#evals-form button[type="submit"]');
      await page.locator('#evals-status', { hasText: '409 eval_running' }).waitFor();
      release();
      model.hold = undefined;

      // Live progress to the end, then the results of each case.
      await page.locator('#evals-runs .badge', { hasText: 'completed' }).waitFor();
      await page.locator('#evals-results-title', { hasText: '2 of 2 done, 1 passed' }).waitFor();
      assert.deepEqual((await page.locator('#evals-results .badge').allInnerTexts()).sort(), ['fail', 'pass']);
      await page.locator('#evals-results td', { hasText: HOSTILE }).first().waitFor();
      await page.locator('#evals-results td', { hasText: CASE_INPUT }).first().waitFor(); // each result beside its case's input

      // A second run: the baseline's chart has two points, a line.
      await page.click('#evals-form button[type="submit"]');
      await waitFor('two completed eval runs', async () => {
        const list = await api<{ status: string }[]>('/evals/runs?dataset=echoes');
        return list.length === 2 && list.every((r) => r.status === 'completed');
      });
      await page.locator('#evals-baselines td', { hasText: 'echoes' }).waitFor();
      await page.locator('#evals-chart svg polyline').waitFor({ state: 'attached', timeout: 20_000 });
      assert.match((await page.locator('#evals-chart .chart-summary').textContent()) ?? '', /50 % in the newest of 2 eval runs/);
      await assertInert(page);
      await page.screenshot({ path: `${IMAGES}dashboard-evals.png`, fullPage: true });

      // The judge's own fields show for it and go with the start: this model answers no JSON
      // verdict, so each case fails with what was wrong, as text.
      assert.equal(await page.isVisible('#evals-judge-fields'), false);
      await page.selectOption('#evals-form select[name="scorer"]', 'judge');
      assert.equal(await page.isVisible('#evals-judge-fields'), true);
      await page.fill('#evals-form textarea[name="rubric"]', 'Echoes the input <exactly>.');
      await page.fill('#evals-form input[name="threshold"]', '0.5');
      const before = model.requests.length;
      await page.click('#evals-form button[type="submit"]');
      await page.locator('#evals-status', { hasText: 'started (202)' }).waitFor();
      await page.locator('#evals-results-title', { hasText: '(judge): completed, 2 of 2 done, 0 passed' }).waitFor();
      await page.locator('#evals-results td', { hasText: 'judge: the verdict is not JSON' }).first().waitFor();
      const judged = model.requests
        .slice(before)
        .filter((r) => contentText(r.body.messages.at(-1)?.content).startsWith('Rubric:\nEchoes the input <exactly>.'));
      assert.equal(judged.length, 2, 'the rubric from the form reached the judge');
      await assertInert(page);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
    // Both themes: the dark one renders the same tab without errors.
    const dark = await open('evals', 'dark');
    try {
      // The newest baseline (the judge's, one run) is charted first: pick the exact one's, two runs.
      await dark.page.locator('#evals-baselines tr', { hasText: 'exact' }).click();
      await dark.page.locator('#evals-chart svg polyline').waitFor({ state: 'attached', timeout: 20_000 });
      await assertInert(dark.page);
      await dark.page.locator('#evals-results td', { hasText: CASE_INPUT }).first().waitFor();
      await dark.page.evaluate(() => window.scrollTo(0, 0)); // the sticky header at the top of the full-page shot
      await dark.page.screenshot({ path: `${IMAGES}dashboard-evals-dark.png`, fullPage: true });
      assert.deepEqual(dark.errors, []);
    } finally {
      await dark.page.close();
    }
  });
});
