// The Journal tab: query the coordination journal (coordination ID, agent, time range), the
// events table, and the execution graph, timeline and log of the selected coordination.

import { ApiError, get, seg } from './api.js';
import { createTable } from './data-table.js';
import { $, h, replace, setText } from './dom.js';
import { clock, dateTime, duration, localInputToIso, num, shortId } from './format.js';
import { renderGraph, renderTimeline, renderTree } from './graph.js';
import { throttled } from './schedule.js';

const KIND_CLASS = { dispatch: '', completion: 'ok', failure: 'bad', handoff: 'warn', evaluation: 'accent' };

export function createJournalTab() {
  const form = $('#journal-form');
  let selected = null; // coordination id shown in the graph
  let pinned = false; // the operator picked one: do not follow the newest

  const table = createTable($('#journal-table'), {
    label: 'Journal events',
    rowKey: (e) => String(e.seq),
    empty: 'No journal events match.',
    sort: { key: 'seq', dir: 'descending' },
    columns: [
      { key: 'seq', label: '#', num: true },
      { key: 'timestamp', label: 'Time', render: (e) => clock(e.timestamp), title: (e) => dateTime(e.timestamp) },
      { key: 'kind', label: 'Kind', render: (e) => h('span', { class: `badge ${KIND_CLASS[e.kind] ?? ''}`.trim(), text: e.kind }) },
      {
        key: 'coordinationId',
        label: 'Coordination',
        render: (e) => h('code', { text: shortId(e.coordinationId, 12) }),
        title: (e) => e.coordinationId,
      },
      { key: 'coordinator', label: 'Coordinator' },
      { key: 'agent', label: 'Agent' },
      { key: 'skill', label: 'Skill' },
      {
        key: 'durationMs',
        label: 'Duration',
        value: (e) => e.durationMs,
        render: (e) => (e.durationMs === undefined ? '—' : duration(e.durationMs)),
        num: true,
      },
      { key: 'detail', label: 'Detail', value: detailOf, wrap: true },
    ],
    onRowActivate: (e) => {
      pinned = true;
      select(e.coordinationId);
    },
    note: 'Select an event to draw its coordination.',
  });

  function queryOf() {
    const f = new FormData(form);
    const limit = Math.max(1, Math.min(1000, Number(f.get('limit')) || 200));
    return {
      coordinationId: String(f.get('coordinationId') ?? '').trim(),
      agent: String(f.get('agent') ?? '').trim(),
      from: localInputToIso(String(f.get('from') ?? '')),
      to: localInputToIso(String(f.get('to') ?? '')),
      limit,
    };
  }

  const refreshTable = throttled(
    async () => {
      const q = queryOf();
      // The journal lists oldest first: ask for the newest `limit` by paging from the end.
      let { data, total } = await get('journal', q);
      if (total !== undefined && total > (data?.length ?? 0)) {
        ({ data, total } = await get('journal', { ...q, offset: Math.max(0, total - q.limit) }));
      }
      const events = data ?? [];
      table.setRows(events);
      setText(
        $('#journal-count'),
        total !== undefined && total > events.length
          ? `newest ${num(events.length)} of ${num(total)} events`
          : `${num(events.length)} events`,
      );
      if (!pinned || !selected) {
        const newest = events.reduce((a, e) => (!a || (e.seq ?? 0) > (a.seq ?? 0) ? e : a), undefined);
        const target = q.coordinationId || newest?.coordinationId;
        if (target && target !== selected) select(target);
        else if (!target && !selected) showNothing();
      }
    },
    800,
    (err) => table.setError(err),
  );

  function showNothing() {
    replace($('#graph'), h('p', { class: 'empty', text: 'No coordination to draw yet.' }));
    setText($('#graph-id'), '');
    setText($('#journal-log'), '');
  }

  function select(id) {
    selected = id;
    table.select(null);
    setText($('#graph-id'), id);
    refreshGraph.now();
  }

  const refreshGraph = throttled(async () => {
    const id = selected;
    if (!id) return;
    try {
      const [graph, events, log, tree] = await Promise.all([
        get(`journal/${seg(id)}/graph`),
        get(`journal/${seg(id)}`, { limit: 1000 }),
        get(`journal/${seg(id)}/log`, undefined, { text: true }),
        get(`journal/${seg(id)}/tree`),
      ]);
      if (id !== selected) return;
      const timeline = renderTimeline(events.data ?? []);
      // The branches: fan-outs, retries, handoffs and evaluations under what caused them.
      const branches = h('div', { class: 'tree-block' }, h('h3', { text: 'Causal tree' }), renderTree(tree.data ?? []));
      replace($('#graph'), renderGraph(graph.data), timeline, branches);
      setText($('#journal-log'), log.data ?? '');
    } catch (err) {
      if (id !== selected) return;
      if (err instanceof ApiError && err.status === 404) {
        replace($('#graph'), h('p', { class: 'empty' }, 'No coordination ', h('code', { text: id }), ' in the journal.'));
        setText($('#journal-log'), '');
      } else throw err;
    }
  }, 800);

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const q = queryOf();
    pinned = Boolean(q.coordinationId);
    if (q.coordinationId) select(q.coordinationId);
    refreshTable.now();
  });
  form.addEventListener('reset', () => {
    setTimeout(() => {
      pinned = false;
      refreshTable.now();
    });
  });

  let visible = false;
  return {
    start() {},
    show() {
      visible = true;
      refreshTable.now();
    },
    hide() {
      visible = false;
    },
    resync() {
      if (visible) {
        refreshTable.trigger();
        refreshGraph.trigger();
      }
    },
    onEvent(ev) {
      if (!visible) return;
      if (ev.type === 'AgentDispatched' || ev.type === 'AgentCompleted' || ev.type === 'CircuitStateChanged') {
        refreshTable.trigger();
        if (ev.coordinationId === selected) refreshGraph.trigger();
      }
    },
  };
}

function detailOf(e) {
  switch (e.kind) {
    case 'failure':
      return e.error ?? 'failed';
    case 'handoff':
      return `${e.from ?? '?'} → ${e.to ?? '?'}${e.reason ? `: ${e.reason}` : ''}`;
    case 'evaluation':
      return `${e.evaluator ?? ''}${e.score !== undefined ? ` score ${e.score}` : ''}${e.passed === undefined ? '' : e.passed ? ' passed' : ' failed'}`.trim();
    default:
      return e.error ?? '';
  }
}
