import { Histogram, type Registry } from 'prom-client';

type Snapshot = Awaited<ReturnType<Histogram<'le'>['get']>>;

/**
 * A label-less histogram for the broadcast hot path. prom-client's `observe` hashes labels and
 * costs 1–2 µs; `record` here is a bucket search over a typed array and two additions, and the
 * exposition is built only when Prometheus scrapes (`get`). Everything else about it (name, help,
 * registry, text format) is prom-client's. Feed it with `record`, not `observe`.
 */
export class HotHistogram extends Histogram<'le'> {
  private readonly metricName: string;
  private readonly helpText: string;
  private readonly bounds: Float64Array;
  private readonly counts: Float64Array;
  private total = 0;
  private observed = 0;

  constructor(config: { name: string; help: string; buckets: readonly number[]; registers: Registry[] }) {
    super({ name: config.name, help: config.help, buckets: [...config.buckets], registers: config.registers });
    this.metricName = config.name;
    this.helpText = config.help;
    this.bounds = Float64Array.from([...config.buckets].sort((a, b) => a - b));
    this.counts = new Float64Array(this.bounds.length);
  }

  /** Adds one observation. */
  record(value: number): void {
    this.total += value;
    this.observed++;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.counts[i]!++;
        return;
      }
    }
  }

  override get(): Promise<Snapshot> {
    return Promise.resolve(this.snapshot());
  }

  /** What prom-client's registry formats histograms from (it prefers this to `get`). */
  getForPromString(): Promise<Snapshot> {
    return Promise.resolve(this.snapshot());
  }

  private snapshot(): Snapshot {
    const bucket = `${this.metricName}_bucket`;
    const values: Snapshot['values'] = [];
    let cumulative = 0;
    for (let i = 0; i < this.bounds.length; i++) {
      cumulative += this.counts[i]!;
      values.push({ labels: { le: this.bounds[i]! }, value: cumulative, metricName: bucket });
    }
    values.push({ labels: { le: '+Inf' }, value: this.observed, metricName: bucket });
    values.push({ labels: {}, value: this.total, metricName: `${this.metricName}_sum` });
    values.push({ labels: {}, value: this.observed, metricName: `${this.metricName}_count` });
    return {
      name: this.metricName,
      help: this.helpText,
      // prom-client's types declare a numeric enum; at run time (and in the text format) it is the string.
      type: 'histogram' as unknown as Snapshot['type'],
      aggregator: 'sum',
      collect: () => undefined,
      values,
    };
  }

  override reset(): void {
    super.reset();
    // prom-client's constructor calls reset() before this class's fields exist.
    if ((this.counts as Float64Array | undefined) === undefined) return;
    this.counts.fill(0);
    this.total = 0;
    this.observed = 0;
  }
}
