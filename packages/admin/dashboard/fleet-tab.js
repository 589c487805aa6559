// The Fleet tab: the flow graph of who dispatches to whom over a chosen time window (every
// coordination at once, from the journal), and the health of every coordinator's fleet: per
// agent, whether a dispatch would go, its circuit breaker's state and its consecutive failures.
// Live: a breaker's change redraws the table at once, dispatches redraw the graph.

import { ApiError, get, seg } from './api.js';
import { createTable } from './data-table.js';
import { $, h, replace, setText } from './dom.js';
import { clock, dateTime, duration, num } from './format.js';
import { renderGraph } from './graph.js';
import { throttled } from './schedule.js';

const STATE_CLASS = { CLOSED: 'ok', OPEN: 'bad', HALF_OPEN: 'warn' };
const STATE_TEXT = { CLOSED: 'closed', OPEN: 'open', HALF_OPEN: 'half-open' };

export function createFleetTab() {
  const windowSelect = /** @type {HTMLSelectElement} */ ($('#fleet-window'));

  const health = createTable($('#fleet-health'), {
    label: 'Fleet health: circuit breaker per coordinator and agent',
    rowKey: (r) => `${r.coordinator}\u0000${r.name}`,
    empty: 'No coordinators (no @Coordinator is mounted).',
    sort: { key: 'coordinator', dir: 'ascending' },
    columns: [
      { key: 'coordinator', label: 'Coordinator', render: (r) => h('strong', { text: r.coordinator }) },
      {
        key: 'name',
        label: 'Agent',
        render: (r) =>
          r.location === 'remote' ? [r.name, ' ', h('span', { class: 'badge', text: 'remote', title: r.url ?? '' })] : r.name,
      },
      {
        key: 'circuitState',
        label: 'Breaker',
        render: (r) =>
          h('span', {
            class: `badge ${STATE_CLASS[r.circuitState] ?? ''}`.trim(),
            text: STATE_TEXT[r.circuitState] ?? String(r.circuitState),
          }),
        title: (r) => (r.changedAt ? `since ${dateTime(r.changedAt)}` : 'never changed'),
      },
      { key: 'available', label: 'Available', value: (r) => (r.available ? 'yes' : 'no') },
      { key: 'recentFailures', label: 'Failures in a row', num: true },
      {
        key: 'retryAt',
        label: 'Probe',
        value: (r) => r.retryAt ?? '',
        render: (r) =>
          r.circuitState === 'OPEN' && r.retryAt ? `at ${dateTime(r.retryAt)}` : r.circuitState === 'HALF_OPEN' ? 'next dispatch' : '—',
      },
      {
        key: 'settings',
        label: 'Opens after',
        value: (r) => r.failureThreshold,
        render: (r) => (r.failureThreshold > 0 ? `${num(r.failureThreshold)} failures, for ${duration(r.openDurationMs)}` : 'never'),
      },
      { key: 'lastError', label: 'Last failure', wrap: true, value: (r) => r.lastError ?? '' },
    ],
  });

  const refreshHealth = throttled(
    async () => {
      const { data: coordinators } = await get('coordinators', { limit: 1000 });
      const rows = [];
      for (const c of coordinators ?? []) {
        try {
          const { data } = await get(`coordinators/${seg(c.name)}/health`);
          for (const a of data?.agents ?? []) rows.push({ coordinator: c.name, ...a });
        } catch (err) {
          // Gone between the two reads: the next refresh lists what is there.
          if (!(err instanceof ApiError && err.status === 404)) throw err;
        }
      }
      health.setRows(rows);
      const open = rows.filter((r) => r.circuitState !== 'CLOSED').length;
      setText($('#fleet-health-count'), `${num(rows.length)} fleet agents${open ? `, ${num(open)} not closed` : ''}`);
    },
    500,
    (err) => health.setError(err),
  );

  const refreshFlow = throttled(async () => {
    const lookbackMinutes = Number(windowSelect.value) || 0;
    const { data } = await get('flow', { lookbackMinutes });
    const flow = data ?? { nodes: [], edges: [] };
    const when = windowSelect.selectedOptions[0]?.textContent ?? '';
    setText(
      $('#fleet-flow-count'),
      `${when}: ${num(flow.edges.length)} edges from ${num(flow.events ?? 0)} events${flow.truncated ? ' (newest only)' : ''}`,
    );
    if (flow.nodes.length === 0) {
      replace($('#fleet-flow'), h('p', { class: 'empty', text: 'No dispatches in this window.' }));
      return;
    }
    const graph = {
      coordinationId: '',
      nodes: flow.nodes.map((n) => ({ id: n.id, kind: n.kind })),
      edges: flow.edges.map((e) => ({
        ...e,
        kind: 'dispatch',
        count: e.dispatches,
        totalDurationMs: e.averageDurationMs * e.successes,
        outcome: e.failures === 0 ? (e.successes > 0 ? 'success' : 'pending') : e.successes === 0 ? 'failure' : 'mixed',
      })),
    };
    replace(
      $('#fleet-flow'),
      renderGraph(graph, {
        label: `Flow graph, ${when}`,
        line: (e) =>
          `×${num(e.dispatches)} · avg ${duration(e.averageDurationMs)} · p95 ${duration(e.p95DurationMs)}${e.failures ? ` · ${num(e.failures)} failed` : ''}`,
        title: (e) =>
          `${e.from} → ${e.to}: ${num(e.dispatches)} dispatches, ${num(e.successes)} succeeded, ${num(e.failures)} failed, average ${duration(e.averageDurationMs)}, p95 ${duration(e.p95DurationMs)}`,
      }),
    );
    setText($('#fleet-updated'), `updated ${clock(new Date())}`);
  }, 1000);

  windowSelect.addEventListener('change', () => refreshFlow.now());

  let visible = false;
  return {
    start() {},
    show() {
      visible = true;
      refreshFlow.now();
      refreshHealth.now();
    },
    hide() {
      visible = false;
    },
    resync() {
      if (visible) {
        refreshFlow.trigger();
        refreshHealth.trigger();
      }
    },
    onEvent(ev) {
      if (!visible) return;
      if (ev.type === 'CircuitStateChanged') refreshHealth.now();
      else if (ev.type === 'AgentCompleted') {
        refreshFlow.trigger();
        refreshHealth.trigger();
      } else if (ev.type === 'AgentDispatched') refreshFlow.trigger();
    },
  };
}
