/**
 * The spend of this node: every model call's tokens and cost, summed where the budgets read them
 * (per run, per agent today, per principal today: O(1) per call) and where GET spend and the
 * metrics read them (per day × agent × principal × model rows). The rows go to the store
 * (`fw_spend_daily`, migration 0011) in batches nobody waits for, at most every FLUSH_MS; at start
 * today's rows are read back, so per-day budgets survive a restart. The store is the agent host's
 * (in memory with `fw.data-dir` empty): there are no model calls without it, so rows wait here only
 * until it is read.
 */
import { errorSummary, type Logger } from '@fw/runtime';
import type { FwStore, SpendDelta, SpendGroup, SpendTotals } from '@fw/store';
import type { PricedUsage } from '@fw/agent';

/** Longest a call's spend waits in memory before it is written. */
const FLUSH_MS = 1000;
const DAY_MS = 86_400_000;

/** Tokens (input + output) and USD. */
export interface Usage {
  tokens: number;
  usd: number;
}

/** Calls and tokens by kind, and USD (a row of GET spend without its key). */
export interface SpendSums {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costUsd: number;
}

/** Who made one model call. */
export interface SpendOwner {
  runId: string;
  agent: string;
  /** The principal's id; undefined for anonymous callers and fw's own runs. */
  principal: string | undefined;
  model: string;
}

export function emptySums(): SpendSums {
  return { calls: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0 };
}

export function dayOf(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

function addTo(sums: SpendSums, u: PricedUsage): void {
  sums.calls++;
  sums.inputTokens += u.inputTokens;
  sums.outputTokens += u.outputTokens;
  sums.cachedTokens += u.cachedTokens;
  sums.costUsd += u.costUsd;
}

export class SpendLedger {
  private day = dayOf(Date.now());
  /** The start of `day` (epoch ms). */
  private dayStart = Date.parse(`${this.day}T00:00:00.000Z`);
  private readonly runs = new Map<string, Usage>();
  private agentsToday = new Map<string, Usage>();
  private principalsToday = new Map<string, Usage>();
  private today = emptySums();
  /** Rows not yet written, by day|agent|principal|model. */
  private rows = new Map<string, SpendDelta>();
  private store: FwStore | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Since start, for the Prometheus counters: tokens by agent, model and kind; USD by agent and model. */
  readonly totals = new Map<string, { agent: string; model: string; sums: SpendSums }>();
  /** Models called that the price table has no price for. */
  readonly unpriced = new Set<string>();

  constructor(private readonly log: Logger) {}

  /** From now on rows go to `store`; today's rows already there are counted (a restarted node keeps its day). */
  async useStore(store: FwStore): Promise<void> {
    this.store = store;
    const day = dayOf(Date.now());
    const [agents, principals] = await Promise.all([store.spend.totals('agent', day, day), store.spend.totals('principal', day, day)]);
    this.rollOver(Date.now());
    for (const r of agents) {
      add(this.agentsToday, r.key, r.inputTokens + r.outputTokens, r.costUsd);
      this.today.calls += r.calls;
      this.today.inputTokens += r.inputTokens;
      this.today.outputTokens += r.outputTokens;
      this.today.cachedTokens += r.cachedTokens;
      this.today.costUsd += r.costUsd;
    }
    for (const r of principals) if (r.key !== '') add(this.principalsToday, r.key, r.inputTokens + r.outputTokens, r.costUsd);
    // Rows kept in memory before the store opened are written now.
    if (this.rows.size > 0) this.schedule();
  }

  /** Counts one model call everywhere. */
  record(owner: SpendOwner, usage: PricedUsage, at = Date.now()): void {
    this.rollOver(at);
    const tokens = usage.inputTokens + usage.outputTokens;
    add(this.runs, owner.runId, tokens, usage.costUsd);
    add(this.agentsToday, owner.agent, tokens, usage.costUsd);
    if (owner.principal !== undefined) add(this.principalsToday, owner.principal, tokens, usage.costUsd);
    addTo(this.today, usage);
    if (!usage.priced && !this.unpriced.has(owner.model)) {
      this.unpriced.add(owner.model);
      this.log.warn(
        { model: owner.model, agent: owner.agent },
        'a model without a price in fw.agent.prices: its calls are counted at cost 0',
      );
    }
    const totalKey = `${owner.agent}\u0000${owner.model}`;
    let total = this.totals.get(totalKey);
    if (!total) this.totals.set(totalKey, (total = { agent: owner.agent, model: owner.model, sums: emptySums() }));
    addTo(total.sums, usage);
    const principal = owner.principal ?? '';
    const key = `${this.day}\u0000${owner.agent}\u0000${principal}\u0000${owner.model}`;
    const row = this.rows.get(key);
    if (row) {
      row.calls++;
      row.input_tokens += usage.inputTokens;
      row.output_tokens += usage.outputTokens;
      row.cached_tokens += usage.cachedTokens;
      row.cost_usd += usage.costUsd;
      row.updated_at = at;
    } else {
      this.rows.set(key, {
        day: this.day,
        agent: owner.agent,
        principal,
        model: owner.model,
        calls: 1,
        input_tokens: usage.inputTokens,
        output_tokens: usage.outputTokens,
        cached_tokens: usage.cachedTokens,
        cost_usd: usage.costUsd,
        updated_at: at,
      });
    }
    if (this.store) this.schedule();
  }

  /**
   * What a run has spent so far. The sums below are live: the object answered is the one later
   * calls add to (until the run ends, or the day turns), so a stream's check per part reads it
   * without a lookup.
   */
  run(runId: string): Usage {
    return live(this.runs, runId);
  }

  agentToday(agent: string, now = Date.now()): Usage {
    this.rollOver(now);
    return live(this.agentsToday, agent);
  }

  principalToday(principal: string, now = Date.now()): Usage {
    this.rollOver(now);
    return live(this.principalsToday, principal);
  }

  /** Every agent (or principal) with spend today. */
  keysToday(scope: 'agent' | 'principal'): [string, Usage][] {
    this.rollOver(Date.now());
    return [...(scope === 'agent' ? this.agentsToday : this.principalsToday)];
  }

  /** Today's (UTC) spend of this node and, with a store, of every node that shares it since this one read it. */
  spendToday(): SpendSums {
    this.rollOver(Date.now());
    return { ...this.today };
  }

  /** A run ended: its own sums are no longer needed. */
  endRun(runId: string): void {
    this.runs.delete(runId);
  }

  /** GET spend: the rows of the days from `sinceDay` to `untilDay`, summed per `by`. */
  async query(by: SpendGroup, sinceDay: string, untilDay: string): Promise<SpendTotals[]> {
    const store = this.store;
    if (store) {
      this.flush();
      await store.writes.flush();
      return store.spend.totals(by, sinceDay, untilDay);
    }
    const groups = new Map<string, SpendTotals>();
    for (const row of this.rows.values()) {
      if (row.day < sinceDay || row.day > untilDay) continue;
      const key = row[by];
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { key, calls: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0 }));
      g.calls += row.calls;
      g.inputTokens += row.input_tokens;
      g.outputTokens += row.output_tokens;
      g.cachedTokens += row.cached_tokens;
      g.costUsd += row.cost_usd;
    }
    return [...groups.values()].sort((a, b) => b.costUsd - a.costUsd || (a.key < b.key ? -1 : 1));
  }

  /** Hands the rows waiting to the store's write queue now (a reader, a close). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const store = this.store;
    if (!store || this.rows.size === 0) return;
    const rows = [...this.rows.values()];
    this.rows = new Map();
    store.writes.defer((w) => w.spend.add(rows));
  }

  close(): void {
    try {
      this.flush();
    } catch (err) {
      this.log.error({ error: errorSummary(err) }, 'cannot write the last spend rows');
    }
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS).unref();
  }

  /** A new UTC day: the per-day sums start at zero. */
  private rollOver(at: number): void {
    // One comparison on the hot path; the day's string only when it may have changed.
    if (at >= this.dayStart && at < this.dayStart + DAY_MS) return;
    const day = dayOf(at);
    this.dayStart = Date.parse(`${day}T00:00:00.000Z`);
    if (day === this.day) return;
    this.day = day;
    this.agentsToday = new Map();
    this.principalsToday = new Map();
    this.today = emptySums();
  }
}

function live(map: Map<string, Usage>, key: string): Usage {
  let u = map.get(key);
  if (!u) map.set(key, (u = { tokens: 0, usd: 0 }));
  return u;
}

function add(map: Map<string, Usage>, key: string, tokens: number, usd: number): void {
  const u = map.get(key);
  if (u) {
    u.tokens += tokens;
    u.usd += usd;
  } else map.set(key, { tokens, usd });
}
