/** What budgets add to the kernel's event map: a budget's state rose (never one event per call: too chatty). */
interface BudgetEvent {
  budget: string;
  scope: 'run' | 'agent' | 'principal';
  /** The run's id, the agent's name or the principal's id. */
  key: string;
  period: 'run' | 'day';
  /** The limit reached. */
  limit: { tokens?: number; usd?: number };
  used: { tokens: number; usd: number };
  /** The run whose model call reached it. */
  agent: string;
  runId: string;
  principal: string | null;
  node: string;
}

declare module '@fw/runtime' {
  interface FwEventMap {
    /** A soft limit was reached: the run goes on. */
    BudgetSoftLimitReached: BudgetEvent;
    /** A hard limit was reached: the call was refused or its stream stopped, and later calls are refused. */
    BudgetExceeded: BudgetEvent;
  }
}

export {};
