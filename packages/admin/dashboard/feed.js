// The real-time event feed: newest first, filter by type, pause/resume, bounded. Events are
// batched to one DOM update per animation frame so a burst of thousands costs one repaint.

import { h } from './dom.js';
import { clock } from './format.js';
import { EVENT_TYPES, groupOf, summarize } from './summaries.js';

/** Events kept in memory and shown at most. */
export const FEED_LIMIT = 500;

export function createFeed({ list, filterBar, pauseButton, clearButton, status }) {
  const buffer = []; // newest last, at most FEED_LIMIT
  const counts = new Map(EVENT_TYPES.map((t) => [t, 0]));
  const shown = new Set(EVENT_TYPES);
  const chips = new Map();
  let paused = false;
  let missed = 0;
  let pending = [];
  let _frame = 0;

  for (const type of EVENT_TYPES) {
    const count = h('span', { class: 'count', text: '0' });
    const chip = h(
      'button',
      {
        type: 'button',
        attrs: { 'aria-pressed': 'true', 'data-type': type, title: `Show or hide ${type}` },
        on: { click: () => toggle(type) },
      },
      type,
      count,
    );
    chips.set(type, { chip, count });
    filterBar.append(chip);
  }
  const all = h('button', { type: 'button', class: 'all', text: 'All', on: { click: () => showOnly(null) } });
  filterBar.prepend(all);

  function toggle(type) {
    if (shown.has(type)) shown.delete(type);
    else shown.add(type);
    syncChips();
    rebuild();
  }
  function showOnly(type) {
    shown.clear();
    for (const t of EVENT_TYPES) if (type === null || t === type) shown.add(t);
    syncChips();
    rebuild();
  }
  function syncChips() {
    for (const [t, { chip }] of chips) chip.setAttribute('aria-pressed', String(shown.has(t)));
  }
  function visible(ev) {
    return !EVENT_TYPES.includes(ev.type) || shown.has(ev.type);
  }

  function line(ev) {
    const summary = h('span', { class: 'summary' });
    for (const part of summarize(ev)) {
      if (typeof part === 'string') summary.append(part);
      else if ('code' in part) summary.append(h('code', { text: part.code }));
      else if ('ok' in part) summary.append(h('span', { class: 'ok', text: part.ok }));
      else if ('bad' in part) summary.append(h('span', { class: 'bad', text: part.bad }));
    }
    return h(
      'li',
      { dataset: { type: String(ev.type) } },
      h('time', { text: clock(ev.timestamp), attrs: { datetime: String(ev.timestamp ?? '') } }),
      h('span', { class: 'etype', text: String(ev.type), dataset: { group: groupOf(String(ev.type)) } }),
      summary,
    );
  }

  function rebuild() {
    // The buffer already holds every pending event: drawing it in full consumes them, or the
    // next flush would prepend them a second time.
    pending = [];
    const nodes = [];
    for (let i = buffer.length - 1; i >= 0 && nodes.length < FEED_LIMIT; i--) {
      if (visible(buffer[i])) nodes.push(line(buffer[i]));
    }
    list.replaceChildren(...nodes);
    updateStatus();
  }

  function flush() {
    _frame = 0;
    const batch = pending;
    pending = [];
    if (paused) return;
    const fresh = [];
    for (let i = batch.length - 1; i >= 0 && fresh.length < FEED_LIMIT; i--) {
      if (visible(batch[i])) fresh.push(line(batch[i]));
    }
    if (fresh.length) list.prepend(...fresh);
    while (list.childElementCount > FEED_LIMIT) list.lastElementChild.remove();
    for (const [t, { count }] of chips) count.textContent = String(counts.get(t));
  }

  function updateStatus() {
    status.textContent = paused ? `Paused${missed ? `, ${missed} new event${missed === 1 ? '' : 's'} waiting` : ''}` : '';
  }

  /** Keys of the events in `buffer`: an event can reach us twice (GET events/recent and the
   *  stream's replay after a reconnect overlap), and each is shown once. */
  const keys = new Set();

  function trim() {
    if (buffer.length > FEED_LIMIT) for (const old of buffer.splice(0, buffer.length - FEED_LIMIT)) keys.delete(key(old));
  }

  function push(ev) {
    const k = key(ev);
    if (keys.has(k)) return;
    keys.add(k);
    buffer.push(ev);
    trim();
    counts.set(ev.type, (counts.get(ev.type) ?? 0) + 1);
    if (paused) {
      missed++;
      updateStatus();
      return;
    }
    pending.push(ev);
    _frame ||= requestAnimationFrame(flush);
  }

  function setPaused(p) {
    paused = p;
    pauseButton.setAttribute('aria-pressed', String(p));
    pauseButton.textContent = p ? 'Resume' : 'Pause';
    if (!p) {
      missed = 0;
      pending = [];
      rebuild();
      for (const [t, { count }] of chips) count.textContent = String(counts.get(t));
    }
    updateStatus();
  }

  pauseButton.addEventListener('click', () => setPaused(!paused));
  clearButton.addEventListener('click', () => {
    buffer.length = 0;
    keys.clear();
    pending = [];
    missed = 0;
    rebuild();
  });

  return {
    push,
    /** Fills the feed with events from before the page opened (GET events/recent), oldest first. */
    seed(events) {
      for (const ev of events) {
        const k = key(ev);
        if (keys.has(k)) continue;
        keys.add(k);
        buffer.push(ev);
        counts.set(ev.type, (counts.get(ev.type) ?? 0) + 1);
      }
      buffer.sort((a, b) => String(a.timestamp).localeCompare(String(b.timestamp)));
      trim();
      if (!paused) rebuild();
      for (const [t, { count }] of chips) count.textContent = String(counts.get(t));
    },
    get paused() {
      return paused;
    },
  };
}

/** Identity of an event for de-duplication when the recent list and the stream overlap. */
function key(ev) {
  return `${ev.timestamp}|${ev.type}|${ev.uuid ?? ev.id ?? ev.sessionId ?? ev.taskId ?? ev.coordinationId ?? ''}|${ev.newState ?? ev.target ?? ''}`;
}
