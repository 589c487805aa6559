// What a run's content looks like on the page: prompts, model output and tool arguments are the
// model's and the users' words, so they are shown as text, never parsed. Characters that would
// be invisible or would reorder the text around them (zero-width spaces and joiners, bidi
// overrides and isolates, the byte-order mark) are shown as a visible mark with their code point:
// an operator reading a tool argument must see what the model really sent.

import { h } from './dom.js';

/** Invisible and direction-changing characters (zero-width, bidi embeddings/overrides/isolates, BOM, soft hyphen). */
const HIDDEN = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

const codePoint = (c) => `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

/** The text with each hidden character replaced by `⟨U+XXXX⟩` (for SVG labels and titles). */
export function plain(text) {
  return String(text ?? '').replace(HIDDEN, (c) => `⟨${codePoint(c)}⟩`);
}

/** Text nodes and marks (`<span class="ctl">U+202E</span>`) for the text: what a `pre` or a cell holds. */
export function visible(text) {
  const str = String(text ?? '');
  const parts = [];
  let last = 0;
  for (const m of str.matchAll(HIDDEN)) {
    if (m.index > last) parts.push(str.slice(last, m.index));
    parts.push(h('span', { class: 'ctl', text: codePoint(m[0]), title: 'an invisible or direction-changing character' }));
    last = m.index + m[0].length;
  }
  if (last < str.length) parts.push(str.slice(last));
  return parts;
}

/** A value as indented JSON (a string stays as it is). */
export function pretty(value) {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A `pre` block of content: isolated from the page's text direction, hidden characters marked. */
export function contentBlock(value, label) {
  return h('pre', { class: 'content', attrs: { dir: 'ltr', 'aria-label': label } }, visible(pretty(value)));
}

/** One line of content for a label or a cell, shortened. */
export function oneLine(value, max = 80) {
  const s = pretty(value).replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
