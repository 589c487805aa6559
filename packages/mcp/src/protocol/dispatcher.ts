import { carriedContext, SpanKind, SpanStatusCode, traced, type CallOutcome, type Framework, type Logger } from '@fw/runtime';
import { publicMessage } from '../public-error.js';
import type { Catalog } from '../catalog.js';
import type { McpLimits } from '../config.js';
import { LOG_LEVELS, type LogLevel, type McpContext } from '../context.js';
import { InvalidParamsError, McpError, ResourceNotFoundError, RpcCode } from '../errors.js';
import { McpMessage, McpToolResult } from '../message.js';
import type { ResourceEntry, ToolEntry } from '../registry.js';
import type { JsonSchema, ResolvedParam } from '../schema.js';
import { checkToolArguments, InvalidSchemaError, jsonSchemaProblems, standardProblems } from '../validation.js';
import { errorResponse, notification, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse } from './jsonrpc.js';
import type { McpSession } from './session.js';
import { InputRequiredSignal, requireCapability, type InputRequest } from '../modern/input.js';
import { RequestStateSealer } from '../modern/request-state.js';
import { StatelessSession } from '../modern/stateless-session.js';
import { INPUT_METHODS, ModernCode } from '../modern/era.js';
import { type McpTask, TaskManager, TASKS_EXTENSION } from '../modern/tasks.js';

/** What ties a tool call to the task it may become (tasks extension). */
interface TaskLink {
  task?: McpTask;
  /** Creates the task (once) and unties the handler from its request; undefined: the call cannot become a task. */
  start?: () => Promise<boolean>;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Newest first. 2025-03-26 is the floor; a client asking for anything else is offered the newest. */
export const SUPPORTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export const LATEST_VERSION = SUPPORTED_VERSIONS[0];

export function negotiateVersion(requested: unknown): string {
  return typeof requested === 'string' && (SUPPORTED_VERSIONS as readonly string[]).includes(requested) ? requested : LATEST_VERSION;
}

/** Batches exist in 2025-03-26 only (2025-06-18 removed them). */
export function allowsBatches(version: string): boolean {
  return version === '' || version < '2025-06-18';
}

export interface ServerIdentity {
  name: string;
  version: string;
  path: string;
  instructions?: string | undefined;
}

type Handler = (
  session: McpSession,
  req: JsonRpcRequest,
  signal: AbortSignal,
) => Promise<Record<string, unknown>> | Record<string, unknown>;

/**
 * The transport-agnostic protocol core: one instance per endpoint. Transports hand it parsed
 * JSON-RPC messages with the session they belong to; it answers requests (or nothing, when the
 * client cancelled), applies notifications and settles the client's answers to our requests.
 */
export class McpProtocol {
  private readonly methods: Record<string, Handler>;
  /** Signs the `requestState` of multi round-trip requests (2026-07-28). */
  readonly sealer: RequestStateSealer;
  /** Tasks of the tasks extension (2026-07-28), bound to the principals that created them. */
  readonly tasks: TaskManager;
  /** Where failures the client is not shown in full are written. */
  readonly log: Logger;

  constructor(
    readonly fw: Framework,
    readonly identity: ServerIdentity,
    readonly catalog: Catalog,
    readonly limits: McpLimits,
  ) {
    this.log = fw.logger.child({ module: 'mcp' });
    this.sealer = new RequestStateSealer(limits.requestStateKey, limits.requestStateTtlMs);
    this.tasks = new TaskManager(identity.path, limits.tasks);
    this.methods = {
      ping: () => ({}),
      'tools/list': (s, r) => this.page('tools', r, this.catalog.tools(s).map(toolInfo)),
      'tools/call': (s, r, signal) => this.callTool(s, r, signal),
      'resources/list': (s, r) => this.page('resources', r, this.catalog.resources(s).map(resourceInfo)),
      'resources/templates/list': (s, r) => this.page('resourceTemplates', r, this.catalog.templates(s).map(templateInfo)),
      'resources/read': (s, r, signal) => this.readResource(s, r, signal),
      'resources/subscribe': (s, r) => {
        const uri = this.uriParam(r, 'uri');
        const max = this.limits.maxResourceSubscriptions;
        if (!s.subscriptions.has(uri) && s.subscriptions.size >= max)
          throw new InvalidParamsError(
            `this session already subscribes to ${max} resources (fw.mcp.max-resource-subscriptions); unsubscribe from one first`,
          );
        s.subscriptions.add(uri);
        return {};
      },
      'resources/unsubscribe': (s, r) => {
        s.subscriptions.delete(this.uriParam(r, 'uri'));
        return {};
      },
      'prompts/list': (s, r) =>
        this.page(
          'prompts',
          r,
          this.catalog.prompts(s).map((p) => ({
            name: p.name,
            description: p.description,
            arguments: p.params.map((a) => ({ name: a.name, description: a.description, required: a.required })),
          })),
        ),
      'prompts/get': (s, r, signal) => this.getPrompt(s, r, signal),
      'logging/setLevel': (s, r) => {
        const level = r.params?.level;
        if (typeof level !== 'string' || !(LOG_LEVELS as readonly string[]).includes(level)) {
          throw new InvalidParamsError(`level must be one of ${LOG_LEVELS.join(', ')}`);
        }
        s.logLevel = level as LogLevel;
        return {};
      },
      'completion/complete': (sess, r) => this.complete(sess, r),
      // The tasks extension (SEP-2663): tasks/result and tasks/list do not exist in it (-32601).
      'tasks/get': (s, r) => this.taskOf(s, r).detailed(),
      'tasks/update': (s, r) => {
        const task = this.taskOf(s, r);
        const responses = r.params?.inputResponses;
        if (!isObject(responses))
          throw new InvalidParamsError("params.inputResponses must be an object keyed by the task's inputRequests keys");
        const answers: Record<string, Record<string, unknown>> = {};
        for (const [key, value] of Object.entries(responses)) {
          if (!isObject(value))
            throw new InvalidParamsError(`inputResponses['${key}'] must be the client's result object for that input request`);
          answers[key] = value;
        }
        task.answer(answers);
        return {};
      },
      'tasks/cancel': (s, r) => {
        this.taskOf(s, r).cancel('cancelled by the client (tasks/cancel)');
        return {};
      },
    };
  }

  /** Answers `initialize` and records what was negotiated on the session. */
  initialize(session: McpSession, req: JsonRpcRequest): JsonRpcResponse {
    const p = req.params ?? {};
    session.protocolVersion = negotiateVersion(p.protocolVersion);
    const info = p.clientInfo as { name?: unknown; version?: unknown } | undefined;
    session.clientInfo = info && typeof info.name === 'string' ? { name: info.name, version: String(info.version ?? '') } : undefined;
    session.clientCapabilities = isObject(p.capabilities) ? p.capabilities : {};
    session.requests++;
    return {
      jsonrpc: '2.0',
      id: req.id,
      result: {
        protocolVersion: session.protocolVersion,
        capabilities: McpProtocol.capabilities(),
        serverInfo: { name: this.identity.name, version: this.identity.version },
        ...(this.identity.instructions ? { instructions: this.identity.instructions } : {}),
      },
    };
  }

  /** What fw serves, in both eras (initialize and server/discover). */
  static capabilities(): Record<string, unknown> {
    return {
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
    };
  }

  /** Serves one request. Resolves undefined when the client cancelled it (no answer is due). */
  async request(session: McpSession, req: JsonRpcRequest): Promise<JsonRpcResponse | undefined> {
    session.lastActivity = Date.now();
    session.requests++;
    if (req.method === 'initialize') return errorResponse(req.id, RpcCode.InvalidRequest, 'the session is already initialized');
    const handler = this.methods[req.method];
    if (!handler) return errorResponse(req.id, RpcCode.MethodNotFound, `method not found: ${req.method}`);
    if (session.inflight.size >= this.limits.maxInflight) {
      return errorResponse(
        req.id,
        RpcCode.ServerError,
        `too many requests in flight on this session (fw.mcp.max-inflight-requests = ${this.limits.maxInflight})`,
      );
    }
    if (session.inflight.has(req.id))
      return errorResponse(req.id, RpcCode.InvalidRequest, `request id ${String(req.id)} is already in flight`);
    const controller = new AbortController();
    session.inflight.set(req.id, controller);
    try {
      const result = await handler(session, req, controller.signal);
      if (controller.signal.aborted) return undefined;
      return { jsonrpc: '2.0', id: req.id, result };
    } catch (err) {
      if (controller.signal.aborted) return undefined;
      if (err instanceof InputRequiredSignal && session instanceof StatelessSession && INPUT_METHODS.has(req.method)) {
        return { jsonrpc: '2.0', id: req.id, result: this.inputRequired(session, req, err) };
      }
      if (err instanceof McpError) return errorResponse(req.id, err.rpcCode, err.message, err.data);
      return errorResponse(req.id, RpcCode.InternalError, `internal error: ${publicMessage(err, this.log, req.method)}`);
    } finally {
      if (session.inflight.get(req.id) === controller) session.inflight.delete(req.id);
    }
  }

  /**
   * The interim result of a multi round-trip request (basic/patterns/mrtr): what the handler
   * asked for, and a signed requestState carrying the answers gathered so far.
   */
  private inputRequired(session: StatelessSession, req: JsonRpcRequest, signal: InputRequiredSignal): Record<string, unknown> {
    const requestState = this.sealer.seal({ ...stateBinding(session, req), a: session.answers });
    return { resultType: 'input_required', inputRequests: signal.requests, requestState };
  }

  /**
   * Loads a 2026-07-28 retry's answers into the stateless session: the verified requestState's
   * answers, then the request's `inputResponses`. Throws -32602 on malformed input or a
   * requestState that fails verification.
   */
  loadInputs(session: StatelessSession, req: JsonRpcRequest): void {
    if (!INPUT_METHODS.has(req.method)) return;
    const p = req.params ?? {};
    const answers: Record<string, Record<string, unknown>> = {};
    if (p.requestState !== undefined) {
      if (typeof p.requestState !== 'string') throw new InvalidParamsError('requestState must be the string the server sent');
      const opened = this.sealer.open(p.requestState, stateBinding(session, req));
      if (typeof opened === 'string') throw new InvalidParamsError(opened);
      Object.assign(answers, opened.a);
    }
    if (p.inputResponses !== undefined) {
      if (!isObject(p.inputResponses)) throw new InvalidParamsError('inputResponses must be an object keyed by the input request keys');
      for (const [key, value] of Object.entries(p.inputResponses)) {
        if (!isObject(value))
          throw new InvalidParamsError(`inputResponses['${key}'] must be the client's result object for that input request`);
        answers[key] = value;
      }
    }
    session.answers = answers;
  }

  notification(session: McpSession, n: JsonRpcNotification): void {
    session.lastActivity = Date.now();
    if (n.method === 'notifications/initialized') session.initialized = true;
    else if (n.method === 'notifications/cancelled') {
      const id = n.params?.requestId;
      if (typeof id === 'string' || typeof id === 'number') session.cancel(id);
    }
    // Other client notifications (roots/list_changed, progress of our requests) need no action.
  }

  response(session: McpSession, r: JsonRpcResponse): void {
    session.lastActivity = Date.now();
    session.settle(r);
  }

  /** Tells a session that a list changed (the registries call this through the endpoint). */
  static listChanged(kind: 'tools' | 'resources' | 'prompts'): JsonRpcNotification {
    return notification(`notifications/${kind}/list_changed`);
  }

  /**
   * The task a tasks/* request names: 2026-07-28 only, the extension declared on the request
   * (-32021 otherwise, SEP-2663 "Error Handling"), and visible to the caller — another
   * principal's task is answered like an unknown id (-32602) so its existence does not leak.
   */
  private taskOf(session: McpSession, req: JsonRpcRequest): McpTask {
    if (!(session instanceof StatelessSession))
      throw new McpError(
        RpcCode.MethodNotFound,
        'mcp_method_not_found',
        `method not found: ${req.method} (the tasks extension is served under protocol 2026-07-28)`,
      );
    if (!declaresTasks(session.clientCapabilities)) throw missingTasksExtension(`${req.method} needs`);
    const taskId = stringParam(req, 'taskId');
    const task = this.tasks.get(taskId, session.principal);
    if (!task) throw new InvalidParamsError(`unknown task: ${taskId}`);
    return task;
  }

  private context(session: McpSession, req: JsonRpcRequest, signal: AbortSignal, link?: TaskLink): McpContext {
    const meta = req.params?._meta as { progressToken?: unknown } | undefined;
    const token = meta?.progressToken;
    const hasToken = typeof token === 'string' || typeof token === 'number';
    const fw = this.fw;
    const timeout = this.limits.clientRequestTimeoutMs;
    const stateless = session instanceof StatelessSession ? session : undefined;
    let asked = 0;
    const ask = async (key: string, r: InputRequest): Promise<Record<string, unknown>> => {
      if (link?.task) {
        requireCapability(session.clientCapabilities, r.method);
        return link.task.ask(key, r);
      }
      if (stateless) return stateless.answer(key, r);
      requireCapability(session.clientCapabilities, r.method);
      return session.request(r.method, r.params, timeout, req.id);
    };
    return {
      fw,
      session,
      principal: session.principal,
      signal,
      requestId: req.id,
      progress(progress, total, message) {
        if (!hasToken || signal.aborted) return;
        session.send(
          notification('notifications/progress', {
            progressToken: token,
            progress,
            ...(total !== undefined ? { total } : {}),
            ...(message !== undefined ? { message } : {}),
          }),
          req.id,
        );
      },
      log(level, data, logger) {
        if (signal.aborted || LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(session.logLevel)) return;
        // 2026-07-28: no notifications/message unless the request set a logLevel in its _meta.
        if (session instanceof StatelessSession && session.requestLogLevel === undefined) return;
        session.send(notification('notifications/message', { level, data, ...(logger ? { logger } : {}) }), req.id);
      },
      broadcaster: (id) => fw.broadcasters.lookup(id),
      runtime: fw.runtime,
      request: (method, params) =>
        stateless ? ask(`fw-${++asked}`, { method, params }) : session.request(method, params, timeout, req.id),
      input: (key, method, params) => ask(key, { method, params }),
      async inputs(requests) {
        if (link?.task) {
          const keys = Object.keys(requests);
          const answers = await Promise.all(keys.map((key) => ask(key, requests[key] as InputRequest)));
          return Object.fromEntries(keys.map((key, i) => [key, answers[i] as Record<string, unknown>]));
        }
        if (stateless) return stateless.answerAll(requests);
        const out: Record<string, Record<string, unknown>> = {};
        for (const [key, r] of Object.entries(requests)) out[key] = await ask(key, r);
        return out;
      },
      startTask: () => (link?.start ? link.start() : Promise.resolve(false)),
    };
  }

  /**
   * `tools/call` in a server span (OpenTelemetry MCP conventions): `tools/call {tool}`, a child of
   * the trace context in `params._meta` when the client sent one, else of the request's. The tool
   * name is in the span name only for a registered tool (a client's made-up names would make
   * span names unbounded). The session id is left out: it is a bearer of the session.
   */
  private callTool(session: McpSession, req: JsonRpcRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    const name = typeof req.params?.name === 'string' ? req.params.name : undefined;
    const known = name !== undefined && this.catalog.tool(name, session) !== undefined;
    const parent = carriedContext(req.params?._meta);
    return traced(
      known ? `tools/call ${name}` : 'tools/call',
      {
        kind: SpanKind.SERVER,
        ...(parent ? { parent } : {}),
        attributes: {
          'mcp.method.name': 'tools/call',
          'gen_ai.operation.name': 'execute_tool',
          'mcp.protocol.version': session.protocolVersion,
          ...(known ? { 'gen_ai.tool.name': name } : {}),
          ...(req.id !== undefined && req.id !== null ? { 'jsonrpc.request.id': String(req.id) } : {}),
        },
        errorType: (err) =>
          signal.aborted
            ? 'cancelled'
            : err instanceof InputRequiredSignal
              ? 'input_required'
              : err instanceof McpError
                ? String(err.rpcCode)
                : undefined,
      },
      async (span) => {
        const result = await this.runTool(session, req, signal);
        // A tool execution error is a result the model reads, not a protocol error: still a failed call.
        if (result.isError === true) {
          span.setAttribute('error.type', 'tool_error');
          span.setStatus({ code: SpanStatusCode.ERROR, message: 'the tool returned an error result' });
        }
        return result;
      },
    );
  }

  private async runTool(session: McpSession, req: JsonRpcRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    const name = stringParam(req, 'name');
    const tool = this.catalog.tool(name, session);
    if (!tool) throw new InvalidParamsError(`unknown tool: ${name}`);
    const raw = req.params?.arguments ?? {};
    if (!isObject(raw)) throw new InvalidParamsError('arguments must be an object');
    // Arguments are checked against the declared schema before the handler runs; a violation is
    // a tool execution error the model can read and correct (server/tools "Error Handling").
    let args: Record<string, unknown>;
    try {
      const checked = await checkToolArguments(tool, raw);
      if ('problems' in checked) return toolError(`invalid arguments for tool '${name}': ${checked.problems.join('; ')}`);
      args = checked.args;
    } catch (err) {
      if (err instanceof InvalidSchemaError)
        return toolError(`tool '${name}' declares an inputSchema that cannot be compiled: ${err.message}`);
      throw err;
    }
    const plan = taskPlan(tool, session);
    if (plan !== 'sync') return this.callToolAsTask(session as StatelessSession, req, tool, args, signal, plan);
    let value: unknown;
    const started = performance.now();
    const observe = (outcome: CallOutcome): void => this.fw.metrics.observeMcpToolCall(name, outcome, (performance.now() - started) / 1000);
    try {
      value = await tool.handler(args, this.context(session, req, signal));
    } catch (err) {
      observe(signal.aborted ? 'cancelled' : err instanceof InputRequiredSignal ? 'input-required' : 'error');
      if (err instanceof McpError || err instanceof InputRequiredSignal || signal.aborted) throw err;
      return toolError(`tool '${name}' failed: ${publicMessage(err, this.log, `tool '${name}'`)}`);
    }
    observe('ok');
    const result = toolResult(value, session.protocolVersion);
    return await this.checkOutput(tool, result, session.protocolVersion);
  }

  /**
   * A task-capable tool called by a client that declared the tasks extension. `immediate`: the
   * task exists before the handler runs; `handler`: the handler runs in the request (and may end
   * it with `input_required` or a plain result) until it calls `ctx.startTask()`. From then on
   * the handler's signal follows the task (tasks/cancel, TTL, shutdown), not the request, and
   * its outcome is recorded on the task (SEP-2663 "Error Handling": a tool error is `completed`
   * with `isError`; a JSON-RPC error is `failed`).
   */
  private async callToolAsTask(
    session: StatelessSession,
    req: JsonRpcRequest,
    tool: ToolEntry,
    args: Record<string, unknown>,
    signal: AbortSignal,
    plan: 'immediate' | 'handler',
  ): Promise<Record<string, unknown>> {
    const handler = new AbortController();
    const followRequest = (): void => handler.abort(signal.reason);
    signal.addEventListener('abort', followRequest, { once: true });
    let detached!: () => void;
    const whenDetached = new Promise<void>((resolve) => (detached = resolve));
    const link: TaskLink = {};
    link.start = async () => {
      if (link.task) return true;
      const task = this.tasks.create(tool.name, { principal: session.principal, address: session.clientAddress });
      link.task = task;
      signal.removeEventListener('abort', followRequest);
      task.controller.signal.addEventListener('abort', () => handler.abort(task.controller.signal.reason), { once: true });
      detached();
      return true;
    };
    const started = performance.now();
    const observe = (outcome: CallOutcome): void =>
      this.fw.metrics.observeMcpToolCall(tool.name, outcome, (performance.now() - started) / 1000);
    const ctx = this.context(session, req, handler.signal, link);
    if (plan === 'immediate') await link.start();
    const settled: Promise<Settled> = (async () => tool.handler(args, ctx))().then(
      (value) => ({ ok: true, value }),
      (error: unknown) => ({ ok: false, error }),
    );
    const outcome = link.task ? undefined : await Promise.race([settled, whenDetached.then(() => undefined)]);
    const task = link.task;
    if (task) {
      void settled.then((o) => this.settleTask(task, tool, o, session.protocolVersion, observe));
      return task.created();
    }
    signal.removeEventListener('abort', followRequest);
    const o = outcome as Settled;
    if (o.ok) {
      observe('ok');
      return await this.checkOutput(tool, toolResult(o.value, session.protocolVersion), session.protocolVersion);
    }
    observe(signal.aborted ? 'cancelled' : o.error instanceof InputRequiredSignal ? 'input-required' : 'error');
    if (o.error instanceof McpError || o.error instanceof InputRequiredSignal || signal.aborted) throw o.error;
    return toolError(`tool '${tool.name}' failed: ${publicMessage(o.error, this.log, `tool '${tool.name}'`)}`);
  }

  private async settleTask(
    task: McpTask,
    tool: ToolEntry,
    o: Settled,
    version: string,
    observe: (outcome: CallOutcome) => void,
  ): Promise<void> {
    if (task.terminal) {
      observe(task.status === 'cancelled' ? 'cancelled' : 'error');
      return;
    }
    if (o.ok) {
      observe('ok');
      task.complete(await this.checkOutput(tool, toolResult(o.value, version), version));
    } else if (o.error instanceof McpError) {
      observe('error');
      task.fail({ code: o.error.rpcCode, message: o.error.message, ...(o.error.data !== undefined ? { data: o.error.data } : {}) });
    } else {
      observe('error');
      task.complete(toolError(`tool '${tool.name}' failed: ${publicMessage(o.error, this.log, `tool '${tool.name}'`)}`));
    }
  }

  /** A declared outputSchema binds structuredContent (2025-06-18+); a result that breaks it is an error result. */
  private async checkOutput(tool: ToolEntry, result: Record<string, unknown>, version: string): Promise<Record<string, unknown>> {
    if (result.isError || (!tool.outputSchema && !tool.outputValidator) || version < '2025-06-18') return result;
    if (!('structuredContent' in result))
      return toolError(`tool '${tool.name}' declares an outputSchema but returned no structuredContent`);
    try {
      let problems: string[];
      if (tool.outputValidator) {
        const checked = await standardProblems(tool.outputValidator, result.structuredContent, 'field');
        problems = 'problems' in checked ? checked.problems : [];
      } else {
        problems = jsonSchemaProblems(tool.outputSchema as JsonSchema, result.structuredContent, 'field');
      }
      if (problems.length)
        return toolError(`tool '${tool.name}' returned structuredContent that does not match its outputSchema: ${problems.join('; ')}`);
    } catch (err) {
      if (err instanceof InvalidSchemaError)
        return toolError(`tool '${tool.name}' declares an outputSchema that cannot be compiled: ${err.message}`);
      throw err;
    }
    return result;
  }

  /**
   * completion/complete (server/utilities/completion): the completer a prompt argument or a
   * resource-template variable declared (`@McpParam({complete})`), at most 100 values; no
   * completer, no values.
   */
  private async complete(session: McpSession, req: JsonRpcRequest): Promise<Record<string, unknown>> {
    const ref = req.params?.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
    const argument = req.params?.argument as { name?: unknown; value?: unknown } | undefined;
    if (!isObject(ref)) throw new InvalidParamsError('params.ref is required ({type: "ref/prompt", name} or {type: "ref/resource", uri})');
    if (!isObject(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string')
      throw new InvalidParamsError('params.argument must be {name, value} with string members');
    let params: ResolvedParam[];
    if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
      const prompt = this.catalog.prompt(ref.name, session);
      if (!prompt) throw new InvalidParamsError(`unknown prompt: ${ref.name}`);
      params = prompt.params;
    } else if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
      const uri = ref.uri;
      if (uri.length > this.limits.maxUriLength)
        throw new InvalidParamsError(
          `params.ref.uri is ${uri.length} characters long; at most ${this.limits.maxUriLength} are accepted (fw.mcp.max-uri-length)`,
        );
      const template =
        this.catalog.templates(session).find((t) => t.uri === uri) ?? this.catalog.resources(session).find((t) => t.uri === uri);
      if (!template) throw new InvalidParamsError(`unknown resource template: ${uri}`);
      params = template.params;
    } else {
      throw new InvalidParamsError('params.ref.type must be "ref/prompt" (with name) or "ref/resource" (with uri)');
    }
    const completer = params.find((p) => p.name === argument.name)?.complete;
    if (!completer) return { completion: { values: [], total: 0, hasMore: false } };
    const context = req.params?.context as { arguments?: unknown } | undefined;
    const known: Record<string, string> = {};
    if (isObject(context?.arguments)) for (const [k, v] of Object.entries(context.arguments)) if (typeof v === 'string') known[k] = v;
    let values: readonly string[];
    try {
      values = await completer(argument.value, { arguments: known });
    } catch (err) {
      throw new McpError(
        RpcCode.InternalError,
        'mcp_completion_failed',
        `completing '${argument.name}' failed: ${publicMessage(err, this.log, 'completion/complete')}`,
      );
    }
    const strings = (Array.isArray(values) ? values : []).filter((v): v is string => typeof v === 'string');
    return { completion: { values: strings.slice(0, 100), total: strings.length, hasMore: strings.length > 100 } };
  }

  /**
   * A URI parameter, refused past `fw.mcp.max-uri-length` before anything matches it against a
   * template: matching is linear in the URI's length (uri-matcher.ts), and this bounds the line.
   */
  private uriParam(req: JsonRpcRequest, key: string): string {
    const uri = stringParam(req, key);
    const max = this.limits.maxUriLength;
    if (uri.length > max)
      throw new InvalidParamsError(`params.${key} is ${uri.length} characters long; at most ${max} are accepted (fw.mcp.max-uri-length)`);
    return uri;
  }

  private async readResource(session: McpSession, req: JsonRpcRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    const uri = this.uriParam(req, 'uri');
    const found = this.catalog.findResource(uri, session);
    // 2026-07-28 moved "resource not found" from -32002 to -32602 (changelog, minor change 6).
    if (!found)
      throw session instanceof StatelessSession
        ? new InvalidParamsError(`resource not found: ${uri}`, { uri })
        : new ResourceNotFoundError(uri);
    let value: unknown;
    try {
      value = await found.entry.read(found.vars, this.context(session, req, signal));
    } catch (err) {
      if (err instanceof McpError || err instanceof InputRequiredSignal) throw err;
      throw new McpError(
        RpcCode.InternalError,
        'mcp_resource_failed',
        `reading ${uri} failed: ${publicMessage(err, this.log, 'resources/read')}`,
      );
    }
    return { contents: [resourceContents(uri, found.entry, value)] };
  }

  private async getPrompt(session: McpSession, req: JsonRpcRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    const name = stringParam(req, 'name');
    const prompt = this.catalog.prompt(name, session);
    if (!prompt) throw new InvalidParamsError(`unknown prompt: ${name}`);
    const raw = req.params?.arguments ?? {};
    if (!isObject(raw)) throw new InvalidParamsError('arguments must be an object');
    const args: Record<string, string> = {};
    for (const [k, v] of Object.entries(raw)) {
      if (typeof v !== 'string') throw new InvalidParamsError(`prompt argument '${k}' must be a string`);
      args[k] = v;
    }
    for (const p of prompt.params) {
      if (p.required && args[p.name] === undefined)
        throw new InvalidParamsError(`missing required argument '${p.name}' of prompt '${name}'`);
    }
    const messages = await prompt.handler(args, this.context(session, req, signal));
    if (!Array.isArray(messages))
      throw new McpError(RpcCode.InternalError, 'mcp_prompt_failed', `prompt '${name}' did not return a list of messages`);
    return {
      ...(prompt.description ? { description: prompt.description } : {}),
      messages: messages.map((m) =>
        m instanceof McpMessage ? m.toJSON() : { role: m.role === 'assistant' ? 'assistant' : 'user', content: m.content },
      ),
    };
  }

  private page(key: string, req: JsonRpcRequest, items: Record<string, unknown>[]): Record<string, unknown> {
    const cursor = req.params?.cursor;
    let offset = 0;
    if (cursor !== undefined) {
      offset = typeof cursor === 'string' ? decodeCursor(cursor) : -1;
      if (!(offset >= 0 && offset <= items.length)) throw new InvalidParamsError('invalid cursor');
    }
    const size = this.limits.pageSize;
    const end = offset + size;
    return { [key]: items.slice(offset, end), ...(end < items.length ? { nextCursor: encodeCursor(end) } : {}) };
  }
}

/** Whether the request's client capabilities declare the tasks extension. */
function declaresTasks(capabilities: Record<string, unknown>): boolean {
  const ext = capabilities.extensions;
  return isObject(ext) && ext[TASKS_EXTENSION] !== undefined && ext[TASKS_EXTENSION] !== null;
}

function missingTasksExtension(what: string): McpError {
  return new McpError(
    ModernCode.MissingRequiredClientCapability,
    'mcp_missing_client_capability',
    `${what} the client extension '${TASKS_EXTENSION}' (declare it in _meta['io.modelcontextprotocol/clientCapabilities'].extensions)`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

/**
 * Whether a tools/call becomes a task: only task-capable tools, only under 2026-07-28, only for
 * a client that declared the extension on this request (SEP-2663 "Capability Negotiation": a
 * server MUST NOT return CreateTaskResult otherwise). A `required` tool refuses everyone else
 * with -32021, in both eras (it cannot be served without a task).
 */
function taskPlan(tool: ToolEntry, session: McpSession): 'sync' | 'immediate' | 'handler' {
  if (!tool.task) return 'sync';
  const declared = session instanceof StatelessSession && declaresTasks(session.clientCapabilities);
  if (!declared) {
    if (tool.task.support === 'required') throw missingTasksExtension(`tool '${tool.name}' runs only as a task and needs`);
    return 'sync';
  }
  return tool.task.start === 'handler' ? 'handler' : 'immediate';
}

function toolError(text: string): Record<string, unknown> {
  return { content: [{ type: 'text', text }], isError: true };
}

/** Any return value → a CallToolResult. Plain objects also travel as structuredContent (2025-06-18+). */
export function toolResult(value: unknown, version: string): Record<string, unknown> {
  if (value instanceof McpToolResult) {
    return {
      content: value.content,
      ...(value.options.isError ? { isError: true } : {}),
      ...(value.options.structuredContent ? { structuredContent: value.options.structuredContent } : {}),
    };
  }
  if (value === undefined || value === null) return { content: [] };
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  const text = JSON.stringify(value) ?? String(value);
  const structured = isObject(value) && version >= '2025-06-18';
  return { content: [{ type: 'text', text }], ...(structured ? { structuredContent: JSON.parse(text) as Record<string, unknown> } : {}) };
}

function resourceContents(uri: string, entry: ResourceEntry, value: unknown): Record<string, unknown> {
  if (value instanceof Uint8Array) return { uri, mimeType: entry.mimeType, blob: Buffer.from(value).toString('base64') };
  if (typeof value === 'string') return { uri, mimeType: entry.mimeType, text: value };
  return { uri, mimeType: entry.mimeType, text: JSON.stringify(value) ?? '' };
}

function toolInfo(t: ToolEntry): Record<string, unknown> {
  return {
    name: t.name,
    ...(t.title ? { title: t.title } : {}),
    description: t.description,
    inputSchema: t.inputSchema,
    ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
    ...(t.annotations ? { annotations: t.annotations } : {}),
  };
}

function resourceInfo(r: ResourceEntry): Record<string, unknown> {
  return { uri: r.uri, name: r.name, description: r.description, mimeType: r.mimeType };
}

function templateInfo(r: ResourceEntry): Record<string, unknown> {
  return { uriTemplate: r.uri, name: r.name, description: r.description, mimeType: r.mimeType };
}

/** What a requestState is bound to: the method, the tool/prompt name or URI, the principal. */
function stateBinding(session: McpSession, req: JsonRpcRequest): { m: string; n: string; p: string | null } {
  const p = req.params ?? {};
  const name = req.method === 'resources/read' ? p.uri : p.name;
  return { m: req.method, n: typeof name === 'string' ? name : '', p: session.principal?.id ?? null };
}

function stringParam(req: JsonRpcRequest, key: string): string {
  const v = req.params?.[key];
  if (typeof v !== 'string' || v === '') throw new InvalidParamsError(`params.${key} must be a non-empty string`);
  return v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const m = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m ? Number(m[1]) : -1;
}
