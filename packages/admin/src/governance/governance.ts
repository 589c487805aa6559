import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { errorSummary, FwError, NotFoundError, type Framework, type Logger } from '@fw/runtime';
import type { ClusterService } from '@fw/runtime/adapter';
import type { AiToolCall, RunScope } from '@fw/agent';
import type { ControlCaller, ControlPlane } from '../control.js';
import { DISARMED, FLEET, KillSwitch, type KillSwitchState } from './kill-switch.js';
import {
  KILL_SWITCH_APPLY,
  KILL_SWITCH_LOG,
  KILL_SWITCH_STATE,
  registerKillSwitchMethods,
  sharedKillSwitchState,
  type NodeAck,
} from './kill-switch-cluster.js';
import { settled } from '../cluster.js';
import { InflightRuns } from './inflight.js';
import { KillSwitchHooks } from './kill-switch-hooks.js';
import { storePersistence, type KillSwitchPersistence } from './kill-switch-store.js';
import { PolicyEngine, type CodePolicy, type PolicyDecision, type PolicySummary } from './policy-engine.js';
import { PolicyFileError, readPolicyFile, type PolicyFile } from './policy-file.js';
import { PolicyHooks } from './policy-hooks.js';
import type { DecisionRecord } from './decision-log.js';
import { Budgets } from './budgets/budgets.js';
import { Approvals, type ApprovalSettings } from './approvals/approvals.js';
import { ApprovalHooks, type ApprovalNeed } from './approvals/approval-hooks.js';
import './seams.js';

/**
 * How long a starting node of a cluster holds its first runs while it reads the kill switch's
 * shared state (Redis still connecting); past it, they run and the periodic read catches up.
 */
export const FIRST_SYNC_WINDOW_MS = 5000;
const FIRST_SYNC_RETRY_MS = 100;

/** One node's acknowledgement of the kill switch's state. */
export interface NodeState {
  node: string;
  /** When the node adopted the state it enforces (ISO-8601). */
  ackAt: string;
  /** What that node enforces (GET governance/health: a node that missed the change says so). */
  armed: boolean;
}

/** What arm, disarm and GET governance/health answer. */
export interface KillSwitchReport {
  armed: boolean;
  /** `*`: the whole fleet; else the one agent. */
  scope: string;
  reason: string | null;
  operator: string | null;
  armedAt: string | null;
  /** The nodes that acknowledged this state (arm, disarm) or that answered, with what they enforce (health). */
  nodes: NodeState[];
  /** Cluster mode: the nodes that did not answer in time. */
  missing?: string[];
  /** False when the store could not keep the change (a restart of this node would not know it). */
  durable?: boolean;
}

/** What POST sessions/{uuid}/cancel-inflight answers. */
export interface CancelInflightResult {
  session: string;
  /** False when no model call of the session was in flight (a repeated call: nothing to do). */
  cancelled: boolean;
  /** The node that holds the session. */
  node: string;
}

/** The cluster method that cancels a session's model call on the node that holds the session. */
export const CANCEL_INFLIGHT_METHOD = 'governance.cancel-inflight';

export interface GovernanceOptions {
  /** How often a node of a cluster reads the shared state again (a change it missed); 0: only at start. */
  syncIntervalMs: number;
  /** The JSON policy file (read at start and on reload); empty: no file, only code policies. */
  policyFile?: string;
  /** Decisions kept in memory for GET governance/decisions. */
  decisionLogSize?: number;
  /** Human approvals: timeout, retention, sweep (defaults: 15 min, 7 days, 5 s). */
  approvals?: Partial<ApprovalSettings>;
}

/** What POST governance/reload answers. */
export interface PolicyReloadResult {
  file: string;
  /** sha256 of the file's canonical JSON. */
  digest: string;
  policies: PolicySummary[];
  node: string;
}

/**
 * The governance plane of one node (issue 26); this slice is the kill switch and cancelling one
 * chat session's model call. It lives beside the admin plane and reaches agent runs only through
 * the agent host's run-hooks seam, the store only through its own table, and other nodes only
 * through the cluster service's methods and shared logs. Every write goes through the control
 * plane (roles, authorizer, audit, event).
 */
export class Governance {
  readonly killSwitch = new KillSwitch();
  /** The policies and their decision log (file policies, code policies). */
  readonly policies: PolicyEngine;
  /** Budgets and spend (budgets/): the price table, the spend ledger, the budgets of the policy file. */
  readonly budgets: Budgets;
  private readonly hooks = new KillSwitchHooks(this.killSwitch);
  private readonly policyHooks: PolicyHooks;
  private readonly inflight = new InflightRuns();
  /** Human approvals of tool calls and of admin MCP actions (docs/governance.md, "Human approval"). */
  readonly approvals: Approvals;
  /** The agent layer's own cancel error (its chat endpoint answers it with a `cancelled` frame). */
  private cancelError: ((reason: string) => Error) | undefined;
  private persistence: KillSwitchPersistence | undefined;
  private cluster: ClusterService | undefined;
  private readonly cleanups: (() => void)[] = [];
  private syncTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly fw: Framework,
    private readonly control: ControlPlane,
    private readonly options: GovernanceOptions,
    private readonly log: Logger,
  ) {
    this.policies = new PolicyEngine(options.decisionLogSize ?? 1000);
    this.budgets = new Budgets(fw, log, () => this.nodeId);
    this.approvals = new Approvals(
      fw,
      control,
      {
        timeoutMs: options.approvals?.timeoutMs ?? (() => 900_000),
        retentionMs: options.approvals?.retentionMs ?? (() => 604_800_000),
        sweepIntervalMs: options.approvals?.sweepIntervalMs ?? 5000,
      },
      log,
      () => this.nodeId,
    );
    this.policyHooks = new PolicyHooks(this.policies);
    this.policies.onDenied = (record) => fw.events.emit('PolicyDenied', policyDeniedEvent(record, this.nodeId));
    this.cleanups.push(
      this.killSwitch.onChange(({ state }) => {
        const stopped = this.hooks.stopCovered();
        const event = {
          armed: state.armed,
          scope: state.scope,
          reason: state.reason,
          operator: state.operator,
          armedAt: state.armedAt,
          node: this.nodeId,
          stopped,
        };
        if (state.armed) this.log.warn(event, 'kill switch armed: runs of its scope are refused and stopped');
        else this.log.info(event, 'kill switch disarmed');
        fw.events.emit('KillSwitchChanged', event);
      }),
    );
  }

  /**
   * Wires the switch and the policies to the agent host, the store and the cluster, as each
   * appears. A policy file that cannot be read or is not valid throws: a node does not start
   * without the policies its operator wrote (fail closed).
   */
  start(): void {
    if (this.options.policyFile) this.apply(readPolicyFile(this.options.policyFile));
    this.approvals.start();
    this.fw.services.whenProvided('agent.module', (agents) => {
      if (this.closed) return;
      // A tool's own `approval` (its ToolSpec), else a policy's `require-approval` rule.
      const needs = (run: RunScope, call: AiToolCall): ApprovalNeed | undefined => {
        const spec = agents.host.agents.get(run.agent)?.def.tools.find((t) => t.name === call.toolName)?.spec.approval;
        if (spec) return spec === true ? { reason: null } : { reason: spec.reason ?? null, timeoutMs: spec.timeoutMs };
        const policy = this.policies.approvalFor({
          agent: run.agent,
          action: 'tool_call',
          principal: run.principalId,
          runId: run.runId,
          tool: call.toolName,
          arguments: call.input,
        });
        return policy ? { reason: policy.reason, timeoutMs: policy.timeoutMs } : undefined;
      };
      // The kill switch first: an armed switch refuses before a policy is asked (and logs nothing);
      // a call the policies deny asks no human. Budgets after the policies: a call a policy refuses
      // costs nothing.
      this.cleanups.push(
        agents.host.hooks.add(this.hooks),
        agents.host.hooks.add(this.policyHooks),
        agents.host.hooks.add(new ApprovalHooks(this.approvals, needs)),
        agents.host.hooks.add(this.budgets.hooks),
        agents.host.hooks.add(this.inflight),
      );
      this.budgets.usePrices(() => agents.prices);
      this.budgets.useStore(agents.host.store);
      // Installed (it provided 'agent.module'); until the import settles, a cancel uses an FwError of the same code.
      import('@fw/agent').then(
        (m) => {
          this.cancelError = (reason) => new m.RunCancelledError(reason);
        },
        () => undefined,
      );
      // A restarted node reads its state before it admits a run: one that was armed starts armed.
      const loaded = storePersistence(agents.host.store).then(async (persistence) => {
        this.persistence = persistence;
        const state = await persistence?.load();
        if (state) this.killSwitch.adopt(state);
      });
      loaded.catch((err: unknown) =>
        this.log.error({ error: errorSummary(err) }, 'cannot read the kill switch from the store; it starts as the cluster knows it'),
      );
      this.hooks.waitFor(loaded);
    });
    this.fw.services.whenProvided('cluster', (cluster) => {
      if (this.closed) return;
      this.cluster = cluster;
      this.cleanups.push(registerKillSwitchMethods(cluster, this.killSwitch, (state) => void this.adopt(state)));
      this.cleanups.push(
        cluster.handle(CANCEL_INFLIGHT_METHOD, (args) => {
          if (typeof args.session !== 'string' || typeof args.reason !== 'string')
            throw new FwError('bad_request', "'session' and 'reason' must be strings", 400);
          return this.cancelHere(args.session, args.reason);
        }),
      );
      // A node that starts while the cluster is armed is armed before it admits a run: runs wait
      // until the shared state is read (Redis may still be connecting), for at most the start window.
      this.hooks.waitFor(this.firstSync());
      // Back from a Redis outage: the change this node may have missed meanwhile.
      this.cleanups.push(
        this.fw.events.onAny((e) => {
          if ((e.type as string) === 'ClusterChanged' && (e as { change?: unknown }).change === 'redis-up') void this.sync();
        }),
      );
      if (this.options.syncIntervalMs > 0) {
        this.syncTimer = setInterval(() => void this.sync(), this.options.syncIntervalMs);
        this.syncTimer.unref();
      }
    });
  }

  /** This node's id: the cluster's, else host:pid (as GET nodes names it). */
  get nodeId(): string {
    return this.cluster?.nodeId ?? `${hostname()}:${process.pid}`;
  }

  /** Arms the switch for `scope` (the fleet, or one agent) on every node; answers which nodes acknowledged. */
  arm(input: { reason: string; scope?: string | undefined }, caller: ControlCaller): Promise<KillSwitchReport> {
    const scope = input.scope ?? FLEET;
    return this.control.perform('kill-switch.arm', scope, caller, () =>
      this.change({
        armed: true,
        scope,
        reason: input.reason,
        operator: caller.principal?.id ?? null,
        armedAt: new Date().toISOString(),
      }),
    );
  }

  /** Disarms the switch on every node (whatever its scope). */
  disarm(reason: string | undefined, caller: ControlCaller): Promise<KillSwitchReport> {
    return this.control.perform('kill-switch.disarm', this.killSwitch.state.scope, caller, () =>
      this.change({ ...DISARMED, reason: reason ?? null, operator: caller.principal?.id ?? null }),
    );
  }

  /**
   * Stops the model call in flight of one chat session, wherever it is (the node that holds it in
   * cluster mode); its socket stays open and its client is told `{type:'cancelled'}`. Idempotent:
   * nothing in flight answers `cancelled: false`.
   */
  cancelInflight(sessionId: string, reason: string, caller: ControlCaller): Promise<CancelInflightResult> {
    return this.control.perform('session.cancel-inflight', sessionId, caller, async () => {
      const cluster = this.cluster;
      if (cluster && !this.holdsSession(sessionId)) {
        const routed = await cluster.route<CancelInflightResult>(CANCEL_INFLIGHT_METHOD, { session: sessionId, reason });
        return settled(routed, 'session', sessionId).result as CancelInflightResult;
      }
      return this.cancelHere(sessionId, reason);
    });
  }

  /**
   * Reads the policy file again and applies it at once, or changes nothing (fail closed): a file
   * that cannot be read or is not valid answers 400 with every problem, the old policies stay.
   * The file is read before the write is recorded, like a malformed body (audited `invalid`),
   * but only for a caller allowed to reload (others are refused without reading it).
   */
  async reload(caller: ControlCaller): Promise<PolicyReloadResult> {
    const path = this.options.policyFile ?? '';
    const read = async () => {
      if (!(await this.control.permitted('governance.reload', RELOAD_TARGET, caller.principal))) return undefined;
      if (!path) throw new PolicyFileError('no policy file to reload', ["set 'fw.admin.governance.policy-file'"]);
      return readPolicyFile(path);
    };
    const file = await read();
    return this.control.perform('governance.reload', RELOAD_TARGET, caller, () => {
      // Not reached without a file: perform refuses the caller read() did not read for.
      if (!file) throw new FwError('forbidden', 'not allowed to reload the policies', 403);
      this.apply(file);
      const result: PolicyReloadResult = {
        file: path,
        digest: this.policies.fileDigest ?? '',
        policies: this.policies.list(),
        node: this.nodeId,
      };
      this.log.info({ file: path, digest: result.digest, policies: file.policies.length }, 'policies reloaded');
      this.fw.events.emit('PoliciesReloaded', {
        file: path,
        digest: result.digest,
        policies: file.policies.map((p) => p.name),
        budgets: (file.budgets ?? []).map((b) => b.id),
        operator: caller.principal?.id ?? null,
        node: this.nodeId,
      });
      return result;
    });
  }

  /** A checked policy file's policies and budgets, at once. */
  private apply(file: PolicyFile): void {
    this.policies.load(file);
    this.budgets.load(file.budgets ?? []);
  }

  /** The policy file this node reads ('' when none). */
  get policyFile(): string {
    return this.options.policyFile ?? '';
  }

  /** Adds a code policy (a function, evaluated after the file's policies); returns the function that removes it. */
  usePolicy(policy: CodePolicy): () => void {
    return this.policies.use(policy);
  }

  /**
   * POST governance/check: what the policies decide about `action` of `agent` (an external gateway
   * asks before it acts). Logged like a decision of a run, but a dry evaluation: it uses no
   * rate-limit quota (a viewer asking must not exhaust a principal's quota).
   */
  check(agent: string, action: string, context: Record<string, unknown>): PolicyDecision {
    const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const principal = text(context.principal) ?? text(context.user_id);
    const runId = text(context.run_id) ?? text(context.runId);
    if (action === 'model_call' || action === 'model_input')
      return this.policies.evaluate(
        { agent, action: 'model_call', principal, runId, content: text(context.input) ?? text(context.content) },
        'check',
      );
    if (action === 'model_output')
      return this.policies.evaluate(
        { agent, action: 'model_output', principal, runId, content: text(context.output) ?? text(context.content) },
        'check',
      );
    // A tool call: `tool_call` with the tool in the context, or the action itself names the tool.
    const tool = action === 'tool_call' ? (text(context.tool_name) ?? text(context.tool) ?? '') : action;
    const args = context.arguments ?? context.args ?? context.tool_args;
    return this.policies.evaluate({ agent, action: 'tool_call', principal, runId, tool, arguments: args }, 'check');
  }

  /** The newest decisions, newest first. */
  decisions(limit: number): DecisionRecord[] {
    return this.policies.decisions.newest(limit);
  }

  /** The state this node enforces and, in cluster mode, what every node enforces. */
  async health(): Promise<KillSwitchReport> {
    const state = this.killSwitch.state;
    const cluster = this.cluster;
    if (!cluster) return report(state, [{ node: this.nodeId, ackAt: this.killSwitch.adoptedAt, armed: state.armed }]);
    const { answers, missing } = await cluster.gather<NodeAck>(KILL_SWITCH_STATE);
    const nodes = answers.map((a) => ({ node: a.node, ackAt: a.result.ackAt, armed: a.result.armed }));
    return report(state, nodes, missing);
  }

  private holdsSession(sessionId: string): boolean {
    return (
      this.fw.services
        .get('agent')
        ?.sessions()
        .some((s) => s.id === sessionId) ?? false
    );
  }

  /** Not held here: not found (the cluster asks the other nodes). */
  private cancelHere(sessionId: string, reason: string): CancelInflightResult {
    if (!this.holdsSession(sessionId)) throw new NotFoundError('session', sessionId);
    const error = this.cancelError?.(reason) ?? new FwError('cancelled', reason, 499);
    return { session: sessionId, cancelled: this.inflight.cancel(sessionId, error) > 0, node: this.nodeId };
  }

  close(): void {
    this.closed = true;
    this.approvals.close();
    if (this.syncTimer) clearInterval(this.syncTimer);
    for (const c of this.cleanups.splice(0).reverse()) c();
    this.budgets.close();
  }

  /**
   * A change made here: enforced here first (runs in flight stop at once), then kept (store, the
   * cluster's shared log for nodes that start later) and sent to every node, whose
   * acknowledgements are the answer. A store that fails does not stop the switch: it says so.
   */
  private async change(fields: Omit<KillSwitchState, 'version'>): Promise<KillSwitchReport> {
    const state: KillSwitchState = { ...fields, version: this.killSwitch.nextVersion() };
    const durable = this.adopt(state);
    const cluster = this.cluster;
    if (!cluster) {
      const kept = await durable;
      return report(state, [{ node: this.nodeId, ackAt: this.killSwitch.adoptedAt, armed: state.armed }], undefined, kept);
    }
    const [kept, , { answers, missing }] = await Promise.all([
      durable,
      cluster.append(KILL_SWITCH_LOG, { state }),
      cluster.gather<NodeAck>(KILL_SWITCH_APPLY, { state }),
    ]);
    // A node that holds a newer state (a later change crossed this one) did not take this one.
    const nodes = answers
      .filter((a) => a.result.version === state.version)
      .map((a) => ({ node: a.node, ackAt: a.result.ackAt, armed: a.result.armed }));
    const superseded = answers.filter((a) => a.result.version !== state.version).map((a) => a.node);
    return report(state, nodes, [...missing, ...superseded], kept);
  }

  /** Takes a state when newer; resolves whether the store kept it (undefined: no store, or not newer). */
  private async adopt(state: KillSwitchState): Promise<boolean | undefined> {
    if (!this.killSwitch.adopt(state) || !this.persistence) return undefined;
    try {
      await this.persistence.save(state);
      return true;
    } catch (err) {
      this.log.error({ error: errorSummary(err) }, 'cannot keep the kill switch in the store; a restart of this node would not know it');
      return false;
    }
  }

  /** Reads the cluster's newest state (a change this node missed, or the state at start); false when Redis could not be read. */
  private async sync(): Promise<boolean> {
    const cluster = this.cluster;
    if (!cluster || this.closed) return false;
    try {
      const state = await sharedKillSwitchState(cluster);
      if (state) await this.adopt(state);
      return true;
    } catch (err) {
      this.log.debug({ error: errorSummary(err) }, 'cannot read the kill switch from the cluster yet');
      return false;
    }
  }

  /** The first read, tried again while Redis connects, for at most {@link FIRST_SYNC_WINDOW_MS} (then the interval takes over). */
  private async firstSync(): Promise<void> {
    const until = Date.now() + FIRST_SYNC_WINDOW_MS;
    while (!this.closed && !(await this.sync()) && Date.now() < until) await delay(FIRST_SYNC_RETRY_MS);
  }
}

/** The audit target of a reload: the node's policy set. */
const RELOAD_TARGET = 'policies';

function policyDeniedEvent(record: DecisionRecord, node: string) {
  return {
    policy: record.policy ?? '',
    decision: record.decision as 'deny' | 'dry-run',
    reason: record.reason,
    action: record.action,
    agent: record.agent,
    source: record.source,
    ...(typeof record.context.tool === 'string' ? { tool: record.context.tool } : {}),
    node,
  };
}

function report(state: KillSwitchState, nodes: NodeState[], missing: string[] = [], durable?: boolean): KillSwitchReport {
  return {
    armed: state.armed,
    scope: state.scope,
    reason: state.reason,
    operator: state.operator,
    armedAt: state.armedAt,
    nodes,
    ...(missing.length ? { missing } : {}),
    ...(durable === false ? { durable } : {}),
  };
}

/** The body member `scope`, checked: absent, null or `*` is the fleet; else an agent's name. */
export function scopeOf(v: unknown): string {
  if (v === undefined || v === null || v === FLEET) return FLEET;
  if (typeof v !== 'string' || v === '' || v.length > 256)
    throw new FwError('bad_request', "'scope' must be '*' (the whole fleet) or an agent name of at most 256 characters", 400, {
      field: 'scope',
    });
  return v;
}
