// One run as a waterfall: its model calls, tool calls, handoffs and errors on a shared time axis,
// with the runs it started (a coordinator's dispatches) nested under it, each with its own calls.
// Drawn as SVG from the run tree (GET tape/runs/{id}/replay); every label is set as text.

import { s } from './dom.js';
import { cost, duration, num } from './format.js';
import { oneLine, plain } from './run-text.js';

const ROW_H = 22;
const LABEL_W = 250;
const BAR_W = 520;
const INFO_W = 250;
const AXIS_H = 26;
const INDENT = 14;
/** Rows drawn at most: a tape is data, a coordination may be large. */
export const MAX_ROWS = 400;

const t = (iso) => new Date(iso).getTime();

/**
 * The rows of a run tree, in start order within each run: the run itself, then its steps and
 * child runs interleaved by time. Each row: `{ kind, depth, start, end, label, info, cls, runId, seq }`.
 */
export function waterfallRows(tree, now = Date.now()) {
  const rows = [];
  const walk = (node, depth) => {
    if (rows.length >= MAX_ROWS) return;
    const run = node.run;
    const start = t(run.startedAt);
    const end = run.endedAt ? t(run.endedAt) : now;
    const spent = (node.steps ?? []).reduce((sum, s) => (typeof s.cost === 'number' ? (sum ?? 0) + s.cost : sum), undefined);
    rows.push({
      kind: 'run',
      depth,
      start,
      end,
      label: `${run.agent}${run.protocol ? ` (${run.protocol})` : ''}`,
      info: `${duration(end - start)}${tokens(run.inputTokens, run.outputTokens)}${priced(spent)}`,
      cls: `wf-run ${run.status === 'failed' || run.status === 'interrupted' ? 'bad' : run.status === 'open' ? 'open' : ''}`.trim(),
      runId: run.id,
    });
    /** @type {{ start: number, row?: any, child?: any }[]} */
    const items = [];
    for (const step of node.steps ?? []) {
      const row = stepRow(step, run.id, depth + 1);
      if (row) items.push({ start: row.start, row });
    }
    for (const child of node.children ?? []) items.push({ start: t(child.run.startedAt), child });
    items.sort((a, b) => a.start - b.start);
    for (const item of items) {
      if (rows.length >= MAX_ROWS) return;
      if (item.child) walk(item.child, depth + 1);
      else rows.push(item.row);
    }
  };
  walk(tree, 0);
  return rows;
}

function tokens(input, output) {
  return input || output ? ` · ${num(input ?? 0)} in / ${num(output ?? 0)} out` : '';
}

/** ` · cost 0.00018` when the tape's price list priced it. */
const priced = (c) => (typeof c === 'number' ? ` · cost ${cost(c)}` : '');

function stepRow(step, runId, depth) {
  const at = t(step.at);
  const d = step.durationMs ?? 0;
  const b = step.body ?? {};
  const base = { depth, runId, seq: step.seq };
  switch (step.kind) {
    case 'model-response': {
      const calls = (b.toolCalls ?? []).map((c) => c.toolName).join(', ');
      return {
        ...base,
        kind: 'model',
        start: at,
        end: at + d,
        label: `model #${b.step ?? 0}${calls ? ` → ${calls}` : ''}`,
        info: `${duration(d)}${tokens(b.usage?.inputTokens, b.usage?.outputTokens)}${priced(step.cost)}`,
        cls: b.error || b.failed ? 'wf-model bad' : 'wf-model',
      };
    }
    case 'tool-call':
      return {
        ...base,
        kind: 'tool',
        start: at - d,
        end: at,
        // The outline (no content role) has no arguments.
        label: 'input' in b ? `tool ${b.toolName ?? '?'}(${oneLine(b.input, 40)})` : `tool ${b.toolName ?? '?'}`,
        info: `${duration(d)}${b.ok === false ? ' · failed' : ''}`,
        cls: b.ok === false ? 'wf-tool bad' : 'wf-tool',
      };
    case 'handoff':
      return { ...base, kind: 'handoff', start: at, end: at, label: `handoff ${b.from} → ${b.to}`, info: b.reason ?? '', cls: 'wf-mark' };
    case 'end':
      return b.state === 'completed'
        ? undefined
        : {
            ...base,
            kind: 'error',
            start: at,
            end: at,
            label: b.error ? `${b.state}: ${oneLine(b.error, 60)}` : String(b.state),
            info: '',
            cls: 'wf-mark bad',
          };
    default:
      return undefined;
  }
}

/**
 * The waterfall SVG of `tree`. `onPick(row)` is called when a row is clicked or activated with
 * the keyboard (a step row: its run and seq; a run row: its run id).
 */
export function renderWaterfall(tree, onPick) {
  const rows = waterfallRows(tree);
  const t0 = Math.min(...rows.map((r) => r.start));
  const t1 = Math.max(t0 + 1, ...rows.map((r) => r.end));
  const span = t1 - t0;
  const x = (ms) => LABEL_W + ((ms - t0) / span) * BAR_W;
  const width = LABEL_W + BAR_W + INFO_W;
  const cut = rows.length >= MAX_ROWS;
  const height = AXIS_H + rows.length * ROW_H + 4 + (cut ? ROW_H : 0);
  const svg = s('svg', {
    class: 'waterfall',
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'list',
    'aria-label': `Waterfall of ${rows.length} rows over ${duration(span)}`,
  });
  // The time axis: five ticks from the run's start.
  for (let i = 0; i <= 4; i++) {
    const tx = LABEL_W + (BAR_W * i) / 4;
    svg.append(
      s('line', { class: 'wf-grid', x1: tx, x2: tx, y1: AXIS_H - 6, y2: height }),
      s('text', {
        class: 'wf-axis',
        x: tx,
        y: AXIS_H - 10,
        'text-anchor': i === 0 ? 'start' : i === 4 ? 'end' : 'middle',
        text: duration((span * i) / 4),
      }),
    );
  }
  rows.forEach((row, i) => {
    const y = AXIS_H + i * ROW_H;
    const g = s('g', {
      class: `wf-row ${row.kind}`,
      role: 'listitem',
      tabindex: 0,
      'data-kind': row.kind,
      'data-run-id': row.runId,
      'data-seq': row.seq,
      'aria-label': plain(`${row.label}, ${row.info}`),
    });
    g.append(s('rect', { class: 'wf-hit', x: 0, y, width, height: ROW_H }));
    g.append(
      s('text', { class: 'wf-label', x: 6 + row.depth * INDENT, y: y + 15, text: clip(plain(row.label), 34 - row.depth * 2) }),
      s('title', { text: plain(row.label) }),
    );
    const bx = x(row.start);
    if (row.kind === 'handoff' || row.kind === 'error') {
      // A moment, not a span: a diamond.
      g.append(s('path', { class: row.cls, d: `M${bx} ${y + 4} l6 7 l-6 7 l-6 -7 z` }));
    } else {
      g.append(s('rect', { class: row.cls, x: bx, y: y + 5, width: Math.max(2, x(row.end) - bx), height: ROW_H - 10, rx: 2 }));
    }
    g.append(s('text', { class: 'wf-info', x: LABEL_W + BAR_W + 8, y: y + 15, text: clip(plain(row.info), 44) }));
    const pick = () => onPick?.(row);
    g.addEventListener('click', pick);
    g.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        pick();
      }
    });
    svg.append(g);
  });
  if (cut)
    svg.append(
      s('text', {
        class: 'wf-info',
        x: 6,
        y: AXIS_H + rows.length * ROW_H + 15,
        text: `Only the first ${MAX_ROWS} rows are drawn: open a child run, or step through, for the rest.`,
      }),
    );
  return svg;
}

function clip(text, max) {
  return text.length > max ? `${text.slice(0, Math.max(1, max - 1))}…` : text;
}
