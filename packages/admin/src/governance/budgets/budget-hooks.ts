/**
 * Budgets and spend at the agent host's run-hooks seam. Every model call's usage is priced and
 * counted (`afterModelCall`); a call whose run, agent (today) or principal (today) is already
 * past a hard limit is refused before it starts (`beforeModelCall`); a stream is stopped at the
 * limit (`modelPart`): usage arrives only with the stream's end, so the answer's tokens are
 * estimated from its text as it streams (about four characters a token), and the call is then
 * counted with that estimate. Both end the run with `budget_exceeded`.
 */
import type { AiStreamPart, AiUsage, ModelCall, ModelResult, PricedUsage, PriceTable, RunHooks, RunScope } from '@fw/agent';
import { FwError } from '@fw/runtime';
import type { BudgetBook, Governed } from './budget-book.js';
import type { SpendLedger } from './spend-ledger.js';

/** Characters per token of the estimate (OpenAI's rule of thumb for English text). */
const CHARS_PER_TOKEN = 4;

/** A model call refused, or a stream stopped, at a hard budget. */
export class BudgetExceededError extends FwError {
  constructor(g: Governed, stopped: boolean) {
    const hard = g.budget.hard ?? {};
    const limit = [hard.tokens !== undefined ? `${hard.tokens} tokens` : '', hard.usd !== undefined ? `${hard.usd} USD` : '']
      .filter(Boolean)
      .join(' or ');
    const whose = g.budget.scope === 'run' ? 'this run' : `${g.budget.scope} '${g.entity}' today`;
    super(
      'budget_exceeded',
      `${stopped ? 'stopped' : 'refused'}: the hard budget '${g.budget.id}' of ${limit} is reached (${whose} used ${g.used.tokens} tokens, ${roundUsd(g.used.usd)} USD)`,
      429,
      { budget: g.budget.id, scope: g.budget.scope, key: g.entity },
    );
  }
}

/** A model call in progress: its answer's length so far and the hard budgets it is checked against. */
interface Stream {
  step: number;
  chars: number;
  /** The run's hard budgets (their spend live), and USD per output token of the call's model. */
  watch: Governed[];
  usdPerOutputToken: number;
}

export class BudgetHooks implements RunHooks {
  readonly name = 'governance.budgets';
  private readonly streams = new Map<string, Stream>();
  private ready: Promise<void> | undefined;

  constructor(
    private readonly book: BudgetBook,
    private readonly ledger: SpendLedger,
    /** The agent module's price table (`fw.agent.prices`); undefined until the agent module is there. */
    private readonly prices: () => PriceTable | undefined,
  ) {}

  /** A call's usage at the table's price; without a table (no agent module) every model is unpriced. */
  private price(model: string, usage: Required<AiUsage>): PricedUsage {
    const table = this.prices();
    if (table) return table.price(model, usage);
    return { ...usage, cachedTokens: Math.min(usage.cachedTokens, usage.inputTokens), costUsd: 0, priced: false };
  }

  /** Runs wait for `loading` (today's spend read from the store) before their first model call. */
  waitFor(loading: Promise<unknown>): void {
    const ready = loading.then(
      () => undefined,
      () => undefined,
    );
    this.ready = ready;
    void ready.then(() => {
      if (this.ready === ready) this.ready = undefined;
    });
  }

  async beforeModelCall(run: RunScope, call: ModelCall): Promise<void> {
    if (this.ready) await this.ready;
    this.streams.delete(run.runId);
    if (!this.book.hasHard) return;
    const over = this.book.hardReached(run);
    if (over) throw new BudgetExceededError(over, false);
    // What the per-part check needs, found once per call: the rest is arithmetic per part.
    const watch = this.book.hardOf(run);
    if (watch.length === 0) return;
    const usdPerOutputToken = this.price(modelOf(call), { inputTokens: 0, outputTokens: 1, cachedTokens: 0 }).costUsd;
    this.streams.set(run.runId, { step: call.step, chars: 0, watch, usdPerOutputToken });
  }

  modelPart(run: RunScope, call: ModelCall, part: AiStreamPart): void {
    if (part.type !== 'text') return;
    const s = this.streams.get(run.runId);
    if (!s || s.step !== call.step) return;
    s.chars += part.delta.length;
    const tokens = Math.ceil(s.chars / CHARS_PER_TOKEN);
    const usd = tokens * s.usdPerOutputToken;
    for (const g of s.watch) {
      const hard = g.budget.hard!;
      if ((hard.tokens !== undefined && g.used.tokens + tokens >= hard.tokens) || (hard.usd !== undefined && g.used.usd + usd >= hard.usd))
        throw new BudgetExceededError(this.book.reachedHard(g, { tokens: g.used.tokens + tokens, usd: g.used.usd + usd }, run), true);
    }
  }

  afterModelCall(run: RunScope, call: ModelCall, result: ModelResult): void {
    this.streams.delete(run.runId);
    const model = call.model ?? result.responseModel ?? call.provider;
    const u = result.usage;
    // A stopped or failed stream has no usage: its tokens are estimated from the request and the text.
    const usage = {
      inputTokens: u?.inputTokens ?? estimateInput(call),
      outputTokens: u?.outputTokens ?? Math.ceil(result.text.length / CHARS_PER_TOKEN),
      cachedTokens: u?.cachedTokens ?? 0,
    };
    this.ledger.record({ runId: run.runId, agent: run.agent, principal: run.principalId, model }, this.price(model, usage));
    if (this.book.size > 0) this.book.observe(run);
  }

  runEnded(run: RunScope): void {
    this.streams.delete(run.runId);
    this.ledger.endRun(run.runId);
    this.book.endRun(run.runId);
  }
}

function modelOf(call: ModelCall): string {
  return call.model ?? call.provider;
}

function estimateInput(call: ModelCall): number {
  let chars = 0;
  for (const m of call.request.messages) chars += typeof m.content === 'string' ? m.content.length : JSON.stringify(m.content ?? '').length;
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

function roundUsd(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
