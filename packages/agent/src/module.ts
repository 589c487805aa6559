/**
 * The agent module, installed with `await fw.use(agents())` (nothing when `fw.agent.enabled=false`). It mounts the decorated agents and those given to
 * `mountAgent`, registers the runtimes and publishes the admin view as the service `'agent'`.
 */
import {
  describeOrigin,
  errorSummary,
  NotFoundError,
  type Authenticator,
  type Framework,
  type FrameworkModule,
  type Logger,
} from '@fw/runtime';
import { releaseStore, useStore, type FwStore } from '@fw/store';
import { AgentAuth } from './auth.js';
import { A2AEndpoint } from './a2a/endpoint.js';
import { a2aRemoteCaller } from './a2a/remote-agent.js';
import { BoundedTaskStore } from './a2a/task-store.js';
import type { AgentAdminView } from './admin-view.js';
import { mountAgui } from './agui/endpoint.js';
import { aguiRuns } from './agui/runs.js';
import { mountChat } from './chat/endpoint.js';
import { mountMcp } from './mcp/endpoint.js';
import { AGENT_CONFIG } from './config.js';
import type { AgentClass } from './decorators.js';
import { RunCancelledError } from './errors.js';
import { AgentHost, INTERRUPTED, type MountedAgent } from './host.js';
import { RunTape, type TapeRedactor } from './tape/index.js';
import { PriceTable, readPriceTable } from './pricing/index.js';
import { Evals, type EvalScorer } from './evals/index.js';
import { AiSdkProvider, openAiProvider } from './runtime/ai-sdk.js';
import { installCommand, missingPeers } from './runtime/peers.js';
import { OfflineProvider } from './runtime/offline.js';
import type { ModelProvider } from './runtime/port.js';
import { countAgentEvents } from './seams.js';
import { createAdminView } from './view.js';
import { StoreMemory, type AgentMemory } from './memory/memory.js';

/** Extra protocol mounts (the per-agent MCP endpoint plugs in here). */
export type ProtocolMount = (fw: Framework, host: AgentHost, agent: MountedAgent) => (() => void)[] | undefined;

export interface AgentModuleOptions {
  /** `@Agent` / `@Coordinator` classes (or instances) to mount on this framework. */
  agents?: readonly (AgentClass | object)[];
  providers?: ModelProvider[];
  mounts?: ProtocolMount[];
  authenticator?: Authenticator;
  /** Run before any step of the run tape is stored (docs/runs.md, "Redaction"); in order. */
  tapeRedactors?: readonly TapeRedactor[];
  /** Custom eval scorers by name, beside exact, contains and json-schema (docs/runs.md, "Evals"). */
  evalScorers?: Readonly<Record<string, EvalScorer>>;
  /** Where agents declared with `memory: true` keep their facts; default the store (`StoreMemory`). */
  memory?: AgentMemory;
}

export class AgentModule implements FrameworkModule {
  readonly name = '@fw/agent';
  host!: AgentHost;
  store!: BoundedTaskStore;
  /** The durable store (service `'store'`): tasks, sessions, runs, journal. */
  db!: FwStore;
  /** What start-up found left in flight by a process that did not close (see docs/agents.md). */
  recovered: { tasks: string[]; runs: string[]; sessions: string[] } = { tasks: [], runs: [], sessions: [] };
  private pruneTimer: NodeJS.Timeout | undefined;
  view!: AgentAdminView;
  /**
   * The price table of model calls (`fw.agent.prices`, docs/agents.md "Prices"), read at start:
   * the tape's cost per model output and the admin plane's budgets and spend both price with it.
   */
  prices: PriceTable = new PriceTable();
  /** The run tape (docs/runs.md); undefined when `fw.agent.tape.enabled` is false. */
  tape: RunTape | undefined;
  /** Evals over the tape's runs (docs/runs.md); undefined when the tape is. */
  evals: Evals | undefined;
  readonly a2a = new Map<string, A2AEndpoint>();
  private fw!: Framework;
  private log!: Logger;
  private readonly unmounts: (() => void)[] = [];
  private readonly extraMounts: ProtocolMount[] = [];
  private closed = false;

  constructor(private readonly options: AgentModuleOptions = {}) {
    this.extraMounts.push(...(options.mounts ?? []));
  }

  /**
   * Says at start, once, which AI SDK runtime cannot run because its optional packages are not
   * installed, with the one command that installs all of them; otherwise the first run would fail,
   * and then fail again for the next missing package. `auto` is the runtime fw set up itself
   * because `autoReason` (fw.ai.base-url's source, or OPENAI_API_KEY) is set.
   */
  private reportMissingPeers(auto: AiSdkProvider | undefined, autoReason: string): void {
    for (const provider of this.host.providers.all()) {
      if (!(provider instanceof AiSdkProvider)) continue;
      const missing = missingPeers(provider.peers);
      if (missing.length === 0) continue;
      const why = provider === auto ? ` (set up because ${autoReason} is set)` : '';
      this.log.warn(
        { runtime: provider.name, missing, install: installCommand(missing) },
        `the AI runtime '${provider.name}'${why} needs ${missing.join(' and ')}, not installed: ${installCommand(missing)}`,
      );
    }
  }

  async install(fw: Framework): Promise<void> {
    this.fw = fw;
    const log = (this.log = fw.logger.child({ module: 'agent' }));
    fw.config.declare(AGENT_CONFIG);
    // A bad table throws here, naming the key: the node does not start with calls it would price wrong.
    this.prices = readPriceTable(fw.config.get('fw.agent.prices'));
    if (!fw.config.get('fw.agent.enabled')) {
      this.closed = true; // switched off: nothing to mount, nothing to close
      return;
    }
    this.db = await useStore(fw);
    this.host = new AgentHost(fw, this.db);
    // Per-agent breaker settings that do not parse fail the start, not the first dispatch.
    this.host.breakers.settings('');
    this.host.memory =
      this.options.memory ??
      new StoreMemory(this.db, () => ({
        maxFacts: fw.config.get('fw.agent.memory.max-facts'),
        maxFactChars: fw.config.get('fw.agent.memory.max-fact-chars'),
      }));
    this.host.sessions.log = log;
    this.host.journal.logger = log;
    this.host.auth = new AgentAuth(fw, this.options.authenticator);
    this.host.remoteCaller = a2aRemoteCaller();
    this.host.providers.add(new OfflineProvider());
    const baseURL = fw.config.get('fw.ai.base-url');
    let auto: AiSdkProvider | undefined;
    if (fw.config.get('fw.ai.auto') && (baseURL || process.env.OPENAI_API_KEY)) {
      auto = openAiProvider({ model: fw.config.get('fw.ai.model'), ...(baseURL ? { baseURL } : {}) });
      this.host.providers.add(auto);
    }
    for (const r of this.options.providers ?? []) this.host.providers.add(r);
    this.reportMissingPeers(auto, baseURL ? describeOrigin('fw.ai.base-url', fw.config.origin('fw.ai.base-url')) : 'OPENAI_API_KEY');
    this.store = new BoundedTaskStore(
      fw.events,
      () => ({
        max: fw.config.get('fw.agent.tasks.max'),
        terminalTtlMs: fw.config.get('fw.agent.tasks.terminal-ttl'),
      }),
      this.db.tasks,
    );
    this.store.log = log;
    this.store.write = (row) => this.db.writes.commit((w) => w.tasks.put(row), row.id);
    // A task the store could not keep is failed there; its run must not go on for nobody.
    this.store.onLost = (taskId, agentName) => this.a2a.get(agentName)?.executor.abort(taskId, 'the agent store is unavailable');
    // Before any endpoint exists: settle what a crashed predecessor left in flight.
    const recovery = await this.host.recover();
    const tasks = await this.store.restore(INTERRUPTED);
    this.recovered = { tasks, runs: recovery.runs.map((r) => r.id), sessions: recovery.sessions };
    if (tasks.length || recovery.runs.length) {
      log.warn(
        { store: this.db.location, tasks: tasks.length, runs: recovery.runs.length },
        'A2A tasks and runs were in flight when the last process stopped; marked failed/interrupted',
      );
    }
    await this.pruneFacts();
    const interval = fw.config.get('fw.agent.journal.prune-interval');
    if (interval > 0) {
      this.pruneTimer = setInterval(() => {
        void this.host.journal.prune().catch((err: unknown) => log.error({ error: errorSummary(err) }, 'journal retention failed'));
        void this.pruneFacts().catch((err: unknown) => log.error({ error: errorSummary(err) }, 'memory retention failed'));
      }, interval);
      this.pruneTimer.unref();
    }
    if (fw.config.get('fw.agent.tape.enabled')) {
      // Runs a stopped process left open on the tape end `interrupted`, like their run rows.
      await this.db.tape.interruptOpen(Date.now());
      this.tape = new RunTape(fw, this.host, this.db, this.options.tapeRedactors, () => this.prices);
      // Eval runs a stopped process left running end `interrupted` too.
      await this.db.evals.interruptRunning(Date.now());
      this.evals = new Evals(this.host, this.db, this.tape.reader, this.options.evalScorers ?? {}, log.child({ part: 'evals' }), () => ({
        timeoutMs: Math.max(1, fw.config.get('fw.agent.evals.judge.timeout')),
        maxVerdict: Math.max(1, fw.config.get('fw.agent.evals.judge.max-verdict')),
      }));
    }
    this.view = createAdminView(this.host, this.store, this.a2a);
    if (this.tape) this.view.tape = this.tape;
    if (this.evals) this.view.evals = this.evals;
    fw.services.provide('agent', this.view);
    fw.services.provide('agent.module', this);
    countAgentEvents(fw);
    // Cluster mode: the admin plane of any node cancels a task or reads the journal through us.
    fw.services.whenProvided('cluster', (cluster) => {
      if (this.closed) return;
      this.unmounts.push(
        cluster.handle('agent.cancel-task', (a) => {
          const id = String(a.taskId);
          if (!this.view.task(id)) throw new NotFoundError('task', id);
          return this.view.cancelTask(id, typeof a.reason === 'string' ? a.reason : undefined);
        }),
        cluster.handle('agent.journal', (a) => this.view.journal(a)),
      );
    });
    for (const target of this.options.agents ?? []) this.mount(target);
    for (const target of fw.services.get('agent.pending') ?? []) this.mount(target);
  }

  /** Memory retention by age (`fw.agent.memory.max-age`; 0 keeps facts until removed); returns how many went. */
  async pruneFacts(): Promise<number> {
    const maxAge = this.fw.config.get('fw.agent.memory.max-age');
    if (maxAge <= 0) return 0;
    await this.db.writes.flush();
    return this.db.facts.prune(Date.now() - maxAge);
  }

  /** Mounts an agent class (or instance) on every protocol it serves. Idempotent for the same class. */
  mount(target: AgentClass | object): MountedAgent {
    const before = this.host.agents.size;
    const agent = this.host.add(target);
    if (this.host.agents.size === before) return agent;
    const endpoint = new A2AEndpoint(this.host, agent, this.store);
    this.a2a.set(agent.name, endpoint);
    this.unmounts.push(...endpoint.mount(this.fw));
    // Logged with the other fw URLs when the server starts listening: the card A2A clients start from.
    this.unmounts.push(this.fw.endpoints.add(`agent ${agent.name}`, `${endpoint.path}/.well-known/agent-card.json`));
    agent.protocols.add('a2a');
    this.unmounts.push(...mountAgui(this.fw, this.host, agent));
    agent.protocols.add('agui');
    if (!agent.def.options.headless) {
      this.unmounts.push(mountChat(this.fw, this.host, agent));
    }
    this.unmounts.push(...(mountMcp(this.fw, this.host, agent) ?? []));
    for (const m of this.extraMounts) {
      const offs = m(this.fw, this.host, agent);
      if (offs) this.unmounts.push(...offs);
    }
    return agent;
  }

  /** Adds a runtime (e.g. an AiSdkProvider); the available one with the highest priority is active. */
  addProvider(runtime: ModelProvider): () => void {
    return this.host.providers.add(runtime);
  }

  /**
   * Graceful close: every run in flight is stopped, tasks still live fail with the reason, the
   * writes are flushed, and the store is released (closed by its last user).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // The start failed before the host was built (a bad `fw.agent.prices`): nothing to stop or release.
    if (this.host === undefined) return;
    clearInterval(this.pruneTimer);
    for (const run of aguiRuns(this.host).all()) run.abort.abort(new RunCancelledError('the framework is closing'));
    this.host.close();
    await this.evals?.close();
    this.tape?.close();
    for (const off of this.unmounts.splice(0)) off();
    await this.store.close('the framework is closing');
    await this.db.writes.flush();
    await releaseStore(this.fw);
  }
}

/** The agent module installed on `fw`, if any. */
export function agentModuleOf(fw: Framework): AgentModule | undefined {
  return fw.services.get('agent.module');
}

/**
 * Mounts an `@Agent` / `@Coordinator` class (or instance) on `fw`: now when the agent module is
 * installed, otherwise as soon as it is.
 */
export function mountAgent(fw: Framework, target: AgentClass | object): void {
  const module = agentModuleOf(fw);
  if (module) {
    module.mount(target);
    return;
  }
  // Kept on the framework until the module is installed.
  const list = fw.services.get('agent.pending');
  if (list) list.push(target);
  else fw.services.provide('agent.pending', [target]);
}

/**
 * The agent module, to install with `await fw.use(agents({ agents: [MyAgent, MyCoordinator] }))`,
 * optionally with `providers` (nothing when `fw.agent.enabled=false`).
 */
export function agents(options?: AgentModuleOptions): AgentModule {
  return new AgentModule(options);
}
