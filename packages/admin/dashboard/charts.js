// Time-series charts of the last 15 minutes, drawn as SVG by the page itself (no library: a few
// polylines, a grid and labels). Each chart says what it shows in words (a summary line that is
// also the SVG's accessible name) and in numbers (a per-minute table behind "Numbers"). Colours
// come from CSS classes, so the charts follow the light and dark themes.

import { h, replace, s, setText } from './dom.js';
import { num } from './format.js';

/** The window the charts show (the server keeps 5 s × 180 samples by default). */
export const CHART_WINDOW_MS = 15 * 60_000;
/** While the server has less history than the window, the axis spans what there is (a minute at least). */
const MIN_SPAN_MS = 60_000;
/** Tick steps of the time axis, the first that gives at most five ticks wins. */
const TICK_STEPS_MS = [30_000, 60_000, 2 * 60_000, 5 * 60_000];
const HEIGHT = 150;
const PAD = { left: 40, right: 10, top: 10, bottom: 22 };

/**
 * @typedef {{ t: number, values: Record<string, number> }} ChartPoint
 * @typedef {{ key: string, label: string }} ChartSeries
 * @typedef {{
 *   title: string,
 *   series: ChartSeries[],
 *   unit: string,
 *   kind: 'gauge' | 'rate' | 'count',
 *   digits?: number,
 * }} ChartOptions
 */

let ids = 0;

/**
 * A chart in `host`. `kind` says how to read the numbers: `gauge` (a level at each point, e.g.
 * connections), `rate` (per second), `count` (events per sample interval).
 * @param {HTMLElement} host
 * @param {ChartOptions} options
 */
export function createTimeChart(host, options) {
  const id = `chart-${++ids}`;
  const digits = options.digits ?? (options.kind === 'rate' ? 1 : 0);
  const svg = /** @type {SVGSVGElement} */ (s('svg', { class: 'tchart', role: 'img', 'aria-labelledby': `${id}-summary`, height: HEIGHT }));
  const summary = h('p', { class: 'chart-summary', attrs: { id: `${id}-summary` } });
  const legend = h(
    'ul',
    { class: 'chart-legend', attrs: { 'aria-hidden': 'true' } },
    options.series.map((se, i) => h('li', { dataset: { series: String(i + 1) } }, h('span', { class: 'swatch' }), se.label)),
  );
  const table = h('table', { class: 'chart-table' });
  const details = h(
    'details',
    { class: 'chart-numbers' },
    h('summary', { text: `Numbers: ${options.title} per minute` }),
    h('div', { class: 'table-wrap' }, table),
  );
  replace(host, svg, legend, summary, details);

  /** @type {ChartPoint[]} */
  let points = [];
  let width = 0;

  function format(v) {
    return typeof v === 'number' && Number.isFinite(v) ? num(Number(v.toFixed(digits))) : '—';
  }

  function draw() {
    const w = Math.round(svg.getBoundingClientRect().width || host.clientWidth || 0);
    if (!w) return;
    width = w;
    svg.setAttribute('viewBox', `0 0 ${w} ${HEIGHT}`);
    svg.setAttribute('width', String(w));
    const now = Date.now();
    // A young server has little history: the axis spans it (two minutes at least) instead of
    // squeezing it against the right edge of fifteen empty minutes.
    const oldest = points.find((p) => p.t >= now - CHART_WINDOW_MS)?.t ?? now;
    const span = Math.min(CHART_WINDOW_MS, Math.max(MIN_SPAN_MS, now - oldest));
    const t0 = now - span;
    const shown = points.filter((p) => p.t >= t0);
    let max = 0;
    for (const p of shown) for (const se of options.series) max = Math.max(max, p.values[se.key] ?? 0);
    const top = niceMax(max, digits > 0);
    const plotW = w - PAD.left - PAD.right;
    const plotH = HEIGHT - PAD.top - PAD.bottom;
    const x = (/** @type {number} */ t) => PAD.left + ((t - t0) / span) * plotW;
    const y = (/** @type {number} */ v) => PAD.top + plotH * (1 - v / top);

    /** @type {Element[]} */
    const parts = [];
    for (const frac of [0, 0.5, 1]) {
      const gy = Math.round(y(top * frac)) + 0.5;
      parts.push(s('line', { class: 'grid', x1: PAD.left, x2: w - PAD.right, y1: gy, y2: gy }));
      parts.push(s('text', { class: 'axis', x: PAD.left - 6, y: gy + 4, 'text-anchor': 'end', text: format(top * frac) }));
    }
    const step = TICK_STEPS_MS.find((st) => span / st <= 5) ?? 5 * 60_000;
    for (let ago = 0; ago <= span + 1; ago += step) {
      const anchor = ago === 0 ? 'end' : ago + step > span + 1 ? 'start' : 'middle';
      const text = ago === 0 ? 'now' : ago % 60_000 === 0 ? `−${ago / 60_000} min` : `−${(ago / 60_000).toFixed(1)} min`;
      parts.push(s('text', { class: 'axis', x: x(now - ago), y: HEIGHT - 6, 'text-anchor': anchor, text }));
    }
    if (shown.length === 0) {
      parts.push(
        s('text', {
          class: 'axis',
          x: PAD.left + plotW / 2,
          y: PAD.top + plotH / 2,
          'text-anchor': 'middle',
          text: 'waiting for the first sample…',
        }),
      );
    }
    options.series.forEach((se, i) => {
      if (shown.length === 0) return;
      const coords = shown.map((p) => `${x(p.t).toFixed(1)},${y(p.values[se.key] ?? 0).toFixed(1)}`);
      // A single sample is a dot; more are a line.
      if (shown.length === 1)
        parts.push(s('circle', { class: `series s${i + 1}`, cx: x(shown[0].t), cy: y(shown[0].values[se.key] ?? 0), r: 2.5 }));
      else parts.push(s('polyline', { class: `series s${i + 1}`, points: coords.join(' ') }));
    });
    svg.replaceChildren(...parts);
  }

  function describe() {
    const shown = points.filter((p) => p.t >= Date.now() - CHART_WINDOW_MS);
    const last = shown[shown.length - 1];
    if (!last) {
      setText(summary, `${options.title}: no samples yet.`);
      return;
    }
    const minutes = Math.max(1, Math.round((last.t - shown[0].t) / 60_000));
    const parts = options.series.map((se) => {
      const values = shown.map((p) => p.values[se.key] ?? 0);
      const peak = Math.max(...values);
      if (options.kind === 'gauge') return `${se.label} ${format(last.values[se.key])} (peak ${format(peak)})`;
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      return `${se.label} ${format(last.values[se.key])} now, average ${format(mean)}, peak ${format(peak)}`;
    });
    setText(summary, `${options.title} (${options.unit}), last ${minutes} min: ${parts.join('; ')}.`);
  }

  function tabulate() {
    /** @type {Map<number, ChartPoint[]>} */
    const byMinute = new Map();
    for (const p of points) {
      if (p.t < Date.now() - CHART_WINDOW_MS) continue;
      const m = Math.floor(p.t / 60_000) * 60_000;
      const list = byMinute.get(m);
      if (list) list.push(p);
      else byMinute.set(m, [p]);
    }
    const head = h(
      'tr',
      {},
      h('th', { attrs: { scope: 'col' }, text: 'Minute' }),
      options.series.map((se) => h('th', { class: 'num', attrs: { scope: 'col' }, text: se.label })),
    );
    const rows = [...byMinute.entries()]
      .sort((a, b) => b[0] - a[0])
      .map(([m, list]) => {
        const d = new Date(m);
        const label = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
        return h(
          'tr',
          {},
          h('th', { attrs: { scope: 'row' }, text: label }),
          options.series.map((se) => {
            const values = list.map((p) => p.values[se.key] ?? 0);
            // Gauges: the level at the end of the minute; rates: the minute's average; counts: its sum.
            const v =
              options.kind === 'gauge'
                ? values[values.length - 1]
                : options.kind === 'rate'
                  ? values.reduce((a, b) => a + b, 0) / values.length
                  : values.reduce((a, b) => a + b, 0);
            return h('td', { class: 'num', text: format(v) });
          }),
        );
      });
    const caption = h('caption', {
      class: 'sr-only',
      text: `${options.title} per minute (${options.kind === 'count' ? 'sums' : options.kind === 'rate' ? 'averages' : 'levels at the end of each minute'}), newest first`,
    });
    table.replaceChildren(
      caption,
      h('thead', {}, head),
      h(
        'tbody',
        {},
        rows.length ? rows : h('tr', {}, h('td', { attrs: { colspan: String(options.series.length + 1) }, text: 'No samples yet.' })),
      ),
    );
  }

  function render() {
    draw();
    describe();
    if (details.open) tabulate();
  }
  details.addEventListener('toggle', () => {
    if (details.open) tabulate();
  });
  if (typeof ResizeObserver === 'function') {
    new ResizeObserver(() => {
      const w = Math.round(svg.getBoundingClientRect().width);
      if (w && w !== width) draw();
    }).observe(host);
  }

  return {
    /** Replaces every point (a history read from the server). @param {ChartPoint[]} next */
    set(next) {
      points = [...next].sort((a, b) => a.t - b.t);
      render();
    },
    /** Appends one point (a pushed sample); the ones older than the window fall off. @param {ChartPoint} p */
    push(p) {
      if (points.length && p.t <= points[points.length - 1].t) return;
      points.push(p);
      const cut = Date.now() - CHART_WINDOW_MS - 60_000;
      while (points.length && points[0].t < cut) points.shift();
      render();
    },
    draw: render,
    get points() {
      return points;
    },
  };
}

/**
 * A round axis maximum at or above v: 1, 2, 5 × 10^n for fractions; 2, 4, 10 × 10^n for whole
 * numbers, so the half-way mark is whole too.
 * @param {number} v
 * @param {boolean} fractional
 */
function niceMax(v, fractional) {
  const floor = fractional ? 0.5 : 2;
  if (!(v > floor)) return floor;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of fractional ? [1, 2, 5, 10] : [1, 2, 4, 10]) if (m * p >= v && (fractional || (m * p) % 2 === 0)) return m * p;
  return 10 * p;
}

/**
 * A pass-rate chart of eval runs (a baseline over time): one point per completed eval run, oldest
 * left, on a 0–100 % axis, with the runs' dates under the ends and the same summary line and
 * numbers table as the time charts.
 * @param {HTMLElement} host
 * @param {string} title
 */
export function createPassRateChart(host, title) {
  const id = `chart-${++ids}`;
  const svg = /** @type {SVGSVGElement} */ (s('svg', { class: 'tchart', role: 'img', 'aria-labelledby': `${id}-summary`, height: HEIGHT }));
  const summary = h('p', { class: 'chart-summary', attrs: { id: `${id}-summary` } });
  const table = h('table', { class: 'chart-table' });
  const details = h(
    'details',
    { class: 'chart-numbers' },
    h('summary', { text: `Numbers: ${title}` }),
    h('div', { class: 'table-wrap' }, table),
  );
  replace(host, svg, summary, details);
  /** @type {{ t: number, rate: number | null, label: string }[]} */
  let runs = [];
  const pct = (/** @type {number | null} */ r) => (r === null ? '—' : `${Math.round(r * 1000) / 10} %`);

  function draw() {
    const w = Math.round(svg.getBoundingClientRect().width || host.clientWidth || 0);
    if (!w) return;
    svg.setAttribute('viewBox', `0 0 ${w} ${HEIGHT}`);
    svg.setAttribute('width', String(w));
    const plotW = w - PAD.left - PAD.right;
    const plotH = HEIGHT - PAD.top - PAD.bottom;
    const x = (/** @type {number} */ i) => PAD.left + (runs.length < 2 ? plotW / 2 : (i / (runs.length - 1)) * plotW);
    const y = (/** @type {number} */ v) => PAD.top + plotH * (1 - v);
    /** @type {Element[]} */
    const parts = [];
    for (const frac of [0, 0.5, 1]) {
      const gy = Math.round(y(frac)) + 0.5;
      parts.push(s('line', { class: 'grid', x1: PAD.left, x2: w - PAD.right, y1: gy, y2: gy }));
      parts.push(s('text', { class: 'axis', x: PAD.left - 6, y: gy + 4, 'text-anchor': 'end', text: `${frac * 100} %` }));
    }
    const rated = runs.flatMap((r, i) => (r.rate === null ? [] : [{ rate: r.rate, i }]));
    if (rated.length === 0)
      parts.push(
        s('text', {
          class: 'axis',
          x: PAD.left + plotW / 2,
          y: PAD.top + plotH / 2,
          'text-anchor': 'middle',
          text: 'no completed eval run yet',
        }),
      );
    else if (rated.length === 1) parts.push(s('circle', { class: 'series s1', cx: x(rated[0].i), cy: y(rated[0].rate), r: 3 }));
    else {
      parts.push(s('polyline', { class: 'series s1', points: rated.map((r) => `${x(r.i).toFixed(1)},${y(r.rate).toFixed(1)}`).join(' ') }));
      for (const r of rated) parts.push(s('circle', { class: 'series s1', cx: x(r.i), cy: y(r.rate), r: 2.5 }));
    }
    if (runs.length) {
      parts.push(s('text', { class: 'axis', x: PAD.left, y: HEIGHT - 6, 'text-anchor': 'start', text: runs[0].label }));
      if (runs.length > 1)
        parts.push(s('text', { class: 'axis', x: w - PAD.right, y: HEIGHT - 6, 'text-anchor': 'end', text: runs[runs.length - 1].label }));
    }
    svg.replaceChildren(...parts);
  }

  function render() {
    draw();
    const last = runs[runs.length - 1];
    const first = runs[0];
    setText(
      summary,
      last
        ? `${title}: ${pct(last.rate)} in the newest of ${runs.length} eval run${runs.length === 1 ? '' : 's'}${runs.length > 1 ? ` (${pct(first.rate)} in the oldest shown)` : ''}.`
        : `${title}: no completed eval run yet.`,
    );
    table.replaceChildren(
      h('caption', { class: 'sr-only', text: `${title}, newest first` }),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { attrs: { scope: 'col' }, text: 'Eval run started' }),
          h('th', { class: 'num', attrs: { scope: 'col' }, text: 'Pass rate' }),
        ),
      ),
      h(
        'tbody',
        {},
        [...runs]
          .reverse()
          .map((r) => h('tr', {}, h('th', { attrs: { scope: 'row' }, text: r.label }), h('td', { class: 'num', text: pct(r.rate) }))),
      ),
    );
  }
  if (typeof ResizeObserver === 'function') new ResizeObserver(() => draw()).observe(host);

  return {
    /** The baseline's runs as the API lists them (newest first). @param {{ startedAt: string, passRate: number | null }[]} list */
    set(list) {
      runs = list
        .map((r) => ({ t: Date.parse(r.startedAt), rate: r.passRate, label: new Date(r.startedAt).toLocaleString() }))
        .sort((a, b) => a.t - b.t);
      render();
    },
    get points() {
      return runs;
    },
  };
}
