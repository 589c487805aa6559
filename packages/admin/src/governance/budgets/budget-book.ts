/**
 * The budgets of one node and where each stands: which budgets govern a run, what their entity
 * (the run, its agent today, its principal today) has spent, and each entity's state (`ok`,
 * `soft`, `hard`). A state only rises within its period (a run, a UTC day); each rise is told
 * once (`onRise`: the events and the warning), so a refused call after another refused call says
 * nothing new.
 */
import type { RunScope } from '@fw/agent';
import type { BudgetDefinition, BudgetLimit } from './budget-definition.js';
import { dayOf, type SpendLedger, type Usage } from './spend-ledger.js';

export type BudgetState = 'ok' | 'soft' | 'hard';

const RANK: Record<BudgetState, number> = { ok: 0, soft: 1, hard: 2 };

/** One budget as GET governance/budgets answers it. */
export interface BudgetReport {
  id: string;
  scope: BudgetDefinition['scope'];
  key: string | null;
  period: 'run' | 'day';
  soft: BudgetLimit | null;
  hard: BudgetLimit | null;
  /** The entity's spend (a keyed agent or principal budget); null when it governs many (each run, each agent). */
  used: Usage | null;
  /** The entity's state or, for a budget of many, the highest of theirs (live runs, today). */
  state: BudgetState;
}

/** A budget that governs one run, with its entity's spend. */
export interface Governed {
  budget: BudgetDefinition;
  /** The run's id, the agent's name or the principal's id. */
  entity: string;
  used: Usage;
}

/** What a rise tells. */
export interface BudgetRise extends Governed {
  state: 'soft' | 'hard';
  run: RunScope;
}

export class BudgetBook {
  private budgets: BudgetDefinition[] = [];
  private hard = false;
  /** Each entity's state by budget: run entries until the run ends, day entries for their day. */
  private readonly states = new Map<string, { state: BudgetState; day: string | null; runId: string | null }>();
  private statesDay = dayOf(Date.now());
  onRise: ((rise: BudgetRise) => void) | undefined;

  constructor(private readonly ledger: SpendLedger) {}

  /** Replaces the budgets at once (a reload): states start anew, spend does not. */
  load(budgets: readonly BudgetDefinition[]): void {
    this.budgets = [...budgets];
    this.hard = this.budgets.some((b) => b.hard !== undefined);
    this.states.clear();
  }

  get size(): number {
    return this.budgets.length;
  }

  /** Some budget has a hard limit (the per-part check does nothing otherwise). */
  get hasHard(): boolean {
    return this.hard;
  }

  /** The budgets that govern `run`, each with its entity's spend so far. */
  governing(run: RunScope): Governed[] {
    const out: Governed[] = [];
    for (const budget of this.budgets) {
      if (budget.scope === 'principal') {
        const p = run.principalId;
        if (p === undefined || (budget.key !== undefined && budget.key !== p)) continue;
        out.push({ budget, entity: p, used: this.ledger.principalToday(p) });
      } else {
        if (budget.key !== undefined && budget.key !== run.agent) continue;
        if (budget.scope === 'agent') out.push({ budget, entity: run.agent, used: this.ledger.agentToday(run.agent) });
        else out.push({ budget, entity: run.runId, used: this.ledger.run(run.runId) });
      }
    }
    return out;
  }

  /**
   * The first budget of `run` whose hard limit is reached with `extra` spent on top (a stream's
   * estimate so far), or undefined. Tells a rise to `hard` once.
   */
  hardReached(run: RunScope, extraTokens = 0, extraUsd = 0): Governed | undefined {
    if (!this.hard) return undefined;
    for (const g of this.governing(run)) {
      const hard = g.budget.hard;
      if (!hard) continue;
      const used = { tokens: g.used.tokens + extraTokens, usd: g.used.usd + extraUsd };
      if (reached(hard, used)) {
        const found = { ...g, used };
        this.rise(found, 'hard', run);
        return found;
      }
    }
    return undefined;
  }

  /** The budgets of `run` with a hard limit, their entities' spend live (a stream checks them per part). */
  hardOf(run: RunScope): Governed[] {
    return this.hard ? this.governing(run).filter((g) => g.budget.hard !== undefined) : [];
  }

  /** A stream reached `g`'s hard limit with `used` (its estimate on top): told once. */
  reachedHard(g: Governed, used: Usage, run: RunScope): Governed {
    const found = { ...g, used };
    this.rise(found, 'hard', run);
    return found;
  }

  /** After a call was counted: tells every budget of `run` that rose. */
  observe(run: RunScope): void {
    for (const g of this.governing(run)) {
      const state = stateOf(g.budget, g.used);
      if (state !== 'ok') this.rise(g, state, run);
    }
  }

  /** A run ended: its per-run states go. */
  endRun(runId: string): void {
    for (const b of this.budgets) if (b.scope === 'run') this.states.delete(`${b.id}\u0000${runId}`);
  }

  /** GET governance/budgets. */
  report(): BudgetReport[] {
    this.dropPastDays();
    return this.budgets.map((b) => {
      const key = b.key ?? null;
      let used: Usage | null = null;
      let state: BudgetState = 'ok';
      if (b.scope !== 'run' && key !== null) {
        used = b.scope === 'agent' ? this.ledger.agentToday(key) : this.ledger.principalToday(key);
        state = stateOf(b, used);
      } else if (b.scope !== 'run') {
        for (const [, u] of this.ledger.keysToday(b.scope)) state = higher(state, stateOf(b, u));
      } else {
        for (const [k, s] of this.states) if (k.startsWith(`${b.id}\u0000`)) state = higher(state, s.state);
      }
      return {
        id: b.id,
        scope: b.scope,
        key,
        period: b.scope === 'run' ? 'run' : 'day',
        soft: b.soft ?? null,
        hard: b.hard ?? null,
        used: used ? { tokens: used.tokens, usd: round(used.usd) } : null,
        state,
      };
    });
  }

  private rise(g: Governed, state: 'soft' | 'hard', run: RunScope): void {
    this.dropPastDays();
    const daily = g.budget.scope !== 'run';
    const key = `${g.budget.id}\u0000${g.entity}`;
    const was = this.states.get(key)?.state ?? 'ok';
    if (RANK[state] <= RANK[was]) return;
    this.states.set(key, { state, day: daily ? this.statesDay : null, runId: daily ? null : run.runId });
    // Straight to hard: the soft limit was passed on the way, and is told first.
    if (state === 'hard' && was === 'ok' && g.budget.soft) this.onRise?.({ ...g, state: 'soft', run });
    this.onRise?.({ ...g, state, run });
  }

  /** A new UTC day: the per-day states start at `ok`. */
  private dropPastDays(): void {
    const day = dayOf(Date.now());
    if (day === this.statesDay) return;
    this.statesDay = day;
    for (const [k, s] of this.states) if (s.day !== null && s.day !== day) this.states.delete(k);
  }
}

export function reached(limit: BudgetLimit, used: Usage): boolean {
  return (limit.tokens !== undefined && used.tokens >= limit.tokens) || (limit.usd !== undefined && used.usd >= limit.usd);
}

export function stateOf(b: BudgetDefinition, used: Usage): BudgetState {
  if (b.hard && reached(b.hard, used)) return 'hard';
  if (b.soft && reached(b.soft, used)) return 'soft';
  return 'ok';
}

function higher(a: BudgetState, b: BudgetState): BudgetState {
  return RANK[b] > RANK[a] ? b : a;
}

function round(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}
