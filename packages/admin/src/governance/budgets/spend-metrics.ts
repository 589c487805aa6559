/**
 * Spend in the framework's Prometheus registry, read at scrape time (nothing on the model call's
 * path): tokens by agent, model and kind, USD by agent and model, model calls by agent and model,
 * all since this node started.
 */
import type { Framework } from '@fw/runtime';
import type { SpendLedger } from './spend-ledger.js';

export function registerSpendMetrics(fw: Framework, ledger: SpendLedger): () => void {
  const m = fw.metrics;
  const removers = [
    m.labelledCounter(
      'fw_model_tokens_total',
      'Model tokens by agent, model and kind (input, output, cached)',
      ['agent', 'model', 'kind'],
      (): [Record<'agent' | 'model' | 'kind', string>, number][] =>
        [...ledger.totals.values()].flatMap(({ agent, model, sums }): [Record<'agent' | 'model' | 'kind', string>, number][] => [
          [{ agent, model, kind: 'input' }, sums.inputTokens],
          [{ agent, model, kind: 'output' }, sums.outputTokens],
          [{ agent, model, kind: 'cached' }, sums.cachedTokens],
        ]),
    ),
    m.labelledCounter(
      'fw_model_cost_usd_total',
      'Model cost in USD (from the price table) by agent and model',
      ['agent', 'model'],
      (): [Record<'agent' | 'model', string>, number][] =>
        [...ledger.totals.values()].map(({ agent, model, sums }) => [{ agent, model }, sums.costUsd]),
    ),
    m.labelledCounter(
      'fw_model_calls_total',
      'Model calls counted for spend by agent and model',
      ['agent', 'model'],
      (): [Record<'agent' | 'model', string>, number][] =>
        [...ledger.totals.values()].map(({ agent, model, sums }) => [{ agent, model }, sums.calls]),
    ),
  ];
  return () => {
    for (const remove of removers) remove();
  };
}
