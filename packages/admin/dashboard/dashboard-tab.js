// The Dashboard tab: live counters, the charts of the last 15 minutes, the event feed, and the broadcaster and
// resource tables. Counters and tables refresh from the REST API when events say something
// changed (throttled) and on a slow poll, so they stay right even if the stream drops events.

import { ApiError, get } from './api.js';
import { createTimeChart } from './charts.js';
import { createTable } from './data-table.js';
import { $, h, replace, setText } from './dom.js';
import { ago, dateTime, num, shortId } from './format.js';
import { createFeed } from './feed.js';
import { throttled } from './schedule.js';

/**
 * One sample of GET /api/admin/history (packages/admin/src/history.ts).
 * @typedef {{ t: number, intervalMs: number, connections: Record<string, number>, broadcasts: number,
 *   deliveries: number, messagesIn: number, agentRuns: number, activeRuns: number, errors: number,
 *   gaps: number, lost: number, recovered: number }} HistorySample
 */

/**
 * Counts of a sample as per-second rates.
 * @param {HistorySample} x
 * @param {('broadcasts'|'deliveries'|'messagesIn')[]} keys
 * @returns {Record<string, number>}
 */
function perSecond(x, keys) {
  const seconds = Math.max(0.001, x.intervalMs / 1000);
  /** @type {Record<string, number>} */
  const out = {};
  for (const k of keys) out[k] = x[k] / seconds;
  return out;
}

/** Rows per page of the resource table (the server pages; the page never holds more). */
export const RESOURCE_PAGE = 50;
const BROADCASTER_PAGE = 25;
/** Slow poll while visible: counters and tables are re-read even when no event arrives. */
const POLL_MS = 5000;

const COUNTERS = [
  { key: 'status', label: 'Status', text: true },
  { key: 'connections', label: 'Connections', sub: (o) => (o.internal?.connections ? `+${num(o.internal.connections)} internal` : '') },
  { key: 'broadcasters', label: 'Broadcasters', sub: (o) => (o.internal?.broadcasters ? `+${num(o.internal.broadcasters)} internal` : '') },
  { key: 'agentCount', label: 'Agents', sub: (o) => (o.coordinatorCount ? `+${num(o.coordinatorCount)} coord.` : '') },
  { key: 'broadcasts', label: 'Broadcasts', sub: () => 'since start' },
  { key: 'agentRuns', label: 'Agent runs', sub: (o) => (o.errors ? `${num(o.errors)} errors` : 'since start') },
  { key: 'activeSessions', label: 'Active sessions' },
  { key: 'taskCount', label: 'Tasks' },
  { key: 'aiRuntime', label: 'AI runtime', text: true },
  { key: 'handlers', label: 'Handlers', sub: (o) => `${num(o.interceptors)} interceptors` },
];

export function createDashboardTab(ctx) {
  // --- counters -------------------------------------------------------------------------------
  const counterEls = new Map();
  const counters = $('#counters');
  for (const c of COUNTERS) {
    const dd = h('dd', { class: c.text ? 'text' : '', text: '—', attrs: { 'data-counter': c.key } });
    const box = h('dl', { class: 'counter', dataset: { key: c.key } }, h('dt', { text: c.label }), dd);
    counterEls.set(c.key, { dd, box, c });
    counters.append(box);
  }
  let overview;

  function showOverview(o) {
    overview = o;
    for (const { dd, box, c } of counterEls.values()) {
      const v = o[c.key];
      const text = c.text ? (v ? String(v) : c.key === 'aiRuntime' ? 'none' : '—') : num(v);
      const sub = c.sub?.(o) ?? '';
      if (dd.dataset.value !== text || dd.dataset.sub !== sub) {
        dd.dataset.value = text;
        dd.dataset.sub = sub;
        replace(dd, text, sub ? h('span', { class: 'sub', text: sub }) : null);
      }
      if (c.key === 'status') box.dataset.status = v === 'UP' ? 'up' : v ? 'degraded' : 'down';
    }
    ctx.setVersion(o.version);
  }

  function showStatusDown() {
    const s = counterEls.get('status');
    if (!s) return;
    setText(s.dd, 'UNREACHABLE');
    s.dd.dataset.value = '';
    s.box.dataset.status = 'down';
  }

  const refreshOverview = throttled(async () => {
    try {
      showOverview((await get('overview')).data);
    } catch (err) {
      if (err instanceof ApiError && err.status === 0) showStatusDown();
      throw err;
    }
  }, 500);

  // --- charts ---------------------------------------------------------------------------------
  // The server samples every few seconds and keeps 15 minutes (GET history); new samples arrive
  // on the event stream as HistorySample frames, so a page opened late still shows the window.
  const charts = [
    {
      chart: createTimeChart($('#chart-conn'), {
        title: 'Connections by transport',
        unit: 'user connections',
        kind: 'gauge',
        series: [
          { key: 'websocket', label: 'WebSocket' },
          { key: 'sse', label: 'SSE' },
          { key: 'long-polling', label: 'Long-polling' },
          { key: 'streaming', label: 'Streaming' },
        ],
      }),
      now: $('#chart-conn-now'),
      values: (/** @type {HistorySample} */ x) => ({ ...x.connections }),
      headline: (/** @type {Record<string, number>} */ v) => `${num(Object.values(v).reduce((a, b) => a + b, 0))} now`,
    },
    {
      chart: createTimeChart($('#chart-rate'), {
        title: 'Messages per second',
        unit: 'per second',
        kind: 'rate',
        series: [
          { key: 'broadcasts', label: 'Broadcasts' },
          { key: 'deliveries', label: 'Delivered' },
          { key: 'messagesIn', label: 'Received' },
        ],
      }),
      now: $('#chart-rate-now'),
      values: (/** @type {HistorySample} */ x) => perSecond(x, ['broadcasts', 'deliveries', 'messagesIn']),
      headline: (/** @type {Record<string, number>} */ v) => `${num(Number(v.broadcasts.toFixed(1)))} broadcasts/s`,
    },
    {
      chart: createTimeChart($('#chart-runs'), {
        title: 'Agent runs',
        unit: 'runs started per sample, runs in flight',
        kind: 'count',
        series: [
          { key: 'agentRuns', label: 'Started' },
          { key: 'activeRuns', label: 'In flight' },
        ],
      }),
      now: $('#chart-runs-now'),
      values: (/** @type {HistorySample} */ x) => ({ agentRuns: x.agentRuns, activeRuns: x.activeRuns }),
      headline: (/** @type {Record<string, number>} */ v) => `${num(v.activeRuns)} in flight`,
    },
    {
      chart: createTimeChart($('#chart-errors'), {
        title: 'Errors',
        unit: 'per sample',
        kind: 'count',
        series: [{ key: 'errors', label: 'Errors' }],
      }),
      now: $('#chart-errors-now'),
      values: (/** @type {HistorySample} */ x) => ({ errors: x.errors }),
      headline: (/** @type {Record<string, number>} */ v) => `${num(v.errors)} in the last sample`,
    },
    {
      chart: createTimeChart($('#chart-gaps'), {
        title: 'Gaps and recoveries',
        unit: 'messages per sample',
        kind: 'count',
        series: [
          { key: 'lost', label: 'Lost (told with a gap)' },
          { key: 'recovered', label: 'Recovered' },
        ],
      }),
      now: $('#chart-gaps-now'),
      values: (/** @type {HistorySample} */ x) => ({ lost: x.lost, recovered: x.recovered }),
      headline: (/** @type {Record<string, number>} */ v) => `${num(v.lost)} lost, ${num(v.recovered)} recovered`,
    },
  ];
  /** @param {HistorySample[]} samples */
  function showHistory(samples) {
    for (const c of charts) {
      c.chart.set(samples.map((x) => ({ t: x.t, values: c.values(x) })));
      const last = samples[samples.length - 1];
      setText(c.now, last ? c.headline(c.values(last)) : '');
    }
  }
  /** @param {HistorySample} sample */
  function addSample(sample) {
    for (const c of charts) {
      const values = c.values(sample);
      c.chart.push({ t: sample.t, values });
      setText(c.now, c.headline(values));
    }
  }
  const refreshHistory = throttled(async () => {
    const { data } = await get('history');
    if (Array.isArray(data?.samples)) showHistory(data.samples);
  }, 1000);

  // --- feed -----------------------------------------------------------------------------------
  const feed = createFeed({
    list: $('#feed'),
    filterBar: $('#feed-filter'),
    pauseButton: $('#feed-pause'),
    clearButton: $('#feed-clear'),
    status: $('#feed-status'),
  });

  // --- broadcasters ---------------------------------------------------------------------------
  let bcOffset = 0;
  let bcLimit = BROADCASTER_PAGE;
  const bcTable = createTable($('#bc-table'), {
    label: 'Broadcasters',
    rowKey: (b) => b.id,
    empty: 'No broadcasters.',
    sort: { key: 'resourceCount', dir: 'descending' },
    columns: [
      {
        key: 'id',
        label: 'Id',
        cls: 'clip',
        sig: (b) => `${b.id}|${b.internal}`,
        title: (b) => `${b.id}, created ${dateTime(b.createdAt)}`,
        render: (b) => [
          h('code', { text: b.id }),
          b.internal ? [' ', h('span', { class: 'badge', text: 'internal', title: 'Used by fw itself (the admin event stream)' })] : null,
        ],
      },
      { key: 'resourceCount', label: 'Resources', num: true },
      { key: 'messages', label: 'Messages', num: true },
      // No silent loss (docs/protocol.md, Gaps and recovery): what members missed, what came back.
      {
        key: 'lost',
        label: 'Lost',
        num: true,
        title: () => 'Messages members missed, each told to the client with a gap (slow-consumer drops, cluster broadcasts never received)',
      },
      {
        key: 'recovered',
        label: 'Recovered',
        num: true,
        title: () => 'Messages replayed to reconnecting clients or recovered from the replay store after a cluster link outage',
      },
      {
        key: 'replayWindow',
        label: 'Replay window',
        sortable: false,
        sig: (b) => (b.replayWindow ? `${b.replayWindow.first}-${b.replayWindow.last}` : ''),
        title: () => 'Broadcaster sequences the in-memory replay cache holds',
        render: (b) => (b.replayWindow ? `${b.replayWindow.first}–${b.replayWindow.last}` : '—'),
      },
      {
        // Internal broadcasters are read-only, and a principal that may not broadcast sees no button.
        key: 'actions',
        label: '',
        sortable: false,
        sig: (b) => `${ctx.may('broadcast')}|${b.internal}`,
        render: (b) =>
          b.internal || !ctx.may('broadcast')
            ? ''
            : h('button', {
                type: 'button',
                class: 'small',
                text: 'Send…',
                attrs: { 'aria-label': `Send… to ${b.id}` },
                on: { click: () => ctx.prefillBroadcast(b.id) },
              }),
      },
    ],
    onRowActivate: (b) => {
      $('#res-broadcaster').value = b.id;
      resOffset = 0;
      refreshResources.now();
    },
    pager: {
      limit: BROADCASTER_PAGE,
      limits: [10, 25, 50, 100],
      onChange: (o, l) => {
        bcOffset = o;
        bcLimit = l;
        refreshBroadcasters.now();
      },
    },
    note: 'Select a broadcaster to list its resources.',
  });
  const refreshBroadcasters = throttled(
    async () => {
      const search = $('#bc-filter').value.trim();
      const { data, total } = await get('broadcasters', { offset: bcOffset, limit: bcLimit, search });
      if (total !== undefined && bcOffset > 0 && bcOffset >= total) {
        bcOffset = Math.max(0, Math.floor((total - 1) / bcLimit) * bcLimit);
        return refreshBroadcasters.trigger();
      }
      bcTable.setRows(data ?? [], { offset: bcOffset, limit: bcLimit, total: total ?? data?.length ?? 0 });
      ctx.setBroadcasterIds((data ?? []).filter((b) => !b.internal).map((b) => b.id));
      for (const b of data ?? []) if (b.internal) internalIds.add(b.id);
    },
    1000,
    (err) => bcTable.setError(err),
  );
  $('#bc-filter').addEventListener('input', () => {
    bcOffset = 0;
    refreshBroadcasters.trigger();
  });

  // --- resources ------------------------------------------------------------------------------
  let resOffset = 0;
  let resLimit = RESOURCE_PAGE;
  /** Internal broadcasters seen (the admin event stream's, at least): their members are the dashboards' own connections. */
  const internalIds = new Set([document.querySelector('meta[name="fw-admin-events"]')?.getAttribute('content') ?? '/fw/admin/events']);
  const isInternal = (r) => (r.broadcasters ?? [r.broadcaster]).some((id) => internalIds.has(id));
  const resTable = createTable($('#res-table'), {
    label: 'Resources',
    rowKey: (r) => r.uuid,
    empty: 'No connected resources.',
    columns: [
      {
        key: 'uuid',
        label: 'UUID',
        sig: (r) => `${r.uuid}|${isInternal(r)}`,
        title: (r) => r.uuid,
        render: (r) => [
          h('code', { text: r.uuid }),
          isInternal(r)
            ? [' ', h('span', { class: 'badge', text: 'internal', title: 'An admin dashboard or event-stream consumer, not a user' })]
            : null,
        ],
      },
      {
        key: 'transport',
        label: 'Transport',
        value: (r) => `${r.transport}${r.protocol ? ` · ${r.protocol}` : ''}`,
        title: (r) => `${r.transport} transport, ${r.protocol === 'fw' ? 'fw protocol' : 'raw frames'}`,
      },
      {
        key: 'broadcaster',
        label: 'Broadcaster',
        cls: 'clip',
        render: (r) => (r.broadcaster ? h('code', { text: r.broadcaster }) : '—'),
        title: (r) => (r.broadcasters ?? []).join(', '),
      },
      { key: 'remoteAddress', label: 'Address' },
      { key: 'principal', label: 'Principal' },
      {
        key: 'connectedAt',
        label: 'Connected',
        render: (r) => ago(r.connectedAt),
        sig: (r) => ago(r.connectedAt),
        title: (r) => dateTime(r.connectedAt),
      },
      { key: 'messagesIn', label: 'In', num: true },
      { key: 'messagesOut', label: 'Out', num: true },
      { key: 'dropped', label: 'Dropped', num: true },
      {
        key: 'actions',
        label: '',
        sortable: false,
        sig: () => String(ctx.may('disconnect')),
        render: (r) =>
          !ctx.may('disconnect')
            ? ''
            : h('button', {
                type: 'button',
                class: 'small danger',
                text: 'Disconnect…',
                attrs: { 'aria-label': `Disconnect… ${shortId(r.uuid)}` },
                on: { click: () => ctx.prefillDisconnect(r.uuid) },
              }),
      },
    ],
    pager: {
      limit: RESOURCE_PAGE,
      limits: [25, 50, 100, 200],
      onChange: (o, l) => {
        resOffset = o;
        resLimit = l;
        refreshResources.now();
      },
    },
    note: 'Sorting applies to the rows of this page; the server pages through every resource.',
  });
  const refreshResources = throttled(
    async () => {
      const query = {
        offset: resOffset,
        limit: resLimit,
        search: $('#res-search').value.trim(),
        transport: $('#res-transport').value,
        broadcaster: $('#res-broadcaster').value.trim(),
      };
      const { data, total } = await get('resources', query);
      const t = total ?? data?.length ?? 0;
      if (resOffset > 0 && resOffset >= t) {
        // The page we were on emptied (clients left): step back to the last page that exists.
        resOffset = Math.max(0, Math.floor((t - 1) / resLimit) * resLimit);
        return refreshResources.trigger();
      }
      resTable.setRows(data ?? [], { offset: resOffset, limit: resLimit, total: t });
    },
    1000,
    (err) => resTable.setError(err),
  );
  const resFilterChanged = () => {
    resOffset = 0;
    refreshResources.trigger();
  };
  $('#res-search').addEventListener('input', resFilterChanged);
  $('#res-transport').addEventListener('change', resFilterChanged);
  $('#res-broadcaster').addEventListener('input', resFilterChanged);
  $('#res-form').addEventListener('submit', (e) => {
    e.preventDefault();
    resFilterChanged();
  });

  // --- lifecycle ------------------------------------------------------------------------------
  let visible = false;
  let _poll;

  function refreshAll() {
    refreshOverview.trigger();
    if (visible) {
      refreshBroadcasters.trigger();
      refreshResources.trigger();
    }
  }

  return {
    feed,
    start() {
      refreshOverview.now();
      refreshHistory.now();
      _poll = setInterval(refreshAll, POLL_MS);
    },
    show() {
      visible = true;
      for (const c of charts) c.chart.draw();
      refreshBroadcasters.now();
      refreshResources.now();
    },
    hide() {
      visible = false;
    },
    /** After the stream (re)connects: everything may have changed while it was down. */
    resync() {
      refreshOverview.now();
      refreshHistory.now();
      if (visible) {
        refreshBroadcasters.now();
        refreshResources.now();
      }
    },
    onEvent(ev) {
      if (ev.type === 'HistorySample') {
        addSample(ev);
        return;
      }
      feed.push(ev);
      switch (ev.type) {
        case 'MessageBroadcast':
          refreshOverview.trigger();
          if (visible) refreshBroadcasters.trigger();
          break;
        case 'ResourceConnected':
        case 'ResourceDisconnected':
          refreshOverview.trigger();
          if (visible) {
            refreshResources.trigger();
            refreshBroadcasters.trigger();
          }
          break;
        case 'BroadcasterCreated':
        case 'BroadcasterDestroyed':
          refreshOverview.trigger();
          if (visible) refreshBroadcasters.trigger();
          break;
        case 'AgentSessionStarted':
        case 'AgentSessionEnded':
        case 'TaskStateChanged':
        case 'AgentDispatched':
        case 'AgentCompleted':
          refreshOverview.trigger();
          break;
        default:
          break;
      }
    },
    onUnreachable: showStatusDown,
    get overview() {
      return overview;
    },
  };
}
