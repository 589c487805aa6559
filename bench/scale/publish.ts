import { nowUs } from '../common/clock.js';
import { encode } from '../fanout/message.js';
import type { Target } from './targets.js';

/**
 * A burst published inside the server process: `perTick` messages per event-loop turn until
 * `count` (the bench/fanout message: 128 bytes carrying phase, sequence and send time), so that
 * every server kind gets the same offered load and no publisher connection adds its own noise.
 */
export async function publishBurst(target: Target, phase: number, count: number, perTick: number): Promise<void> {
  for (let seq = 0; seq < count; ) {
    for (const end = Math.min(count, seq + perTick); seq < end; seq++) target.publish(encode(phase, seq, nowUs()));
    await new Promise((r) => setImmediate(r));
  }
}
