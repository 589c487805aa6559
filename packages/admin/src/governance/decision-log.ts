/** One policy decision, as GET governance/decisions lists it. */
export interface DecisionRecord {
  /** ISO-8601. */
  time: string;
  /** The policy that decided (the first that denied, or matched in dry-run); null: no policy had a say. */
  policy: string | null;
  /** `dry-run`: a policy in dry-run mode would have denied; the call went on. */
  decision: 'allow' | 'deny' | 'dry-run';
  reason: string;
  evaluation_ms: number;
  /** Where it was asked: an agent run (the run hooks) or POST governance/check. */
  source: 'run' | 'check';
  action: string;
  agent: string;
  /** What was evaluated, shortened (tool, arguments, principal, run, content). */
  context: Record<string, unknown>;
}

/**
 * The newest decisions in memory, a fixed-size ring (fw.admin.governance.decision-log-size): a
 * busy node keeps its latest ones at a constant cost, oldest overwritten first.
 */
export class DecisionLog {
  private readonly ring: DecisionRecord[] = [];
  private next = 0;

  constructor(readonly capacity: number) {}

  add(record: DecisionRecord): void {
    if (this.capacity <= 0) return;
    if (this.ring.length < this.capacity) this.ring.push(record);
    else this.ring[this.next] = record;
    this.next = (this.next + 1) % this.capacity;
  }

  /** Newest first, at most `limit`. */
  newest(limit: number): DecisionRecord[] {
    const out: DecisionRecord[] = [];
    const n = this.ring.length;
    for (let i = 1; i <= Math.min(limit, n); i++) out.push(this.ring[(this.next - i + n) % n] as DecisionRecord);
    return out;
  }

  get size(): number {
    return this.ring.length;
  }
}
