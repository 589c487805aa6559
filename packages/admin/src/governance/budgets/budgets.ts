/**
 * Budgets and spend (issue 26, item 3), the governance plane's part that counts what model calls
 * cost and stops runs at their budgets: the price table, the spend ledger (memory and the store's
 * `fw_spend_daily`), the budgets from the policy file and their states, the run hooks that
 * enforce them, the events of each state change and the Prometheus counters. It reaches agent
 * runs only through the run-hooks seam and the store only through its spend rows.
 */
import type { PriceTable } from '@fw/agent';
import type { Framework, Logger } from '@fw/runtime';
import { errorSummary } from '@fw/runtime';
import type { FwStore, SpendGroup } from '@fw/store';
import type { BudgetDefinition } from './budget-definition.js';
import { BudgetBook, type BudgetReport, type BudgetRise } from './budget-book.js';
import { BudgetHooks } from './budget-hooks.js';
import { dayOf, emptySums, SpendLedger, type SpendSums } from './spend-ledger.js';
import { registerSpendMetrics } from './spend-metrics.js';
import './seams.js';

/** What GET spend answers. */
export interface SpendReport {
  by: SpendGroup;
  since: string;
  until: string;
  currency: 'USD';
  rows: ({ key: string } & SpendSums)[];
  total: SpendSums;
  /** Models called that the price table has no price for (counted at cost 0). */
  unpriced: string[];
}

export class Budgets {
  readonly ledger: SpendLedger;
  readonly book: BudgetBook;
  readonly hooks: BudgetHooks;
  /** Where the agent module's price table (`fw.agent.prices`) is read, from `usePrices` when the agent module is provided. */
  private table: () => PriceTable | undefined = () => undefined;
  private readonly cleanups: (() => void)[] = [];

  constructor(
    private readonly fw: Framework,
    private readonly log: Logger,
    private readonly nodeId: () => string,
  ) {
    this.ledger = new SpendLedger(log);
    this.book = new BudgetBook(this.ledger);
    this.hooks = new BudgetHooks(this.book, this.ledger, () => this.table());
    this.book.onRise = (rise) => this.announce(rise);
    this.cleanups.push(registerSpendMetrics(fw, this.ledger));
  }

  /** The budgets of the policy file (at start and on each reload). */
  load(budgets: readonly BudgetDefinition[]): void {
    this.book.load(budgets);
  }

  /**
   * The agent module's price table: the agent layer reads and checks `fw.agent.prices` (a bad one
   * stops its start); spend is priced with the same table the tape's cost uses, asked at each call.
   */
  usePrices(table: () => PriceTable): void {
    this.table = table;
  }

  /** The price table spend is priced with; undefined until the agent module is provided. */
  get prices(): PriceTable | undefined {
    return this.table();
  }

  /** The agent host's store: today's spend is read before a run's first model call, and rows are written there. */
  useStore(store: FwStore | undefined): void {
    if (!store) return;
    const loading = this.ledger.useStore(store);
    loading.catch((err: unknown) =>
      this.log.error({ error: errorSummary(err) }, "cannot read today's spend from the store; per-day budgets count from now"),
    );
    this.hooks.waitFor(loading);
  }

  /** GET spend: spend per agent, principal or model of the UTC days from `since` to now. */
  async spend(by: SpendGroup, since: Date): Promise<SpendReport> {
    const until = new Date();
    const rows = await this.ledger.query(by, dayOf(since.getTime()), dayOf(until.getTime()));
    const total = emptySums();
    for (const r of rows) {
      total.calls += r.calls;
      total.inputTokens += r.inputTokens;
      total.outputTokens += r.outputTokens;
      total.cachedTokens += r.cachedTokens;
      total.costUsd += r.costUsd;
    }
    return {
      by,
      since: since.toISOString(),
      until: until.toISOString(),
      currency: 'USD',
      rows: rows.map((r) => ({ ...r, costUsd: roundUsd(r.costUsd) })),
      total: { ...total, costUsd: roundUsd(total.costUsd) },
      unpriced: [...this.ledger.unpriced].sort(),
    };
  }

  /** GET governance/budgets. */
  report(): BudgetReport[] {
    return this.book.report();
  }

  /** Today's spend (UTC) for the overview. */
  today(): SpendSums {
    const t = this.ledger.spendToday();
    return { ...t, costUsd: roundUsd(t.costUsd) };
  }

  close(): void {
    for (const c of this.cleanups.splice(0).reverse()) c();
    this.ledger.close();
  }

  /** A budget's state rose: the event, and a warning naming the run. */
  private announce(rise: BudgetRise): void {
    const limit = (rise.state === 'hard' ? rise.budget.hard : rise.budget.soft) ?? {};
    const event = {
      budget: rise.budget.id,
      scope: rise.budget.scope,
      key: rise.entity,
      period: rise.budget.scope === 'run' ? ('run' as const) : ('day' as const),
      limit,
      used: { tokens: rise.used.tokens, usd: roundUsd(rise.used.usd) },
      agent: rise.run.agent,
      runId: rise.run.runId,
      principal: rise.run.principalId ?? null,
      node: this.nodeId(),
    };
    if (rise.state === 'soft') {
      this.log.warn(event, 'soft budget reached: the run goes on');
      // On the run itself (its tape shows it where it happened).
      rise.run.warn({
        source: 'governance.budgets',
        code: 'budget_soft_limit',
        message: `the soft budget '${rise.budget.id}' of ${limitText(limit)} is reached (${whose(rise)} used ${event.used.tokens} tokens, ${event.used.usd} USD)`,
      });
      this.fw.events.emit('BudgetSoftLimitReached', event);
    } else {
      this.log.warn(event, 'hard budget reached: model calls are refused');
      this.fw.events.emit('BudgetExceeded', event);
    }
  }
}

function limitText(limit: { tokens?: number; usd?: number }): string {
  return [limit.tokens !== undefined ? `${limit.tokens} tokens` : '', limit.usd !== undefined ? `${limit.usd} USD` : '']
    .filter(Boolean)
    .join(' or ');
}

function whose(rise: BudgetRise): string {
  return rise.budget.scope === 'run' ? 'this run' : `${rise.budget.scope} '${rise.entity}' today`;
}

function roundUsd(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}
