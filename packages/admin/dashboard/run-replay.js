// Replay and compare of one run. "Replay" posts the replay without a model (the agent's code runs
// again with the recorded model outputs) and shows where it went another way (the divergence
// report); the comparison puts the recorded run and its replay side by side: the end state and
// answer, then every tool call with its arguments and result, a row marked where the two differ.

import { ApiError, request, seg } from './api.js';
import { h, replace } from './dom.js';
import { num } from './format.js';
import { contentBlock, pretty } from './run-text.js';

/**
 * @param {HTMLElement} container
 * @param {{ may: (action: string) => boolean, openRun: (runId: string) => void }} ctx
 */
export function createReplayPanel(container, ctx) {
  let runId = null;
  let run = null;
  const button = h('button', { type: 'button', class: 'primary', text: 'Replay without a model', on: { click: () => void replay() } });
  const status = h('p', { class: 'result', attrs: { role: 'status', 'aria-live': 'polite' } });
  const report = h('div', { class: 'replay-report' });
  replace(container, h('div', { class: 'toolbar' }, button, status), report);

  function sync() {
    const allowed = ctx.may('replay');
    const open = run?.status === 'open';
    button.disabled = !runId || !allowed || open;
    button.title = !allowed
      ? "Replaying needs the 'operator' role (the replay control action)"
      : open
        ? 'The run is still open: a run can be replayed once it ended'
        : "Runs the agent's code again on the recorded input, answering each model call from the tape";
  }

  async function replay() {
    const id = runId;
    if (!id) return;
    button.disabled = true;
    status.dataset.kind = 'pending';
    status.textContent = 'Replaying…';
    replace(report);
    try {
      const { data } = await request(`tape/runs/${seg(id)}/replay`, { method: 'POST', body: {} });
      if (id !== runId) return;
      status.dataset.kind = data.divergence ? 'diverged' : 'success';
      status.textContent = data.divergence
        ? `The replay diverged from the tape (${data.divergence.kind}).`
        : 'The replay did what the tape says: no divergence.';
      replace(report, renderReport(data, ctx.openRun));
    } catch (err) {
      if (id !== runId) return;
      status.dataset.kind = 'error';
      status.textContent =
        err instanceof ApiError ? `Replay refused: ${err.detail || err.title} (${err.code})` : `Replay failed: ${String(err)}`;
    } finally {
      sync();
    }
  }

  return {
    /** The run whose replay this panel offers (`null`: none). */
    setRun(next) {
      if (next?.id !== runId) {
        status.textContent = '';
        delete status.dataset.kind;
        replace(report);
      }
      runId = next?.id ?? null;
      run = next;
      sync();
    },
    sync,
  };
}

function renderReport(r, openRun) {
  const parts = [];
  if (r.divergence) {
    const d = r.divergence;
    const where = d.kind === 'tool-call' ? ` at tool call ${d.index}` : d.kind === 'model-call' ? ` at model turn ${d.step}` : '';
    parts.push(
      h(
        'div',
        { class: 'divergence', attrs: { role: 'group', 'aria-label': 'Divergence' } },
        h('h4', {}, h('span', { class: 'badge bad', text: `diverged: ${d.kind}` }), where),
        h('p', { text: d.message }),
        h(
          'div',
          { class: 'side-by-side' },
          h('div', {}, h('h5', { text: 'Recorded' }), contentBlock(d.recorded, 'Recorded value')),
          h('div', {}, h('h5', { text: 'Replayed' }), contentBlock(d.replayed, 'Replayed value')),
        ),
      ),
    );
  }
  parts.push(
    h(
      'dl',
      { class: 'facts' },
      h('dt', { text: 'Model calls answered from the tape' }),
      h('dd', { text: `${num(r.modelCalls)} of ${num(r.recordedModelCalls)} recorded (the model got none)` }),
      h('dt', { text: 'Replay run' }),
      h(
        'dd',
        {},
        r.replayRunId
          ? h('button', {
              type: 'button',
              class: 'link-button replay-open',
              text: r.replayRunId,
              on: { click: () => openRun(r.replayRunId) },
            })
          : '—',
      ),
    ),
  );
  parts.push(compareTable(r));
  return parts;
}

/** The recorded run and its replay side by side: the end, then each tool call. */
function compareTable(r) {
  const recorded = r.recordedToolCalls ?? [];
  const replayed = r.toolCalls ?? [];
  const rows = [];
  const endDiffers = r.divergence?.kind === 'end';
  rows.push(
    h(
      'tr',
      { class: endDiffers ? 'differs' : '' },
      h('th', { attrs: { scope: 'row' }, text: 'End' }),
      h('td', {}, endRecorded(r, endDiffers)),
      h(
        'td',
        {},
        h('span', { class: 'badge', text: r.state }),
        r.error ? contentBlock(r.error, 'Replay error') : contentBlock(r.text ?? '', 'Replay answer'),
      ),
    ),
  );
  const n = Math.max(recorded.length, replayed.length);
  for (let i = 0; i < n; i++) {
    const a = recorded[i];
    const b = replayed[i];
    const differs = !a || !b || a.toolName !== b.toolName || pretty(a.input) !== pretty(b.input) || a.output !== b.output || a.ok !== b.ok;
    rows.push(
      h(
        'tr',
        { class: differs ? 'differs' : '', dataset: { index: String(i) } },
        h('th', { attrs: { scope: 'row' }, text: `Tool call ${i}` }),
        h('td', {}, callCell(a)),
        h('td', {}, callCell(b)),
      ),
    );
  }
  return h(
    'table',
    { class: 'compare', attrs: { 'aria-label': 'The recorded run and its replay side by side' } },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { attrs: { scope: 'col' }, text: '' }),
        h('th', { attrs: { scope: 'col' }, text: 'Recorded' }),
        h('th', { attrs: { scope: 'col' }, text: 'Replayed' }),
      ),
    ),
    h('tbody', {}, rows),
  );
}

function endRecorded(r, endDiffers) {
  // The replay result carries the recorded end only in an `end` divergence; otherwise it matched.
  if (endDiffers) return contentBlock(r.divergence.recorded, 'Recorded end');
  return h('span', { class: 'muted', text: r.divergence ? '(not compared: the replay diverged earlier)' : 'same as replayed' });
}

function callCell(call) {
  if (!call) return h('span', { class: 'muted', text: '(none)' });
  return [
    h('code', { text: call.toolName }),
    ' ',
    call.ok ? h('span', { class: 'badge ok', text: 'ok' }) : h('span', { class: 'badge bad', text: 'failed' }),
    contentBlock(call.input, 'Arguments'),
    contentBlock(call.output, 'Result'),
  ];
}
