/**
 * The agent host of one framework: the mounted agents and coordinators, the runtimes, sessions,
 * the coordination journal and the run harness every protocol endpoint goes through.
 */
import type { AgentAuth } from './auth.js';
import { randomUUID } from 'node:crypto';
import {
  errorSummary,
  FwError,
  NotFoundError,
  failSpan,
  SpanStatusCode,
  traced,
  type CallOutcome,
  type Framework,
  type Logger,
  type Span,
} from '@fw/runtime';
import { failModelSpan, providerOf, RUN_ID_ATTRIBUTE, recordFinish, startModelSpan } from './telemetry.js';
import type { FwStore, RunRow } from '@fw/store';
import type { AgentProtocol, AgentRunInfo } from './admin-view.js';
import type { AgentContext, CoordinatorContext, DispatchOptions, DispatchResult } from './context.js';
import { definitionOf, type AgentClass, type AgentDefinition, type AgentToolDefinition, type PromptResult } from './decorators.js';
import { checkToolArguments, InvalidSchemaError } from '@fw/mcp';
import { NoRuntimeError, NotInFleetError, StoreUnavailableError, ToolStepLimitError } from './errors.js';
import { CoordinationJournal } from './journal.js';
import type { RunListener } from './run-event.js';
import { ProviderRegistry } from './runtime/registry.js';
import type { AiMessage, ModelProvider, AiToolCall, AiToolSpec, AiUsage } from './runtime/port.js';
import { SessionTracker } from './sessions.js';
import { RunHookSet, principalIdOf, type ModelCall, type RunScope } from './hooks/index.js';
import { AgentLimits } from './tenancy/limits.js';
import { ownerLabel } from './tenancy/ownership.js';

export interface MountedAgent {
  readonly def: AgentDefinition;
  readonly instance: Record<string, unknown>;
  readonly name: string;
  /** Base path, `/fw/agent/{name}`. */
  readonly path: string;
  /** Protocols actually served (the admin badges). */
  readonly protocols: Set<AgentProtocol>;
  /** Fleet members that are remote, by name → A2A base URL. */
  readonly remote: Map<string, string>;
  readonly fleetNames: string[];
}

export interface RunInput {
  message: string;
  history?: readonly AiMessage[];
  sessionId?: string;
  /** The protocol a client started this run on: it is then recorded in the store's runs. */
  protocol?: AgentRunInfo['protocol'];
  /** The protocol's id of the run (A2A task id, AG-UI run id, chat session id). */
  ref?: string;
  /** Who started the run (`principal:<id>`, `anonymous:<key>`): recorded with it in the store. */
  owner?: string;
  /** Messages after the prompt (assistant tool calls and their tool results, AG-UI's frontend-tool round trip). */
  continuation?: readonly AiMessage[];
  /** The client's shared state (AG-UI `RunAgentInput.state`): on the context and every runtime request. */
  state?: unknown;
  /** Opaque client properties (AG-UI `RunAgentInput.forwardedProps`): on the context and every runtime request. */
  forwardedProps?: unknown;
  /**
   * Tools the client executes itself (AG-UI frontend tools): offered to the model beside the agent's
   * own; when the model calls one, the call is emitted and the run ends so the client can run it.
   */
  clientTools?: readonly AiToolSpec[];
  /** The run that started this one (a coordinator's run, for its dispatches): the owner and coordination carry over. */
  parent?: RunScope;
  /**
   * The taped run this one repeats (a live re-run, docs/runs.md): recorded as its parent on the
   * tape, nothing else carries over. Ignored when `parent` is given.
   */
  rerunOf?: string;
  /**
   * The model provider of this run instead of the active one: a replay feeds the run recorded
   * model outputs through it, so the agent's code runs again without calling a model.
   */
  provider?: ModelProvider;
}

/** What `recover()` found left in flight by a process that stopped without closing. */
export interface Recovery {
  runs: RunRow[];
  sessions: string[];
}

export const INTERRUPTED = 'interrupted: the server stopped while this was running';

/** Sends one message to a remote A2A agent and returns its text answer (see remote-agent.ts). */
export type RemoteCaller = (url: string, message: string, signal: AbortSignal) => Promise<string>;

export class AgentHost {
  readonly agents = new Map<string, MountedAgent>();
  readonly providers = new ProviderRegistry();
  readonly journal: CoordinationJournal;
  readonly sessions: SessionTracker;
  remoteCaller: RemoteCaller | undefined;
  /** Who may call the agents (set by the agent module at install); public until then. */
  auth: AgentAuth | undefined;
  /** Per-caller shares of the run and task caps, and the prompt rate (tenancy/limits.ts). */
  readonly limits: AgentLimits;
  /** Aborted on close: every run in flight stops with it. */
  private readonly root = new AbortController();
  readonly log: Logger;
  /**
   * What modules add around every run on every surface (governance, the run tape): hooks at the
   * run's start and end, each model call and streamed part, each tool call (hooks/run-hooks.ts).
   */
  readonly hooks: RunHookSet;
  /** The run each agent context belongs to, for the tool calls made through it. */
  private readonly scopes = new WeakMap<AgentContext, RunScope>();

  constructor(
    readonly fw: Framework,
    readonly store: FwStore,
  ) {
    this.log = fw.logger.child({ module: 'agent' });
    this.hooks = new RunHookSet(this.log);
    this.limits = new AgentLimits(fw);
    this.journal = new CoordinationJournal(store, () => ({
      maxEvents: fw.config.get('fw.agent.journal.max-events'),
      maxAgeMs: fw.config.get('fw.agent.journal.max-age'),
    }));
    // Cluster mode (`@fw/redis`): every event also goes to the journal shared by all nodes.
    this.journal.onRecord = (event) => {
      void fw.services
        .get('cluster')
        ?.append('journal', event)
        .catch(() => false);
    };
    this.sessions = new SessionTracker(
      fw.events,
      () => fw.config.get('fw.agent.sessions.max'),
      store,
      () => fw.config.get('fw.agent.sessions.history'),
    );
  }

  /**
   * At start, before any new run: settles what a process that did not close left in flight. Runs
   * still `running` become `interrupted` (one journal entry each), open sessions are ended.
   * A2A tasks are settled by the task store (see BoundedTaskStore.restore).
   */
  async recover(): Promise<Recovery> {
    await this.journal.open();
    const now = Date.now();
    const runs = await this.store.runs.interruptRunning(now, INTERRUPTED);
    for (const r of runs) {
      this.journal.record({
        kind: 'interrupted',
        coordinationId: r.coordination_id ?? r.id,
        coordinator: r.agent,
        agent: r.agent,
        error: INTERRUPTED,
        protocol: r.protocol,
        ...(r.ref ? { ref: r.ref } : {}),
      });
    }
    const sessions = await this.store.sessions.endOpen(now, 'interrupted');
    await this.journal.flush();
    return { runs, sessions };
  }

  /** Agent runs in the store, newest first. */
  async runs(query: { agentName?: string; protocol?: string; state?: string; limit?: number } = {}): Promise<AgentRunInfo[]> {
    await this.store.writes.flush();
    const rows = await this.store.runs.list(
      {
        ...(query.agentName ? { agent: query.agentName } : {}),
        ...(query.protocol ? { protocol: query.protocol } : {}),
        ...(query.state ? { state: query.state } : {}),
      },
      query.limit ?? 100,
    );
    return rows.map((r) => ({
      id: r.id,
      agentName: r.agent,
      protocol: r.protocol as AgentRunInfo['protocol'],
      ref: r.ref,
      state: r.state as AgentRunInfo['state'],
      startedAt: new Date(r.started_at).toISOString(),
      endedAt: r.ended_at === null ? null : new Date(r.ended_at).toISOString(),
      error: r.error,
      owner: ownerLabel(r.owner),
    }));
  }

  /** Registers an agent class (decorated) or an instance of one. */
  add(target: AgentClass | object): MountedAgent {
    const cls = (typeof target === 'function' ? target : target.constructor) as AgentClass;
    const def = definitionOf(cls);
    if (!def) throw new FwError('not_an_agent', `${cls.name} is not decorated with @Agent or @Coordinator`, 400);
    const existing = this.agents.get(def.options.name);
    if (existing) {
      if (existing.def === def) return existing;
      throw new FwError('agent_exists', `an agent named '${def.options.name}' is already mounted`, 409);
    }
    const remote = new Map<string, string>();
    const fleetNames = def.fleet.map((m) => {
      if (typeof m === 'string') return m;
      remote.set(m.name, m.url);
      return m.name;
    });
    const agent: MountedAgent = {
      def,
      instance: (typeof target === 'function' ? new cls() : target) as Record<string, unknown>,
      name: def.options.name,
      path: `${this.fw.path}/agent/${encodeURIComponent(def.options.name)}`,
      protocols: new Set(),
      remote,
      fleetNames,
    };
    this.agents.set(agent.name, agent);
    return agent;
  }

  /** Stops every run in flight and ends every session. */
  close(): void {
    this.root.abort(new FwError('closing', 'the framework is closing', 503));
    this.sessions.endAll();
  }

  get(name: string): MountedAgent {
    const a = this.agents.get(name);
    if (!a) throw new NotFoundError('agent', name);
    return a;
  }

  activeRuntime(): ModelProvider {
    const r = this.providers.active();
    if (!r) throw new NoRuntimeError();
    return r;
  }

  /**
   * Runs an agent on one user message: its `@OnPrompt` handler, or the model with its tools.
   * Text deltas and tool activity go to `listener`; resolves with the whole answer text.
   */
  async run(name: string, input: RunInput, signal: AbortSignal, listener: RunListener = () => {}): Promise<string> {
    this.get(name);
    const provider = this.providers.active();
    return traced(
      `invoke_agent ${name}`,
      {
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': name,
          ...(provider ? { 'gen_ai.provider.name': providerOf(provider) } : {}),
          ...(input.protocol ? { 'fw.agent.protocol': input.protocol } : {}),
        },
        errorType: () => (signal.aborted || this.root.signal.aborted ? 'cancelled' : undefined),
      },
      (span) => this.runObserved(name, input, signal, listener, span),
    );
  }

  private async runObserved(name: string, input: RunInput, signal: AbortSignal, listener: RunListener, span: Span): Promise<string> {
    const started = performance.now();
    const observe = (outcome: CallOutcome): void => this.fw.metrics.observeAgentRun(name, outcome, (performance.now() - started) / 1000);
    try {
      const text = await this.runRecorded(name, input, signal, listener, span);
      observe('ok');
      return text;
    } catch (err) {
      observe(signal.aborted || this.root.signal.aborted ? 'cancelled' : 'error');
      throw err;
    }
  }

  private async runRecorded(name: string, input: RunInput, signal: AbortSignal, listener: RunListener, span: Span): Promise<string> {
    const agent = this.get(name);
    const ownCoordination = agent.def.kind === 'coordinator' ? randomUUID() : undefined;
    // A hook may stop the run (a kill switch, a hard budget): its reason is what the client gets.
    const { scope, stop } = this.openScope(
      agent,
      {
        protocol: input.protocol ?? (input.parent ? 'dispatch' : undefined),
        ref: input.ref,
        owner: input.owner ?? input.parent?.owner,
        sessionId: input.sessionId,
        parentRunId: input.parent?.runId ?? input.rerunOf,
        coordinationId: ownCoordination ?? input.parent?.coordinationId,
      },
      signal,
    );
    // The run's id on its span: an external tracing backend links the trace to the run's tape.
    span.setAttribute(RUN_ID_ATTRIBUTE, scope.runId);
    signal = scope.signal;
    signal.throwIfAborted();
    const started = performance.now();
    const ended = (state: 'completed' | 'failed' | 'cancelled', extra: { text?: string; error?: string }): Promise<void> =>
      this.hooks.runEnded(scope, { state, ...extra, durationMs: Math.round(performance.now() - started) });
    let recorded = false;
    let finishing = false;
    try {
      await this.hooks.runStarted(scope, { message: input.message, history: input.history ?? [] });
      if (input.protocol) {
        await this.recordStart(scope, agent, input, ownCoordination);
        recorded = true;
      }
      const text = await this.runAgent(agent, input, signal, listener, ownCoordination, scope);
      if (recorded) {
        // The run's ending (and its journal events, written before it) is durable before the
        // answer is confirmed: a store that cannot take it fails the run with store_unavailable.
        finishing = true;
        await this.recordFinish(scope.runId, 'completed', null);
      }
      await ended('completed', { text });
      return text;
    } catch (err) {
      // Stopped by a hook: the run ends cancelled with the hook's reason, and that is the error.
      const failure = stop.signal.aborted ? stop.signal.reason : err;
      const state = signal.aborted ? 'cancelled' : 'failed';
      const error = (failure as Error)?.message ?? String(failure);
      // A failed ending write is logged; the run's own failure is what its client reads (the row
      // stays `running` and is settled as interrupted at the next start).
      if (recorded && !finishing) await this.recordFinish(scope.runId, state, error).catch(() => undefined);
      await ended(state, { error });
      throw failure;
    }
  }

  /** Recorded before it starts, so a crash at any later point leaves a row that says so. */
  private async recordStart(scope: RunScope, agent: MountedAgent, input: RunInput, coordinationId: string | undefined): Promise<void> {
    try {
      await this.store.writes.commit(
        (w) =>
          w.runs.start({
            id: scope.runId,
            agent: agent.name,
            protocol: input.protocol!,
            ref: input.ref ?? null,
            coordination_id: coordinationId ?? null,
            state: 'running',
            started_at: scope.startedAt,
            ended_at: null,
            error: null,
            owner: input.owner ?? null,
          }),
        scope.runId,
      );
    } catch (err) {
      // The driver's message names internal addresses: logged here, the client reads a plain refusal.
      this.log.error(
        { agent: agent.name, protocol: input.protocol, error: errorSummary(err) },
        'recording an agent run in the store failed',
      );
      throw new StoreUnavailableError();
    }
  }

  /** Resolves once the run's ending and the journal events recorded before it are durable. */
  private async recordFinish(runId: string, state: AgentRunInfo['state'], error: string | null): Promise<void> {
    const at = Date.now();
    try {
      await this.store.writes.commit((w) => w.runs.finish(runId, state, at, error), runId);
      await this.journal.durable();
    } catch (err) {
      // The driver's message names internal addresses: logged here, the client reads a plain refusal.
      this.log.error({ run: runId, state, error: errorSummary(err) }, 'recording the end of an agent run in the store failed');
      throw new StoreUnavailableError();
    }
  }

  private async runAgent(
    agent: MountedAgent,
    input: RunInput,
    signal: AbortSignal,
    listener: RunListener,
    coordinationId: string | undefined,
    scope: RunScope,
  ): Promise<string> {
    const ctx = this.context(agent, input, signal, listener, scope, coordinationId);
    const handler = agent.def.promptMethod ? agent.instance[agent.def.promptMethod] : undefined;
    const result: PromptResult =
      typeof handler === 'function'
        ? (handler as (m: string, c: AgentContext) => PromptResult).call(agent.instance, input.message, ctx)
        : ctx.stream();
    const awaited = await result;
    if (typeof awaited === 'string') {
      signal.throwIfAborted();
      if (awaited) listener({ type: 'text', delta: awaited });
      return awaited;
    }
    let text = '';
    for await (const delta of awaited) {
      signal.throwIfAborted();
      if (!delta) continue;
      text += delta;
      listener({ type: 'text', delta });
    }
    signal.throwIfAborted();
    return text;
  }

  private context(
    agent: MountedAgent,
    input: RunInput,
    signal: AbortSignal,
    emit: RunListener,
    scope: RunScope,
    coordinationId: string = randomUUID(),
  ): AgentContext | CoordinatorContext {
    const base: AgentContext = {
      agentName: agent.name,
      signal,
      sessionId: input.sessionId,
      history: input.history ?? [],
      state: input.state,
      forwardedProps: input.forwardedProps,
      runtime: () => this.activeRuntime(),
      stream: (message) => this.modelLoop(agent, message ?? input.message, input, signal, emit, base),
      emit,
    };
    this.scopes.set(base, scope);
    if (agent.def.kind !== 'coordinator') return base;
    const coordinator = agent.name;
    const ctx: CoordinatorContext = {
      ...base,
      coordinationId,
      coordinator,
      fleet: agent.fleetNames,
      dispatch: (to, message, options) => this.dispatch(agent, ctx, to, message, options, emit),
      handoff: (from, to, reason) => {
        this.journal.record({ kind: 'handoff', coordinationId, coordinator, agent: to, from, to, reason });
        this.hooks.handoff(scope, { from, to, ...(reason !== undefined ? { reason } : {}) });
      },
      evaluate: (target, e) => {
        this.journal.record({
          kind: 'evaluation',
          coordinationId,
          coordinator,
          agent: target,
          evaluator: e.evaluator,
          score: e.score,
          passed: e.passed,
        });
      },
    };
    this.scopes.set(ctx, scope);
    return ctx;
  }

  /**
   * The model with the agent's tools (and the client's, for AG-UI): runs tool calls and feeds results
   * back, up to `fw.agent.max-tool-steps` turns. A call of a client tool ends the run once the
   * agent's own calls of that turn have run: the client executes it and starts a new run with the
   * result (AG-UI frontend tools).
   */
  private async *modelLoop(
    agent: MountedAgent,
    message: string,
    input: RunInput,
    signal: AbortSignal,
    emit: RunListener,
    ctx: AgentContext,
  ): AsyncIterable<string> {
    const runtime = input.provider ?? this.activeRuntime();
    const scope = this.scopes.get(ctx);
    const tools: AiToolSpec[] = agent.def.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.input.inputSchema }));
    // The agent's own tool wins a name clash: a client cannot replace a server tool by declaring one.
    const clientToolNames = new Set<string>();
    for (const t of input.clientTools ?? []) {
      if (tools.some((own) => own.name === t.name) || clientToolNames.has(t.name)) continue;
      clientToolNames.add(t.name);
      tools.push(t);
    }
    const messages: AiMessage[] = [
      ...(agent.def.options.system ? [{ role: 'system' as const, content: agent.def.options.system }] : []),
      ...(input.history ?? []),
      { role: 'user', content: message },
      ...(input.continuation ?? []),
    ];
    const extras = {
      ...(input.state !== undefined ? { state: input.state } : {}),
      ...(input.forwardedProps !== undefined ? { forwardedProps: input.forwardedProps } : {}),
    };
    const maxSteps = Math.max(1, this.fw.config.get('fw.agent.max-tool-steps'));
    for (let step = 0; step < maxSteps; step++) {
      const calls: AiToolCall[] = [];
      let text = '';
      const model = runtime.models[0];
      // The request is live (the loop appends to its messages): a hook keeps a copy of what it needs.
      const request = { messages, tools, ...extras };
      const call: ModelCall = { step, provider: runtime.name, model, request };
      if (scope) await this.hooks.beforeModelCall(scope, call);
      const parts = scope !== undefined && this.hooks.wantsParts;
      const started = performance.now();
      let finish: { reason: string; usage?: AiUsage; responseModel?: string } | undefined;
      const result = (error?: unknown) => ({
        text,
        toolCalls: calls,
        usage: finish?.usage,
        responseModel: finish?.responseModel,
        finishReason: finish?.reason,
        durationMs: Math.round(performance.now() - started),
        ...(error !== undefined ? { error } : {}),
      });
      const span = startModelSpan(runtime, model, scope?.runId);
      try {
        for await (const part of runtime.stream(request, signal)) {
          if (parts) this.hooks.modelPart(scope, call, part);
          if (part.type === 'finish') {
            finish = part;
            recordFinish(span, part);
          }
          if (part.type === 'text') {
            text += part.delta;
            yield part.delta;
          } else if (part.type === 'tool-call') {
            calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
            emit({ type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
          }
        }
      } catch (err) {
        if (scope) this.hooks.afterModelCall(scope, call, result(err));
        failModelSpan(span, err, signal.aborted);
        // One line per provider error, without its stack: the provider's failure, not fw's code.
        if (!signal.aborted)
          this.log.error({ agent: agent.name, provider: runtime.name, error: errorSummary(err) }, 'AI provider call failed');
        throw err;
      } finally {
        span.end();
      }
      if (scope) this.hooks.afterModelCall(scope, call, result());
      if (calls.length === 0) return;
      messages.push({ role: 'assistant', content: text, toolCalls: calls });
      let clientCalled = false;
      for (const call of calls) {
        if (clientToolNames.has(call.toolName)) {
          clientCalled = true;
          continue;
        }
        const output = await this.callTool(agent, call, ctx, call.toolCallId);
        emit({ type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output });
        messages.push({ role: 'tool', toolCallId: call.toolCallId, toolName: call.toolName, content: output });
      }
      if (clientCalled) return;
    }
    // Still calling tools after the last allowed turn: the run fails and says why, instead of
    // ending as if the model had answered.
    throw new ToolStepLimitError(maxSteps);
  }

  /** Runs one tool method; its failure is reported to the model as text, never thrown past the run. */
  async callTool(agent: MountedAgent, call: { toolName: string; input: unknown }, ctx: AgentContext, callId?: string): Promise<string> {
    const out = await this.tool(agent, call.toolName, call.input, ctx, callId);
    return out.ok ? out.text : `error: ${out.text}`;
  }

  /**
   * Calls a tool method from outside a run: the per-agent MCP endpoint, whose MCP layer checked the
   * arguments against the same spec already (`checked`), so a Standard Schema's parsed value is not
   * parsed twice.
   */
  async invokeTool(
    agentName: string,
    toolName: string,
    input: unknown,
    signal: AbortSignal,
    checked = false,
    owner?: string,
  ): Promise<ToolOutcome> {
    const agent = this.get(agentName);
    // A tool called from outside a run is a run of its own for the hooks: a kill switch or a
    // policy applies to it as to a model's call, and the tape records it.
    const { scope, stop } = this.openScope(agent, { protocol: 'mcp', ref: toolName, owner }, signal);
    const started = performance.now();
    const durationMs = (): number => Math.round(performance.now() - started);
    try {
      await this.hooks.runStarted(scope, { message: '', history: [] });
      const ctx = this.context(agent, { message: '' }, scope.signal, () => {}, scope);
      const out = await this.tool(agent, toolName, input, ctx, undefined, checked);
      await this.hooks.runEnded(
        scope,
        out.ok
          ? { state: 'completed', text: out.text, durationMs: durationMs() }
          : { state: 'failed', error: out.text, durationMs: durationMs() },
      );
      return out;
    } catch (err) {
      const failure = stop.signal.aborted ? stop.signal.reason : err;
      await this.hooks.runEnded(scope, {
        state: scope.signal.aborted ? 'cancelled' : 'failed',
        error: (failure as Error)?.message ?? String(failure),
        durationMs: durationMs(),
      });
      throw failure;
    }
  }

  /** A run's scope, with the controller its hooks stop it through. */
  private openScope(
    agent: MountedAgent,
    fields: Partial<Pick<RunScope, 'protocol' | 'ref' | 'owner' | 'sessionId' | 'parentRunId' | 'coordinationId'>>,
    signal: AbortSignal,
  ): { scope: RunScope; stop: AbortController } {
    const stop = new AbortController();
    const all = AbortSignal.any([signal, this.root.signal, stop.signal]);
    const scope: RunScope = {
      runId: randomUUID(),
      agent: agent.name,
      protocol: fields.protocol,
      ref: fields.ref,
      owner: fields.owner,
      principalId: principalIdOf(fields.owner),
      parentRunId: fields.parentRunId,
      coordinationId: fields.coordinationId,
      sessionId: fields.sessionId,
      startedAt: Date.now(),
      signal: all,
      abort: (reason) => stop.abort(reason),
    };
    return { scope, stop };
  }

  /**
   * One tool method in an `execute_tool` span (GenAI conventions). A name the agent does not have
   * (a model's invention) stays out of the span name, which must stay low in cardinality.
   */
  private tool(
    agent: MountedAgent,
    toolName: string,
    input: unknown,
    ctx: AgentContext,
    callId?: string,
    checked = false,
  ): Promise<ToolOutcome> {
    const tool = agent.def.tools.find((t) => t.name === toolName);
    return traced(
      tool ? `execute_tool ${toolName}` : 'execute_tool',
      {
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.agent.name': agent.name,
          'gen_ai.tool.type': 'function',
          ...(tool ? { 'gen_ai.tool.name': toolName, 'gen_ai.tool.description': tool.description } : {}),
          ...(callId ? { 'gen_ai.tool.call.id': callId } : {}),
        },
        errorType: () => (ctx.signal.aborted ? 'cancelled' : undefined),
      },
      async (span) => {
        const scope = this.scopes.get(ctx);
        if (scope) span.setAttribute(RUN_ID_ATTRIBUTE, scope.runId);
        const call: AiToolCall = { toolCallId: callId ?? '', toolName, input };
        if (scope) {
          try {
            await this.hooks.beforeToolCall(scope, call);
          } catch (err) {
            // Refused (a policy, an approval denied): the model reads why, unless the run was stopped.
            ctx.signal.throwIfAborted();
            const text = (err as Error)?.message ?? String(err);
            span.setAttribute('error.type', 'refused');
            span.setStatus({ code: SpanStatusCode.ERROR, message: text });
            return { ok: false, text };
          }
        }
        const started = performance.now();
        const out = await this.execute(span, agent, tool, toolName, input, ctx, checked);
        if (scope)
          this.hooks.afterToolCall(scope, call, { ok: out.ok, text: out.text, durationMs: Math.round(performance.now() - started) });
        return out;
      },
    );
  }

  /** The tool method itself: its arguments checked (unless the MCP layer did), then called. */
  private async execute(
    span: Span,
    agent: MountedAgent,
    tool: AgentToolDefinition | undefined,
    toolName: string,
    input: unknown,
    ctx: AgentContext,
    checked: boolean,
  ): Promise<ToolOutcome> {
    if (!tool) {
      span.setAttribute('error.type', 'unknown_tool');
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'the agent has no tool of that name' });
      return { ok: false, text: `unknown tool '${toolName}'` };
    }
    // A model's arguments are checked like an MCP client's, before the method runs; what is
    // wrong goes back to the model as text, so it can correct the call.
    let args = input ?? {};
    if (!checked) {
      const verdict = await argumentsFor(tool, args);
      if ('problem' in verdict) {
        span.setAttribute('error.type', 'invalid_arguments');
        span.setStatus({ code: SpanStatusCode.ERROR, message: verdict.problem });
        return { ok: false, text: verdict.problem };
      }
      args = verdict.args;
    }
    try {
      const fn = agent.instance[tool.method] as (input: unknown, ctx: AgentContext) => unknown;
      const out = await fn.call(agent.instance, args, ctx);
      return { ok: true, text: typeof out === 'string' ? out : JSON.stringify(out ?? null), value: out };
    } catch (err) {
      ctx.signal.throwIfAborted();
      // Reported to the model as text, and to the trace as the failure it is.
      failSpan(span, err);
      return { ok: false, text: (err as Error)?.message ?? String(err) };
    }
  }

  private async dispatch(
    coord: MountedAgent,
    ctx: CoordinatorContext,
    to: string,
    message: string,
    options: DispatchOptions = {},
    emit: RunListener,
  ): Promise<DispatchResult> {
    const skill = options.skill ?? 'default';
    const { coordinationId } = ctx;
    if (!coord.fleetNames.includes(to)) {
      const err = new NotInFleetError(coord.name, to);
      this.journal.record({
        kind: 'failure',
        coordinationId,
        coordinator: coord.name,
        agent: to,
        skill,
        durationMs: 0,
        error: err.message,
      });
      throw err;
    }
    const subagentRunId = randomUUID();
    this.journal.record({ kind: 'dispatch', coordinationId, coordinator: coord.name, agent: to, skill });
    this.fw.events.emit('AgentDispatched', { coordinationId, coordinator: coord.name, agent: to, skill });
    emit({ type: 'subagent-started', subagentRunId, agent: to, skill });
    const started = performance.now();
    const done = (success: boolean): number => {
      const durationMs = Math.round(performance.now() - started);
      this.fw.events.emit('AgentCompleted', { coordinationId, coordinator: coord.name, agent: to, skill, durationMs, success });
      return durationMs;
    };
    try {
      const url = coord.remote.get(to);
      let text: string;
      if (url) {
        if (!this.remoteCaller) throw new FwError('remote_unavailable', 'no A2A client is configured', 503);
        text = await this.remoteCaller(url, message, ctx.signal);
      } else {
        text = await this.run(to, { message, ...(this.scopes.has(ctx) ? { parent: this.scopes.get(ctx) } : {}) }, ctx.signal);
      }
      const durationMs = done(true);
      this.journal.record({ kind: 'completion', coordinationId, coordinator: coord.name, agent: to, skill, durationMs });
      emit({ type: 'subagent-finished', subagentRunId, agent: to, result: text });
      return { agent: to, text, durationMs };
    } catch (err) {
      const error = (err as Error)?.message ?? String(err);
      const durationMs = done(false);
      this.journal.record({ kind: 'failure', coordinationId, coordinator: coord.name, agent: to, skill, durationMs, error });
      emit({ type: 'subagent-error', subagentRunId, agent: to, error });
      throw err;
    }
  }
}

/** A tool method's outcome: the text the model reads, and the value itself (an MCP client may get it structured). */
export interface ToolOutcome {
  ok: boolean;
  text: string;
  value?: unknown;
}

/** A tool's arguments checked against its declared input: what to call it with, or what is wrong. */
async function argumentsFor(tool: AgentToolDefinition, input: unknown): Promise<{ args: Record<string, unknown> } | { problem: string }> {
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    return { problem: `invalid arguments for tool '${tool.name}': the arguments must be an object` };
  try {
    const checked = await checkToolArguments(tool.input, input as Record<string, unknown>);
    return 'problems' in checked ? { problem: `invalid arguments for tool '${tool.name}': ${checked.problems.join('; ')}` } : checked;
  } catch (err) {
    // The declared schema is broken (Ajv cannot compile it) or its library threw: the tool's fault, said as such.
    const what = err instanceof InvalidSchemaError ? 'declares an input schema that cannot be compiled' : 'could not check its arguments';
    return { problem: `tool '${tool.name}' ${what}: ${(err as Error)?.message ?? String(err)}` };
  }
}
