/**
 * The benchmark message: exactly 128 bytes of ASCII, carrying its phase, its sequence number and
 * its send time (µs on the shared clock, bench/common/clock.ts) at fixed offsets so a subscriber
 * reads them without parsing JSON:
 *
 *   P SSSSSSSSSS TTTTTTTTTTTTTTTT xxxx…x
 *   0 2          13               30   127
 *
 * The phase lets a subscriber ignore stragglers from an earlier phase.
 */
export const MESSAGE_BYTES = 128;
const PAD = 'x'.repeat(MESSAGE_BYTES);

export function encode(phase: number, seq: number, sentUs: number): string {
  const head = `${phase % 10} ${String(seq).padStart(10, '0')} ${String(sentUs).padStart(16, '0')} `;
  return head + PAD.slice(head.length);
}

export function phaseOf(m: string): number {
  return m.charCodeAt(0) - 48;
}

export function sentUsOf(m: string): number {
  return Number(m.slice(13, 29));
}
