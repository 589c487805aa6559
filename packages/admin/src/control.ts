import { EventBus, FwError, NotFoundError, type Principal } from '@fw/runtime';
import type { ControlAction, ControlAuthorizer } from './authorizer.js';
import type { AuditLog, AuditOutcome, AuditSource } from './audit.js';
import { clusterOf, settled } from './cluster.js';
import { ForbiddenError } from './errors.js';
import type { TaskInfo } from './peer-types.js';
import type { Views } from './views.js';

/** Who asks for a write, and through which surface. */
export interface ControlCaller {
  principal: Principal | undefined;
  source: AuditSource;
}

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
  ) {}

  /** Asks the authorizer without acting or auditing (what the dashboard may offer). */
  async permitted(action: ControlAction, target: string, principal: Principal | undefined): Promise<boolean> {
    try {
      return (await this.authorizer()(action, target, principal)) === true;
    } catch {
      return false;
    }
  }

  broadcast(broadcasterId: string, message: string | object, caller: ControlCaller): Promise<{ broadcasterId: string; delivered: number }> {
    return this.execute('broadcast', broadcasterId, caller, async () => {
      const cluster = clusterOf(this.views);
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
      const cluster = clusterOf(this.views);
      // Cluster mode: a resource held by another node is reached there, with the real outcome.
      if (cluster && !this.views.runtime.getResource(uuid)) {
        return { uuid, delivered: true as const, node: settled(await cluster.unicast(uuid, message), 'resource', uuid).node };
      }
      if (!this.views.runtime.getResource(uuid)) throw new NotFoundError('resource', uuid);
      this.views.runtime.unicast(uuid, message);
      return { uuid, delivered: true as const };
    });
  }

  disconnect(uuid: string, reason: string, caller: ControlCaller): Promise<{ uuid: string; disconnected: true; reason: string; node?: string | null }> {
    return this.execute('disconnect', uuid, caller, async () => {
      const cluster = clusterOf(this.views);
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

  cancel(taskId: string, reason: string, caller: ControlCaller): Promise<TaskInfo> {
    return this.execute('cancel', taskId, caller, async () => {
      const cluster = clusterOf(this.views);
      // Cluster mode: a task this node does not run is canceled on the node that does.
      if (cluster && !(this.views.present('agent') && this.views.agent.task(taskId))) {
        return settled(await cluster.route<TaskInfo>('agent.cancel-task', { taskId, reason }), 'task', taskId).result as TaskInfo;
      }
      if (!this.views.present('agent')) throw new NotFoundError('task', taskId);
      return this.views.agent.cancelTask(taskId, reason);
    });
  }

  /** Audits a write attempt turned away before it reached the gate (no or a bad credential). */
  refuseUnauthenticated(action: ControlAction, target: string, source: AuditSource, reason = 'authentication required'): void {
    this.note(action, target, { principal: undefined, source }, false, 'refused', reason);
  }

  private note(action: ControlAction, target: string, caller: ControlCaller, success: boolean, outcome: AuditOutcome, reason: string | null): void {
    const principal = caller.principal?.id ?? null;
    const entry = this.audit.record({ action, target, principal, success, outcome, reason, source: caller.source });
    // Cluster mode: also in the shared audit log, so every node shows it (the local copy stays).
    void clusterOf(this.views)?.append('audit', entry).catch(() => false);
    this.events.emit('ControlActionExecuted', { action, target, principal, success, outcome, ...(reason ? { reason } : {}) });
  }

  private async execute<T>(action: ControlAction, target: string, caller: ControlCaller, run: () => T | Promise<T>): Promise<T> {
    const note = (success: boolean, outcome: AuditOutcome, reason: string | null): void => this.note(action, target, caller, success, outcome, reason);
    if (!(await this.permitted(action, target, caller.principal))) {
      note(false, 'refused', 'refused by the authorizer');
      throw new ForbiddenError(action, target);
    }
    let result: T;
    try {
      result = await run();
    } catch (err) {
      note(false, 'failed', err instanceof FwError ? `${err.code}: ${err.message}` : 'internal error');
      throw err;
    }
    note(true, 'allowed', null);
    return result;
  }
}
