// The write pattern every tab shares (Control, Governance, the Agents tab's cancel-in-flight):
// a form whose destructive action asks "are you sure" in place, repeating the target and the
// reason, and whose result is one plain sentence (success, not found, refused, the server's
// error). Everything shown is text: the server's answers and what was typed never become markup.

import { ApiError } from './api.js';
import { h, replace } from './dom.js';

/** Shows the form's one-sentence result; `kind` is `success`, `pending`, `not-found`, `refused` or `error`. */
export function result(form, kind, ...parts) {
  const el = form.querySelector('.result');
  el.dataset.kind = kind;
  replace(el, ...parts);
}

/** The result of a write the server did not carry out, in words. `what` names the target ("task"). */
export function failure(form, err, what) {
  if (!(err instanceof ApiError)) {
    result(form, 'error', `Failed: ${String(err?.message ?? err)}`);
    return;
  }
  const detail = err.detail || err.title || '';
  if (err.status === 404) result(form, 'not-found', `Not found: ${detail || `no such ${what}`}`);
  else if (err.status === 403) result(form, 'refused', `Refused: ${detail || 'the authorizer does not allow this action'}`);
  else if (err.status === 409) result(form, 'refused', `Refused: ${detail || 'not possible in the current state'}`);
  else if (err.status === 401) result(form, 'refused', 'Refused: sign in first.');
  else if (err.status === 0) result(form, 'error', 'The server could not be reached; the action may not have run.');
  else result(form, 'error', `Rejected (${err.status}): ${detail}`);
}

/** Shows "are you sure" in place; resolves true on confirm, false on cancel (or Escape). */
export function confirmStep(form, message, confirmLabel) {
  const box = form.querySelector('.confirm');
  const fieldset = form.querySelector('fieldset');
  return new Promise((resolve) => {
    const done = (ok) => {
      box.hidden = true;
      box.replaceChildren();
      fieldset.disabled = false;
      resolve(ok);
      if (!ok) form.querySelector('button[type="submit"]')?.focus();
    };
    const yes = h('button', { type: 'button', class: 'danger solid', text: confirmLabel, on: { click: () => done(true) } });
    const no = h('button', { type: 'button', text: 'Cancel', on: { click: () => done(false) } });
    box.replaceChildren(h('p', {}, ...message), h('div', { class: 'form-actions' }, yes, no));
    box.hidden = false;
    box.onkeydown = (e) => {
      if (e.key === 'Escape') done(false);
    };
    fieldset.disabled = true;
    result(form, 'pending', '');
    yes.focus();
  });
}

/**
 * Shows a write form only to a principal who may use it: otherwise its fieldset is hidden and
 * disabled and a note says who may not do what. The server checks again; this is a convenience.
 */
export function gateForm(form, allowed, session, what) {
  const who = session?.principal ?? 'anonymous';
  const fieldset = form.querySelector('fieldset');
  fieldset.disabled = !allowed;
  fieldset.hidden = !allowed;
  const note = form.querySelector('.unavailable');
  note.hidden = allowed;
  note.textContent = allowed ? '' : `Unavailable: ${who}${session?.role ? ` (${session.role})` : ''} may not ${what}.`;
  form.dataset.available = String(allowed);
}

/** A name or id shown monospace inside a sentence. */
export const quote = (s) => h('code', { text: s });
