// Safe DOM building. Everything from the data plane goes through here as text: no innerHTML,
// no HTML parsing, no style attributes (the page's CSP forbids inline styles from markup).

/**
 * Creates an element. `props`: `class`, `text`, `title`, `attrs` (setAttribute, never `style`
 * or event handler attributes), `dataset`, `on` (event listeners), `hidden`, `type`, `value`.
 * Children are nodes or strings (strings become text nodes); null/false are skipped.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  applyProps(el, props);
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** The SVG twin of `h`; attributes are set with setAttribute (presentation attributes are not inline styles). */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null) continue;
    if (k === 'text') el.textContent = String(v);
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function applyProps(el, props) {
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null) continue;
    switch (k) {
      case 'class':
        el.className = v;
        break;
      case 'text':
        el.textContent = String(v);
        break;
      case 'attrs':
        for (const [a, av] of Object.entries(v)) {
          if (av === undefined || av === null || av === false) continue;
          if (a === 'style' || a.startsWith('on')) throw new Error(`refusing attribute ${a}`);
          el.setAttribute(a, av === true ? '' : String(av));
        }
        break;
      case 'dataset':
        Object.assign(el.dataset, v);
        break;
      case 'on':
        for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
        break;
      default:
        el[k] = v;
    }
  }
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces all children of `el`. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

export function $(selector, root = document) {
  const el = root.querySelector(selector);
  if (!el) throw new Error(`missing element ${selector}`);
  return el;
}

/** Sets text only when it changed (keeps layout and selections stable on frequent refreshes). */
export function setText(el, text) {
  const t = String(text);
  if (el.textContent !== t) el.textContent = t;
}
