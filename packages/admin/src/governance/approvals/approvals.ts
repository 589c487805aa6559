import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { errorSummary, FwError, NotFoundError, type Framework, type Logger } from '@fw/runtime';
import type { ApprovalRecords, ApprovalTable, FwStore } from '@fw/store';
import type { ControlAction } from '../../authorizer.js';
import type { ControlCaller, ControlPlane } from '../../control.js';
import { ForbiddenError } from '../../errors.js';
import { ADMIN_AGENT, approvalOf, type Approval } from './approval.js';
import './seams.js';

type StoreModule = typeof import('@fw/store');

export interface ApprovalSettings {
  /** How long an approval waits before it expires (denied), unless its tool or policy says otherwise. */
  timeoutMs: () => number;
  /** How long decided approvals are kept. */
  retentionMs: () => number;
  /** How often the sweep runs (expiry, decisions made elsewhere, pruning); 0: never. */
  sweepIntervalMs: number;
}

/** What asks for an approval: a run's tool call, or an admin action over MCP. */
export interface ApprovalRequest {
  runId: string | null;
  agent: string;
  tool: string;
  arguments: unknown;
  principal: string | null;
  surface: string | null;
  reason: string | null;
  /** Overrides the configured timeout. */
  timeoutMs?: number | undefined;
}

/** An admin action run once its approval is approved (`fw.admin.mcp-approval`): by the approver, naming the requester. */
export type ApprovedAction = (args: Record<string, unknown>, caller: ControlCaller) => Promise<unknown>;

/** What POST approvals/{id} answers: the approval, and for an admin action what running it gave. */
export type DecidedApproval = Approval & { result?: unknown; error?: string };

/** An approval's decision was already made otherwise (409). */
export class ApprovalDecidedError extends FwError {
  constructor(row: ApprovalTable) {
    super('approval_decided', `approval '${row.id}' is already ${row.status}`, 409, { status: row.status });
  }
}

/**
 * Human approvals of one node: created by the run hooks (a tool call that needs one) and by the
 * admin MCP tools (`fw.admin.mcp-approval`), kept in the store (a restart keeps them pending),
 * decided by an operator over REST or MCP, or expired (denied) by a timer per approval on the node
 * that created it and by a sweep on every node, which also catches those a restarted node left
 * and decisions made on another node sharing the database. Every state change is evented
 * (`ApprovalRequested`, `ApprovalDecided`) and audited (a decision by its operator, an expiry by
 * `system`).
 */
export class Approvals {
  private records: ApprovalRecords | undefined;
  private readonly waiters = new Map<string, (row: ApprovalTable) => void>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** What each approvable admin tool runs once approved, and the action (its role) the approver needs. */
  private readonly actions = new Map<string, { run: ApprovedAction; needs: ControlAction }>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly fw: Framework,
    private readonly control: ControlPlane,
    private readonly settings: ApprovalSettings,
    private readonly log: Logger,
    private readonly nodeId: () => string = () => `${hostname()}:${process.pid}`,
  ) {}

  /** Uses fw's store once it is open (the agent module opens it), and starts the sweep. */
  start(): void {
    this.fw.services.whenProvided('store', (store) => {
      if (this.closed) return;
      void this.use(store);
    });
  }

  private async use(store: FwStore): Promise<void> {
    let mod: StoreModule;
    try {
      mod = await import('@fw/store');
    } catch {
      return;
    }
    if (this.closed) return;
    this.records = new mod.ApprovalRecords(store.db);
    // At once: what a stopped process left pending past its time is denied now, not in a sweep's time.
    void this.sweep();
    if (this.settings.sweepIntervalMs > 0) {
      this.sweepTimer = setInterval(() => void this.sweep(), this.settings.sweepIntervalMs);
      this.sweepTimer.unref();
    }
  }

  /** True once the store is there: an approval can be kept. */
  get available(): boolean {
    return this.records !== undefined;
  }

  /** The admin action an approved `tool` (an admin MCP tool's name) runs. */
  registerAction(tool: string, action: ApprovedAction, needs: ControlAction): () => void {
    const entry = { run: action, needs };
    this.actions.set(tool, entry);
    return () => {
      if (this.actions.get(tool) === entry) this.actions.delete(tool);
    };
  }

  /** Creates a pending approval (durable before it is announced) and arms its expiry on this node. */
  async request(input: ApprovalRequest): Promise<Approval> {
    const records = this.require();
    const now = Date.now();
    const timeout = Math.max(1, input.timeoutMs ?? this.settings.timeoutMs());
    const row: ApprovalTable = {
      id: randomUUID(),
      run_id: input.runId,
      agent: input.agent,
      tool: input.tool,
      arguments: JSON.stringify(input.arguments ?? null) ?? 'null',
      principal: input.principal,
      surface: input.surface,
      status: 'pending',
      reason: input.reason,
      requested_at: now,
      expires_at: now + timeout,
      decided_at: null,
      decided_by: null,
    };
    await records.insert(row);
    this.arm(row);
    const approval = approvalOf(row);
    this.log.info({ approval: row.id, agent: row.agent, tool: row.tool, expiresAt: approval.expiresAt }, 'approval requested');
    this.fw.events.emit('ApprovalRequested', {
      id: row.id,
      runId: row.run_id,
      agent: row.agent,
      tool: row.tool,
      principal: row.principal,
      surface: row.surface,
      reason: row.reason,
      expiresAt: approval.expiresAt,
      node: this.nodeId(),
    });
    return approval;
  }

  /**
   * Resolves with the approval once decided (approved, denied or expired). A run stopped
   * meanwhile (`signal`) rejects with its reason; its approval stays pending until decided or
   * expired, and a decision then runs nothing.
   */
  wait(id: string, signal: AbortSignal): Promise<Approval> {
    return new Promise<Approval>((resolve, reject) => {
      const stop = (): void => {
        this.waiters.delete(id);
        reject(signal.reason);
      };
      if (signal.aborted) return stop();
      signal.addEventListener('abort', stop, { once: true });
      this.waiters.set(id, (row) => {
        signal.removeEventListener('abort', stop);
        this.waiters.delete(id);
        resolve(approvalOf(row));
      });
    });
  }

  /** Newest first; `withContent` false leaves out the arguments (a caller without the content role). */
  async list(status: Approval['status'] | undefined, limit: number, withContent: boolean): Promise<Approval[]> {
    if (!this.records) return [];
    return (await this.records.list(status, limit)).map((r) => approvalOf(r, withContent));
  }

  /**
   * An operator's decision: audited (`approval.decide`, target the id), evented, and the waiting
   * run (on this node; another node's sees it at its next sweep) goes on. 404 unknown; deciding
   * again the same way answers the approval as it is (200), the other way 409. An approved admin
   * action runs now, as the approver, its audit record naming the requester.
   */
  decide(id: string, approve: boolean, reason: string | undefined, caller: ControlCaller): Promise<DecidedApproval> {
    return this.control.perform('approval.decide', id, caller, async () => {
      const records = this.require();
      const status = approve ? 'approved' : 'denied';
      const existing = await records.get(id);
      if (!existing) throw new NotFoundError('approval', id);
      // An admin action runs as its approver: one who may not do it cannot approve it (it stays
      // pending for someone who may), rather than approve an action that would then be refused.
      const action = existing.agent === ADMIN_AGENT ? this.actions.get(existing.tool) : undefined;
      if (approve && existing.status === 'pending' && action && !(await this.control.permitted(action.needs, '*', caller.principal)))
        throw new ForbiddenError(action.needs, id, 'forbidden', `approving '${existing.tool}' needs the right to '${action.needs}' itself`);
      const now = Date.now();
      const { row, decided } =
        existing.status === 'pending'
          ? await records.decide(id, { status, reason: reason ?? null, decidedAt: now, decidedBy: caller.principal?.id ?? null })
          : { row: existing, decided: false };
      if (!row) throw new NotFoundError('approval', id);
      if (!decided) {
        if (row.status === status) return approvalOf(row);
        throw new ApprovalDecidedError(row);
      }
      this.settled(row);
      const approval = approvalOf(row);
      if (!approve || row.agent !== ADMIN_AGENT) return approval;
      return { ...approval, ...(await this.runAction(row, caller)) };
    });
  }

  /** The approval's admin action, run by the approver; its failure is answered beside the approval (which stays approved). */
  private async runAction(row: ApprovalTable, approver: ControlCaller): Promise<{ result?: unknown; error?: string }> {
    const action = this.actions.get(row.tool)?.run;
    if (!action) return { error: `unavailable: no admin action '${row.tool}' on this node` };
    const args = JSON.parse(row.arguments) as Record<string, unknown>;
    const note = `approval ${row.id}: requested by ${row.principal ?? 'an anonymous operator'} over /fw/admin/mcp, approved by ${approver.principal?.id ?? 'the local operator'}`;
    try {
      return { result: await action(args, { ...approver, note }) };
    } catch (err) {
      const e = err as { code?: string; message?: string };
      return { error: `${e.code ?? 'error'}: ${e.message ?? String(err)}` };
    }
  }

  /**
   * Expires every pending approval whose time ran out (a restarted node's too), hands decisions
   * made on another node to the runs waiting here, and prunes decided approvals past retention.
   */
  sweep(): Promise<void> {
    this.sweeping ??= this.sweepOnce().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  private async sweepOnce(): Promise<void> {
    const records = this.records;
    if (!records || this.closed) return;
    try {
      const now = Date.now();
      for (const row of await records.due(now, 1000)) await this.expire(row.id);
      for (const id of [...this.waiters.keys()]) {
        const row = await records.get(id);
        if (row && row.status !== 'pending') this.settled(row, false);
      }
      const pruned = await records.prune(now - this.settings.retentionMs());
      if (pruned > 0) this.log.debug({ pruned }, 'decided approvals past their retention deleted');
    } catch (err) {
      this.log.warn({ error: errorSummary(err) }, 'the approval sweep failed; it runs again at its next interval');
    }
  }

  /** Denies an approval whose time ran out (if still pending): audited as `system`, evented, its run goes on. */
  private async expire(id: string): Promise<void> {
    const records = this.records;
    if (!records || this.closed) return;
    const existing = await records.get(id);
    if (existing?.status !== 'pending') return;
    const seconds = Math.round((existing.expires_at - existing.requested_at) / 1000);
    const reason = `expired: no decision within ${seconds} s`;
    const { row, decided } = await records.decide(id, { status: 'expired', reason, decidedAt: Date.now(), decidedBy: null });
    if (!row || !decided) return;
    try {
      await this.control.system('approval.expire', id, reason);
    } catch (err) {
      this.log.error({ approval: id, error: errorSummary(err) }, 'cannot audit the expiry of an approval');
    }
    this.settled(row);
  }

  /** A decision made: the local waiter goes on and, when this node made it, it is announced. */
  private settled(row: ApprovalTable, announce = true): void {
    const timer = this.timers.get(row.id);
    if (timer) clearTimeout(timer);
    this.timers.delete(row.id);
    if (announce) {
      this.log.info({ approval: row.id, status: row.status, by: row.decided_by }, 'approval decided');
      this.fw.events.emit('ApprovalDecided', {
        id: row.id,
        status: row.status as 'approved' | 'denied' | 'expired',
        agent: row.agent,
        tool: row.tool,
        reason: row.reason,
        decidedBy: row.decided_by,
        decidedAt: new Date(row.decided_at ?? Date.now()).toISOString(),
        node: this.nodeId(),
      });
    }
    this.waiters.get(row.id)?.(row);
  }

  /** The expiry timer of an approval created here (the sweep covers the others). */
  private arm(row: ApprovalTable): void {
    // setTimeout's limit is 2^31-1 ms; a longer wait is left to the sweep.
    const delay = row.expires_at - Date.now();
    if (delay > 2_147_483_647) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(row.id);
        void this.expire(row.id).catch((err: unknown) =>
          this.log.warn({ approval: row.id, error: errorSummary(err) }, 'cannot expire an approval; the sweep tries again'),
        );
      },
      Math.max(0, delay),
    );
    timer.unref();
    this.timers.set(row.id, timer);
  }

  private require(): ApprovalRecords {
    if (!this.records)
      throw new FwError('approvals_unavailable', "human approvals need fw's store (@fw/store, opened by the agent module)", 503);
    return this.records;
  }

  close(): void {
    this.closed = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
