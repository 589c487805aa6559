// The Governance tab (docs/governance.md): the kill switch with what each node enforces, the
// policies this node enforces with their counters and a reload, and the live decision log.
// Writes follow the Control tab's pattern (write-form.js): confirm in place, one plain sentence
// as the result, hidden from a principal who may not use them. Live: a KillSwitchChanged event
// reads the switch again on every open page; PolicyDenied and PoliciesReloaded read the policies
// and the decisions; allowed decisions are not evented (one per tool call would flood the
// stream), so the decision log is also read every few seconds while the tab is shown.

import { get, request } from './api.js';
import { createApprovalsPanel } from './approvals-panel.js';
import { createTable } from './data-table.js';
import { $, h, setText } from './dom.js';
import { dateTime, num, shortId } from './format.js';
import { throttled } from './schedule.js';
import { createSpendPanel } from './spend-panel.js';
import { confirmStep, failure, gateForm, quote, result } from './write-form.js';

/** Decisions read per refresh (the server keeps fw.admin.governance.decision-log-size, 1000 by default). */
export const DECISIONS_SHOWN = 200;
/** Allowed decisions carry no event: the log is read again this often while the tab is shown. */
const DECISIONS_POLL_MS = 3000;
/** The switch and the policies are re-read this often too, in case the stream dropped an event. */
const POLL_MS = 10_000;

const badge = (text, cls = '') => h('span', { class: `badge ${cls}`.trim(), text });
const scopeWords = (scope) => (!scope || scope === '*' ? 'every agent' : `agent '${scope}'`);

export function createGovernanceTab() {
  const forms = { killSwitch: $('#form-kill-switch'), policies: $('#form-policies') };

  // --- kill switch ----------------------------------------------------------------------------
  const nodesTable = createTable($('#kill-switch-nodes'), {
    label: 'Kill switch per node',
    rowKey: (n) => n.node,
    empty: 'No node answered.',
    sort: { key: 'node', dir: 'ascending' },
    columns: [
      { key: 'node', label: 'Node', render: (n) => h('code', { text: n.node }) },
      {
        key: 'armed',
        label: 'Enforces',
        value: (n) => n.armed,
        render: (n) => (n.missing ? badge('no answer', 'warn') : n.armed ? badge('armed', 'bad') : badge('disarmed', 'ok')),
        sig: (n) => `${n.armed}|${n.missing}`,
      },
      { key: 'ackAt', label: 'Since', render: (n) => (n.ackAt ? dateTime(n.ackAt) : '—'), title: (n) => n.ackAt ?? '' },
    ],
  });

  function showSwitch(report) {
    const state = $('#kill-switch-state');
    state.className = `badge ${report.armed ? 'bad' : 'ok'}`;
    setText(state, report.armed ? 'Armed' : 'Disarmed');
    forms.killSwitch.dataset.armed = String(Boolean(report.armed));
    const who = report.operator ? ` by ${report.operator}` : '';
    const when = report.armedAt ? ` at ${dateTime(report.armedAt)}` : '';
    setText(
      $('#kill-switch-summary'),
      report.armed
        ? `Armed for ${scopeWords(report.scope)}${who}${when}: ${report.reason ?? 'no reason given'}. Runs of that scope are refused and those in flight were stopped.`
        : 'Disarmed: every agent run goes through.',
    );
    const missing = (report.missing ?? []).map((node) => ({ node, armed: false, ackAt: null, missing: true }));
    nodesTable.setRows([...(report.nodes ?? []), ...missing]);
    nodesTable.setNote(report.durable === false ? 'The store could not keep the last change: a restarted node would not know it.' : '');
  }

  const refreshSwitch = throttled(
    async () => showSwitch((await get('governance/health')).data ?? {}),
    500,
    (err) => nodesTable.setError(err),
  );

  forms.killSwitch.addEventListener('submit', async (e) => {
    e.preventDefault();
    const f = forms.killSwitch;
    const reason = f.elements.reason.value.trim();
    const scope = f.elements.scope.value.trim() || '*';
    if (!reason) {
      result(f, 'error', 'Enter the reason for arming: it is shown to every refused caller and recorded in the audit log.');
      f.elements.reason.focus();
      return;
    }
    const ok = await confirmStep(
      f,
      [
        'Arm the kill switch for ',
        scope === '*' ? 'every agent' : ['agent ', quote(scope)],
        ' with reason ',
        quote(reason),
        '? Runs in flight are stopped and new ones refused, on every node, until it is disarmed.',
      ],
      'Arm',
    );
    if (!ok) return result(f, 'pending', 'Nothing was done.');
    result(f, 'pending', 'Arming…');
    try {
      const { data } = await request('governance/kill-switch/arm', { method: 'POST', body: { reason, scope } });
      showSwitch(data);
      result(f, 'success', `Armed for ${scopeWords(data?.scope)}; ${acks(data)}.`);
    } catch (err) {
      failure(f, err, 'agent');
    }
  });

  const disarmButton = /** @type {HTMLButtonElement} */ (forms.killSwitch.querySelector('button[name="disarm"]'));
  disarmButton.addEventListener('click', async () => {
    const f = forms.killSwitch;
    const reason = f.elements.reason.value.trim();
    const ok = await confirmStep(
      f,
      ['Disarm the kill switch', reason ? [' with reason ', quote(reason)] : null, '? Every agent run goes through again.'],
      'Disarm',
    );
    if (!ok) return result(f, 'pending', 'Nothing was done.');
    result(f, 'pending', 'Disarming…');
    try {
      const { data } = await request('governance/kill-switch/disarm', { method: 'POST', body: reason ? { reason } : {} });
      showSwitch(data);
      result(f, 'success', `Disarmed; ${acks(data)}.`);
    } catch (err) {
      failure(f, err, 'kill switch');
    }
  });

  // --- policies -------------------------------------------------------------------------------
  const policiesTable = createTable($('#policies-table'), {
    label: 'Policies',
    rowKey: (p) => p.name,
    empty: 'No policy is loaded: every call is allowed.',
    columns: [
      // The description is the name's title: the card shares its row with the kill switch.
      { key: 'name', label: 'Policy', render: (p) => h('code', { text: p.name }), title: (p) => p.description ?? p.name },
      {
        key: 'mode',
        label: 'Mode',
        render: (p) => (p.mode === 'dry-run' ? badge('dry-run', 'warn') : badge('enforce', 'accent')),
      },
      { key: 'kind', label: 'From', value: (p) => (p.kind === 'code' ? 'code' : 'file') },
      { key: 'rules', label: 'Rules', num: true },
      { key: 'denied', label: 'Denied', num: true },
      { key: 'wouldDeny', label: 'Would deny', num: true },
      { key: 'digest', label: 'Digest', render: (p) => h('code', { text: shortId(p.digest, 10) }), title: (p) => p.digest },
    ],
  });
  let policyFile = null;

  const refreshPolicies = throttled(
    async () => {
      const { data } = await get('governance/policies');
      policyFile = data?.file ?? null;
      policiesTable.setRows(data?.policies ?? []);
      setText(
        $('#policies-file'),
        policyFile ? `${policyFile} · sha256 ${shortId(data?.digest ?? '', 12)}` : 'No policy file (fw.admin.governance.policy-file)',
      );
      forms.policies.querySelector('button[name="reload"]').disabled = !policyFile;
    },
    1000,
    (err) => policiesTable.setError(err),
  );

  forms.policies.addEventListener('submit', async (e) => {
    e.preventDefault();
    const f = forms.policies;
    const ok = await confirmStep(
      f,
      [
        'Read ',
        quote(policyFile ?? 'the policy file'),
        ' again and apply it on this node now? Counters and rate-limit windows start anew; a file that is not valid changes nothing.',
      ],
      'Reload',
    );
    if (!ok) return result(f, 'pending', 'Nothing was done.');
    result(f, 'pending', 'Reloading…');
    try {
      const { data } = await request('governance/reload', { method: 'POST' });
      const n = data?.policies?.length ?? 0;
      result(
        f,
        'success',
        `Reloaded on ${data?.node ?? 'this node'}: ${num(n)} polic${n === 1 ? 'y' : 'ies'}, sha256 `,
        quote(shortId(data?.digest, 12)),
        '.',
      );
      refreshPolicies.now();
    } catch (err) {
      failure(f, err, 'policy file');
    }
  });

  // --- decisions ------------------------------------------------------------------------------
  const filter = /** @type {HTMLSelectElement} */ ($('#decisions-filter'));
  let decisions = [];
  const decisionsTable = createTable($('#decisions-table'), {
    label: 'Policy decisions',
    rowKey: (d) => d.key,
    empty: 'No decisions yet: they appear as agents call models and tools while a policy is loaded.',
    sort: { key: 'time', dir: 'descending' },
    columns: [
      { key: 'time', label: 'Time', render: (d) => dateTime(d.time), sig: (d) => d.time },
      { key: 'decision', label: 'Decision', render: (d) => decisionBadge(d.decision) },
      { key: 'policy', label: 'Policy', render: (d) => (d.policy ? h('code', { text: d.policy }) : '—') },
      { key: 'agent', label: 'Agent' },
      { key: 'action', label: 'Action', value: (d) => [d.action, d.context?.tool].filter(Boolean).join(' ') },
      { key: 'principal', label: 'Principal', value: (d) => d.context?.principal ?? 'anonymous' },
      { key: 'arguments', label: 'Arguments', wrap: true, value: (d) => argumentsText(d.context) },
      { key: 'reason', label: 'Reason', wrap: true },
      { key: 'source', label: 'Source' },
      { key: 'evaluation_ms', label: 'ms', num: true, value: (d) => Math.round((d.evaluation_ms ?? 0) * 1000) / 1000 },
    ],
  });

  function showDecisions() {
    const only = filter.value;
    decisionsTable.setRows(only ? decisions.filter((d) => d.decision === only) : decisions);
  }
  filter.addEventListener('change', showDecisions);

  const refreshDecisions = throttled(
    async () => {
      const { data, total } = await get('governance/decisions', { limit: DECISIONS_SHOWN });
      decisions = keyed(data ?? []);
      showDecisions();
      const held = total ?? decisions.length;
      setText($('#decisions-count'), held > decisions.length ? `newest ${num(decisions.length)} of ${num(held)}` : `${num(held)} logged`);
    },
    500,
    (err) => decisionsTable.setError(err),
  );

  // --- spend and budgets, approvals (each hides itself on a server without its endpoints) ------
  const spend = createSpendPanel();
  const approvals = createApprovalsPanel();

  // --- permissions and lifecycle --------------------------------------------------------------
  function applySession(next) {
    const perms = next?.permissions ?? {};
    const mayArm = perms['kill-switch.arm'] === true;
    const mayDisarm = perms['kill-switch.disarm'] === true;
    gateForm(forms.killSwitch, mayArm || mayDisarm, next, 'arm or disarm the kill switch');
    forms.killSwitch.querySelector('button[name="arm"]').hidden = !mayArm;
    disarmButton.hidden = !mayDisarm;
    gateForm(forms.policies, perms['governance.reload'] === true, next, 'reload the policies');
    approvals.applySession(next);
  }

  let visible = false;
  let poll;
  let decisionsPoll;
  const refreshAll = () => {
    refreshSwitch.trigger();
    refreshPolicies.trigger();
    refreshDecisions.trigger();
    spend.refresh();
    approvals.refresh();
  };

  return {
    applySession,
    start() {},
    show() {
      visible = true;
      refreshSwitch.now();
      refreshPolicies.now();
      refreshDecisions.now();
      spend.now();
      approvals.now();
      clearInterval(poll);
      clearInterval(decisionsPoll);
      poll = setInterval(refreshAll, POLL_MS);
      decisionsPoll = setInterval(() => refreshDecisions.trigger(), DECISIONS_POLL_MS);
    },
    hide() {
      visible = false;
      clearInterval(poll);
      clearInterval(decisionsPoll);
    },
    resync() {
      if (visible) refreshAll();
    },
    onEvent(ev) {
      if (!visible) return;
      if (ev.type === 'KillSwitchChanged') refreshSwitch.trigger();
      else if (ev.type === 'PoliciesReloaded') {
        refreshPolicies.trigger();
        refreshDecisions.trigger();
      } else if (ev.type === 'PolicyDenied') {
        refreshPolicies.trigger();
        refreshDecisions.trigger();
      }
      spend.onEvent(ev);
      approvals.onEvent(ev);
    },
  };
}

/** How many nodes took a change, and which did not answer. */
function acks(report) {
  const n = report?.nodes?.length ?? 0;
  const missing = report?.missing ?? [];
  return `${num(n)} node${n === 1 ? '' : 's'} acknowledged${missing.length ? `, no answer from ${missing.join(', ')}` : ''}${
    report?.durable === false ? ' (not kept by the store: a restart would forget it)' : ''
  }`;
}

function decisionBadge(decision) {
  if (decision === 'deny') return badge('deny', 'bad');
  if (decision === 'dry-run') return badge('dry-run', 'warn');
  return badge(String(decision ?? '?'), 'ok');
}

/** The decision's tool arguments (or the content a content rule looked at), as one line of text. */
function argumentsText(context) {
  if (!context) return '';
  if (context.arguments !== undefined) return typeof context.arguments === 'string' ? context.arguments : JSON.stringify(context.arguments);
  if (context.content !== undefined) return String(context.content);
  return '';
}

/**
 * Decisions carry no id: a row's key is what it says plus its rank among identical ones, counted
 * from the oldest, so a row keeps its key while newer decisions push in above it.
 */
function keyed(newestFirst) {
  const seen = new Map();
  const out = new Array(newestFirst.length);
  for (let i = newestFirst.length - 1; i >= 0; i--) {
    const d = newestFirst[i];
    const base = `${d.time}|${d.decision}|${d.policy}|${d.agent}|${d.action}|${d.source}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    out[i] = { ...d, key: `${base}|${n}` };
  }
  return out;
}
