// The Governance tab's Approvals panel: the tool calls waiting for a person (GET approvals?status=
// pending), live (ApprovalRequested, ApprovalDecided), each with Approve… and Deny…, which fill the
// decision form below the table and ask for confirmation in place (the Control tab's pattern) before
// POST approvals/{id} {approve, reason}. A server without approvals (an fw from before them)
// answers 404: the panel hides its content behind one short note.

import { ApiError, get, request, seg } from './api.js';
import { createTable } from './data-table.js';
import { $, h, setText } from './dom.js';
import { ago, dateTime, num, shortId } from './format.js';
import { throttled } from './schedule.js';
import { confirmStep, failure, gateForm, quote, result } from './write-form.js';

/** Pending approvals read per refresh. */
const PENDING_SHOWN = 200;
/** A long argument list is cut in the table (the title and the confirmation show it whole). */
const ARGUMENTS_SHOWN = 160;

export function createApprovalsPanel() {
  const body = $('#approvals-body');
  const absent = $('#approvals-absent');
  const form = $('#form-approval');
  let mayDecide = false;
  /** The decision the next submit makes: approve (the submit button) or deny. */
  let approve = true;

  const table = createTable($('#approvals-table'), {
    label: 'Pending approvals',
    rowKey: (a) => a.id,
    empty: 'Nothing waits for approval.',
    sort: { key: 'requestedAt', dir: 'ascending' },
    columns: [
      {
        key: 'requestedAt',
        label: 'Asked',
        render: (a) => ago(a.requestedAt),
        sig: (a) => ago(a.requestedAt),
        title: (a) => dateTime(a.requestedAt),
      },
      { key: 'agent', label: 'Agent', render: (a) => h('code', { text: a.agent ?? '' }) },
      { key: 'tool', label: 'Tool', render: (a) => h('code', { text: a.tool ?? '' }) },
      {
        key: 'arguments',
        label: 'Arguments',
        wrap: true,
        value: (a) => argumentsText(a.arguments),
        render: (a) => {
          const text = argumentsText(a.arguments);
          return h('code', { text: text.length > ARGUMENTS_SHOWN ? `${text.slice(0, ARGUMENTS_SHOWN - 1)}…` : text });
        },
        title: (a) => argumentsText(a.arguments),
      },
      { key: 'principal', label: 'Principal', value: (a) => a.principal ?? 'anonymous' },
      { key: 'surface', label: 'Surface' },
      { key: 'expiresAt', label: 'Expires', render: (a) => (a.expiresAt ? dateTime(a.expiresAt) : '—'), sig: (a) => a.expiresAt ?? '' },
      {
        key: 'actions',
        label: '',
        sortable: false,
        sig: () => String(mayDecide),
        render: (a) =>
          mayDecide
            ? [
                h('button', {
                  type: 'button',
                  class: 'small',
                  text: 'Approve…',
                  attrs: { 'aria-label': `Approve ${a.tool} for ${a.agent} (${a.id})` },
                  on: { click: () => decide(a.id, true) },
                }),
                ' ',
                h('button', {
                  type: 'button',
                  class: 'small danger',
                  text: 'Deny…',
                  attrs: { 'aria-label': `Deny ${a.tool} for ${a.agent} (${a.id})` },
                  on: { click: () => decide(a.id, false) },
                }),
              ]
            : '',
      },
    ],
  });
  /** The pending approvals by id, for the confirmation's details. */
  const known = new Map();

  function decide(id, yes) {
    form.elements.approval.value = id;
    approve = yes;
    result(form, 'pending', '');
    form.requestSubmit();
  }

  form.querySelector('button[name="deny"]').addEventListener('click', () => {
    approve = false;
    form.requestSubmit();
  });
  form.querySelector('button[name="approve"]').addEventListener('click', () => {
    approve = true;
  });

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const yes = approve;
    approve = true;
    const id = form.elements.approval.value.trim();
    const reason = form.elements.reason.value.trim();
    if (!id) return;
    const a = known.get(id);
    const ok = await confirmStep(
      form,
      [
        yes ? 'Approve ' : 'Deny ',
        a ? [quote(a.tool ?? '?'), ' for ', quote(a.agent ?? '?'), ' with ', quote(argumentsText(a.arguments))] : ['approval ', quote(id)],
        reason ? [' with reason ', quote(reason)] : null,
        yes ? '? The tool runs at once.' : '? The agent is told the call was denied.',
      ],
      yes ? 'Approve' : 'Deny',
    );
    if (!ok) return result(form, 'pending', 'Nothing was done.');
    result(form, 'pending', yes ? 'Approving…' : 'Denying…');
    try {
      const { data } = await request(`approvals/${seg(id)}`, { method: 'POST', body: { approve: yes, ...(reason ? { reason } : {}) } });
      result(
        form,
        'success',
        `${yes ? 'Approved' : 'Denied'} `,
        quote(shortId(id, 12)),
        `: the approval is now ${data?.status ?? (yes ? 'approved' : 'denied')}.`,
      );
      refresh.trigger();
    } catch (err) {
      failure(form, err, 'approval');
    }
  });

  const refresh = throttled(
    async () => {
      try {
        const { data } = await get('approvals', { status: 'pending', limit: PENDING_SHOWN });
        body.hidden = false;
        absent.hidden = true;
        const pending = Array.isArray(data) ? data : (data?.approvals ?? []);
        known.clear();
        for (const a of pending) known.set(a.id, a);
        table.setRows(pending);
        setText($('#approvals-count'), `${num(pending.length)} pending`);
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 404)) throw err;
        body.hidden = true;
        absent.hidden = false;
        setText($('#approvals-count'), '');
      }
    },
    500,
    (err) => table.setError(err),
  );

  return {
    applySession(session) {
      mayDecide = session?.permissions?.['approval.decide'] === true;
      gateForm(form, mayDecide, session, 'approve or deny tool calls');
      refresh.trigger();
    },
    refresh: () => refresh.trigger(),
    now: () => refresh.now(),
    onEvent(ev) {
      if (ev.type === 'ApprovalRequested' || ev.type === 'ApprovalDecided') refresh.trigger();
    },
  };
}

function argumentsText(args) {
  if (args === undefined || args === null) return '';
  return typeof args === 'string' ? args : JSON.stringify(args);
}
