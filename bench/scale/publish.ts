import { nowUs } from '../common/clock.js';
import { encode } from '../fanout/message.js';
import type { Target } from './targets.js';

/** How a burst is offered: `perTick` messages per event-loop turn, or (`rate` > 0) paced at `rate` messages per second. */
export interface Pace {
  perTick: number;
  rate: number;
}

/**
 * A burst published inside the server process (the bench/fanout message: 128 bytes carrying
 * phase, sequence and send time), so that every server kind gets the same offered load and no
 * publisher connection adds its own noise. As fast as the server takes them (`perTick` per turn),
 * or paced: message i falls due `i / rate` seconds after the first, and a server that falls
 * behind publishes what is due at once.
 */
export async function publishBurst(target: Target, phase: number, count: number, pace: Pace): Promise<void> {
  const t0 = nowUs();
  for (let seq = 0; seq < count; ) {
    const due = pace.rate > 0 ? Math.min(count, Math.floor(((nowUs() - t0) * pace.rate) / 1e6) + 1) : Math.min(count, seq + pace.perTick);
    for (; seq < due; seq++) target.publish(encode(phase, seq, nowUs()));
    if (pace.rate > 0) await new Promise((r) => setTimeout(r, Math.max(0, ((seq * 1e6) / pace.rate - (nowUs() - t0)) / 1000)));
    else await new Promise((r) => setImmediate(r));
  }
}
