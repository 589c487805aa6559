/**
 * The price table of model calls (docs/agents.md, "Prices"): USD per million input, output and
 * cached-input tokens, per model. It comes from `fw.agent.prices`, inline JSON or the path of a
 * JSON file, read once when the agent module starts (a bad table stops the start: cost priced
 * wrong is worse than no start). A model name may hold `*` (any run of characters); the exact name
 * wins, then the first pattern in file order. It lives in the agent layer because usage comes from
 * the AI runtimes; its readers are the run tape (cost per model output, worked out when read) and
 * the admin plane's budgets and spend (through `agentModuleOf(fw).prices`). A model without a
 * price is never guessed: the tape shows no cost, spend counts its tokens at cost 0 and names it.
 */
import { readFileSync } from 'node:fs';
import { FwError } from '@fw/runtime';
import type { AiUsage } from '../runtime/port.js';

/** The setting the table comes from. */
export const PRICES_KEY = 'fw.agent.prices';

/** USD per 1,000,000 tokens of one model. `cached` defaults to `input` (a provider that does not discount). */
export interface ModelPrice {
  input: number;
  output: number;
  cached?: number;
}

/** What one model call cost. */
export interface PricedUsage {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costUsd: number;
  /** False when the table has no price for the model (cost 0). */
  priced: boolean;
}

const PER_TOKENS = 1_000_000;

export class PriceTable {
  private readonly exact = new Map<string, ModelPrice>();
  private readonly patterns: { test: RegExp; price: ModelPrice }[] = [];

  constructor(prices: Readonly<Record<string, ModelPrice>> = {}) {
    for (const [model, price] of Object.entries(prices)) {
      if (model.includes('*')) this.patterns.push({ test: new RegExp(`^${model.split('*').map(escapeRegExp).join('.*')}$`), price });
      else this.exact.set(model, price);
    }
  }

  get size(): number {
    return this.exact.size + this.patterns.length;
  }

  priceOf(model: string): ModelPrice | undefined {
    return this.exact.get(model) ?? this.patterns.find((p) => p.test.test(model))?.price;
  }

  /** Prices a call's usage: cached tokens are part of the input tokens, priced at the cached rate. */
  price(model: string, usage: Required<AiUsage>): PricedUsage {
    const price = this.priceOf(model);
    const cached = Math.min(usage.cachedTokens, usage.inputTokens);
    const costUsd = price
      ? ((usage.inputTokens - cached) * price.input + cached * (price.cached ?? price.input) + usage.outputTokens * price.output) /
        PER_TOKENS
      : 0;
    return { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, cachedTokens: cached, costUsd, priced: price !== undefined };
  }
}

/**
 * The table `fw.agent.prices` names: '' is an empty table, a value starting with `{`
 * is the JSON itself, anything else a file's path. Throws a 400-coded FwError naming every problem.
 */
export function readPriceTable(setting: string): PriceTable {
  const value = setting.trim();
  if (value === '') return new PriceTable();
  let text = value;
  if (!value.startsWith('{')) {
    try {
      text = readFileSync(value, 'utf8');
    } catch (err) {
      throw priceError(`cannot read the price table ${value}`, [(err as Error).message]);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw priceError('the price table is not JSON', [(err as Error).message]);
  }
  return new PriceTable(checkPrices(parsed));
}

function checkPrices(value: unknown): Record<string, ModelPrice> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw priceError('the price table is not valid', [
      '/: must be an object of model name to {input, output, cached?} (USD per 1M tokens)',
    ]);
  const problems: string[] = [];
  const rate = (where: string, v: unknown, required: boolean) => {
    if (v === undefined && !required) return;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) problems.push(`${where}: must be a number ≥ 0 (USD per 1M tokens)`);
  };
  for (const [model, price] of Object.entries(value as Record<string, unknown>)) {
    const at = `/${model}`;
    if (model === '' || model.length > 256) problems.push(`${at}: a model name has 1 to 256 characters`);
    if (price === null || typeof price !== 'object' || Array.isArray(price)) {
      problems.push(`${at}: must be {input, output, cached?}`);
      continue;
    }
    const p = price as Record<string, unknown>;
    for (const k of Object.keys(p)) if (!['input', 'output', 'cached'].includes(k)) problems.push(`${at}/${k}: unknown member`);
    rate(`${at}/input`, p.input, true);
    rate(`${at}/output`, p.output, true);
    rate(`${at}/cached`, p.cached, false);
  }
  if (problems.length > 0) throw priceError('the price table is not valid', problems);
  return value as Record<string, ModelPrice>;
}

function priceError(message: string, problems: string[]): FwError {
  return new FwError('invalid_price_table', `${message} (${PRICES_KEY}): ${problems.join('; ')}`, 400, { problems });
}

function escapeRegExp(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}
