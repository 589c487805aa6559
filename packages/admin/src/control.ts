import { type EventBus, fallbackLogger, FwError, traced, type Logger, hasRole, NotFoundError, type Principal } from '@fw/runtime';
import { REQUIRED_ROLE, type ControlAction, type ControlAuthorizer } from './authorizer.js';
import { ACTION_LOG, auditClassOf, type AuditLog, type AuditOutcome, type AuditSource } from './audit.js';
import { settled } from './cluster.js';
import {
  CONTROL_METHOD,
  PERMIT_METHOD,
  REVOKE_METHOD,
  remoteRefusal,
  type BroadcastPermit,
  type RoutedControl,
} from './cluster-control.js';
import { ForbiddenError } from './errors.js';
import type { McpTaskInfo, TaskInfo } from './peer-types.js';
import type { Views } from './views.js';

/** Who asks for a write, and through which surface. */
export interface ControlCaller {
  /** Undefined only for the anonymous local operator (loopback, no authentication configured), whom the gate admitted. */
  principal: Principal | undefined;
  source: AuditSource;
  address?: string | undefined;
}

/** The answer to "may this caller do that": allowed, refused (with the reason), or the authorizer threw. */
export type Permission = { ok: true } | { ok: false; outcome: 'refused' | 'error'; reason: string; code: string };

/** What `POST credentials/revoke` answers: the sockets closed on each node that answered, and the nodes that did not. */
export interface RevokeResult {
  principal: string;
  revoked: true;
  /** Open sockets and streams of the principal that were closed. */
  closed: number;
  /** Cluster mode: the nodes that did not answer (the revocation may not have reached them). */
  missing?: string[];
}

/**
 * The single code path of every admin write, shared by REST, the dashboard and the MCP tools:
 * authorize, run, audit the attempt whatever its outcome, and announce it as
 * ControlActionExecuted. In cluster mode a write whose target another node holds is checked by
 * that node's own rules as well (before it is recorded as allowed, and again when it runs
 * there), so the caller gets the same refusal as from that node directly.
 */
export class ControlPlane {
  constructor(
    private readonly views: Views,
    private readonly audit: AuditLog,
    private readonly events: EventBus,
    private readonly authorizer: () => ControlAuthorizer,
    private readonly authRequired: () => boolean,
    private readonly log: Logger = fallbackLogger(),
  ) {}

  /** Asks the roles and the authorizer without acting or auditing (what the dashboard may offer). */
  async permitted(action: ControlAction, target: string, principal: Principal | undefined): Promise<boolean> {
    return (await this.permission(action, target, principal)).ok;
  }

  /**
   * This node's rules: role first (when authentication is configured, or whenever there is a
   * principal), then the internal-broadcaster rule, then the app's authorizer. An authorizer
   * that throws denies.
   */
  async permission(action: ControlAction, target: string, principal: Principal | undefined): Promise<Permission> {
    const role = REQUIRED_ROLE[action];
    if ((principal !== undefined || this.authRequired()) && !hasRole(principal, role)) {
      return { ok: false, outcome: 'refused', code: 'forbidden', reason: `needs the '${role}' role` };
    }
    if (target !== '*' && this.internalTarget(action, target)) {
      return { ok: false, outcome: 'refused', code: 'internal_broadcaster', reason: 'internal broadcasters are read-only' };
    }
    try {
      if ((await this.authorizer()(action, target, principal)) !== true) {
        return { ok: false, outcome: 'refused', code: 'forbidden', reason: 'refused by the authorizer' };
      }
    } catch (err) {
      this.log.error({ err, action, target }, 'the authorizer threw; the write is denied');
      return {
        ok: false,
        outcome: 'error',
        code: 'authorizer_error',
        reason: `the authorizer failed: ${(err as Error)?.message ?? String(err)}`,
      };
    }
    return { ok: true };
  }

  /** Whether this node holds the target of an action another node may route here. */
  holds(action: ControlAction, target: string): boolean {
    const runtime = this.views.runtime;
    switch (action) {
      case 'unicast':
      case 'disconnect':
        return runtime.getResource(target) !== undefined;
      case 'cancel':
        return (
          (this.views.present('mcp') && this.views.mcp.tasks().some((t) => t.id === target)) ||
          (this.views.present('agent') && this.views.agent.task(target) !== undefined)
        );
      case 'broadcast':
      case 'destroy':
        return runtime.getBroadcaster(target) !== undefined;
      default:
        return false;
    }
  }

  /** Broadcast into or destroy an internal broadcaster, or unicast to one of its members. */
  private internalTarget(action: ControlAction, target: string): boolean {
    const runtime = this.views.runtime;
    if (action === 'broadcast' || action === 'destroy') return runtime.getBroadcaster(target)?.internal === true;
    if (action === 'unicast') {
      const resource = runtime.getResource(target);
      return resource?.broadcasters.some((id) => runtime.getBroadcaster(id)?.internal === true) ?? false;
    }
    return false;
  }

  broadcast(broadcasterId: string, message: string | object, caller: ControlCaller): Promise<{ broadcasterId: string; delivered: number }> {
    return this.execute('broadcast', broadcasterId, caller, async () => {
      const cluster = this.views.cluster;
      // Cluster mode: a broadcaster with members on other nodes only is reached through Redis
      // (`delivered` counts its members on the nodes that answered).
      if (cluster && !this.views.runtime.getBroadcaster(broadcasterId)) {
        const rows = (await cluster.listBroadcasters()).items.filter((b) => b.id === broadcasterId);
        if (rows.length === 0) throw new NotFoundError('broadcaster', broadcasterId);
        await cluster.broadcast(broadcasterId, message);
        return { broadcasterId, delivered: rows.reduce((n, b) => n + b.resourceCount, 0) };
      }
      if (!this.views.runtime.getBroadcaster(broadcasterId)) throw new NotFoundError('broadcaster', broadcasterId);
      return { broadcasterId, delivered: this.views.runtime.broadcast(broadcasterId, message) };
    });
  }

  unicast(uuid: string, message: string | object, caller: ControlCaller): Promise<{ uuid: string; delivered: true; node?: string | null }> {
    return this.execute('unicast', uuid, caller, async () => {
      const cluster = this.views.cluster;
      // Cluster mode: a resource held by another node is reached there, its rules checked there, with the real outcome.
      if (cluster && !this.views.runtime.getResource(uuid)) {
        const routed = await cluster.route(CONTROL_METHOD, routedArgs('unicast', uuid, caller, { message }));
        return { uuid, delivered: true as const, node: settled(routed, 'resource', uuid).node };
      }
      return this.runHere('unicast', uuid, { message }) as Promise<{ uuid: string; delivered: true }>;
    });
  }

  disconnect(
    uuid: string,
    reason: string,
    caller: ControlCaller,
  ): Promise<{ uuid: string; disconnected: true; reason: string; node?: string | null }> {
    return this.execute('disconnect', uuid, caller, async () => {
      const cluster = this.views.cluster;
      if (cluster && !this.views.runtime.getResource(uuid)) {
        const routed = await cluster.route(CONTROL_METHOD, routedArgs('disconnect', uuid, caller, { reason }));
        return { uuid, disconnected: true as const, reason, node: settled(routed, 'resource', uuid).node };
      }
      return this.runHere('disconnect', uuid, { reason }) as Promise<{ uuid: string; disconnected: true; reason: string }>;
    });
  }

  destroy(broadcasterId: string, caller: ControlCaller): Promise<{ broadcasterId: string; disconnected: number }> {
    return this.execute('destroy', broadcasterId, caller, () => {
      if (!this.views.runtime.getBroadcaster(broadcasterId)) throw new NotFoundError('broadcaster', broadcasterId);
      return { broadcasterId, disconnected: this.views.runtime.destroyBroadcaster(broadcasterId) };
    });
  }

  cancel(taskId: string, reason: string, caller: ControlCaller): Promise<TaskInfo | McpTaskInfo> {
    return this.execute('cancel', taskId, caller, async (): Promise<TaskInfo | McpTaskInfo> => {
      const cluster = this.views.cluster;
      // Cluster mode: a task this node does not run is canceled on the node that does, by its rules.
      if (cluster && !this.holds('cancel', taskId)) {
        return settled(await cluster.route<TaskInfo>(CONTROL_METHOD, routedArgs('cancel', taskId, caller, { reason })), 'task', taskId)
          .result as TaskInfo;
      }
      return this.runHere('cancel', taskId, { reason }) as Promise<TaskInfo | McpTaskInfo>;
    });
  }

  /**
   * Replays a taped agent run without a model (docs/runs.md): the agent's code runs again on this
   * node with the recorded model outputs; the result says where it diverged. Needs `operator`.
   */
  replay(runId: string, caller: ControlCaller): Promise<unknown> {
    return this.execute('replay', runId, caller, () => {
      const tape = this.views.agent.tape;
      if (!tape) throw new NotFoundError('run', runId);
      return tape.replay(runId);
    });
  }

  /**
   * Re-runs a taped run's input against the live model as a new run (docs/runs.md, "Re-run and
   * compare"); answers once the new run has started. Needs `operator`; the caller's principal owns it.
   */
  rerun(runId: string, caller: ControlCaller): Promise<{ runId: string; originalRunId: string }> {
    return this.execute('rerun', runId, caller, () => {
      const tape = this.views.agent.tape;
      if (!tape) throw new NotFoundError('run', runId);
      return tape.rerun(runId, caller.principal ? { owner: `principal:${caller.principal.id}` } : {});
    });
  }

  /**
   * An eval write (docs/runs.md, "Evals"): a run promoted to a dataset case (`target` the run id),
   * or an eval run started (`target` the dataset). Needs `operator`, the content role: a case
   * holds what the agent was told and answered.
   */
  evaluate<T>(target: string, caller: ControlCaller, run: () => Promise<T>): Promise<T> {
    return this.execute('evaluate', target, caller, run);
  }

  /**
   * Cuts a principal off: its credentials are refused from now on (`fw.credentials.revoke`: a JWT
   * issued later is good again) and its open sockets and streams close, on every node of a
   * cluster. Needs the `admin` role.
   */
  revoke(principalId: string, caller: ControlCaller): Promise<RevokeResult> {
    return this.execute('revoke', principalId, caller, async () => {
      const cluster = this.views.cluster;
      if (!cluster) return { principal: principalId, revoked: true as const, closed: this.views.credentials.revoke(principalId) };
      const { answers, missing } = await cluster.gather<number>(REVOKE_METHOD, { principal: principalId });
      const closed = answers.reduce((n, a) => n + (typeof a.result === 'number' ? a.result : 0), 0);
      // This node revokes even when the cluster could not ask it (Redis down).
      if (!answers.some((a) => a.node === cluster.nodeId)) this.views.credentials.revoke(principalId);
      return { principal: principalId, revoked: true as const, closed, ...(missing.length ? { missing } : {}) };
    });
  }

  /**
   * A write of another part of the admin plane (governance) on this same path: authorized,
   * recorded before it runs, its outcome audited and announced as ControlActionExecuted.
   */
  perform<T>(action: ControlAction, target: string, caller: ControlCaller, run: () => T | Promise<T>): Promise<T> {
    return this.execute(action, target, caller, run);
  }

  /**
   * Runs an action whose target this node holds (the REST call made here, or one routed here by
   * another node through {@link CONTROL_METHOD}, after this node's rules allowed it).
   */
  async runHere(action: ControlAction, target: string, args: { message?: unknown; reason?: unknown }): Promise<unknown> {
    const runtime = this.views.runtime;
    switch (action) {
      case 'unicast':
        if (!runtime.getResource(target)) throw new NotFoundError('resource', target);
        runtime.unicast(target, args.message as string | object);
        return { uuid: target, delivered: true as const };
      case 'disconnect': {
        if (!runtime.getResource(target)) throw new NotFoundError('resource', target);
        const reason = typeof args.reason === 'string' ? args.reason : 'disconnected by the administrator';
        runtime.disconnect(target, reason);
        return { uuid: target, disconnected: true as const, reason };
      }
      case 'cancel': {
        const reason = typeof args.reason === 'string' ? args.reason : 'canceled by the administrator';
        // An MCP task (tasks extension) of this node: cancelled there, its handler aborted.
        const mcpTask = this.views.present('mcp') ? this.views.mcp.cancelTask(target, reason) : undefined;
        if (mcpTask) return mcpTask;
        if (!this.views.present('agent')) throw new NotFoundError('task', target);
        return this.views.agent.cancelTask(target, reason);
      }
      default:
        throw new FwError('bad_request', `'${action}' is not an action another node can route here`, 400);
    }
  }

  /** Audits a write attempt turned away before it reached the control plane (no or a bad credential, a bad Origin, a malformed body). */
  async refuse(
    action: ControlAction,
    target: string,
    caller: ControlCaller,
    outcome: 'refused' | 'invalid',
    reason: string,
  ): Promise<void> {
    await this.note(action, target, caller, outcome, reason, false);
  }

  /** @deprecated use {@link refuse}. */
  refuseUnauthenticated(action: ControlAction, target: string, source: AuditSource, reason = 'authentication required'): void {
    void this.refuse(action, target, { principal: undefined, source }, 'refused', reason);
  }

  /**
   * Cluster mode: the rules of the node that holds a target this node does not. A resource, a
   * task: that node is asked (`admin.permit`, routed like the action). A broadcaster with no
   * member here: every node that has it is asked. Undefined when nothing is remote, or nobody
   * answered (the action then reports not found or unreachable); a refusal comes back as that
   * node's permission, naming it.
   */
  private async remotePermission(
    action: ControlAction,
    target: string,
    principal: Principal | undefined,
  ): Promise<(Permission & { ok: false; node: string | undefined }) | undefined> {
    const cluster = this.views.cluster;
    if (!cluster || this.holds(action, target)) return undefined;
    const args = routedArgs(action, target, { principal, source: 'rest' }, {});
    if (action === 'broadcast') {
      const { answers } = await cluster.gather<BroadcastPermit>(PERMIT_METHOD, args);
      const refused = answers.find((a) => a.result?.refusal);
      return refused ? { ok: false, ...refused.result.refusal!, node: refused.node } : undefined;
    }
    if (action !== 'unicast' && action !== 'disconnect' && action !== 'cancel') return undefined;
    try {
      await cluster.route(PERMIT_METHOD, args);
      return undefined;
    } catch (err) {
      // Anything but a refusal: the action itself will find out (and report) what is wrong.
      const refusal = remoteRefusal(err);
      return refusal ? { ok: false, ...refusal } : undefined;
    }
  }

  /**
   * Records an attempt and, unless it is the record written ahead of a write, announces it as
   * ControlActionExecuted. `strict`: the record must be durable (an `allowed` write about to run),
   * else AuditUnavailableError (503) refuses the write; refusals are recorded on a best-effort
   * basis (their answer does not change).
   */
  private async note(
    action: ControlAction,
    target: string,
    caller: ControlCaller,
    outcome: AuditOutcome,
    reason: string | null,
    strict: boolean,
  ): Promise<void> {
    const principal = caller.principal?.id ?? null;
    const record = {
      action,
      target,
      principal,
      address: caller.address ?? null,
      success: outcome === 'allowed',
      outcome,
      reason,
      source: caller.source,
    };
    const entry = strict ? await this.audit.record(record) : await this.audit.note(record);
    // Cluster mode: also in the shared audit log, so every node shows it (the local copy stays).
    // A refusal joins an aggregated record that reaches the shared log when its window closes.
    if (entry && auditClassOf(entry) === 'action') void this.views.cluster?.append(ACTION_LOG, entry).catch(() => false);
    if (!strict) this.announce(action, target, principal, outcome, reason);
  }

  private announce(action: ControlAction, target: string, principal: string | null, outcome: AuditOutcome, reason: string | null): void {
    this.events.emit('ControlActionExecuted', {
      action,
      target,
      principal,
      success: outcome === 'allowed',
      outcome,
      ...(reason ? { reason } : {}),
    });
  }

  /**
   * Every admin write in a span, `admin {action}` (REST, dashboard and MCP tools alike), so a
   * trace shows who changed what inside the request that did it. A refused, unaudited or failed
   * write ends the span in error with its code (`forbidden`, `audit_unavailable`, …).
   */
  private execute<T>(action: ControlAction, target: string, caller: ControlCaller, run: () => T | Promise<T>): Promise<T> {
    return traced(
      `admin ${action}`,
      {
        attributes: { 'fw.admin.action': action, 'fw.admin.target': target, 'fw.admin.source': caller.source },
      },
      () => this.executeAudited(action, target, caller, run),
    );
  }

  private async executeAudited<T>(action: ControlAction, target: string, caller: ControlCaller, run: () => T | Promise<T>): Promise<T> {
    const permission = await this.permission(action, target, caller.principal);
    if (!permission.ok) {
      await this.note(action, target, caller, permission.outcome, permission.reason, false);
      throw new ForbiddenError(action, target, permission.code, permission.reason);
    }
    // Cluster mode: the node that holds the target has its say too, before anything is recorded as allowed.
    const remote = await this.remotePermission(action, target, caller.principal);
    if (remote) {
      await this.note(action, target, caller, remote.outcome, onNode(remote.reason, remote.node), false);
      throw new ForbiddenError(action, target, remote.code, remote.reason, remote.node);
    }
    // Written before the action runs: a write the log cannot record does not happen (fail closed).
    await this.note(action, target, caller, 'allowed', null, true);
    let result: T;
    try {
      result = await run();
    } catch (err) {
      // The holding node refused when the action reached it (its rules changed since it was asked).
      const refusal = remoteRefusal(err);
      if (refusal) {
        await this.note(action, target, caller, refusal.outcome, onNode(refusal.reason, refusal.node), false);
        throw new ForbiddenError(action, target, refusal.code, refusal.reason, refusal.node);
      }
      await this.note(action, target, caller, 'failed', err instanceof FwError ? `${err.code}: ${err.message}` : 'internal error', false);
      throw err;
    }
    this.announce(action, target, caller.principal?.id ?? null, 'allowed', null);
    return result;
  }
}

/** The arguments of a routed check or action: the caller's principal travels with it, so the target node judges the same caller. */
function routedArgs(
  action: ControlAction,
  target: string,
  caller: ControlCaller,
  extra: { message?: unknown; reason?: unknown },
): RoutedControl {
  return {
    action,
    target,
    ...(caller.principal ? { principal: { ...caller.principal } } : {}),
    ...(extra.message !== undefined ? { message: extra.message } : {}),
    ...(extra.reason !== undefined ? { reason: extra.reason } : {}),
  };
}

function onNode(reason: string, node: string | undefined): string {
  return node ? `${reason} (on node ${node})` : reason;
}
