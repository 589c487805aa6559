// One readable line per event. A summary is a list of parts: plain strings, `{ code }` for ids
// and names (shown monospace), `{ ok }` / `{ bad }` for outcomes. The feed renders every part as
// text, so whatever the data plane put in a field stays text.

import { duration, num, stateLabel } from './format.js';

export const EVENT_TYPES = [
  'ResourceConnected',
  'ResourceDisconnected',
  'BroadcasterCreated',
  'BroadcasterDestroyed',
  'MessageBroadcast',
  'AgentSessionStarted',
  'AgentSessionEnded',
  'TaskStateChanged',
  'AgentDispatched',
  'AgentCompleted',
  'TapeRunChanged',
  'ControlActionExecuted',
];

/** Colour group of a type in the feed. */
export function groupOf(type) {
  if (type.startsWith('Resource')) return 'resource';
  if (type.startsWith('Broadcaster')) return 'broadcaster';
  if (type === 'MessageBroadcast') return 'message';
  if (type === 'TaskStateChanged') return 'task';
  if (type === 'ControlActionExecuted') return 'control';
  if (type === 'KillSwitchChanged' || type.startsWith('Polic')) return 'governance';
  if (type === 'TapeRunChanged') return 'agent';
  if (type.startsWith('Agent')) return 'agent';
  return 'other';
}

const code = (v) => ({ code: v === undefined || v === null || v === '' ? '—' : String(v) });
const plural = (n, one, many = `${one}s`) => `${num(n)} ${n === 1 ? one : many}`;

const SUMMARIES = {
  ResourceConnected: (e) => [
    code(e.uuid),
    ' connected over ',
    String(e.transport ?? '?'),
    ...(e.broadcaster ? [' to ', code(e.broadcaster)] : e.path ? [' at ', code(e.path)] : []),
  ],
  ResourceDisconnected: (e) => [code(e.uuid), ' disconnected', ...(e.reason ? [': ', String(e.reason)] : [])],
  BroadcasterCreated: (e) => ['Broadcaster ', code(e.id), ' created'],
  BroadcasterDestroyed: (e) => ['Broadcaster ', code(e.id), ' destroyed'],
  MessageBroadcast: (e) => [
    'Message #',
    String(e.id ?? '?'),
    ' on ',
    code(e.broadcasterId),
    ' reached ',
    plural(e.resourceCount ?? 0, 'resource'),
  ],
  AgentSessionStarted: (e) => ['Session ', code(e.sessionId), ' with ', code(e.agentName), ' started'],
  AgentSessionEnded: (e) => [
    'Session ',
    code(e.sessionId),
    ' with ',
    code(e.agentName),
    ' ended after ',
    duration(e.durationMs),
    ', ',
    plural(e.messageCount ?? 0, 'message'),
  ],
  TaskStateChanged: (e) => [
    'Task ',
    code(e.taskId),
    ' of ',
    code(e.agentName),
    ': ',
    String(e.oldState ?? 'new'),
    ' → ',
    stateOutcome(e.newState),
  ],
  AgentDispatched: (e) => [
    code(e.coordinator),
    ' dispatched ',
    code(e.agent),
    ...(e.skill ? [' (', String(e.skill), ')'] : []),
    ' in ',
    code(e.coordinationId),
  ],
  AgentCompleted: (e) => [
    code(e.agent),
    ...(e.skill ? [' (', String(e.skill), ')'] : []),
    e.success === false ? { bad: ' failed' } : { ok: ' completed' },
    ' after ',
    duration(e.durationMs),
    ' in ',
    code(e.coordinationId),
  ],
  CircuitStateChanged: (e) => [
    'breaker of ',
    code(e.coordinator),
    ' for ',
    code(e.agent),
    ' ',
    String(e.from ?? '?'),
    ' → ',
    e.to === 'OPEN' ? { bad: 'OPEN' } : e.to === 'CLOSED' ? { ok: 'CLOSED' } : String(e.to ?? '?'),
    ...(e.to === 'OPEN' ? [` after ${plural(Number(e.consecutiveFailures ?? 0), 'failure')} in a row`] : []),
  ],
  TapeRunChanged: (e) =>
    [
      'Run ',
      code(e.runId),
      ' of ',
      code(e.agent),
      e.status === 'open'
        ? ' started'
        : [': ', stateOutcome(e.status), ' after ', duration(e.durationMs), ', ', plural(e.steps ?? 0, 'step')],
    ].flat(),
  ControlActionExecuted: (e) => [
    code(e.principal ?? 'anonymous'),
    ' ',
    String(e.action ?? '?'),
    ' ',
    code(e.target),
    ': ',
    e.success ? { ok: 'succeeded' } : { bad: String(e.outcome ?? 'failed') },
    ...(e.reason ? [' (', String(e.reason), ')'] : []),
  ],
  // Rooms (docs/rooms.md): not among the feed's filter chips, shown whatever the filter.
  RoomMemberJoined: (e) => [code(memberName(e.member)), ' joined ', code(e.room), ...(e.node ? [' on node ', code(e.node)] : [])],
  RoomMemberLeft: (e) => [code(memberName(e.member)), ' left ', code(e.room), ...(e.node ? [' on node ', code(e.node)] : [])],
  RoomRefused: (e) => [
    code(e.principal ?? 'anonymous'),
    ' ',
    String(e.action ?? '?'),
    ' in ',
    code(e.room),
    ': ',
    { bad: String(e.reason ?? 'refused') },
  ],
  KillSwitchChanged: (e) => [
    'Kill switch ',
    e.armed ? { bad: 'armed' } : { ok: 'disarmed' },
    ...(e.armed ? [' for ', e.scope === '*' || !e.scope ? 'every agent' : code(e.scope)] : []),
    ' on ',
    code(e.node),
    ...(e.operator ? [' by ', code(e.operator)] : []),
    ...(e.reason ? [' (', String(e.reason), ')'] : []),
    ...(e.stopped ? [', ', plural(e.stopped, 'run'), ' stopped'] : []),
  ],
  PolicyDenied: (e) => [
    'Policy ',
    code(e.policy),
    e.decision === 'dry-run' ? ' would deny ' : { bad: ' denied ' },
    String(e.action ?? '?'),
    ...(e.tool ? [' ', code(e.tool)] : []),
    ' of ',
    code(e.agent),
    ...(e.reason ? [': ', String(e.reason)] : []),
  ],
  PoliciesReloaded: (e) => [
    'Policies reloaded on ',
    code(e.node),
    ': ',
    plural(Array.isArray(e.policies) ? e.policies.length : 0, 'policy', 'policies'),
    ...(e.operator ? [' by ', code(e.operator)] : []),
  ],
};

/** A member by its display name when its metadata has one, else its principal, else its id. */
function memberName(m) {
  if (m && typeof m.meta?.name === 'string') return m.meta.name;
  return m?.principal ?? m?.id;
}

function stateOutcome(state) {
  const s = stateLabel(String(state ?? '?'));
  if (/^(completed|succeeded)$/i.test(s)) return { ok: s };
  if (/^(failed|canceled|cancelled|rejected)$/i.test(s)) return { bad: s };
  return s;
}

/** The summary parts of any event; unknown types list their fields. */
export function summarize(ev) {
  const f = SUMMARIES[ev.type];
  if (f) return f(ev);
  const parts = [];
  for (const [k, v] of Object.entries(ev)) {
    if (k === 'type' || k === 'timestamp') continue;
    if (parts.length) parts.push(', ');
    parts.push(`${k} `, code(typeof v === 'object' ? JSON.stringify(v) : v));
  }
  return parts.length ? parts : ['(no fields)'];
}
