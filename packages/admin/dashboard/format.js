// Formatting of numbers, times and durations for display. Pure functions, no DOM.

const nf = new Intl.NumberFormat('en-US');

/**
 * A task or run state as shown: one spelling of "canceled" everywhere (A2A's and MCP's, and the
 * demo's chat page), whichever the record carries (agent runs and AG-UI say "cancelled").
 */
export function stateLabel(state) {
  return state === 'cancelled' ? 'canceled' : state;
}

export function num(n) {
  return typeof n === 'number' && Number.isFinite(n) ? nf.format(n) : '—';
}

/** `1.2 s`, `340 ms`, `2 min 5 s`. */
export function duration(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  if (m < 60) return `${m} min ${s} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

function toDate(t) {
  if (t === undefined || t === null || t === '') return undefined;
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

const pad = (n, w = 2) => String(n).padStart(w, '0');

/** Local clock time with milliseconds, for the event feed. */
export function clock(t) {
  const d = toDate(t);
  if (!d) return '—';
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** Local date and time, compact (`2026-11-21 01:23:45`). */
export function dateTime(t) {
  const d = toDate(t);
  if (!d) return '—';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** `12 s ago`, `3 min ago`. */
export function ago(t, now = Date.now()) {
  const d = toDate(t);
  if (!d) return '—';
  const s = Math.max(0, Math.round((now - d.getTime()) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/** A datetime-local input value → ISO string (or undefined when empty). */
export function localInputToIso(value) {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** Shortens a long id for a narrow cell; the full value goes into the title. */
export function shortId(id, keep = 8) {
  const s = String(id ?? '');
  return s.length > keep + 1 ? `${s.slice(0, keep)}…` : s;
}

/** A cost (from the tape's price list, whatever its currency): three significant digits below 1, at most six decimals. */
export function cost(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '—';
  if (n === 0) return '0';
  if (n >= 1) return n.toFixed(2);
  if (n < 0.000001) return '<0.000001';
  return Number(n.toPrecision(3)).toFixed(Math.min(6, 2 - Math.floor(Math.log10(n))));
}
