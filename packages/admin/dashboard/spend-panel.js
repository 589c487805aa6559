// The Governance tab's Spend panel: what the models cost, grouped by agent, principal or model
// over a window (GET spend), as a bar chart and a table, and the budgets with how much of each is
// used (GET governance/budgets). A server without these endpoints (an fw from before budgets)
// answers 404: the panel then hides its content behind one short note instead of an error.

import { ApiError, get } from './api.js';
import { createTable } from './data-table.js';
import { $, h, replace, s, setText } from './dom.js';
import { num } from './format.js';
import { throttled } from './schedule.js';

/** The windows offered: spend is kept per UTC day, so a window starts at a day (today: the server's default). */
const WINDOWS = { today: 0, week: 6 * 86_400_000, month: 29 * 86_400_000 };
/** Bars drawn at most (the table has every row). */
const BARS = 8;
const BAR_HEIGHT = 22;
const LABEL_WIDTH = 140;

const usd = (v) => (typeof v === 'number' && Number.isFinite(v) ? `$${v < 1 ? v.toFixed(4) : v.toFixed(2)}` : '—');
const badge = (text, cls) => h('span', { class: `badge ${cls}`.trim(), text });

export function createSpendPanel() {
  const form = $('#spend-form');
  const body = $('#spend-body');
  const absent = $('#spend-absent');

  const spendTable = createTable($('#spend-table'), {
    label: 'Spend',
    rowKey: (r) => r.key,
    empty: 'No model call in this window.',
    sort: { key: 'costUsd', dir: 'descending' },
    columns: [
      // A principal key of '' is every call without one.
      {
        key: 'key',
        label: 'Key',
        render: (r) => (r.key === '' ? h('span', { class: 'muted', text: 'anonymous' }) : h('code', { text: r.key })),
      },
      { key: 'calls', label: 'Calls', num: true },
      { key: 'inputTokens', label: 'Input tokens', num: true },
      { key: 'outputTokens', label: 'Output tokens', num: true },
      { key: 'cachedTokens', label: 'Cached tokens', num: true },
      { key: 'costUsd', label: 'Cost (USD)', num: true, render: (r) => usd(r.costUsd) },
    ],
  });

  const budgetsTable = createTable($('#budgets-table'), {
    label: 'Budgets',
    rowKey: (b) => b.id,
    empty: 'No budget is configured.',
    sort: { key: 'state', dir: 'descending' },
    columns: [
      {
        key: 'scope',
        label: 'Scope',
        value: (b) => `${b.scope}${b.key ? ` ${b.key}` : ''}`,
        render: (b) => [b.scope, ' ', h('code', { text: b.key ?? '*' })],
      },
      { key: 'period', label: 'Period' },
      { key: 'used', label: 'Used', value: (b) => limitText(b.used), wrap: true },
      { key: 'soft', label: 'Soft limit', value: (b) => limitText(b.soft), wrap: true },
      { key: 'hard', label: 'Hard limit', value: (b) => limitText(b.hard), wrap: true },
      {
        key: 'state',
        label: 'State',
        value: (b) => ({ ok: 0, soft: 1, hard: 2 })[b.state] ?? 0,
        render: (b) =>
          b.state === 'hard' ? badge('hard limit', 'bad') : b.state === 'soft' ? badge('soft limit', 'warn') : badge('ok', 'ok'),
        sig: (b) => String(b.state),
      },
    ],
  });

  const chart = $('#spend-chart');

  /** Bars of cost, or of tokens while nothing has a price (every cost 0: no price table, or unpriced models). */
  function drawBars(rows) {
    const priced = rows.some((r) => (r.costUsd ?? 0) > 0);
    const value = priced ? (r) => r.costUsd ?? 0 : (r) => (r.inputTokens ?? 0) + (r.outputTokens ?? 0);
    const show = priced ? (r) => usd(r.costUsd) : (r) => `${num(value(r))} tokens`;
    const top = [...rows].sort((a, b) => value(b) - value(a)).slice(0, BARS);
    const width = Math.max(300, Math.round(chart.getBoundingClientRect().width || 600));
    const max = Math.max(...top.map(value), 0);
    const plot = width - LABEL_WIDTH - 110;
    const height = Math.max(1, top.length) * BAR_HEIGHT + 4;
    const name = (r) => (r.key === '' ? 'anonymous' : String(r.key));
    const svg = s('svg', {
      class: 'bars',
      role: 'img',
      viewBox: `0 0 ${width} ${height}`,
      width,
      height,
      'aria-label': top.length
        ? `${priced ? 'Cost' : 'Tokens (no price known)'} by ${form.elements.by.value}: ${top.map((r) => `${name(r)} ${show(r)}`).join(', ')}`
        : 'No spend in this window',
    });
    if (!top.length)
      svg.append(
        s('text', { class: 'axis', x: width / 2, y: BAR_HEIGHT / 2 + 6, 'text-anchor': 'middle', text: 'no model call in this window' }),
      );
    top.forEach((r, i) => {
      const y = i * BAR_HEIGHT + 2;
      const w = max > 0 ? Math.max(1, (value(r) / max) * plot) : 1;
      const label = name(r);
      svg.append(
        s('text', {
          class: 'axis',
          x: LABEL_WIDTH - 6,
          y: y + 14,
          'text-anchor': 'end',
          text: label.length > 22 ? `${label.slice(0, 21)}…` : label,
        }),
        s('rect', { class: 'bar', x: LABEL_WIDTH, y: y + 3, width: w.toFixed(1), height: BAR_HEIGHT - 8, rx: 2 }),
        s('text', { class: 'axis', x: LABEL_WIDTH + w + 6, y: y + 14, text: show(r) }),
      );
    });
    replace(chart, svg);
    setText($('#spend-chart-note'), priced ? 'Cost by key (USD)' : 'Tokens by key (no price is known for these models)');
  }

  /** Hides the panel's content when the server has no such endpoint; answers whether it was absent. */
  function absentIf(err) {
    if (!(err instanceof ApiError && err.status === 404)) return false;
    body.hidden = true;
    absent.hidden = false;
    return true;
  }

  const refreshSpend = throttled(
    async () => {
      const f = form.elements;
      const back = WINDOWS[f.since.value] ?? 0;
      const since = back ? new Date(Date.now() - back).toISOString().slice(0, 10) : undefined;
      try {
        const { data } = await get('spend', { by: f.by.value, since });
        body.hidden = false;
        absent.hidden = true;
        const rows = data?.rows ?? [];
        spendTable.setRows(rows);
        drawBars(rows);
        const t = data?.total;
        setText(
          $('#spend-total'),
          t
            ? `Total ${usd(t.costUsd)} · ${num(t.calls)} call${t.calls === 1 ? '' : 's'} · ${num(t.inputTokens)} in / ${num(t.outputTokens)} out tokens${
                data?.unpriced?.length ? ` · no price for ${data.unpriced.join(', ')} (counted at $0)` : ''
              }`
            : '',
        );
      } catch (err) {
        if (!absentIf(err)) throw err;
      }
    },
    1000,
    (err) => spendTable.setError(err),
  );

  const refreshBudgets = throttled(
    async () => {
      try {
        const { data } = await get('governance/budgets');
        budgetsTable.setRows(data?.budgets ?? []);
      } catch (err) {
        if (!absentIf(err)) throw err;
      }
    },
    1000,
    (err) => budgetsTable.setError(err),
  );

  form.addEventListener('change', () => refreshSpend.now());
  form.addEventListener('submit', (e) => e.preventDefault());

  return {
    refresh() {
      refreshSpend.trigger();
      refreshBudgets.trigger();
    },
    now() {
      refreshSpend.now();
      refreshBudgets.now();
    },
    onEvent(ev) {
      if (ev.type === 'BudgetSoftLimitReached' || ev.type === 'BudgetExceeded') {
        refreshBudgets.trigger();
        refreshSpend.trigger();
      }
    },
  };
}

/** `{tokens, usd}` as `1,200 tokens · $0.50`; null as `—`. */
function limitText(limit) {
  if (!limit) return '—';
  const parts = [];
  if (typeof limit.tokens === 'number') parts.push(`${num(limit.tokens)} tokens`);
  if (typeof limit.usd === 'number') parts.push(usd(limit.usd));
  return parts.join(' · ') || '—';
}
