/**
 * Microseconds on a clock every process on this machine shares. `process.hrtime` reads
 * CLOCK_MONOTONIC on Linux, which is system-wide, so a timestamp taken in a server process can
 * be subtracted from one taken in a client process (the benches run on one machine, loopback only).
 */
export function nowUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}
