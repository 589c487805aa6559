// The execution graph of one coordination, drawn as SVG: nodes in layers from the coordinator
// outwards, edges coloured by outcome and labelled with their kind, count, total duration and
// failures. Below it, a timeline of the individual calls from the journal events. All text is
// set with textContent.

import { s } from './dom.js';
import { duration, num } from './format.js';

const NODE_W = 168;
const NODE_H = 44;
const COL_GAP = 170;
const ROW_GAP = 26;
const PAD = 24;

/** Renders `graph` (CoordinationGraph) into an SVG element. */
export function renderGraph(graph) {
  const nodes = graph.nodes ?? [];
  const edges = graph.edges ?? [];
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

  const columns = [];
  for (const n of nodes) {
    const c = col.get(n.id);
    (columns[c] ??= []).push(n);
  }
  const tallest = Math.max(1, ...columns.map((c) => c?.length ?? 0));
  const height = PAD * 2 + tallest * NODE_H + (tallest - 1) * ROW_GAP + 34;
  const loops = edges.some((e) => col.get(e.from) === col.get(e.to));
  const width = PAD * 2 + columns.length * NODE_W + (columns.length - 1) * COL_GAP + (loops ? 150 : 0);
  const pos = new Map();
  columns.forEach((list, c) => {
    if (!list) return;
    const block = list.length * NODE_H + (list.length - 1) * ROW_GAP;
    const top = PAD + 14 + (height - PAD * 2 - 40 - block) / 2;
    list.forEach((n, r) => pos.set(n.id, { x: PAD + c * (NODE_W + COL_GAP), y: top + r * (NODE_H + ROW_GAP) }));
  });

  const svg = s('svg', {
    width, height, viewBox: `0 0 ${width} ${height}`, role: 'img',
    'aria-label': `Execution graph of coordination ${graph.coordinationId}: ${nodes.length} nodes, ${edges.length} edges`,
  });
  const defs = s('defs');
  for (const o of ['success', 'failure', 'mixed', 'pending']) {
    defs.append(s('marker', { id: `arrow-${o}`, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
      s('path', { d: 'M0,0 L10,5 L0,10 z', class: `arrow-${o}` })));
  }
  svg.append(defs);
  columns.forEach((list, c) => {
    if (!list) return;
    const kinds = new Set(list.map((n) => n.kind));
    const label = c === 0 ? 'coordinator' : kinds.size === 1 ? `${[...kinds][0]}s` : 'agents';
    svg.append(s('text', { class: 'lane-label', x: PAD + c * (NODE_W + COL_GAP), y: PAD, text: label }));
  });

  const edgeLayer = s('g');
  const labelLayer = s('g');
  const pairSeen = new Map();
  for (const e of edges) {
    const a = pos.get(e.from);
    const b = pos.get(e.to);
    if (!a || !b) continue;
    const outcome = ['success', 'failure', 'mixed', 'pending'].includes(e.outcome) ? e.outcome : 'pending';
    const g = s('g', { class: `edge ${outcome} ${e.kind}` });
    let d;
    let lx;
    let ly;
    let anchor = 'middle';
    const nth = pairSeen.get(`${e.from}>${e.to}`) ?? 0;
    pairSeen.set(`${e.from}>${e.to}`, nth + 1);
    if (b.x > a.x) {
      const x1 = a.x + NODE_W;
      const y1 = a.y + NODE_H / 2 + nth * 6;
      const x2 = b.x;
      const y2 = b.y + NODE_H / 2 + nth * 6;
      const mx = (x1 + x2) / 2;
      d = `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2 - 2},${y2}`;
      // Label near the target, where the fanned-out edges are furthest apart.
      const t = 0.7;
      lx = cubic(x1, mx, mx, x2, t);
      ly = cubic(y1, y1, y2, y2, t);
    } else if (b.x === a.x) {
      // Same layer (a handoff between peers): a loop out to the right of the column.
      const x1 = a.x + NODE_W;
      const y1 = a.y + NODE_H / 2 - 6;
      const y2 = b.y + NODE_H / 2 + 6;
      const out = x1 + 46 + nth * 12;
      d = `M${x1},${y1} C${out},${y1} ${out},${y2} ${x1 + 2},${y2}`;
      lx = out + 8;
      ly = (y1 + y2) / 2;
      anchor = 'start';
    } else {
      // Backwards: an arc below the nodes.
      const x1 = a.x + NODE_W / 2;
      const y1 = a.y + NODE_H;
      const x2 = b.x + NODE_W / 2;
      const y2 = b.y + NODE_H;
      const dip = Math.max(y1, y2) + 34 + nth * 10;
      d = `M${x1},${y1} C${x1},${dip} ${x2},${dip} ${x2},${y2 + 2}`;
      lx = (x1 + x2) / 2;
      ly = dip - 4;
    }
    const path = s('path', { d, 'marker-end': `url(#arrow-${outcome})` });
    path.append(s('title', { text: edgeTitle(e) }));
    g.append(path);
    edgeLayer.append(g);
    const count = e.count > 1 ? ` ×${num(e.count)}` : '';
    const lab = s('g', { class: `edge ${outcome}` },
      s('text', { x: lx, y: ly - 3, 'text-anchor': anchor, text: e.kind === 'handoff' && !e.totalDurationMs ? `${e.kind}${count}` : `${e.kind}${count} · ${duration(e.totalDurationMs)}` }),
      s('text', { class: 'detail', x: lx, y: ly + 10, 'text-anchor': anchor, text: outcomeText(e) }));
    labelLayer.append(lab);
  }
  svg.append(edgeLayer, labelLayer);

  for (const n of nodes) {
    const p = pos.get(n.id);
    const name = String(n.id);
    const g = s('g', { class: `node ${n.kind}`, transform: `translate(${p.x},${p.y})` },
      s('rect', { width: NODE_W, height: NODE_H, rx: 6 }),
      s('text', { x: 10, y: 18, text: name.length > 22 ? `${name.slice(0, 21)}…` : name }),
      s('text', { class: 'kind', x: 10, y: 34, text: n.kind }));
    g.append(s('title', { text: `${n.kind} ${name}` }));
    svg.append(g);
  }
  return svg;
}

function cubic(p0, p1, p2, p3, t) {
  const u = 1 - t;
  return u * u * u * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t * p3;
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
  const t0 = Math.min(...evs.map((e) => t(e) - (e.kind === 'evaluation' ? e.durationMs ?? 0 : 0)));
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
      const target = row ?? { label: `${e.agent}${e.skill ? ` · ${e.skill}` : ''}`, start: end - (e.durationMs ?? 0), end, state: 'pending' };
      if (!row) rows.push(target);
      target.end = e.durationMs !== undefined ? target.start + e.durationMs : end;
      target.state = e.kind === 'completion' ? 'ok' : 'bad';
      if (e.error) target.error = String(e.error);
    } else {
      const what = e.kind === 'handoff'
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
  const svg = s('svg', { class: 'timeline', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `Timeline of ${rows.length} calls over ${duration(span)}` });
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
    bar.append(s('title', { text: `${r.label}: ${r.mark ? '' : r.end === undefined ? 'in progress' : duration(r.end - r.start)}${r.error ? ` (${r.error})` : ''}` }));
    svg.append(bar);
    if (!r.mark) {
      const txt = r.end === undefined ? 'in progress' : `${duration(r.end - r.start)}${r.state === 'bad' ? ' failed' : ''}`;
      svg.append(s('text', { class: 'dim', x: x2 + 6, y: y + 12, text: txt }));
    }
  });
  return svg;
}
