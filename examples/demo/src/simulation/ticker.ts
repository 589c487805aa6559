/**
 * The ticker: a broadcaster (`/fw/demo/ticker`) that the simulation feeds with made-up prices a
 * few times a second, so the broadcast counters and the messages-per-second chart move even with
 * nobody chatting. Clients subscribe with the fw client; they cannot publish into it.
 */
import type { Framework } from '@fw/runtime';

export const TICKER_PATH = '/demo/ticker';

export interface Tick {
  symbol: string;
  price: number;
  change: number;
  at: number;
  simulated: true;
}

/** The ticker's handler: subscribe-only (a client message gets an error frame back, never a broadcast). */
export function installTicker(fw: Framework): void {
  fw.handle(
    TICKER_PATH,
    {
      message(resource) {
        resource.write({ type: 'error', code: 'read_only', message: 'the ticker is read-only: it only broadcasts' });
      },
    },
    { description: 'Demo ticker: simulated prices, a few messages per second (read-only)' },
  );
}

/** A bounded random walk over three symbols; one `next()` per broadcast. */
export class PriceWalk {
  private readonly prices = new Map<string, number>([
    ['FWX', 101.5],
    ['A2A', 42.0],
    ['MCP', 7.25],
  ]);
  private turn = 0;

  next(now: number): Tick {
    const symbols = [...this.prices.keys()];
    const symbol = symbols[this.turn++ % symbols.length]!;
    const before = this.prices.get(symbol)!;
    // ±1 % per tick, kept between half and twice the start so a long run never drifts to 0.
    const price = Math.round(Math.min(before * 2, Math.max(before / 2, before * (1 + (Math.random() - 0.5) / 50))) * 100) / 100;
    this.prices.set(symbol, price);
    return { symbol, price, change: Math.round((price - before) * 100) / 100, at: now, simulated: true };
  }
}
