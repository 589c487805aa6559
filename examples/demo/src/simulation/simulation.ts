/**
 * The demo's simulated traffic, so the product is alive from the first second: six scripted chat
 * participants (real fw clients over loopback, see participants.ts), the ticker broadcaster, one
 * coordinator run and a short chat with the assistant agent (agent-chats.ts): the last two are
 * recorded on the run tape, so the dashboard's Runs tab has runs on first start. Bounded by construction: a fixed cast, one message per participant per
 * `demo.simulation.message-interval` on average, one tick per `demo.ticker.interval`.
 *
 * `start()`/`stop()` are the runtime switch (the chat page and `POST /demo/simulation` use them);
 * `demo.simulation=false` keeps it off at start. The framework's close stops it first.
 */
import { errorSummary, type Framework, type Logger } from '@fw/runtime';
import { CAST, connectParticipant, speak, type SimulatedParticipant } from './participants.js';
import { PriceWalk, TICKER_PATH } from './ticker.js';
import { runCoordinatorOnce, type KickoffResult } from './kickoff.js';
import { chatWithAssistant, type AgentChatsResult } from './agent-chats.js';

export interface SimulationOptions {
  /** Where the demo listens (the participants connect there, over loopback). */
  baseUrl: string;
  messageIntervalMs: number;
  tickerIntervalMs: number;
}

export interface SimulationStatus {
  running: boolean;
  participants: { name: string; room: string; transport: string; state: string; sent: number }[];
  ticker: { broadcaster: string; intervalMs: number; broadcasts: number };
  messageIntervalMs: number;
  coordinatorRun: KickoffResult | undefined;
  /** The scripted chat with the assistant agent at start. */
  agentChats: AgentChatsResult | undefined;
}

export class Simulation {
  private participants: SimulatedParticipant[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private ticker: NodeJS.Timeout | undefined;
  private readonly walk = new PriceWalk();
  private broadcasts = 0;
  private kickoff: KickoffResult | undefined;
  private kickoffAbort: AbortController | undefined;
  private chats: AgentChatsResult | undefined;
  private readonly log: Logger;

  constructor(
    private readonly fw: Framework,
    private readonly options: SimulationOptions,
  ) {
    this.log = fw.logger.child({ module: 'demo' });
    fw.onClose(() => this.stop());
  }

  get running(): boolean {
    return this.ticker !== undefined;
  }

  start(): void {
    if (this.running) return;
    this.participants = CAST.map((cast) => connectParticipant(this.options.baseUrl, cast));
    for (const p of this.participants) this.schedule(p, 300 + Math.random() * 1200);
    const broadcaster = this.fw.broadcasters.lookup(`${this.fw.path}${TICKER_PATH}`, true);
    this.ticker = setInterval(() => {
      broadcaster.broadcast(this.walk.next(Date.now()));
      this.broadcasts++;
    }, this.options.tickerIntervalMs);
    if (this.kickoff?.state !== 'completed') this.runCoordinator();
    if (this.chats?.state !== 'completed') this.runChats();
    this.log.info({ participants: this.participants.length, tickerIntervalMs: this.options.tickerIntervalMs }, 'simulation started');
  }

  stop(): void {
    if (this.running) this.log.info({}, 'simulation stopped');
    clearInterval(this.ticker);
    this.ticker = undefined;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const p of this.participants.splice(0)) p.client.close('simulation stopped');
    this.kickoffAbort?.abort();
  }

  status(): SimulationStatus {
    return {
      running: this.running,
      participants: this.participants.map((p) => ({
        name: p.cast.name,
        room: p.cast.room,
        transport: p.cast.transport,
        state: p.client.state,
        sent: p.sent,
      })),
      ticker: { broadcaster: `${this.fw.path}${TICKER_PATH}`, intervalMs: this.options.tickerIntervalMs, broadcasts: this.broadcasts },
      messageIntervalMs: this.options.messageIntervalMs,
      coordinatorRun: this.kickoff,
      agentChats: this.chats,
    };
  }

  /** The next message of one participant, 50–150 % of the interval from now. */
  private schedule(p: SimulatedParticipant, delayMs: number): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      speak(p);
      this.schedule(p, this.options.messageIntervalMs * (0.5 + Math.random()));
    }, delayMs);
    this.timers.add(t);
  }

  private runChats(): void {
    // The coordinator run's abort stops these too: both are the start's one-off work.
    const ac = this.kickoffAbort ?? new AbortController();
    this.chats = { state: 'pending', answered: 0 };
    void chatWithAssistant(this.options.baseUrl, ac.signal).then((result) => {
      this.chats = result;
      if (result.state === 'failed') this.log.warn({ agentChats: result }, "the simulation's chat with the assistant did not complete");
    });
  }

  private runCoordinator(): void {
    const ac = new AbortController();
    this.kickoffAbort = ac;
    this.kickoff = { state: 'pending' };
    runCoordinatorOnce(this.options.baseUrl, ac.signal).then(
      (result) => {
        this.kickoff = result;
        if (result.state !== 'completed') this.log.warn({ coordinatorRun: result }, "the simulation's coordinator run did not complete");
      },
      (err: unknown) => {
        this.kickoff = ac.signal.aborted
          ? { state: 'skipped', detail: 'the simulation stopped first' }
          : { state: 'failed', detail: errorSummary(err).message };
        if (!ac.signal.aborted) this.log.warn({ err: errorSummary(err) }, "the simulation's coordinator run failed");
      },
    );
  }
}
