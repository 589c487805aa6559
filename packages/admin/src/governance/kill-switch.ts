import { FwError } from '@fw/runtime';

/** The scope of the whole fleet: every agent and coordinator. */
export const FLEET = '*';

/**
 * The kill switch as every node keeps it. The newest state (highest `version`) wins on every
 * node, whichever way it arrives: the arming node's call, the cluster's shared log, the store.
 */
export interface KillSwitchState {
  armed: boolean;
  /** `*`: the whole fleet; else the one agent (or coordinator) it stops. */
  scope: string;
  reason: string | null;
  /** Who armed it (the principal's id; null for the anonymous local operator). */
  operator: string | null;
  /** When it was armed (ISO-8601); null while disarmed. */
  armedAt: string | null;
  /** When this state was set (epoch ms, strictly increasing per change): orders states across nodes. */
  version: number;
}

export const DISARMED: KillSwitchState = Object.freeze({
  armed: false,
  scope: FLEET,
  reason: null,
  operator: null,
  armedAt: null,
  version: 0,
});

/** What a refused or stopped run ends with: the client reads the code and the reason. */
export class KillSwitchArmedError extends FwError {
  constructor(state: KillSwitchState) {
    super(
      'kill_switch_armed',
      `refused: the kill switch is armed${state.scope === FLEET ? '' : ` for agent '${state.scope}'`} (${state.reason ?? 'no reason given'})`,
      503,
      { scope: state.scope },
    );
  }
}

/** A change this node adopted. */
export interface KillSwitchChange {
  state: KillSwitchState;
  /** When this node adopted it (ISO-8601): its acknowledgement time. */
  adoptedAt: string;
}

/** This node's kill switch: the state it enforces and when it adopted it. */
export class KillSwitch {
  private current: KillSwitchState = DISARMED;
  private adopted = new Date().toISOString();
  private readonly listeners = new Set<(change: KillSwitchChange) => void>();

  get state(): KillSwitchState {
    return this.current;
  }

  get adoptedAt(): string {
    return this.adopted;
  }

  /** The version a new change takes: now, and always past the current one. */
  nextVersion(): number {
    return Math.max(Date.now(), this.current.version + 1);
  }

  /** Takes `next` when it is newer than the state held; true when it did (listeners are told). */
  adopt(next: KillSwitchState): boolean {
    if (next.version <= this.current.version) return false;
    this.current = Object.freeze({ ...next });
    this.adopted = new Date().toISOString();
    const change = { state: this.current, adoptedAt: this.adopted };
    for (const l of this.listeners) l(change);
    return true;
  }

  /** The error a run of `agent` is refused with, or undefined when the switch does not cover it. */
  refusalFor(agent: string): KillSwitchArmedError | undefined {
    const s = this.current;
    if (!s.armed || (s.scope !== FLEET && s.scope !== agent)) return undefined;
    return new KillSwitchArmedError(s);
  }

  onChange(listener: (change: KillSwitchChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** A state read from outside this process (Redis, the store, another node), checked; undefined when malformed. */
export function parseKillSwitchState(v: unknown): KillSwitchState | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const s = v as Record<string, unknown>;
  const nullableString = (x: unknown): x is string | null => x === null || typeof x === 'string';
  if (
    typeof s.armed !== 'boolean' ||
    typeof s.scope !== 'string' ||
    s.scope === '' ||
    !nullableString(s.reason) ||
    !nullableString(s.operator) ||
    !nullableString(s.armedAt) ||
    typeof s.version !== 'number' ||
    !Number.isFinite(s.version)
  )
    return undefined;
  return { armed: s.armed, scope: s.scope, reason: s.reason, operator: s.operator, armedAt: s.armedAt, version: s.version };
}
