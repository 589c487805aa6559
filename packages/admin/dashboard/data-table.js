// A dense, sortable table with keyed rows and an optional pager. Rows are reconciled by key and
// a cell is re-rendered only when its value changed, so a table refreshed every second keeps
// its focus, selection and scroll position, and costs little.

import { h, replace } from './dom.js';
import { num } from './format.js';

/**
 * @param {HTMLElement} container
 * @param {{
 *   columns: { key: string, label: string, value?: (row) => unknown, render?: (row) => Node|string|Array<Node|string>,
 *              sig?: (row) => string, num?: boolean, sortable?: boolean, wrap?: boolean, cls?: string, title?: (row) => string }[],
 *   rowKey: (row) => string,
 *   label: string,
 *   empty?: string,
 *   sort?: { key: string, dir: 'ascending'|'descending' },
 *   onRowActivate?: (row) => void,
 *   pager?: { limit: number, limits?: number[], onChange: (offset: number, limit: number) => void },
 *   note?: string,
 * }} options
 */
export function createTable(container, options) {
  const columns = options.columns.map((c) => ({ sortable: true, value: (row) => row[c.key], ...c }));
  const thead = h('thead');
  const tbody = h('tbody');
  const table = h('table', { attrs: { 'aria-label': options.label } }, thead, tbody);
  // Until the first answer the table says so, rather than claiming there is nothing.
  const emptyRow = h('p', { class: 'empty', text: 'Loading…' });
  const error = h('p', { class: 'table-error', attrs: { role: 'alert' }, hidden: true });
  const note = h('p', { class: 'table-note', text: options.note ?? '', hidden: !options.note });
  container.replaceChildren(h('div', { class: 'table-wrap' }, table), emptyRow, error, note);

  let sort = options.sort ?? null;
  let rows = [];
  let selected = null;
  const trs = new Map(); // key → { tr, sigs: string[], row }

  const headRow = h('tr');
  const ths = columns.map((c) => {
    const th = h('th', { class: c.num ? 'num' : '', attrs: { scope: 'col' } });
    if (c.sortable) {
      th.append(h('button', { type: 'button', class: 'sort', text: c.label, on: { click: () => toggleSort(c.key) } }));
    } else if (c.label) th.textContent = c.label;
    else th.append(h('span', { class: 'sr-only', text: 'Actions' }));
    headRow.append(th);
    return th;
  });
  thead.append(headRow);
  syncSortHeaders();

  let pager;
  if (options.pager) pager = createPager(container, options.pager, options.label);

  function toggleSort(key) {
    const cur = sort;
    sort = cur !== null && cur.key === key && cur.dir === 'ascending' ? { key, dir: 'descending' } : { key, dir: 'ascending' };
    syncSortHeaders();
    render();
  }

  function syncSortHeaders() {
    columns.forEach((c, i) => {
      if (!c.sortable) return;
      ths[i].setAttribute('aria-sort', sort?.key === c.key ? sort.dir : 'none');
    });
  }

  function sorted() {
    const by = sort;
    if (!by) return rows;
    const col = columns.find((c) => c.key === by.key);
    if (!col) return rows;
    const dir = by.dir === 'ascending' ? 1 : -1;
    return [...rows].sort((a, b) => dir * compare(col.value(a), col.value(b)));
  }

  function renderCell(td, col, row) {
    const content = col.render ? col.render(row) : display(col.value(row), col.num);
    replace(td, content);
    const title = col.title?.(row) ?? (typeof content === 'string' && content.length > 24 ? content : null);
    if (title) td.title = title;
    else td.removeAttribute('title');
  }

  function sigOf(col, row) {
    return col.sig ? col.sig(row) : JSON.stringify(col.value(row) ?? null);
  }

  function render() {
    const ordered = sorted();
    const seen = new Set();
    let i = 0;
    for (const row of ordered) {
      const key = options.rowKey(row);
      seen.add(key);
      let entry = trs.get(key);
      if (!entry) {
        const tr = h('tr');
        if (options.onRowActivate) {
          tr.classList.add('clickable');
          tr.tabIndex = 0;
          tr.addEventListener('click', (e) => {
            if (e.target instanceof Element && e.target.closest('button, a, input')) return;
            activate(key);
          });
          tr.addEventListener('keydown', (e) => {
            if ((e.key === 'Enter' || e.key === ' ') && e.target === tr) {
              e.preventDefault();
              activate(key);
            }
          });
        }
        const sigs = columns.map((col) => {
          const td = h('td', { class: [col.num ? 'num' : '', col.wrap ? 'wrap' : '', col.cls ?? ''].join(' ').trim() });
          renderCell(td, col, row);
          tr.append(td);
          return sigOf(col, row);
        });
        entry = { tr, sigs, row };
        trs.set(key, entry);
      } else {
        entry.row = row;
        columns.forEach((col, c) => {
          const sig = sigOf(col, row);
          if (sig !== entry.sigs[c]) {
            entry.sigs[c] = sig;
            renderCell(entry.tr.children[c], col, row);
          }
        });
      }
      entry.tr.dataset.key = key;
      entry.tr.classList.toggle('selected', key === selected);
      if (tbody.children[i] !== entry.tr) tbody.insertBefore(entry.tr, tbody.children[i] ?? null);
      i++;
    }
    for (const [key, entry] of trs) {
      if (!seen.has(key)) {
        entry.tr.remove();
        trs.delete(key);
      }
    }
    emptyRow.hidden = ordered.length > 0;
  }

  function activate(key) {
    const entry = trs.get(key);
    if (!entry) return;
    selected = key;
    for (const [k, e] of trs) e.tr.classList.toggle('selected', k === key);
    options.onRowActivate?.(entry.row);
  }

  return {
    /** Replaces the rows; `page` is `{ offset, limit, total }` for a paged table. */
    setRows(next, page) {
      rows = next;
      emptyRow.textContent = options.empty ?? 'Nothing to show.';
      error.hidden = true;
      render();
      if (pager && page) pager.update(page);
    },
    /** Shows why the last refresh failed; the rows shown are then the last ones known. */
    setError(err) {
      const what = err?.status === 0 ? 'the server is not answering' : err?.detail || err?.title || err?.message || String(err);
      error.textContent = `Could not refresh: ${what}${rows.length ? ' (showing the last rows received)' : ''}.`;
      error.hidden = false;
    },
    setNote(text) {
      note.textContent = text ?? '';
      note.hidden = !text;
    },
    select(key) {
      selected = key;
      for (const [k, e] of trs) e.tr.classList.toggle('selected', k === key);
    },
    get rows() {
      return rows;
    },
    pager,
  };
}

function display(v, isNum) {
  if (v === undefined || v === null || v === '') return '—';
  if (isNum && typeof v === 'number') return num(v);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (Array.isArray(v)) return v.join(', ') || '—';
  return String(v);
}

function compare(a, b) {
  if (a === b) return 0;
  if (a === undefined || a === null) return 1;
  if (b === undefined || b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: 'base' });
}

/** First / previous / next / last and a page size, for lists the server pages. */
function createPager(container, { limit, limits = [25, 50, 100, 200], onChange }, label) {
  let state = { offset: 0, limit, total: 0 };
  const range = h('span', { class: 'range', attrs: { 'aria-live': 'polite' } });
  const btn = (text, aria, fn) => h('button', { type: 'button', class: 'small', text, attrs: { 'aria-label': aria }, on: { click: fn } });
  const first = btn('«', `First page of ${label}`, () => go(0));
  const prev = btn('‹ Previous', `Previous page of ${label}`, () => go(state.offset - state.limit));
  const next = btn('Next ›', `Next page of ${label}`, () => go(state.offset + state.limit));
  const last = btn('»', `Last page of ${label}`, () => go(Math.max(0, Math.floor((state.total - 1) / state.limit) * state.limit)));
  const size = h(
    'select',
    {
      on: {
        change: () => {
          state.limit = Number(size.value);
          go(0);
        },
      },
    },
    ...limits.map((n) => h('option', { value: String(n), text: String(n), selected: n === limit })),
  );
  const sizeLabel = h('label', {}, 'Rows', size);
  const bar = h(
    'div',
    { class: 'pager', attrs: { role: 'navigation', 'aria-label': `${label} pages` } },
    range,
    h('span', { class: 'spacer' }),
    sizeLabel,
    first,
    prev,
    next,
    last,
  );
  container.append(bar);

  function go(offset) {
    const max = Math.max(0, state.total - 1);
    const o = Math.max(0, Math.min(offset, Math.floor(max / state.limit) * state.limit));
    onChange(o, state.limit);
  }

  return {
    update(page) {
      state = { ...state, ...page };
      const { offset, total } = state;
      const end = Math.min(total, offset + state.limit);
      range.textContent = total === 0 ? 'No entries' : `${num(offset + 1)}–${num(end)} of ${num(total)}`;
      first.disabled = prev.disabled = offset <= 0;
      next.disabled = last.disabled = end >= total;
    },
    get offset() {
      return state.offset;
    },
    get limit() {
      return state.limit;
    },
    reset() {
      state.offset = 0;
    },
  };
}
