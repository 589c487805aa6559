// The Evals tab (docs/runs.md, "Evals view"): datasets and their cases, starting an eval run (the
// admin API's POST evals/run: 202 and progress, 409 while another runs), the eval runs with their
// live progress and each case's result, and the baselines with their pass rate over time. Cases
// and answers are content: everything is rendered as text (dom.js), never parsed as HTML.

import { ApiError, get, request, seg } from './api.js';
import { createPassRateChart } from './charts.js';
import { createTable } from './data-table.js';
import { $, h, setText } from './dom.js';
import { ago, dateTime, duration, shortId } from './format.js';
import { throttled } from './schedule.js';

/** How often an eval run in progress is read again (the API has no event per case). */
const PROGRESS_MS = 700;

const pct = (r) => (r === null || r === undefined ? '—' : `${Math.round(r * 1000) / 10} %`);

export function createEvalsTab(shared) {
  const form = /** @type {HTMLFormElement} */ ($('#evals-form'));
  const status = $('#evals-status');
  const submit = /** @type {HTMLButtonElement} */ (form.querySelector('button[type="submit"]'));
  let dataset = ''; // the dataset whose cases are shown
  let selectedRun = ''; // the eval run whose results are shown
  let baselineKey = ''; // dataset\u0000agent\u0000scorer of the chart
  let visible = false;
  let running = false; // an eval run is in progress: its progress is polled

  const datasets = createTable($('#evals-datasets'), {
    label: 'Datasets',
    rowKey: (d) => d.dataset,
    empty: 'No dataset yet: promote a taped run to a case (POST evals/dataset/promote).',
    sort: { key: 'dataset', dir: 'ascending' },
    columns: [
      { key: 'dataset', label: 'Dataset', wrap: true },
      { key: 'cases', label: 'Cases', num: true },
    ],
    onRowActivate: (d) => showCases(d.dataset),
    note: 'Select a dataset to see its cases and run it.',
  });

  const cases = createTable($('#evals-cases'), {
    label: 'Dataset cases',
    rowKey: (c) => c.id,
    empty: 'Pick a dataset.',
    columns: [
      { key: 'createdAt', label: 'Added', render: (c) => ago(c.createdAt), title: (c) => dateTime(c.createdAt) },
      { key: 'input', label: 'Input', wrap: true, cls: 'evals-text' },
      { key: 'expected', label: 'Expected', wrap: true, cls: 'evals-text' },
      {
        key: 'sourceRunId',
        label: 'From run',
        render: (c) => h('code', { text: shortId(c.sourceRunId ?? '') }),
        title: (c) => c.sourceRunId ?? '',
      },
    ],
  });

  const runs = createTable($('#evals-runs'), {
    label: 'Eval runs',
    rowKey: (r) => r.id,
    empty: 'No eval run yet.',
    sort: { key: 'startedAt', dir: 'descending' },
    columns: [
      { key: 'startedAt', label: 'Started', render: (r) => ago(r.startedAt), title: (r) => dateTime(r.startedAt) },
      { key: 'dataset', label: 'Dataset', wrap: true },
      { key: 'agent', label: 'Agent' },
      { key: 'scorer', label: 'Scorer' },
      {
        key: 'status',
        label: 'Status',
        render: (r) =>
          h('span', { class: `badge ${r.status === 'completed' ? 'ok' : r.status === 'running' ? 'accent' : 'bad'}`, text: r.status }),
      },
      {
        key: 'progress',
        label: 'Progress',
        value: (r) => r.done / Math.max(1, r.cases),
        sig: (r) => `${r.done}/${r.cases}`,
        render: (r) =>
          h(
            'span',
            {},
            h('progress', { value: r.done, max: Math.max(1, r.cases), attrs: { 'aria-label': `${r.done} of ${r.cases} cases` } }),
            ` ${r.done}/${r.cases}`,
          ),
      },
      { key: 'passRate', label: 'Pass rate', num: true, render: (r) => pct(r.passRate), sig: (r) => `${r.passed}/${r.cases}` },
    ],
    onRowActivate: (r) => {
      selectedRun = r.id;
      refreshResults.now();
    },
    note: 'Select an eval run to see the result of each case.',
  });

  const results = createTable($('#evals-results'), {
    label: 'Results per case',
    rowKey: (r) => r.caseId,
    empty: 'Pick an eval run.',
    columns: [
      {
        key: 'passed',
        label: 'Result',
        render: (r) => h('span', { class: `badge ${r.passed ? 'ok' : 'bad'}`, text: r.passed ? 'pass' : 'fail' }),
      },
      { key: 'input', label: 'Input', wrap: true, cls: 'evals-text' },
      { key: 'output', label: 'Answer', wrap: true, cls: 'evals-text', value: (r) => r.output ?? '' },
      { key: 'detail', label: 'Why', wrap: true, cls: 'evals-text', value: (r) => r.detail ?? '' },
      { key: 'durationMs', label: 'Took', num: true, render: (r) => duration(r.durationMs) },
    ],
  });

  const baselines = createTable($('#evals-baselines'), {
    label: 'Baselines',
    rowKey: (b) => `${b.dataset}\u0000${b.agent}\u0000${b.scorer}`,
    empty: 'No completed eval run yet.',
    columns: [
      { key: 'dataset', label: 'Dataset', wrap: true },
      { key: 'agent', label: 'Agent' },
      { key: 'scorer', label: 'Scorer' },
      { key: 'passRate', label: 'Pass rate', num: true, render: (b) => pct(b.passRate) },
      { key: 'history', label: 'Runs', num: true, value: (b) => b.runs.length },
    ],
    onRowActivate: (b) => {
      baselineKey = `${b.dataset}\u0000${b.agent}\u0000${b.scorer}`;
      drawBaseline(b);
    },
    note: 'Select a baseline to chart its pass rate over time.',
  });
  const chart = createPassRateChart(/** @type {HTMLElement} */ ($('#evals-chart')), 'Pass rate');
  let baselineRows = [];

  function drawBaseline(b) {
    setText($('#evals-chart-title'), b ? `Pass rate of ${b.dataset} against ${b.agent} (${b.scorer})` : 'Pass rate over time');
    chart.set(b ? b.runs : []);
  }

  function say(text, kind = '') {
    status.dataset.kind = kind;
    setText(status, text);
  }

  async function showCases(name) {
    dataset = name;
    setText($('#evals-cases-title'), `Cases of ${name}`);
    /** @type {HTMLInputElement} */ (form.elements.namedItem('dataset')).value = name;
    try {
      const { data } = await get(`evals/datasets/${seg(name)}/cases`);
      if (dataset === name) cases.setRows(data ?? []);
    } catch (err) {
      cases.setError(err);
    }
  }

  const refreshLists = throttled(
    async () => {
      // The session (what this principal may do) may have loaded since the tab was shown.
      submit.disabled = !shared.may('evaluate');
      const [ds, rs, bs] = await Promise.all([get('evals/datasets'), get('evals/runs', { limit: 50 }), get('evals/baselines')]);
      datasets.setRows(ds.data ?? []);
      const list = rs.data ?? [];
      runs.setRows(list);
      running = list.some((r) => r.status === 'running');
      if (!selectedRun && list[0]) selectedRun = list[0].id;
      baselineRows = bs.data ?? [];
      baselines.setRows(baselineRows);
      const shown = baselineRows.find((b) => `${b.dataset}\u0000${b.agent}\u0000${b.scorer}` === baselineKey) ?? baselineRows[0];
      if (shown) baselineKey = `${shown.dataset}\u0000${shown.agent}\u0000${shown.scorer}`;
      drawBaseline(shown);
      if (!dataset && ds.data?.[0]) void showCases(ds.data[0].dataset);
      if (selectedRun) refreshResults.trigger();
    },
    500,
    (err) => runs.setError(err),
  );

  const refreshResults = throttled(
    async () => {
      const id = selectedRun;
      if (!id) return;
      const { data } = await get(`evals/runs/${seg(id)}`);
      if (id !== selectedRun || !data) return;
      setText(
        $('#evals-results-title'),
        `Results of ${data.dataset} against ${data.agent} (${data.scorer}): ${data.status}, ${data.done} of ${data.cases} done, ${data.passed} passed`,
      );
      // The case inputs come from the dataset's cases: those shown when they are its, else read.
      const inputs = new Map((data.dataset === dataset ? (cases.rows ?? []) : []).map((c) => [c.id, c.input]));
      if ((data.results ?? []).some((r) => !inputs.has(r.caseId))) {
        const { data: list } = await get(`evals/datasets/${seg(data.dataset)}/cases`).catch(() => ({ data: [] }));
        for (const c of list ?? []) inputs.set(c.id, c.input);
      }
      if (id !== selectedRun) return;
      results.setRows((data.results ?? []).map((r) => ({ ...r, input: inputs.get(r.caseId) ?? '' })));
    },
    300,
    (err) => results.setError(err),
  );

  // The scorer's own fields show only for it: the schema for json-schema, the judge's for judge.
  const scorerField = /** @type {HTMLSelectElement} */ (form.elements.namedItem('scorer'));
  function showScorerFields() {
    $('#evals-schema-field').hidden = scorerField.value !== 'json-schema';
    $('#evals-judge-fields').hidden = scorerField.value !== 'judge';
  }
  scorerField.addEventListener('change', showScorerFields);
  showScorerFields();

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const f = new FormData(form);
    const body = {
      dataset: String(f.get('dataset') ?? '').trim(),
      agent: String(f.get('agent') ?? '').trim(),
      scorer: String(f.get('scorer') ?? 'exact'),
    };
    try {
      if (body.scorer === 'json-schema') body.schema = JSON.parse(String(f.get('schema') ?? '') || 'null');
    } catch {
      say('The JSON Schema is not JSON.', 'error');
      return;
    }
    if (body.scorer === 'judge') {
      const judge = { rubric: String(f.get('rubric') ?? '') };
      const runtime = String(f.get('runtime') ?? '').trim();
      const model = String(f.get('model') ?? '').trim();
      const threshold = String(f.get('threshold') ?? '').trim();
      if (runtime) judge.runtime = runtime;
      if (model) judge.model = model;
      if (threshold) judge.threshold = Number(threshold);
      body.judge = judge;
    }
    try {
      const { data, status: code } = await request('evals/run', { method: 'POST', body });
      say(`Eval run ${shortId(data.id)} started (${code}): ${data.cases} cases of ${data.dataset} against ${data.agent}.`, 'success');
      selectedRun = data.id;
      running = true;
      refreshLists.now();
    } catch (err) {
      if (err instanceof ApiError && err.status === 409 && err.code === 'eval_running')
        say('An eval run is in progress (409 eval_running): one at a time. Wait for it to end.', 'refused');
      else say(`Not started: ${err instanceof ApiError ? `${err.status} ${err.code}: ${err.detail || err.title}` : String(err)}`, 'error');
    }
  });

  // Progress of a run in progress, read again while it runs and the tab shows.
  setInterval(() => {
    if (!visible) return;
    // The session (what this principal may do) loads beside the tab, and may change on sign-in.
    submit.disabled = !shared.may('evaluate');
    if (running) refreshLists.trigger();
  }, PROGRESS_MS);

  return {
    start() {
      submit.disabled = !shared.may('evaluate');
    },
    show() {
      visible = true;
      submit.disabled = !shared.may('evaluate');
      refreshLists.now();
    },
    hide() {
      visible = false;
    },
    resync() {
      if (visible) refreshLists.trigger();
    },
    onEvent(ev) {
      // An eval run's start (and every promotion) is an audited `evaluate` action.
      if (visible && ev.type === 'ControlActionExecuted' && ev.action === 'evaluate') refreshLists.trigger();
    },
  };
}
