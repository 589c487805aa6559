import { FwError, type Framework, type Principal, type TransportName } from '@fw/runtime';
import type { McpContext, ParamSpec, ToolDefinition, ToolRegistry } from '@fw/mcp';
import { REQUIRED_ROLE, type ControlAction } from './authorizer.js';
import type { AdminService } from './service.js';
import { overview } from './overview.js';
import { credentialEnd } from './credential-state.js';
import { CONTENT_ROLE, mayReadContent } from './content.js';
import type { EvalsView, TapeView } from './peer-types.js';
import { scopeOf } from './governance/governance.js';
import { PolicyFileError } from './governance/policy-file.js';

type McpModule = typeof import('@fw/mcp');
type McpParamSpec = ParamSpec;
type McpToolDef = ToolDefinition;

type Args = Record<string, unknown>;
const TRANSPORTS: readonly TransportName[] = ['websocket', 'sse', 'long-polling', 'streaming'];
const str = (args: Args, name: string): string | undefined =>
  typeof args[name] === 'string' && args[name] !== '' ? (args[name] as string) : undefined;
const num = (args: Args, name: string): number | undefined => (typeof args[name] === 'number' ? (args[name] as number) : undefined);
const opt = (name: string, description: string, type: McpParamSpec['type'] = 'string'): McpParamSpec => ({
  name,
  description,
  required: false,
  type,
});
const req = (name: string, description: string, type: McpParamSpec['type'] = 'string'): McpParamSpec => ({
  name,
  description,
  required: true,
  type,
});

export interface AdminMcpOptions {
  /** Path of the admin's own MCP endpoint (`/fw/admin/mcp`). */
  path: string;
  /** Serve the write tools too (fw.admin.mcp-write-tools). */
  write: boolean;
  /** Also offer the tools on the app's own server at `/mcp` (fw.admin.mcp-tools-on-user-server). */
  onUserServer: boolean;
}

/**
 * Serves the admin plane's MCP tools on the admin's own MCP endpoint (`/fw/admin/mcp`), behind
 * the admin gate exactly as REST: every request and upgrade passes the gate (loopback-only until
 * authentication is configured, then the credential and the `viewer` role), and each write needs
 * its role and goes through the same control plane (audited, internal broadcasters read-only).
 * The tools are never in the process-wide registry: a user's `/mcp` gets them only by opt-in,
 * and then only sessions the gate would admit see them. Returns a function that unmounts them.
 */
export async function mountAdminMcp(fw: Framework, admin: AdminService, options: AdminMcpOptions): Promise<(() => void) | undefined> {
  let mcp: McpModule;
  try {
    mcp = await import('@fw/mcp');
  } catch {
    return undefined; // @fw/mcp is not installed
  }
  const registry = adminToolRegistry(mcp, options.write);
  const gate = admin.gate;
  const mounted = mcp.mountMcpServer(
    fw,
    { name: 'fw-admin', version: '1.0.0', path: options.path },
    {
      frameworkRegistry: false,
      registries: [registry],
      principalResolver: (req, url) => gate.resolve(req, url),
      access: async (req) => {
        const result = await gate.check(req, new URL(req.url ?? '/', 'http://localhost'));
        if (!result.ok) {
          await admin.audit.note({
            action: 'read',
            target: options.path,
            principal: result.principal?.id ?? null,
            address: result.address ?? null,
            success: false,
            outcome: 'refused',
            reason: result.detail,
            source: 'mcp',
          });
          throw new FwError(result.code, result.detail, result.status);
        }
      },
    },
  );
  const cleanups = [() => mounted.close()];
  if (options.onUserServer) {
    const user = mcp.mountedServers(fw).find((m) => m.endpoint.path === '/mcp') ?? mcp.mountMcpServer(fw, { name: 'fw', path: '/mcp' });
    user.endpoint.catalog.add(registry, (session) => gate.admits(session.principal, session.clientAddress));
    cleanups.push(() => void user.endpoint.catalog.remove(registry));
  }
  return () => cleanups.forEach((c) => c());
}

/** The `fw_*` tools in a registry of their own. Each handler finds the admin service of the session's framework. */
function adminToolRegistry(mcp: McpModule, withWrites: boolean): ToolRegistry {
  const registry = new mcp.ToolRegistry('programmatic');
  const fail = (text: string): unknown => mcp.McpToolResult.error(text);
  /** The gate again, per call: a session on a user's server, or one whose role changed. */
  const admitted = (admin: AdminService, ctx: McpContext): boolean => admin.gate.admits(ctx.principal, ctx.session.clientAddress);
  /**
   * A session is authenticated once, when it opens: every call checks that its credential has
   * not expired or been revoked since. One that has is refused, and its session ended once the
   * answer is out (the transport closes the socket or streams).
   */
  const ended = (ctx: McpContext): string | undefined => {
    const why = credentialEnd(ctx.fw, ctx.principal);
    if (!why) return undefined;
    setImmediate(() =>
      mcp
        .mountedServers(ctx.fw)
        .find((m) => m.endpoint.path === ctx.session.server)
        ?.endpoint.end(ctx.session.id, `credential_${why}`),
    );
    return why === 'expired' ? 'the credential expired' : 'the credential was revoked';
  };

  const read = (
    name: string,
    description: string,
    params: McpParamSpec[],
    run: (admin: AdminService, args: Args, limit: number, ctx: McpContext) => unknown,
  ): McpToolDef => ({
    name,
    description,
    params,
    annotations: { readOnlyHint: true },
    handler: (args, ctx) => {
      const admin = ctx.fw.services.get('admin');
      if (!admin) return fail('unavailable: the admin plane is not installed on this framework');
      const gone = ended(ctx);
      if (gone) return fail(`unauthorized: ${gone}`);
      if (!admitted(admin, ctx))
        return fail(
          admin.authRequired
            ? 'unauthorized: the admin plane requires a principal with the viewer role'
            : 'forbidden: the admin plane answers loopback clients only',
        );
      const limit = Math.min(Math.max(1, Math.trunc(num(args, 'limit') ?? admin.pageDefault)), admin.pageMax);
      return run(admin, args, limit, ctx);
    },
  });

  const write = (
    name: string,
    action: ControlAction,
    description: string,
    params: McpParamSpec[],
    run: (admin: AdminService, args: Args, principal: Principal | undefined, address: string | undefined) => Promise<unknown>,
    target: (args: Args) => string,
  ): McpToolDef => ({
    name,
    description: `${description} (needs the ${REQUIRED_ROLE[action]} role)`,
    params,
    annotations: { destructiveHint: true },
    handler: async (args, ctx) => {
      const admin = ctx.fw.services.get('admin');
      if (!admin?.mcpWriteTools) return fail(`unavailable: ${name} is not enabled (fw.admin.mcp-write-tools)`);
      const caller = { principal: ctx.principal, source: 'mcp' as const, address: ctx.session.clientAddress };
      const gone = ended(ctx);
      if (gone) {
        await admin.control.refuse(action, target(args), caller, 'refused', gone);
        return fail(`unauthorized: ${gone}`);
      }
      if (!admitted(admin, ctx)) {
        await admin.control.refuse(action, target(args), caller, 'refused', 'not admitted by the admin gate');
        return fail('unauthorized: the admin plane requires authentication');
      }
      try {
        return await run(admin, args, ctx.principal, ctx.session.clientAddress);
      } catch (err) {
        const e = err as { code?: string; message?: string };
        return fail(`${e.code ?? 'error'}: ${e.message ?? String(err)}`);
      }
    },
  });

  /** The run tape for a caller that may read content, or why not. */
  const tapeOf = (admin: AdminService, ctx: McpContext): TapeView | string => {
    if (!mayReadContent(ctx.principal, admin.authRequired)) return `forbidden: run tapes are content and need the '${CONTENT_ROLE}' role`;
    return admin.views.agent.tape ?? 'unavailable: no run tape (the agent module is absent or fw.agent.tape.enabled is false)';
  };

  /** The evals for a caller that may read content, or why not. */
  const evalsOf = (admin: AdminService, principal: Principal | undefined): EvalsView => {
    if (!mayReadContent(principal, admin.authRequired))
      throw new FwError('content_forbidden', `evals are content and need the '${CONTENT_ROLE}' role`, 403);
    const evals = admin.views.agent.evals;
    if (!evals) throw new FwError('evals_unavailable', 'no evals (the agent module is absent or fw.agent.tape.enabled is false)', 404);
    return evals;
  };
  const objectArg = (args: Args, name: string): Record<string, unknown> | undefined => {
    const v = args[name];
    if (v === undefined) return undefined;
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new FwError('bad_request', `'${name}' must be an object`, 400);
    return v as Record<string, unknown>;
  };

  const limitParam = opt('limit', 'Most items to return', 'integer');
  const tools: McpToolDef[] = [
    read('fw_overview', 'System overview: status, version, connections, broadcasters, agents, sessions, tasks, AI runtime', [], (a) =>
      overview(a.views, a.history.totals()),
    ),
    read(
      'fw_list_agents',
      'Registered agents and coordinators: name, version, kind (agent or coordinator), protocols',
      [limitParam],
      (a, _args, limit) =>
        a.views.agent
          .agents()
          .slice(0, limit)
          .map((x) => ({
            name: x.name,
            version: x.version,
            kind: x.kind,
            protocols: x.protocols,
            path: x.path,
            headless: x.headless,
            activeSessions: x.activeSessions,
          })),
    ),
    read(
      'fw_list_agent_sessions',
      'Active agent sessions, optionally of one agent',
      [opt('agent', 'Agent name'), limitParam],
      (a, args, limit) => a.views.agent.sessions(str(args, 'agent')).slice(0, limit),
    ),
    read('fw_list_coordinators', 'Coordinators and their fleets', [limitParam], (a, _args, limit) =>
      a.views.agent.coordinators().slice(0, limit),
    ),
    read(
      'fw_list_broadcasters',
      'Broadcasters with their resource counts',
      [opt('search', 'Substring of the broadcaster id'), limitParam],
      (a, args, limit) => {
        const search = str(args, 'search');
        return a.views.runtime
          .listBroadcasters()
          .filter((b) => !search || b.id.includes(search))
          .slice(0, limit);
      },
    ),
    read(
      'fw_list_resources',
      'Connected resources (clients), filterable',
      [
        opt('broadcaster', 'Broadcaster id'),
        opt('transport', 'websocket, sse, long-polling or streaming'),
        opt('search', 'Substring of uuid, path or address'),
        limitParam,
      ],
      (a, args, limit) => {
        const broadcaster = str(args, 'broadcaster');
        const asked = str(args, 'transport');
        const transport = TRANSPORTS.find((t) => t === asked);
        if (asked && !transport) return fail(`bad_request: transport must be one of ${TRANSPORTS.join(', ')}`);
        const search = str(args, 'search');
        const page = a.views.runtime.listResources({
          limit,
          ...(broadcaster ? { broadcaster } : {}),
          ...(transport ? { transport } : {}),
          ...(search ? { search } : {}),
        });
        return { total: page.total, items: page.items };
      },
    ),
    read('fw_list_handlers', 'Real-time handlers', [limitParam], (a, _args, limit) => a.views.runtime.listHandlers().slice(0, limit)),
    read('fw_list_interceptors', 'Interceptors, global and per handler', [limitParam], (a, _args, limit) =>
      a.views.runtime.listInterceptors().slice(0, limit),
    ),
    read(
      'fw_query_journal',
      'Coordination journal events (dispatch, completion, failure, handoff, evaluation, interrupted), the newest `limit`',
      [opt('coordinationId', 'Coordination id'), opt('agent', 'Agent name'), limitParam],
      async (a, args, limit) => {
        const coordinationId = str(args, 'coordinationId');
        const agent = str(args, 'agent');
        return (await a.views.agent.journal({ ...(coordinationId ? { coordinationId } : {}), ...(agent ? { agent } : {}), limit })).slice(
          -limit,
        );
      },
    ),
    read(
      'fw_list_tasks',
      'A2A tasks, filterable by agent and state',
      [opt('agent', 'Agent name'), opt('state', 'Task state'), limitParam],
      (a, args, limit) => {
        const agentName = str(args, 'agent');
        const state = str(args, 'state');
        return a.views.agent.tasks({ ...(agentName ? { agentName } : {}), ...(state ? { state } : {}) }).slice(0, limit);
      },
    ),
    read(
      'fw_list_runs',
      'Taped agent runs, newest first: agent, status, principal, parent run, timings, token usage (needs the operator role: run tapes are content)',
      [
        opt('agent', 'Agent name'),
        opt('status', 'open, completed, failed, cancelled or interrupted'),
        opt('principal', 'Principal id'),
        opt('since', 'ISO-8601 time or epoch milliseconds'),
        limitParam,
      ],
      async (a, args, limit, ctx) => {
        const tape = tapeOf(a, ctx);
        if (typeof tape === 'string') return fail(tape);
        const agent = str(args, 'agent');
        const status = str(args, 'status');
        const principal = str(args, 'principal');
        const since = str(args, 'since');
        return tape.runs({
          limit,
          ...(agent ? { agent } : {}),
          ...(status ? { status } : {}),
          ...(principal ? { principal } : {}),
          ...(since ? { since: /^\d+$/.test(since) ? Number(since) : since } : {}),
        });
      },
    ),
    read(
      'fw_read_run',
      'One taped run and its steps (input, model requests and outputs, tool calls, handoffs, end), or with tree=true the run tree rebuilt from the tape (needs the operator role)',
      [
        req('runId', 'Run id (fw_list_runs)'),
        opt('fromSeq', 'First step', 'integer'),
        opt('tree', 'The run and its child runs', 'boolean'),
        limitParam,
      ],
      async (a, args, limit, ctx) => {
        const tape = tapeOf(a, ctx);
        if (typeof tape === 'string') return fail(tape);
        const id = str(args, 'runId') ?? '';
        if (args.tree === true) return (await tape.tree(id)) ?? fail(`not_found: run '${id}' is not on the tape`);
        const run = await tape.run(id);
        if (!run) return fail(`not_found: run '${id}' is not on the tape`);
        return { run, steps: await tape.steps(id, Math.max(0, Math.trunc(num(args, 'fromSeq') ?? 0)), limit) };
      },
    ),
    read(
      'fw_compare_runs',
      'Two ended taped runs side by side, step by step (a re-run against its original): {same, steps: [{seq, kind, left, right, differs}], summary} (needs the operator role)',
      [req('runId', 'The run on the left (fw_list_runs)'), req('with', 'The run on the right')],
      async (a, args, _limit, ctx) => {
        const tape = tapeOf(a, ctx);
        if (typeof tape === 'string') return fail(tape);
        try {
          return await tape.compare(str(args, 'runId') ?? '', str(args, 'with') ?? '');
        } catch (err) {
          const e = err as { code?: string; message?: string };
          return fail(`${e.code ?? 'error'}: ${e.message ?? String(err)}`);
        }
      },
    ),
    read(
      'fw_list_eval_runs',
      'Eval runs, newest first, with their progress and pass rates; with evalRunId, that run with the result of each case (needs the operator role: evals are content)',
      [
        opt('evalRunId', 'One eval run (its id)'),
        opt('dataset', 'Runs of this dataset'),
        opt('agent', 'Runs against this agent'),
        limitParam,
      ],
      async (a, args, limit, ctx) => {
        try {
          const evals = evalsOf(a, ctx.principal);
          const id = str(args, 'evalRunId');
          if (id) return (await evals.run(id)) ?? fail(`not_found: eval run '${id}'`);
          const dataset = str(args, 'dataset');
          const agent = str(args, 'agent');
          return await evals.runs({ ...(dataset ? { dataset } : {}), ...(agent ? { agent } : {}), limit });
        } catch (err) {
          const e = err as { code?: string; message?: string };
          return fail(`${e.code ?? 'error'}: ${e.message ?? String(err)}`);
        }
      },
    ),
    read('fw_list_runtimes', 'AI runtimes with their capabilities, and which one is active', [], (a) => a.views.agent.runtimes()),
    read('fw_list_mcp', 'The MCP registry: servers, tools, resources, prompts, sessions and pending bridge calls', [], (a) => ({
      servers: a.views.mcp.servers(),
      tools: a.views.mcp.tools().map((t) => ({ name: t.name, description: t.description, origin: t.origin, server: t.server })),
      resources: a.views.mcp.resources(),
      prompts: a.views.mcp.prompts(),
      sessions: a.views.mcp.sessions(),
      pendingBridgeCalls: a.views.mcp.pendingBridgeCalls(),
    })),
    read(
      'fw_list_audit',
      'The audit log of admin attempts, newest first',
      [opt('action', 'Action'), opt('principal', 'Principal id'), opt('outcome', 'allowed, refused, invalid, failed or error'), limitParam],
      (a, args, limit) => {
        const action = str(args, 'action');
        const principal = str(args, 'principal');
        const outcome = str(args, 'outcome');
        return a.audit.query({
          limit,
          ...(action ? { action } : {}),
          ...(principal ? { principal } : {}),
          ...(outcome ? { outcome } : {}),
        });
      },
    ),
    read(
      'fw_governance_health',
      'The kill switch: armed or not, its scope, reason and operator, and what every node enforces (GET governance/health)',
      [],
      (a) => a.governance.health(),
    ),
    read(
      'fw_governance_policies',
      'The policies this node enforces, in evaluation order, each with its mode, digest (sha256) and what it denied or would have denied (GET governance/policies)',
      [],
      (a) => ({ file: a.governance.policyFile || null, digest: a.governance.policies.fileDigest, policies: a.governance.policies.list() }),
    ),
    read(
      'fw_governance_decisions',
      'The newest policy decisions, newest first: time, policy, decision, reason, evaluation time, context (GET governance/decisions)',
      [limitParam],
      (a, _args, limit) => a.governance.decisions(limit),
    ),
    read(
      'fw_governance_check',
      'Asks the policies whether an agent may act, as POST governance/check: answers {allowed, decision, reason, matched_policy, evaluation_ms}',
      [
        req('agent_id', 'The agent'),
        req('action', 'tool_call, model_call, model_output, or a tool name'),
        opt('context', 'tool_name, arguments, input, output, principal, run_id', 'object'),
      ],
      (a, args) => {
        const agent = str(args, 'agent_id');
        const action = str(args, 'action');
        if (!agent || !action) throw new FwError('bad_request', "'agent_id' and 'action' must be non-empty strings", 400);
        const context = args.context;
        return a.governance.check(
          agent,
          action,
          context && typeof context === 'object' && !Array.isArray(context) ? (context as Record<string, unknown>) : {},
        );
      },
    ),
  ];
  if (withWrites) {
    tools.push(
      write(
        'fw_broadcast',
        'broadcast',
        'Broadcasts a message to every resource of a broadcaster',
        [req('broadcasterId', 'Broadcaster id, e.g. /fw/chat/lobby'), req('message', 'The message text')],
        (a, args, principal, address) =>
          a.control.broadcast(str(args, 'broadcasterId') ?? '', str(args, 'message') ?? '', { principal, source: 'mcp', address }),
        (args) => str(args, 'broadcasterId') ?? '(missing)',
      ),
      write(
        'fw_disconnect_resource',
        'disconnect',
        'Disconnects a client by its uuid',
        [req('uuid', 'Resource uuid'), opt('reason', 'Reason sent to the client')],
        (a, args, principal, address) =>
          a.control.disconnect(str(args, 'uuid') ?? '', str(args, 'reason') ?? 'disconnected by the administrator', {
            principal,
            source: 'mcp',
            address,
          }),
        (args) => str(args, 'uuid') ?? '(missing)',
      ),
      write(
        'fw_destroy_broadcaster',
        'destroy',
        'Destroys a broadcaster, disconnecting its resources',
        [req('broadcasterId', 'Broadcaster id')],
        (a, args, principal, address) => a.control.destroy(str(args, 'broadcasterId') ?? '', { principal, source: 'mcp', address }),
        (args) => str(args, 'broadcasterId') ?? '(missing)',
      ),
      write(
        'fw_revoke_credentials',
        'revoke',
        'Cuts a principal off everywhere: its credentials are refused and its open sockets and streams close',
        [req('principal', 'Principal id (as the audit log and GET session name it)')],
        (a, args, principal, address) => {
          const id = str(args, 'principal');
          if (!id) throw new FwError('bad_request', "'principal' must be a non-empty string", 400);
          return a.control.revoke(id, { principal, source: 'mcp', address });
        },
        (args) => str(args, 'principal') ?? '(missing)',
      ),
      write(
        'fw_cancel_task',
        'cancel',
        'Cancels an in-flight A2A task or AG-UI run (id agui:{agent}:{runId})',
        [req('taskId', 'Task id (fw_list_tasks)'), opt('reason', 'Reason')],
        (a, args, principal, address) =>
          a.control.cancel(str(args, 'taskId') ?? '', str(args, 'reason') ?? 'canceled by the administrator', {
            principal,
            source: 'mcp',
            address,
          }),
        (args) => str(args, 'taskId') ?? '(missing)',
      ),
      write(
        'fw_kill_switch_arm',
        'kill-switch.arm',
        'Arms the kill switch on every node: every model and tool call of the scope (the whole fleet, or one agent) is refused and its runs in flight are stopped',
        [
          req('reason', 'Why: recorded and told to every refused client'),
          opt('scope', "'*' (default): the whole fleet; else one agent's name"),
        ],
        (a, args, principal, address) => {
          const reason = str(args, 'reason');
          if (!reason) throw new FwError('bad_request', "'reason' must be a non-empty string", 400);
          return a.governance.arm({ reason, scope: scopeOf(args.scope) }, { principal, source: 'mcp', address });
        },
        (args) => str(args, 'scope') ?? '*',
      ),
      write(
        'fw_kill_switch_disarm',
        'kill-switch.disarm',
        'Disarms the kill switch on every node: runs are admitted again',
        [opt('reason', 'Why (recorded)')],
        (a, args, principal, address) => a.governance.disarm(str(args, 'reason'), { principal, source: 'mcp', address }),
        () => '*',
      ),
      write(
        'fw_cancel_inflight',
        'session.cancel-inflight',
        'Stops the model call in flight of one chat session and keeps its socket: the client is told it was cancelled and may go on (idempotent)',
        [req('session', 'Agent session id (fw_list_agent_sessions)'), opt('reason', 'Reason')],
        (a, args, principal, address) =>
          a.governance.cancelInflight(str(args, 'session') ?? '', str(args, 'reason') ?? 'cancelled by an operator', {
            principal,
            source: 'mcp',
            address,
          }),
        (args) => str(args, 'session') ?? '(missing)',
      ),
      write(
        'fw_rerun_run',
        'rerun',
        "Re-runs a taped run's recorded input against the live model as a new run (its tape parent: the original); answers {runId, originalRunId} once it has started (fw_compare_runs once it has ended)",
        [req('runId', 'The taped run (fw_list_runs)')],
        (a, args, principal, address) => a.control.rerun(str(args, 'runId') ?? '', { principal, source: 'mcp', address }),
        (args) => str(args, 'runId') ?? '(missing)',
      ),
      write(
        'fw_promote_run',
        'evaluate',
        "Promotes a taped run to a dataset case (as POST evals/dataset/promote): its input, and its answer as the expected output unless 'expected' is given",
        [req('runId', 'The taped run (fw_list_runs)'), req('dataset', 'The dataset'), opt('expected', 'The output expected')],
        (a, args, principal, address) => {
          const runId = str(args, 'runId') ?? '';
          const expected = typeof args.expected === 'string' ? args.expected : undefined;
          return a.control.evaluate(runId, { principal, source: 'mcp', address }, () =>
            evalsOf(a, principal).promote({ runId, dataset: str(args, 'dataset') ?? '', ...(expected !== undefined ? { expected } : {}) }),
          );
        },
        (args) => str(args, 'runId') ?? '(missing)',
      ),
      write(
        'fw_start_eval',
        'evaluate',
        'Starts an eval run of a dataset against an agent (as POST evals/run): answers the run, status running (fw_list_eval_runs for its progress); one at a time',
        [
          req('dataset', 'The dataset'),
          req('agent', 'The agent'),
          opt('scorer', 'exact (default), contains, json-schema (with schema), judge (with judge), or a custom scorer'),
          opt('schema', 'The JSON Schema for the json-schema scorer', 'object'),
          opt('judge', "The LLM judge's {rubric, runtime?, model?, threshold?}", 'object'),
        ],
        (a, args, principal, address) => {
          const dataset = str(args, 'dataset') ?? '';
          const scorer = str(args, 'scorer');
          const schema = objectArg(args, 'schema');
          const judge = objectArg(args, 'judge');
          // The control plane checks the role (operator, the content role) and audits first.
          return a.control.evaluate(dataset, { principal, source: 'mcp', address }, () =>
            evalsOf(a, principal).start({
              dataset,
              agent: str(args, 'agent') ?? '',
              ...(scorer ? { scorer } : {}),
              ...(schema ? { schema } : {}),
              ...(judge ? { judge: judge as { rubric: string } } : {}),
            }),
          );
        },
        (args) => str(args, 'dataset') ?? '(missing)',
      ),
      write(
        'fw_governance_reload',
        'governance.reload',
        'Reads the policy file again and applies it at once; a bad file changes nothing and says what is wrong',
        [],
        async (a, _args, principal, address) => {
          const caller = { principal, source: 'mcp' as const, address };
          try {
            return await a.governance.reload(caller);
          } catch (err) {
            // As the REST route: a bad file is an invalid attempt, recorded (nothing changed).
            if (err instanceof PolicyFileError)
              await a.control.refuse('governance.reload', 'policies', caller, 'invalid', `${err.code}: ${err.message}`);
            throw err;
          }
        },
        () => 'policies',
      ),
    );
  }
  for (const t of tools) registry.registerTool(t);
  return registry;
}
