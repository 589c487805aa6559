import { type EventBus, fallbackLogger, FwError, traced, type Logger, hasRole, NotFoundError, type Principal } from '@fw/runtime';
import { REQUIRED_ROLE, type ControlAction, type ControlAuthorizer } from './authorizer.js';
import { ACTION_LOG, auditClassOf, type AuditLog, type AuditOutcome, type AuditSource } from './audit.js';
import { settled } from './cluster.js';
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

/**
 * The single code path of every admin write, shared by REST, the dashboard and the MCP tools:
 * authorize, run, audit the attempt whatever its outcome, and announce it as
 * ControlActionExecuted.
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
   * Role first (when authentication is configured, or whenever there is a principal), then the
   * internal-broadcaster rule, then the app's authorizer. An authorizer that throws denies.
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
      // Cluster mode: a resource held by another node is reached there, with the real outcome.
      if (cluster && !this.views.runtime.getResource(uuid)) {
        return { uuid, delivered: true as const, node: settled(await cluster.unicast(uuid, message), 'resource', uuid).node };
      }
      if (!this.views.runtime.getResource(uuid)) throw new NotFoundError('resource', uuid);
      this.views.runtime.unicast(uuid, message);
      return { uuid, delivered: true as const };
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
        return { uuid, disconnected: true as const, reason, node: settled(await cluster.disconnect(uuid, reason), 'resource', uuid).node };
      }
      if (!this.views.runtime.getResource(uuid)) throw new NotFoundError('resource', uuid);
      this.views.runtime.disconnect(uuid, reason);
      return { uuid, disconnected: true as const, reason };
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
      // An MCP task (tasks extension) of this node: cancelled there, its handler aborted.
      const mcpTask = this.views.present('mcp') ? this.views.mcp.cancelTask(taskId, reason) : undefined;
      if (mcpTask) return mcpTask;
      const cluster = this.views.cluster;
      // Cluster mode: a task this node does not run is canceled on the node that does.
      if (cluster && !(this.views.present('agent') && this.views.agent.task(taskId))) {
        return settled(await cluster.route<TaskInfo>('agent.cancel-task', { taskId, reason }), 'task', taskId).result as TaskInfo;
      }
      if (!this.views.present('agent')) throw new NotFoundError('task', taskId);
      return this.views.agent.cancelTask(taskId, reason);
    });
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
    // Written before the action runs: a write the log cannot record does not happen (fail closed).
    await this.note(action, target, caller, 'allowed', null, true);
    let result: T;
    try {
      result = await run();
    } catch (err) {
      await this.note(action, target, caller, 'failed', err instanceof FwError ? `${err.code}: ${err.message}` : 'internal error', false);
      throw err;
    }
    this.announce(action, target, caller.principal?.id ?? null, 'allowed', null);
    return result;
  }
}
