/**
 * What a model call cost, from `fw.agent.tape.prices`: per model, the price of a million input
 * and a million output tokens (`gpt-4o-mini=0.15/0.6,*=1/2`; `*` prices every model not named).
 * The tape stores tokens, not money: cost is worked out when the tape is read, so a new price list
 * (at the next start) applies to every run shown. No list, or a model it does not price: no cost (never a guess).
 */
import type { Config } from '@fw/runtime';

export interface TokenPrice {
  /** Per million input tokens. */
  input: number;
  /** Per million output tokens. */
  output: number;
}

export type PriceList = ReadonlyMap<string, TokenPrice>;

const KEY = 'fw.agent.tape.prices';

/** Parses the setting; throws the config's error naming the key and what is wrong. */
export function parsePrices(text: string, config?: Config): PriceList {
  const prices = new Map<string, TokenPrice>();
  for (const entry of text.split(',').map((e) => e.trim())) {
    if (!entry) continue;
    const m = /^([^=\s]+)\s*=\s*([0-9]+(?:\.[0-9]+)?)\s*\/\s*([0-9]+(?:\.[0-9]+)?)$/.exec(entry);
    if (!m) {
      const problem = `"${entry}" is not model=input/output (prices per million tokens, e.g. gpt-4o-mini=0.15/0.6)`;
      throw config ? config.invalid(KEY, problem) : new RangeError(`${KEY}: ${problem}`);
    }
    prices.set(m[1]!, { input: Number(m[2]), output: Number(m[3]) });
  }
  return prices;
}

/** The cost of one model call, or undefined when the list does not price its model or it has no usage. */
export function costOf(
  prices: PriceList,
  model: string | null | undefined,
  usage: { inputTokens?: number; outputTokens?: number } | null,
): number | undefined {
  if (!usage || prices.size === 0) return undefined;
  const price = (model ? prices.get(model) : undefined) ?? prices.get('*');
  if (!price) return undefined;
  return ((usage.inputTokens ?? 0) * price.input + (usage.outputTokens ?? 0) * price.output) / 1_000_000;
}
