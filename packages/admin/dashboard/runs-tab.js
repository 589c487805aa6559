// The Runs tab: the run tape (docs/runs.md). The list of taped runs with filters (agent, status,
// principal, since), live (`TapeRunChanged` events bring new runs and status changes), paged; one
// run as a waterfall with the runs it started, a step-through of its steps, and replay with the
// comparison of the recorded run and its replay. A tape is content: without the content role the
// API refuses it, and the tab shows the tape's outline (structure and timings) and says why.

import { ApiError, get, seg } from './api.js';
import { createTable } from './data-table.js';
import { $, h, replace, setText } from './dom.js';
import { ago, dateTime, duration, localInputToIso, num, shortId, stateLabel } from './format.js';
import { createReplayPanel } from './run-replay.js';
import { createRerunPanel } from './run-rerun.js';
import { createStepper } from './run-steps.js';
import { plain } from './run-text.js';
import { throttled } from './schedule.js';
import { renderWaterfall } from './waterfall.js';

/** Runs fetched per refresh (the API's most): the table pages through them. */
const FETCH_LIMIT = 1000;
const PAGE = 50;
/** How often the waterfall of a run still open is read again. */
const OPEN_RUN_POLL_MS = 1500;
const STATUS_CLASS = { open: 'accent', completed: 'ok', failed: 'bad', cancelled: 'warn', interrupted: 'bad' };

/** @param {{ may: (action: string) => boolean }} ctx */
export function createRunsTab(ctx) {
  const form = /** @type {HTMLFormElement} */ ($('#runs-form'));
  const refused = $('#runs-refused');
  const body = $('#runs-body');
  let all = [];
  let offset = 0;
  let limit = PAGE;
  let selected = null; // run id shown below
  let visible = false;
  /** Reading the outline (no content): the tape refused this principal its content. */
  let outline = false;

  const table = createTable($('#runs-table'), {
    label: 'Taped runs',
    rowKey: (r) => r.id,
    empty: 'No taped runs match.',
    sort: { key: 'startedAt', dir: 'descending' },
    columns: [
      {
        key: 'startedAt',
        label: 'Started',
        render: (r) => ago(r.startedAt),
        sig: (r) => ago(r.startedAt),
        title: (r) => dateTime(r.startedAt),
      },
      { key: 'agent', label: 'Agent', render: (r) => h('strong', { text: plain(r.agent) }) },
      { key: 'protocol', label: 'Protocol', value: (r) => r.protocol ?? 'code' },
      {
        key: 'status',
        label: 'Status',
        render: (r) => h('span', { class: `badge ${STATUS_CLASS[r.status] ?? ''}`.trim(), text: stateLabel(r.status) }),
      },
      { key: 'durationMs', label: 'Duration', num: true, render: (r) => duration(r.durationMs ?? undefined) },
      { key: 'steps', label: 'Steps', num: true },
      { key: 'tokens', label: 'Tokens', num: true, value: (r) => (r.inputTokens ?? 0) + (r.outputTokens ?? 0) },
      { key: 'principal', label: 'Principal', value: (r) => r.principal ?? r.owner ?? '' },
      {
        key: 'parentRunId',
        label: 'Parent',
        // The run that started this one (a coordinator's): one click opens it.
        render: (r) => (r.parentRunId ? runLink(r.parentRunId) : '—'),
        title: (r) => r.parentRunId ?? '',
      },
      { key: 'id', label: 'Run', render: (r) => h('code', { text: shortId(r.id, 12) }), title: (r) => r.id },
    ],
    onRowActivate: (r) => {
      open(r.id);
      $('#run-detail').scrollIntoView({ block: 'start' });
    },
    pager: {
      limit: PAGE,
      limits: [25, 50, 100, 200],
      onChange: (o, l) => {
        offset = o;
        limit = l;
        showPage();
      },
    },
    note: 'Select a run to see its waterfall and steps.',
  });

  function queryOf() {
    const f = new FormData(form);
    return {
      agent: String(f.get('agent') ?? '').trim(),
      status: String(f.get('status') ?? ''),
      principal: String(f.get('principal') ?? '').trim(),
      since: localInputToIso(String(f.get('since') ?? '')),
      limit: FETCH_LIMIT,
    };
  }

  function showPage() {
    const rows = all.slice(offset, offset + limit);
    table.setRows(rows, { offset, limit, total: all.length });
    setText($('#runs-count'), all.length >= FETCH_LIMIT ? `newest ${num(all.length)} runs` : `${num(all.length)} runs`);
  }

  /**
   * The tape refused. Without the content role the tab switches to the tape's outline (structure
   * and timings, no content) and says why; without a tape it says that. Returns whether it handled it.
   */
  function showRefused(err) {
    const content = err instanceof ApiError && err.code === 'content_forbidden';
    const absent = err instanceof ApiError && err.code === 'tape_unavailable';
    if (content && !outline) {
      outline = true;
      refreshList.trigger();
      if (selected) refreshRun.trigger();
    }
    refused.textContent = content
      ? "Structure and timings only: run tapes hold what agents were told and answered (prompts, model output, tool arguments and results), and reading that needs the 'operator' role."
      : absent
        ? 'No run tape here: the agent module is not installed, or fw.agent.tape.enabled is false.'
        : `The run tape could not be read: ${err?.detail || err?.message || String(err)}`;
    refused.dataset.code = err?.code ?? 'error';
    refused.hidden = false;
    body.hidden = absent;
    return content || absent;
  }

  const refreshList = throttled(
    async () => {
      let data;
      try {
        ({ data } = await get(outline ? 'tape/outline' : 'tape/runs', queryOf()));
      } catch (err) {
        if (showRefused(err)) return;
        throw err;
      }
      if (!outline) refused.hidden = true;
      body.hidden = false;
      all = data ?? [];
      if (offset >= all.length) offset = Math.max(0, Math.floor(Math.max(0, all.length - 1) / limit) * limit);
      showPage();
      const current = selected && all.find((r) => r.id === selected);
      if (current && current.status !== shownStatus) refreshRun.trigger();
    },
    800,
    (err) => table.setError(err),
  );

  // --- one run -----------------------------------------------------------------------------
  let shownStatus = null;
  let pendingSeq;
  let openPoll;
  const stepper = createStepper($('#run-steps'));
  const replayPanel = createReplayPanel($('#run-replay'), { may: ctx.may, openRun: (id) => open(id) });
  const rerunPanel = createRerunPanel($('#run-rerun'), { may: ctx.may, openRun: (id) => open(id) });

  function open(id, seq) {
    selected = id;
    pendingSeq = seq;
    table.select(id);
    setText($('#run-id'), id);
    $('#run-detail').hidden = false;
    refreshRun.now();
  }

  const refreshRun = throttled(
    async () => {
      const id = selected;
      if (!id) return;
      let tree;
      try {
        ({ data: tree } = await get(outline ? `tape/outline/${seg(id)}` : `tape/runs/${seg(id)}/replay`));
      } catch (err) {
        if (id !== selected) return;
        if (err instanceof ApiError && err.status === 404) {
          replace(
            $('#run-summary'),
            h('p', { class: 'empty' }, 'No run ', h('code', { text: id }), ' on the tape (retention may have deleted it).'),
          );
          replace($('#run-waterfall'));
          delete $('#run-waterfall').dataset.run;
          stepper.clear('');
          replayPanel.setRun(null);
          rerunPanel.setRun(null);
          return;
        }
        if (showRefused(err)) return;
        throw err;
      }
      if (id !== selected) return;
      const run = tree.run;
      shownStatus = run.status;
      replace($('#run-summary'), summary(run, tree));
      replace($('#run-waterfall'), renderWaterfall(tree, pick));
      // Which run the waterfall shows: the id above it changes at once, the waterfall when the tape answers.
      $('#run-waterfall').dataset.run = id;
      stepper.setSteps(tree.steps, pendingSeq, outline);
      pendingSeq = undefined;
      replayPanel.setRun(run);
      rerunPanel.setRun(outline ? null : run);
      // Steps are not announced one by one (only a run's start and end are): an open run is read
      // again while it is shown, so its waterfall grows as it works.
      clearTimeout(openPoll);
      if (run.status === 'open' && visible) openPoll = setTimeout(() => refreshRun.trigger(), OPEN_RUN_POLL_MS);
    },
    800,
    (err) =>
      replace(
        $('#run-summary'),
        h('p', { class: 'table-error', attrs: { role: 'alert' }, text: `Could not load the run: ${err?.message ?? err}` }),
      ),
  );

  /** A waterfall row: a step of this run shows in the step-through, another run opens. */
  function pick(row) {
    if (row.runId !== selected) open(row.runId, row.seq);
    else if (row.seq !== undefined) {
      stepper.show(row.seq);
      $('#run-steps .step-body').focus();
    }
  }

  function summary(run, tree) {
    const kids = tree.children?.length ?? 0;
    return h(
      'dl',
      { class: 'facts run-facts' },
      h('dt', { text: 'Agent' }),
      h('dd', { text: plain(run.agent) }),
      h('dt', { text: 'Status' }),
      h('dd', {}, h('span', { class: `badge ${STATUS_CLASS[run.status] ?? ''}`.trim(), text: stateLabel(run.status) })),
      h('dt', { text: 'Protocol' }),
      h('dd', { text: `${run.protocol ?? 'code'}${run.ref ? ` · ${plain(run.ref)}` : ''}` }),
      h('dt', { text: 'Started' }),
      h('dd', { text: dateTime(run.startedAt) }),
      h('dt', { text: 'Duration' }),
      h('dd', { text: duration(run.durationMs ?? undefined) }),
      h('dt', { text: 'Tokens' }),
      h('dd', { text: `${num(run.inputTokens)} in / ${num(run.outputTokens)} out` }),
      h('dt', { text: 'Principal' }),
      h('dd', { text: plain(run.principal ?? run.owner ?? '—') }),
      run.parentRunId ? [h('dt', { text: 'Started by' }), h('dd', {}, runLink(run.parentRunId))] : null,
      kids ? [h('dt', { text: 'Runs it started' }), h('dd', { text: num(kids) })] : null,
      run.coordinationId ? [h('dt', { text: 'Coordination' }), h('dd', {}, h('code', { text: plain(run.coordinationId) }))] : null,
      run.error ? [h('dt', { text: 'Error' }), h('dd', { class: 'bad-text', text: plain(run.error) })] : null,
      run.failed && !run.error ? [h('dt', { text: 'Error' }), h('dd', { class: 'muted', text: 'failed (its text is content)' })] : null,
    );
  }

  function runLink(id) {
    return h('button', { type: 'button', class: 'link-button', text: shortId(id, 12), title: id, on: { click: () => open(id) } });
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    offset = 0;
    refreshList.now();
  });
  form.addEventListener('reset', () => {
    setTimeout(() => {
      offset = 0;
      refreshList.now();
    });
  });

  return {
    start() {},
    show() {
      visible = true;
      replayPanel.sync();
      rerunPanel.sync();
      refreshList.now();
    },
    hide() {
      visible = false;
    },
    resync() {
      if (!visible) return;
      refreshList.trigger();
      if (selected) refreshRun.trigger();
    },
    applySession() {
      replayPanel.sync();
      rerunPanel.sync();
    },
    onEvent(ev) {
      if (ev.type === 'TapeRunChanged' && ev.status !== 'open') rerunPanel.runEnded(ev.runId);
      if (!visible || ev.type !== 'TapeRunChanged') return;
      refreshList.trigger();
      // The open run (or one it started) moved on: its waterfall and steps too.
      if (ev.runId === selected || ev.parentRunId === selected) refreshRun.trigger();
    },
  };
}
