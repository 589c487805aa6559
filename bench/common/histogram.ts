/**
 * A latency histogram in microseconds with bounded memory and ~1.6% relative precision:
 * values below 128 µs are exact, above that each power of two is split into 64 buckets
 * (the idea of HdrHistogram, in a few lines). Histograms from several processes are merged
 * by adding their counts, which is why they travel as plain `{ counts }` objects over IPC.
 */
const SUB = 128;
const SUB_BITS = 7;
/** 2^40 µs is about 12 days: nothing a benchmark records is longer. */
const MAX_EXP = 40;

export interface HistogramData {
  counts: Record<string, number>;
}

export class Histogram {
  private readonly buckets = new Float64Array((MAX_EXP - SUB_BITS + 2) * SUB);
  count = 0;
  max = 0;

  record(us: number): void {
    const v = us < 0 ? 0 : Math.round(us);
    this.buckets[bucketOf(v)]! += 1;
    this.count++;
    if (v > this.max) this.max = v;
  }

  /** The value at percentile `p` (0–100): the upper edge of the bucket holding it. */
  percentile(p: number): number {
    if (this.count === 0) return NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      seen += this.buckets[i]!;
      if (seen >= rank) return Math.min(upperEdge(i), this.max);
    }
    return this.max;
  }

  /** Sparse form for IPC: only non-empty buckets. */
  toJSON(): HistogramData & { max: number } {
    const counts: Record<string, number> = {};
    for (let i = 0; i < this.buckets.length; i++) if (this.buckets[i]! > 0) counts[i] = this.buckets[i]!;
    return { counts, max: this.max };
  }

  merge(data: HistogramData & { max?: number }): this {
    for (const [i, n] of Object.entries(data.counts)) {
      this.buckets[Number(i)]! += n;
      this.count += n;
    }
    if (data.max !== undefined && data.max > this.max) this.max = data.max;
    return this;
  }

  reset(): void {
    this.buckets.fill(0);
    this.count = 0;
    this.max = 0;
  }
}

function bucketOf(v: number): number {
  if (v < SUB) return v;
  const exp = Math.min(Math.floor(Math.log2(v)), MAX_EXP);
  const shift = exp - SUB_BITS + 1;
  // Within [2^exp, 2^(exp+1)) the 6 bits below the leading one pick the sub-bucket.
  const sub = Math.floor(v / 2 ** shift) - SUB / 2;
  return SUB + (exp - SUB_BITS) * (SUB / 2) + sub;
}

function upperEdge(i: number): number {
  if (i < SUB) return i;
  const j = i - SUB;
  const exp = Math.floor(j / (SUB / 2)) + SUB_BITS;
  const sub = (j % (SUB / 2)) + SUB / 2;
  const shift = exp - SUB_BITS + 1;
  return (sub + 1) * 2 ** shift - 1;
}
