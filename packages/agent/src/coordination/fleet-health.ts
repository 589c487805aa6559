/**
 * The circuit breakers of every coordinator's fleet, one per (coordinator, agent), made on first
 * use, with the settings of `fw.agent.circuit.*` (per agent: `fw.agent.circuit.per-agent`). Each
 * change of state is announced as `CircuitStateChanged`. The health of a coordinator's fleet is
 * read from here (`GET /api/admin/coordinators/{name}/health`).
 */
import { FwError, type Config, type EventBus } from '@fw/runtime';
import { CircuitBreaker, type CircuitSettings, type CircuitState } from './circuit-breaker.js';

export interface FleetAgentHealth {
  name: string;
  location: 'local' | 'remote';
  url?: string;
  /** Whether a dispatch would be let through now (a mounted local agent or a remote one, breaker not OPEN). */
  available: boolean;
  circuitState: CircuitState;
  /** Consecutive failed dispatches since the last success: what the breaker counts. */
  recentFailures: number;
  lastError?: string;
  /** When the breaker last changed state (ISO-8601), absent when it never did. */
  changedAt?: string;
  /** OPEN: when the half-open probe may go (ISO-8601). */
  retryAt?: string;
  failureThreshold: number;
  openDurationMs: number;
}

export interface FleetHealth {
  coordinator: string;
  timestamp: string;
  agents: FleetAgentHealth[];
}

/** Refused at once: the agent's breaker is open (or its one half-open probe is out). */
export class CircuitOpenError extends FwError {
  constructor(coordinator: string, agent: string, state: CircuitState, retryAt: number | undefined) {
    super(
      'circuit_open',
      `agent '${agent}' is not called: the circuit breaker of coordinator '${coordinator}' is ${state} after repeated failures${
        retryAt ? ` (a probe may go at ${new Date(retryAt).toISOString()})` : ' (its one probe is in flight)'
      }`,
      503,
      { coordinator, agent, circuitState: state },
    );
  }
}

export class FleetBreakers {
  private readonly breakers = new Map<string, Map<string, CircuitBreaker>>();
  private overrides: { raw: string; byAgent: Map<string, CircuitSettings> } = { raw: '', byAgent: new Map() };

  constructor(
    private readonly config: Config,
    private readonly events: EventBus,
  ) {}

  /** The settings of one agent's breakers; throws ConfigError when `fw.agent.circuit.per-agent` does not parse. */
  settings(agent: string): CircuitSettings {
    const raw = this.config.get('fw.agent.circuit.per-agent');
    if (raw !== this.overrides.raw) this.overrides = { raw, byAgent: this.parse(raw) };
    return (
      this.overrides.byAgent.get(agent) ?? {
        failureThreshold: Math.max(0, this.config.get('fw.agent.circuit.failure-threshold')),
        openDurationMs: Math.max(0, this.config.get('fw.agent.circuit.open-duration')),
      }
    );
  }

  breaker(coordinator: string, agent: string): CircuitBreaker {
    let fleet = this.breakers.get(coordinator);
    if (!fleet) this.breakers.set(coordinator, (fleet = new Map()));
    let b = fleet.get(agent);
    if (!b) {
      b = new CircuitBreaker(
        () => this.settings(agent),
        (t) => this.events.emit('CircuitStateChanged', { coordinator, agent, ...t, at: new Date().toISOString() }),
      );
      fleet.set(agent, b);
    }
    return b;
  }

  /** The health row of one fleet agent (its breaker made if it has none yet: CLOSED, no failures). */
  health(coordinator: string, member: { name: string; url?: string }, mounted: boolean): FleetAgentHealth {
    const b = this.breaker(coordinator, member.name);
    const s = this.settings(member.name);
    const state = b.state;
    const retryAt = b.retryAt;
    return {
      name: member.name,
      location: member.url ? 'remote' : 'local',
      ...(member.url ? { url: member.url } : {}),
      available: state !== 'OPEN' && (member.url !== undefined || mounted),
      circuitState: state,
      recentFailures: b.consecutiveFailures,
      ...(b.lastError !== undefined ? { lastError: b.lastError } : {}),
      ...(b.changedAt ? { changedAt: new Date(b.changedAt).toISOString() } : {}),
      ...(retryAt !== undefined ? { retryAt: new Date(retryAt).toISOString() } : {}),
      failureThreshold: s.failureThreshold,
      openDurationMs: s.openDurationMs,
    };
  }

  close(): void {
    for (const fleet of this.breakers.values()) for (const b of fleet.values()) b.close();
  }

  private parse(raw: string): Map<string, CircuitSettings> {
    const out = new Map<string, CircuitSettings>();
    for (const part of raw.split(',')) {
      const item = part.trim();
      if (!item) continue;
      const m = /^([^=\s]+)\s*=\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(item);
      if (!m)
        throw this.config.invalid(
          'fw.agent.circuit.per-agent',
          `'${item.slice(0, 60)}' is not agent=threshold/duration (e.g. research=3/10s)`,
        );
      const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[4] ?? 'ms') as 'ms' | 's' | 'm' | 'h'];
      out.set(m[1]!, { failureThreshold: Number(m[2]), openDurationMs: Math.round(Number(m[3]) * unit) });
    }
    return out;
  }
}
