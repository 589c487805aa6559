// The execution graph of one coordination, drawn as SVG: nodes in layers from the coordinator
// outwards, edges coloured by outcome and labelled with their kind, count, total duration and
// failures. Below it, a timeline of the individual calls from the journal events. All text is
// set with textContent.

import { h, s } from './dom.js';
import { duration, num } from './format.js';

const NODE_W = 230;
const HEAD_H = 40;
const LINE_H = 17;
const COL_GAP = 120;
const ROW_GAP = 22;
const PAD = 24;
const OUTCOMES = ['success', 'failure', 'mixed', 'pending'];

/**
 * Renders `graph` (CoordinationGraph) into an SVG element. Each node lists the edges that arrive
 * at it, one line per edge (kind, calls, total duration, outcome), and each edge's arrow ends at
 * its own line, so a label can never be read against the wrong edge.
 */
export function renderGraph(graph, options = {}) {
  const lineOf = options.line ?? edgeLine;
  const titleOf = options.title ?? edgeTitle;
  const nodes = graph.nodes ?? [];
  const edges = (graph.edges ?? []).filter((e) => nodes.some((n) => n.id === e.from) && nodes.some((n) => n.id === e.to));
  const col = new Map();
  for (const n of nodes) if (n.kind === 'coordinator') col.set(n.id, 0);
  if (col.size === 0 && nodes[0]) col.set(nodes[0].id, 0);
  // Breadth-first from the coordinators: a node sits one layer right of its first caller.
  const queue = [...col.keys()];
  while (queue.length) {
    const id = queue.shift();
    for (const e of edges) {
      if (e.from === id && !col.has(e.to)) {
        col.set(e.to, col.get(id) + 1);
        queue.push(e.to);
      }
    }
  }
  for (const n of nodes) if (!col.has(n.id)) col.set(n.id, n.kind === 'coordinator' ? 0 : 1);

  const incoming = new Map(nodes.map((n) => [n.id, []]));
  for (const e of edges) incoming.get(e.to).push(e);
  const heightOf = (id) => HEAD_H + incoming.get(id).length * LINE_H + (incoming.get(id).length ? 6 : 0);

  const columns = [];
  for (const n of nodes) (columns[col.get(n.id)] ??= []).push(n);
  const colHeight = (list) => (list ?? []).reduce((h, n) => h + heightOf(n.id), 0) + Math.max(0, (list?.length ?? 1) - 1) * ROW_GAP;
  const inner = Math.max(HEAD_H, ...columns.map(colHeight));
  const loops = edges.some((e) => col.get(e.from) >= col.get(e.to));
  const width = PAD * 2 + columns.length * NODE_W + (columns.length - 1) * COL_GAP + (loops ? 60 : 0);
  const height = PAD * 2 + 16 + inner;
  const pos = new Map();
  columns.forEach((list, c) => {
    if (!list) return;
    let y = PAD + 16 + (inner - colHeight(list)) / 2;
    for (const n of list) {
      pos.set(n.id, { x: PAD + c * (NODE_W + COL_GAP), y, h: heightOf(n.id) });
      y += heightOf(n.id) + ROW_GAP;
    }
  });

  const svg = s('svg', {
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-label': `${options.label ?? `Execution graph of coordination ${graph.coordinationId}`}: ${nodes.length} nodes, ${edges.length} edges`,
  });
  const defs = s('defs');
  for (const o of OUTCOMES) {
    defs.append(
      s(
        'marker',
        { id: `arrow-${o}`, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
        s('path', { d: 'M0,0 L10,5 L0,10 z', class: `arrow-${o}` }),
      ),
    );
  }
  svg.append(defs);
  columns.forEach((list, c) => {
    if (!list) return;
    const kinds = new Set(list.map((n) => n.kind));
    const label = c === 0 ? 'coordinator' : kinds.size === 1 ? `${[...kinds][0]}s` : 'agents';
    svg.append(s('text', { class: 'lane-label', x: PAD + c * (NODE_W + COL_GAP), y: PAD, text: label }));
  });

  const edgeLayer = s('g');
  svg.append(edgeLayer);
  for (const n of nodes) {
    const p = pos.get(n.id);
    const name = String(n.id);
    const g = s(
      'g',
      { class: `node ${n.kind}`, transform: `translate(${p.x},${p.y})` },
      s('rect', { width: NODE_W, height: p.h, rx: 6 }),
      s('text', { x: 10, y: 18, text: name.length > 28 ? `${name.slice(0, 27)}…` : name }),
      s('text', { class: 'kind', x: 10, y: 32, text: n.kind }),
    );
    g.append(s('title', { text: `${n.kind} ${name}` }));
    incoming.get(n.id).forEach((e, i) => {
      const outcome = OUTCOMES.includes(e.outcome) ? e.outcome : 'pending';
      const y = HEAD_H + i * LINE_H + 10;
      g.append(s('circle', { class: `dot ${outcome}`, cx: 14, cy: y - 4, r: 3.5 }));
      g.append(s('text', { class: 'edge-line', x: 24, y, text: clip(lineOf(e)) }, s('title', { text: titleOf(e) })));
    });
    svg.append(g);
  }

  // Each edge ends at the line that describes it in its target node.
  edges.forEach((e) => {
    const a = pos.get(e.from);
    const b = pos.get(e.to);
    const i = incoming.get(e.to).indexOf(e);
    const outcome = OUTCOMES.includes(e.outcome) ? e.outcome : 'pending';
    const ty = b.y + HEAD_H + i * LINE_H + 6;
    let d;
    if (b.x > a.x) {
      const x1 = a.x + NODE_W;
      const y1 = a.y + Math.min(a.h, HEAD_H) / 2 + 2;
      const x2 = b.x;
      const mx = (x1 + x2) / 2;
      d = `M${x1},${y1} C${mx},${y1} ${mx},${ty} ${x2 - 2},${ty}`;
    } else {
      // Same layer or backwards (a handoff between agents): a loop out on the right.
      const x1 = a.x + NODE_W;
      const y1 = a.y + HEAD_H / 2;
      const x2 = b.x + NODE_W;
      const out = Math.max(x1, x2) + 40;
      d = `M${x1},${y1} C${out},${y1} ${out},${ty} ${x2 + 2},${ty}`;
    }
    const path = s('path', { d, 'marker-end': `url(#arrow-${outcome})` }, s('title', { text: titleOf(e) }));
    edgeLayer.append(s('g', { class: `edge ${outcome} ${e.kind}` }, path));
  });
  return svg;
}

/** The line a node shows for one incoming edge: `dispatch ×2 · 1.20 s · 1 failed`. */
function edgeLine(e) {
  const count = e.count > 1 ? ` ×${num(e.count)}` : '';
  const from = e.kind === 'dispatch' ? '' : ` from ${e.from}`;
  const time = e.kind === 'dispatch' || e.totalDurationMs ? ` · ${duration(e.totalDurationMs)}` : '';
  return `${e.kind}${count}${from}${time} · ${outcomeText(e)}`;
}

/** A node line fits its box. */
function clip(text) {
  return text.length > 36 ? `${text.slice(0, 35)}…` : text;
}

function outcomeText(e) {
  if (e.outcome === 'pending') return 'in progress';
  if (e.failures > 0) return `${num(e.failures)} failed${e.outcome === 'mixed' ? `, ${num(e.count - e.failures)} ok` : ''}`;
  return e.outcome === 'success' ? 'ok' : String(e.outcome);
}

function edgeTitle(e) {
  return `${e.from} → ${e.to}: ${e.kind}, ${num(e.count)} call(s), ${num(e.failures)} failure(s), ${duration(e.totalDurationMs)} in total, ${e.outcome}`;
}

/**
 * A timeline of one coordination's calls from its journal events: each dispatch paired with the
 * completion or failure that ends it, as a bar on a shared time axis; handoffs and evaluations
 * as labelled marks.
 */
export function renderTimeline(events) {
  const evs = [...events].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  if (evs.length === 0) return null;
  const t = (e) => Date.parse(e.timestamp);
  const t0 = Math.min(...evs.map((e) => t(e) - (e.kind === 'evaluation' ? (e.durationMs ?? 0) : 0)));
  const open = new Map();
  const rows = [];
  for (const e of evs) {
    const k = `${e.agent}|${e.skill ?? ''}`;
    if (e.kind === 'dispatch') {
      const row = { label: `${e.agent}${e.skill ? ` · ${e.skill}` : ''}`, start: t(e), end: undefined, state: 'pending' };
      rows.push(row);
      (open.get(k) ?? open.set(k, []).get(k)).push(row);
    } else if (e.kind === 'completion' || e.kind === 'failure') {
      const row = open.get(k)?.shift();
      const end = t(e);
      const target = row ?? {
        label: `${e.agent}${e.skill ? ` · ${e.skill}` : ''}`,
        start: end - (e.durationMs ?? 0),
        end,
        state: 'pending',
      };
      if (!row) rows.push(target);
      target.end = e.durationMs !== undefined ? target.start + e.durationMs : end;
      target.state = e.kind === 'completion' ? 'ok' : 'bad';
      if (e.error) target.error = String(e.error);
    } else {
      const what =
        e.kind === 'handoff'
          ? `handoff ${e.from ?? '?'} → ${e.to ?? '?'}${e.reason ? ` (${e.reason})` : ''}`
          : `evaluation by ${e.evaluator ?? e.agent}${e.score !== undefined ? `: ${e.score}` : ''}${e.passed === undefined ? '' : e.passed ? ', passed' : ', failed'}`;
      const state = e.kind === 'evaluation' && e.passed === false ? 'bad' : 'ok';
      if (e.durationMs) rows.push({ label: what, start: t(e) - e.durationMs, end: t(e), state });
      else rows.push({ label: what, start: t(e), end: t(e), state, mark: true });
    }
  }
  const now = Date.now();
  const tEnd = Math.max(t0 + 1, ...rows.map((r) => r.end ?? now));
  const span = tEnd - t0;
  const labelW = 250;
  const barW = 420;
  const rowH = 20;
  const width = labelW + barW + 110;
  const height = rows.length * rowH + 26;
  const x = (ms) => labelW + ((ms - t0) / span) * barW;
  const svg = s('svg', {
    class: 'timeline',
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-label': `Timeline of ${rows.length} calls over ${duration(span)}`,
  });
  svg.append(s('line', { x1: labelW, x2: labelW + barW, y1: height - 18, y2: height - 18 }));
  svg.append(s('text', { class: 'dim', x: labelW, y: height - 4, text: '0' }));
  svg.append(s('text', { class: 'dim', x: labelW + barW, y: height - 4, 'text-anchor': 'middle', text: duration(span) }));
  rows.forEach((r, i) => {
    const y = i * rowH + 4;
    const label = r.label.length > 38 ? `${r.label.slice(0, 37)}…` : r.label;
    svg.append(s('text', { x: 0, y: y + 12, text: label }, s('title', { text: r.label })));
    const x1 = x(r.start);
    const x2 = Math.max(x1 + 2, x(r.end ?? now));
    const bar = s('rect', { class: r.state, x: x1, y: y + 3, width: r.mark ? 3 : x2 - x1, height: 11, rx: 2 });
    bar.append(
      s('title', {
        text: `${r.label}: ${r.mark ? '' : r.end === undefined ? 'in progress' : duration(r.end - r.start)}${r.error ? ` (${r.error})` : ''}`,
      }),
    );
    svg.append(bar);
    if (!r.mark) {
      const txt = r.end === undefined ? 'in progress' : `${duration(r.end - r.start)}${r.state === 'bad' ? ' failed' : ''}`;
      svg.append(s('text', { class: 'dim', x: x2 + 6, y: y + 12, text: txt }));
    }
  });
  return svg;
}

const TREE_KIND = { dispatch: '', completion: 'ok', failure: 'bad', handoff: 'warn', evaluation: 'accent', interrupted: 'bad' };

/**
 * The causal tree of one coordination (`GET journal/{id}/tree`): each event under the event that
 * caused it, so a fan-out is several dispatches under one step, a retry a dispatch under the
 * failure it repeats, handoffs and evaluations branches of the answer they follow. Nested lists,
 * text only.
 */
export function renderTree(roots) {
  const item = (e) =>
    h(
      'li',
      { dataset: { kind: String(e.kind), eventId: String(e.eventId ?? '') } },
      h('span', { class: `badge ${TREE_KIND[e.kind] ?? ''}`.trim(), text: String(e.kind) }),
      ' ',
      treeText(e),
      e.children?.length ? h('ul', {}, e.children.map(item)) : null,
    );
  return h('ul', { class: 'tree', attrs: { 'aria-label': 'Causal tree: each event under the event that caused it' } }, roots.map(item));
}

function treeText(e) {
  const attempt = e.attempt > 1 ? ` (attempt ${e.attempt})` : '';
  const time = e.durationMs !== undefined ? ` · ${duration(e.durationMs)}` : '';
  switch (e.kind) {
    case 'dispatch':
      return `${e.coordinator} → ${e.agent}${e.skill && e.skill !== 'default' ? ` · ${e.skill}` : ''}${attempt}`;
    case 'completion':
      return `${e.agent} answered${time}`;
    case 'failure':
      return `${e.agent} failed${time}: ${e.error ?? 'unknown'}`;
    case 'handoff':
      return `${e.from ?? '?'} → ${e.to ?? '?'}${e.reason ? `: ${e.reason}` : ''}`;
    case 'evaluation':
      return `${e.evaluator ?? '?'} rated ${e.agent}: ${e.score ?? '?'}${e.passed === undefined ? '' : e.passed ? ', passed' : ', failed'}`;
    default:
      return `${e.agent}${e.error ? `: ${e.error}` : ''}`;
  }
}
