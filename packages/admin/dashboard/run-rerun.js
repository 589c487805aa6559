// Live re-run and compare of one run: its recorded input sent to its agent again with the live
// model (POST tape/runs/{id}/rerun, the operator's `rerun` action, bounded per caller), then the
// recorded run and the new one side by side, step by step (GET tape/runs/{id}/compare?with=).
// Offered only where the server has the action (the session lists it) and the principal may.

import { ApiError, get, request, seg } from './api.js';
import { h, replace } from './dom.js';
import { num } from './format.js';
import { contentBlock } from './run-text.js';

/** How often the comparison is tried while the re-run may still be recording (an event usually comes first). */
const POLL_MS = 1500;
/** Longest the page waits for a re-run to end before it says so (the run goes on; open it from the list). */
const WAIT_MS = 120_000;

/**
 * @param {HTMLElement} container
 * @param {{ may: (action: string) => boolean, openRun: (runId: string) => void }} ctx
 */
export function createRerunPanel(container, ctx) {
  let run = null;
  /** The re-run being waited for: `{ original, id, timer, deadline }`. */
  let pending = null;
  const button = h('button', { type: 'button', text: 'Re-run with the live model', on: { click: () => void rerun() } });
  const status = h('p', { class: 'result', attrs: { role: 'status', 'aria-live': 'polite' } });
  const report = h('div', { class: 'rerun-report' });
  replace(container, h('div', { class: 'toolbar' }, button, status), report);

  function sync() {
    const allowed = ctx.may('rerun');
    container.hidden = !allowed;
    button.disabled = !run || !allowed || run.status === 'open' || pending !== null;
    button.title =
      run?.status === 'open'
        ? 'The run is still open: it can be re-run once it ended'
        : 'Sends the recorded input to the agent again, with the live model, and compares the new run with this one';
  }

  async function rerun() {
    if (!run) return;
    const original = run.id;
    stop();
    replace(report);
    status.dataset.kind = 'pending';
    status.textContent = 'Starting a re-run…';
    button.disabled = true;
    try {
      const { data } = await request(`tape/runs/${seg(original)}/rerun`, { method: 'POST', body: {} });
      if (run?.id !== original) return;
      pending = { original, id: data.runId, timer: undefined, deadline: Date.now() + WAIT_MS };
      status.textContent = `Re-running as run ${data.runId}…`;
      poll();
    } catch (err) {
      status.dataset.kind = 'error';
      status.textContent =
        err instanceof ApiError ? `Re-run refused: ${err.detail || err.title} (${err.code})` : `Re-run failed: ${String(err)}`;
    } finally {
      sync();
    }
  }

  /** Tries the comparison; a re-run still recording (409 run_open) is tried again shortly. */
  async function tryCompare() {
    const p = pending;
    if (!p) return;
    try {
      const { data } = await get(`tape/runs/${seg(p.original)}/compare`, { with: p.id });
      if (pending !== p) return;
      stop();
      status.dataset.kind = data.same ? 'success' : 'diverged';
      status.textContent = data.same
        ? 'The live model did the same as the tape, step by step.'
        : `The re-run differs from the tape in ${num(data.summary.differingSteps)} step${data.summary.differingSteps === 1 ? '' : 's'}${data.summary.sameAnswer ? ', with the same answer' : ', and its answer differs'}.`;
      replace(report, renderComparison(data, ctx.openRun));
    } catch (err) {
      if (pending !== p) return;
      if (err instanceof ApiError && err.code === 'run_open' && Date.now() < p.deadline) {
        p.timer = setTimeout(tryCompare, POLL_MS);
        return;
      }
      stop();
      status.dataset.kind = 'error';
      status.textContent =
        err instanceof ApiError && err.code === 'run_open'
          ? `The re-run ${p.id} is still running; open it from the list when it ends.`
          : `Could not compare: ${err instanceof ApiError ? err.detail || err.title : String(err)}`;
    }
    sync();
  }

  function poll() {
    if (!pending) return;
    clearTimeout(pending.timer);
    void tryCompare();
  }

  function stop() {
    if (pending) clearTimeout(pending.timer);
    pending = null;
  }

  return {
    setRun(next) {
      if (next?.id !== run?.id) {
        stop();
        status.textContent = '';
        delete status.dataset.kind;
        replace(report);
      }
      run = next;
      sync();
    },
    sync,
    /** A taped run ended: when it is the re-run waited for, compare now. */
    runEnded(runId) {
      if (pending && pending.id === runId) poll();
    },
  };
}

function renderComparison(c, openRun) {
  const { left, right } = c.summary;
  const side = (label, s) =>
    h(
      'div',
      {},
      h('h5', {}, label, ' ', h('button', { type: 'button', class: 'link-button', text: s.runId, on: { click: () => openRun(s.runId) } })),
      h('p', { class: 'muted', text: `${s.status}, ${num(s.steps)} steps, ${num(s.inputTokens)} in / ${num(s.outputTokens)} out` }),
      s.error ? contentBlock(s.error, `${label} error`) : contentBlock(s.text ?? '', `${label} answer`),
    );
  const rows = c.steps.map((s) =>
    h(
      'tr',
      { class: s.differs ? 'differs' : '', dataset: { seq: String(s.seq) } },
      h('th', { attrs: { scope: 'row' } }, `#${s.seq} `, h('span', { class: 'muted', text: s.kind })),
      h('td', {}, s.left === null ? h('span', { class: 'muted', text: '(none)' }) : contentBlock(s.left, 'Recorded step')),
      h('td', {}, s.right === null ? h('span', { class: 'muted', text: '(none)' }) : contentBlock(s.right, 'Re-run step')),
    ),
  );
  return [
    h('div', { class: 'side-by-side' }, side('Recorded', left), side('Re-run', right)),
    h(
      'table',
      { class: 'compare rerun-compare', attrs: { 'aria-label': 'The recorded run and its live re-run, step by step' } },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { attrs: { scope: 'col' }, text: 'Step' }),
          h('th', { attrs: { scope: 'col' }, text: 'Recorded' }),
          h('th', { attrs: { scope: 'col' }, text: 'Re-run' }),
        ),
      ),
      h('tbody', {}, rows),
    ),
  ];
}
