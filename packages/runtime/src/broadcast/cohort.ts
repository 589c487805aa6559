import type { FwResource } from '../resource/resource.js';
import type { Runtime } from '../runtime.js';
import { FrameRing } from './frame-ring.js';
import type { Outgoing } from './outgoing.js';

/** How often a cohort's sockets are read against the slow-consumer mark while it gets broadcasts (ms). */
export const COHORT_SWEEP_MS = 50;

/**
 * The members of a broadcaster whose sockets take its topic and are in step with them (Bun,
 * `fw.bun.topics`; see Topics): a broadcast reaches all of them through one publish per topic,
 * with no work per member in JavaScript. That is what makes fw's fan-out on Bun cost what Bun's
 * own pub/sub costs (bench/fanout).
 *
 * A member's numbering goes on from where it joined (its `Seat`: its next id then, and the
 * broadcast sequence that took it), and the broadcasts since are kept here, in `log`, as many as
 * a resume buffer holds. A member leaves the cohort as soon as anything else is to reach it (a
 * unicast, a control frame, a flush, a resume, a drop of its connection, a slow socket) and then
 * takes those broadcasts into its own ring, numbered as they were sent (`FwResource.settle`):
 * from there on it is written to as any other resource.
 *
 * Only on a single node: a cluster's sequences can jump (a broadcast that never arrived), and a
 * seat counts on consecutive ones.
 */
export class Cohort {
  readonly members = new Set<FwResource>();
  /** The broadcaster's other members, written to one by one: a broadcast touches only these. */
  readonly direct: Set<FwResource>;
  /** Members on the fw topic (clients with implicit ids) and on the raw topic. */
  fw = 0;
  raw = 0;
  /** The broadcasts, by sequence (`bid`), as many as a resume buffer. */
  readonly log: FrameRing<Outgoing>;
  /** The sequence of the last broadcast published to the cohort. */
  last = 0;
  /** When the last broadcast was published (ms): the members need no heartbeat while they get them. */
  lastAt = 0;
  private sweep: NodeJS.Timeout | undefined;

  constructor(
    readonly broadcaster: string,
    private readonly runtime: Runtime,
    members: Iterable<FwResource>,
  ) {
    this.log = new FrameRing(runtime.settings.resumeBuffer);
    this.direct = new Set(members);
  }

  /** Keeps a broadcast (a full one, with its sequence) for the members to take when they leave. */
  keep(out: Outgoing): void {
    this.log.skipTo(out.bid!);
    this.log.push(out);
    this.last = out.bid!;
    this.lastAt = Date.now();
    if (this.members.size > 0 && this.sweep === undefined) this.sweep = this.runtime.timers.timeout(this.check, COHORT_SWEEP_MS);
  }

  join(r: FwResource, fw: boolean): void {
    this.members.add(r);
    this.direct.delete(r);
    if (fw) this.fw++;
    else this.raw++;
  }

  /** A member leaves the cohort; it stays the broadcaster's (until `removed`). */
  leave(r: FwResource, fw: boolean): void {
    if (!this.members.delete(r)) return;
    this.direct.add(r);
    if (fw) this.fw--;
    else this.raw--;
  }

  /** The broadcaster has a new member. */
  added(r: FwResource): void {
    if (!this.members.has(r)) this.direct.add(r);
  }

  /** A member left the broadcaster (after `leave`, if it was in the cohort). */
  removed(r: FwResource): void {
    this.direct.delete(r);
  }

  /**
   * The slow-consumer mark, for sockets no broadcast touches one by one: a member whose socket
   * holds more than `fw.slow-consumer.high-water-mark` leaves the cohort, and its next delivery
   * applies the policy (drop with a gap, or disconnect) as anywhere else.
   */
  private readonly check = (): void => {
    this.sweep = undefined;
    const mark = this.runtime.settings.highWaterMark;
    for (const r of this.members) if ((r.connection?.bufferedBytes() ?? Number.POSITIVE_INFINITY) > mark) r.settle();
  };

  /** The broadcaster is gone: its members leave (each takes what it got). */
  close(): void {
    this.runtime.timers.clear(this.sweep);
    this.sweep = undefined;
    for (const r of [...this.members]) r.settle();
    this.direct.clear();
  }
}
