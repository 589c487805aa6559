// The Control tab: broadcast, destroy a broadcaster, disconnect a client, cancel an A2A task or
// an AG-UI run (listed together by the admin API, cancelled through the same endpoint),
// and the audit log. Destructive actions ask for confirmation in place; every result is one
// plain sentence (success, not found, refused). Actions the principal may not perform are shown
// as unavailable, and the server's answer is still the authority.

import { get, request, seg } from './api.js';
import { createTable } from './data-table.js';
import { $, h, replace, setText } from './dom.js';
import { ago, dateTime, localInputToIso, num, shortId, stateLabel } from './format.js';
import { throttled } from './schedule.js';
import { confirmStep, failure, gateForm, quote, result } from './write-form.js';

const TERMINAL = new Set(['completed', 'canceled', 'cancelled', 'failed', 'rejected']);
const AUDIT_PAGE = 50;

export function createControlTab(ctx) {
  const forms = {
    broadcast: $('#form-broadcast'),
    disconnect: $('#form-disconnect'),
    cancel: $('#form-cancel'),
  };

  // --- broadcast ----------------------------------------------------------------------------
  forms.broadcast.addEventListener('submit', async (e) => {
    e.preventDefault();
    const f = forms.broadcast;
    const broadcasterId = f.elements.broadcasterId.value.trim();
    const message = f.elements.message.value;
    if (!broadcasterId || !message) return;
    result(f, 'pending', 'Sending…');
    try {
      const { data } = await request('broadcasters/broadcast', { method: 'POST', body: { broadcasterId, message } });
      const n = data?.delivered ?? 0;
      const shown = message.length > 120 ? `${message.slice(0, 119)}…` : message;
      result(f, 'success', 'Sent ', quote(shown), ' to ', quote(broadcasterId), `: delivered to ${num(n)} resource${n === 1 ? '' : 's'}.`);
    } catch (err) {
      failure(f, err, 'broadcaster');
    }
  });
  const destroyButton = h('button', { type: 'button', class: 'danger', text: 'Destroy broadcaster…' });
  forms.broadcast.querySelector('.form-actions').append(destroyButton);
  destroyButton.addEventListener('click', async () => {
    const f = forms.broadcast;
    const id = f.elements.broadcasterId.value.trim();
    if (!id) {
      result(f, 'error', 'Enter the broadcaster to destroy.');
      f.elements.broadcasterId.focus();
      return;
    }
    const ok = await confirmStep(f, ['Destroy broadcaster ', quote(id), '? Every member is disconnected.'], 'Destroy');
    if (!ok) return result(f, 'pending', 'Nothing was done.');
    try {
      const { data } = await request(`broadcasters/${seg(id)}`, { method: 'DELETE' });
      result(f, 'success', `Destroyed ${id}; ${num(data?.disconnected ?? 0)} resources disconnected.`);
    } catch (err) {
      failure(f, err, 'broadcaster');
    }
  });

  // --- disconnect ---------------------------------------------------------------------------
  forms.disconnect.addEventListener('submit', async (e) => {
    e.preventDefault();
    const f = forms.disconnect;
    const uuid = f.elements.uuid.value.trim();
    const reason = f.elements.reason.value.trim();
    if (!uuid) return;
    const ok = await confirmStep(
      f,
      [
        'Disconnect ',
        quote(uuid),
        reason ? ' with reason ' : ' without a reason',
        reason ? quote(reason) : null,
        '? The client is closed and does not reconnect.',
      ],
      'Disconnect',
    );
    if (!ok) return result(f, 'pending', 'Nothing was done.');
    result(f, 'pending', 'Disconnecting…');
    try {
      await request(`resources/${seg(uuid)}`, { method: 'DELETE', ...(reason ? { body: { reason } } : {}) });
      result(f, 'success', 'Disconnected ', quote(uuid), reason ? ['; reason ', quote(reason)] : null, '.');
    } catch (err) {
      failure(f, err, 'resource');
    }
  });

  // --- cancel task --------------------------------------------------------------------------
  forms.cancel.addEventListener('submit', async (e) => {
    e.preventDefault();
    const f = forms.cancel;
    const taskId = f.elements.taskId.value.trim();
    if (!taskId) return;
    const ok = await confirmStep(f, ['Cancel task ', quote(taskId), '? The agent stops working on it.'], 'Cancel task');
    if (!ok) return result(f, 'pending', 'Nothing was done.');
    result(f, 'pending', 'Canceling…');
    try {
      const { data } = await request(`tasks/${seg(taskId)}/cancel`, { method: 'POST' });
      result(f, 'success', `Task ${taskId} is now ${stateLabel(data?.state ?? 'canceled')}.`);
      refreshTasks.trigger();
    } catch (err) {
      failure(f, err, 'task');
    }
  });

  // --- permissions --------------------------------------------------------------------------
  let mayCancel = false;
  function applySession(session) {
    const who = session?.principal ?? 'anonymous';
    const perms = session?.permissions ?? {};
    const audit = session?.audit;
    setText(
      $('#control-who'),
      `Acting as ${who}${session?.role ? ` (${session.role})` : ''}. Every action is checked by the server (role, then authorizer) and recorded in the audit log.` +
        (audit && !audit.available
          ? ` The audit log cannot be written (${audit.error ?? 'unknown error'}): the server refuses every action until it can.`
          : ''),
    );
    // A control the principal may not use is not shown at all (a viewer sees none): only a note says why.
    const gate = (form, allowed, what) => gateForm(form, allowed, session, what);
    gate(forms.broadcast, perms.broadcast === true, 'broadcast');
    destroyButton.hidden = perms.destroy !== true;
    gate(forms.disconnect, perms.disconnect === true, 'disconnect clients');
    gate(forms.cancel, perms.cancel === true, 'cancel tasks');
    mayCancel = perms.cancel === true;
    refreshTasks.trigger();
  }

  // --- tasks --------------------------------------------------------------------------------
  const tasksTable = createTable($('#tasks-table'), {
    label: 'Tasks',
    rowKey: (t) => t.id,
    empty: 'No A2A tasks or AG-UI runs.',
    sort: { key: 'updatedAt', dir: 'descending' },
    columns: [
      { key: 'id', label: 'Task', render: (t) => h('code', { text: shortId(t.id, 13) }), title: (t) => t.id },
      { key: 'agentName', label: 'Agent' },
      { key: 'protocol', label: 'Protocol', render: (t) => t.protocol ?? 'a2a', sig: (t) => t.protocol ?? 'a2a' },
      {
        key: 'state',
        label: 'State',
        render: (t) => h('span', { class: `badge ${stateClass(t.state)}`.trim(), text: stateLabel(t.state) }),
      },
      {
        key: 'createdAt',
        label: 'Created',
        render: (t) => ago(t.createdAt),
        sig: (t) => ago(t.createdAt),
        title: (t) => dateTime(t.createdAt),
      },
      {
        key: 'updatedAt',
        label: 'Updated',
        render: (t) => ago(t.updatedAt),
        sig: (t) => ago(t.updatedAt),
        title: (t) => dateTime(t.updatedAt),
      },
      { key: 'message', label: 'Last message', wrap: true },
      {
        key: 'actions',
        label: '',
        sortable: false,
        sig: (t) => `${TERMINAL.has(t.state)}|${mayCancel}`,
        render: (t) =>
          TERMINAL.has(t.state) || !mayCancel
            ? ''
            : h('button', {
                type: 'button',
                class: 'small danger',
                text: 'Cancel…',
                attrs: { 'aria-label': `Cancel task ${t.id}` },
                on: { click: () => prefill(forms.cancel, { taskId: t.id }, true) },
              }),
      },
    ],
  });
  const refreshTasks = throttled(
    async () => {
      const { data, total } = await get('tasks', { limit: 100 });
      const tasks = data ?? [];
      tasksTable.setRows(tasks);
      const inFlight = tasks.filter((t) => !TERMINAL.has(t.state));
      setText(
        $('#tasks-note'),
        `${num(inFlight.length)} in flight${total !== undefined && total > tasks.length ? `, newest 100 of ${num(total)}` : ''}`,
      );
      replace(
        $('#task-ids'),
        inFlight.map((t) => h('option', { value: t.id })),
      );
    },
    1000,
    (err) => tasksTable.setError(err),
  );

  // --- audit log ----------------------------------------------------------------------------
  const auditForm = $('#audit-form');
  let auditOffset = 0;
  let auditLimit = AUDIT_PAGE;
  const auditTable = createTable($('#audit-table'), {
    label: 'Audit log',
    rowKey: (a) => String(a.seq ?? `${a.timestamp}|${a.action}|${a.target}`),
    empty: 'No audit entries match.',
    sort: { key: 'timestamp', dir: 'descending' },
    columns: [
      { key: 'timestamp', label: 'Time', render: (a) => dateTime(a.timestamp) },
      { key: 'action', label: 'Action' },
      {
        key: 'target',
        label: 'Target',
        value: (a) => [a.target, a.refusals?.targets?.length],
        render: (a) => [h('code', { text: a.target ?? '' }), ...moreNote(a.refusals, 'targets', 'target')],
        title: (a) => a.target ?? '',
      },
      { key: 'principal', label: 'Principal', value: (a) => a.principal ?? 'anonymous' },
      { key: 'address', label: 'Address', value: (a) => a.address ?? '' },
      { key: 'outcome', label: 'Outcome', value: (a) => a.outcome ?? (a.success ? 'allowed' : 'failed'), render: (a) => outcomeBadge(a) },
      // Refusals are one record per caller and window (docs/security.md, Audit log): how many it stands for.
      { key: 'count', label: 'Count', num: true, value: (a) => a.refusals?.count ?? 1, render: (a) => countCell(a) },
      { key: 'source', label: 'Source' },
      {
        key: 'reason',
        label: 'Reason',
        wrap: true,
        value: (a) => [a.reason, a.refusals?.count, a.refusals?.lastAt, a.refusals?.open],
        render: (a) => reasonCell(a),
      },
    ],
    pager: {
      limit: AUDIT_PAGE,
      limits: [25, 50, 100, 200],
      onChange: (o, l) => {
        auditOffset = o;
        auditLimit = l;
        refreshAudit.now();
      },
    },
  });
  const refreshAudit = throttled(
    async () => {
      const f = new FormData(auditForm);
      const q = {
        class: f.get('class'),
        action: f.get('action'),
        principal: String(f.get('principal') ?? '').trim(),
        outcome: f.get('outcome'),
        from: localInputToIso(String(f.get('from') ?? '')),
        to: localInputToIso(String(f.get('to') ?? '')),
        offset: auditOffset,
        limit: auditLimit,
      };
      const { data, total } = await get('audit', q);
      auditTable.setRows(data ?? [], { offset: auditOffset, limit: auditLimit, total: total ?? data?.length ?? 0 });
      const count = total ?? data?.length ?? 0;
      setText($('#audit-count'), `${num(count)} ${count === 1 ? 'entry' : 'entries'}`);
    },
    800,
    (err) => auditTable.setError(err),
  );
  auditForm.addEventListener('submit', (e) => {
    e.preventDefault();
    auditOffset = 0;
    refreshAudit.now();
  });
  auditForm.addEventListener('reset', () =>
    setTimeout(() => {
      auditOffset = 0;
      refreshAudit.now();
    }),
  );

  // --- prefill from other tabs --------------------------------------------------------------
  function prefill(form, values, submit = false) {
    for (const [k, v] of Object.entries(values)) form.elements[k].value = v;
    result(form, 'pending', '');
    ctx.selectTab('control');
    const first = Object.keys(values)[0];
    form.elements[first]?.focus();
    if (submit) form.requestSubmit();
  }

  let visible = false;
  return {
    applySession,
    prefillBroadcast: (id) => {
      prefill(forms.broadcast, { broadcasterId: id });
      forms.broadcast.elements.message.focus();
    },
    prefillDisconnect: (uuid) => {
      prefill(forms.disconnect, { uuid });
      forms.disconnect.elements.reason.focus();
    },
    start() {},
    show() {
      visible = true;
      refreshTasks.now();
      refreshAudit.now();
    },
    hide() {
      visible = false;
    },
    resync() {
      if (visible) {
        refreshTasks.trigger();
        refreshAudit.trigger();
      }
    },
    onEvent(ev) {
      if (!visible) return;
      if (ev.type === 'ControlActionExecuted') refreshAudit.trigger();
      if (ev.type === 'TaskStateChanged') refreshTasks.trigger();
    },
  };
}

function stateClass(state) {
  if (state === 'completed') return 'ok';
  if (state === 'failed' || state === 'rejected') return 'bad';
  if (state === 'canceled' || state === 'cancelled') return 'warn';
  return 'accent';
}

/** `+3 more targets` when an aggregated refusal record names more values than its first. */
function moreNote(summary, kind, noun) {
  const list = summary?.[kind];
  if (!list) return [];
  const more = list.length - 1 + (summary.other?.[kind] ?? 0);
  return more > 0 ? [h('span', { class: 'muted', text: ` +${num(more)} more ${more === 1 ? noun : `${noun}s`}` })] : [];
}

function countCell(a) {
  const s = a.refusals;
  if (!s) return '1';
  return h('span', { class: 'refusal-count', text: `×${num(s.count)}`, attrs: { title: s.open ? 'still collecting' : 'closed' } });
}

/**
 * The reason; for an aggregated refusal record also its span and what it gathered (the reasons
 * with their counts, the addresses of the "many addresses" record).
 */
function reasonCell(a) {
  const s = a.refusals;
  if (!s) return a.reason ?? '';
  const lines = [
    h('span', { text: a.reason ?? '' }),
    h('span', {
      class: 'muted refusal-span',
      text: `${num(s.count)} refused ${dateTime(s.firstAt)} – ${dateTime(s.lastAt)}${s.open ? ' (still collecting)' : ''}`,
    }),
  ];
  const listed = (label, list, other) =>
    list && list.length > 1
      ? [
          h('span', {
            class: 'muted',
            text: `${label}: ${list.map((t) => `${t.value || '—'} ×${num(t.count)}`).join(', ')}${other ? `, +${num(other)} more` : ''}`,
          }),
        ]
      : [];
  lines.push(...listed('Reasons', s.reasons, s.other?.reasons));
  lines.push(...listed('Targets', s.targets, s.other?.targets));
  if (s.addresses)
    lines.push(...listed('Addresses', s.addresses, s.other?.addresses), ...listed('Principals', s.principals, s.other?.principals));
  return h('span', { class: 'refusal-detail' }, ...lines);
}

function outcomeBadge(a) {
  const o = a.outcome ?? (a.success ? 'allowed' : 'failed');
  const cls = o === 'allowed' && a.success !== false ? 'ok' : o === 'refused' || o === 'invalid' ? 'warn' : 'bad';
  return h('span', { class: `badge ${cls}`, text: o });
}
