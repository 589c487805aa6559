import { FwError, type Framework, type TransportName } from '@fw/runtime';
import type { McpContext, ParamSpec, ToolDefinition, ToolRegistry } from '@fw/mcp';
import { REQUIRED_ROLE, type ControlAction } from './authorizer.js';
import type { AdminService } from './service.js';
import { spendGroupOf, spendSinceOf } from './governance/budgets/spend-routes.js';
import { overview } from './overview.js';
import { credentialEnd } from './credential-state.js';
import { CONTENT_ROLE, mayReadContent } from './content.js';
import type { TapeView } from './peer-types.js';
import { scopeOf } from './governance/governance.js';
import { PolicyFileError } from './governance/policy-file.js';
import type { ControlCaller as PlaneCaller } from './control.js';
import { ADMIN_AGENT } from './governance/approvals/approval.js';
import { decisionOf, statusOf } from './governance/approvals/routes.js';

/** What a write tool's code runs with: the caller (its note names an approver) and the admin service. */
type ControlCaller = PlaneCaller;
/** An approvable tool's code, run once a human approved it. */
type ApprovedAction = (args: Args, caller: PlaneCaller & { admin: AdminService }) => Promise<unknown>;

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
  const { registry, approvable } = adminToolRegistry(mcp, options.write);
  const gate = admin.gate;
  // What an approved admin action runs (fw.admin.mcp-approval): the tool's own code, as the approver.
  const unregister = [...approvable].map(([tool, run]) =>
    admin.governance.approvals.registerAction(tool, (args, caller) => run.run(args, { ...caller, admin }) as Promise<unknown>, run.action),
  );
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
  const cleanups = [() => mounted.close(), ...unregister];
  if (options.onUserServer) {
    const user = mcp.mountedServers(fw).find((m) => m.endpoint.path === '/mcp') ?? mcp.mountMcpServer(fw, { name: 'fw', path: '/mcp' });
    user.endpoint.catalog.add(registry, (session) => gate.admits(session.principal, session.clientAddress));
    cleanups.push(() => void user.endpoint.catalog.remove(registry));
  }
  return () => cleanups.forEach((c) => c());
}

/** The `fw_*` tools in a registry of their own. Each handler finds the admin service of the session's framework. */
function adminToolRegistry(
  mcp: McpModule,
  withWrites: boolean,
): { registry: ToolRegistry; approvable: Map<string, { run: ApprovedAction; action: ControlAction }> } {
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

  /** The write tools that need a human's approval when `fw.admin.mcp-approval` is on: what each runs once approved. */
  const approvable = new Map<string, { run: ApprovedAction; action: ControlAction }>();
  const write = (
    name: string,
    action: ControlAction,
    description: string,
    params: McpParamSpec[],
    run: (admin: AdminService, args: Args, caller: ControlCaller) => Promise<unknown>,
    target: (args: Args) => string,
    options: { approvable?: boolean } = {},
  ): McpToolDef => {
    if (options.approvable) approvable.set(name, { run: (args, caller) => run(caller.admin, args, caller), action });
    return {
      name,
      description: `${description} (needs the ${REQUIRED_ROLE[action]} role${options.approvable ? "; with fw.admin.mcp-approval, a human's approval too" : ''})`,
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
          if (options.approvable && admin.mcpApproval) return await requestApproval(admin, name, action, args, target(args), caller);
          return await run(admin, args, caller);
        } catch (err) {
          const e = err as { code?: string; message?: string };
          return fail(`${e.code ?? 'error'}: ${e.message ?? String(err)}`);
        }
      },
    };
  };

  /**
   * `fw.admin.mcp-approval`: an AI operator's dangerous call waits for a human. The caller must
   * be allowed the action itself (refused and audited otherwise); the approval keeps the tool and
   * its arguments, so an approval made after a restart still runs it.
   */
  const requestApproval = async (
    admin: AdminService,
    tool: string,
    action: ControlAction,
    args: Args,
    target: string,
    caller: ControlCaller,
  ): Promise<unknown> => {
    const permission = await admin.control.permission(action, target, caller.principal);
    if (!permission.ok) {
      await admin.control.refuse(action, target, caller, 'refused', permission.reason);
      return fail(`${permission.code}: ${permission.reason}`);
    }
    const approval = await admin.governance.approvals.request({
      runId: null,
      agent: ADMIN_AGENT,
      tool,
      arguments: args,
      principal: caller.principal?.id ?? null,
      surface: 'admin-mcp',
      reason: `${tool} on '${target}' asked by ${caller.principal?.id ?? 'an anonymous operator'} over MCP`,
    });
    // The AI's call itself did not act: audited as held (a refusal whose reason names the approval).
    await admin.control.refuse(action, target, caller, 'refused', `awaiting a human's approval (approval ${approval.id})`);
    return `pending approval ${approval.id}: ${tool} runs once a human approves it (POST /api/admin/approvals/${approval.id}); it expires (denied) at ${approval.expiresAt}`;
  };

  /** The run tape for a caller that may read content, or why not. */
  const tapeOf = (admin: AdminService, ctx: McpContext): TapeView | string => {
    if (!mayReadContent(ctx.principal, admin.authRequired)) return `forbidden: run tapes are content and need the '${CONTENT_ROLE}' role`;
    return admin.views.agent.tape ?? 'unavailable: no run tape (the agent module is absent or fw.agent.tape.enabled is false)';
  };

  const limitParam = opt('limit', 'Most items to return', 'integer');
  const tools: McpToolDef[] = [
    read('fw_overview', 'System overview: status, version, connections, broadcasters, agents, sessions, tasks, AI runtime', [], (a) =>
      overview(a.views, a.history.totals(), a.governance.budgets.today()),
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
      'fw_list_approvals',
      'Human approvals, newest first, as GET /api/admin/approvals: {approvals: [{id, runId, agent, tool, arguments (null without the operator role), principal, surface, status, reason, requestedAt, expiresAt, decidedAt, decidedBy}]}',
      [opt('status', 'pending, approved, denied or expired'), limitParam],
      async (a, args, limit, ctx) => ({
        approvals: await a.governance.approvals.list(
          statusOf(str(args, 'status') ?? null),
          limit,
          mayReadContent(ctx.principal, a.authRequired),
        ),
      }),
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
    read(
      'fw_spend',
      'Spend of model calls per agent, principal or model since a time, as GET spend: {by, since, until, currency, rows: [{key, calls, inputTokens, outputTokens, cachedTokens, costUsd}], total, unpriced}',
      [opt('by', 'agent (default), principal or model'), opt('since', 'ISO-8601 time (default: today, UTC)')],
      (a, args) => a.governance.budgets.spend(spendGroupOf(str(args, 'by')), spendSinceOf(str(args, 'since'))),
    ),
    read('fw_budgets', 'The token and cost budgets and where each stands (ok, soft, hard), as GET governance/budgets', [], (a) => ({
      budgets: a.governance.budgets.report(),
    })),
  ];
  if (withWrites) {
    tools.push(
      write(
        'fw_broadcast',
        'broadcast',
        'Broadcasts a message to every resource of a broadcaster',
        [req('broadcasterId', 'Broadcaster id, e.g. /fw/chat/lobby'), req('message', 'The message text')],
        (a, args, caller) => a.control.broadcast(str(args, 'broadcasterId') ?? '', str(args, 'message') ?? '', caller),
        (args) => str(args, 'broadcasterId') ?? '(missing)',
        { approvable: true },
      ),
      write(
        'fw_disconnect_resource',
        'disconnect',
        'Disconnects a client by its uuid',
        [req('uuid', 'Resource uuid'), opt('reason', 'Reason sent to the client')],
        (a, args, caller) =>
          a.control.disconnect(str(args, 'uuid') ?? '', str(args, 'reason') ?? 'disconnected by the administrator', caller),
        (args) => str(args, 'uuid') ?? '(missing)',
        { approvable: true },
      ),
      write(
        'fw_destroy_broadcaster',
        'destroy',
        'Destroys a broadcaster, disconnecting its resources',
        [req('broadcasterId', 'Broadcaster id')],
        (a, args, caller) => a.control.destroy(str(args, 'broadcasterId') ?? '', caller),
        (args) => str(args, 'broadcasterId') ?? '(missing)',
        { approvable: true },
      ),
      write(
        'fw_revoke_credentials',
        'revoke',
        'Cuts a principal off everywhere: its credentials are refused and its open sockets and streams close',
        [req('principal', 'Principal id (as the audit log and GET session name it)')],
        (a, args, caller) => {
          const id = str(args, 'principal');
          if (!id) throw new FwError('bad_request', "'principal' must be a non-empty string", 400);
          return a.control.revoke(id, caller);
        },
        (args) => str(args, 'principal') ?? '(missing)',
      ),
      write(
        'fw_cancel_task',
        'cancel',
        'Cancels an in-flight A2A task or AG-UI run (id agui:{agent}:{runId})',
        [req('taskId', 'Task id (fw_list_tasks)'), opt('reason', 'Reason')],
        (a, args, caller) => a.control.cancel(str(args, 'taskId') ?? '', str(args, 'reason') ?? 'canceled by the administrator', caller),
        (args) => str(args, 'taskId') ?? '(missing)',
        { approvable: true },
      ),
      write(
        'fw_kill_switch_arm',
        'kill-switch.arm',
        'Arms the kill switch on every node: every model and tool call of the scope (the whole fleet, or one agent) is refused and its runs in flight are stopped',
        [
          req('reason', 'Why: recorded and told to every refused client'),
          opt('scope', "'*' (default): the whole fleet; else one agent's name"),
        ],
        (a, args, caller) => {
          const reason = str(args, 'reason');
          if (!reason) throw new FwError('bad_request', "'reason' must be a non-empty string", 400);
          return a.governance.arm({ reason, scope: scopeOf(args.scope) }, caller);
        },
        (args) => str(args, 'scope') ?? '*',
        { approvable: true },
      ),
      write(
        'fw_kill_switch_disarm',
        'kill-switch.disarm',
        'Disarms the kill switch on every node: runs are admitted again',
        [opt('reason', 'Why (recorded)')],
        (a, args, caller) => a.governance.disarm(str(args, 'reason'), caller),
        () => '*',
        { approvable: true },
      ),
      write(
        'fw_cancel_inflight',
        'session.cancel-inflight',
        'Stops the model call in flight of one chat session and keeps its socket: the client is told it was cancelled and may go on (idempotent)',
        [req('session', 'Agent session id (fw_list_agent_sessions)'), opt('reason', 'Reason')],
        (a, args, caller) =>
          a.governance.cancelInflight(str(args, 'session') ?? '', str(args, 'reason') ?? 'cancelled by an operator', caller),
        (args) => str(args, 'session') ?? '(missing)',
      ),
      write(
        'fw_decide_approval',
        'approval.decide',
        'Approves or denies a pending human approval, as POST /api/admin/approvals/{id}: the waiting tool call runs or is refused; an approved admin action runs now, as the approver',
        [
          req('id', 'Approval id (fw_list_approvals)'),
          req('approve', 'true: approve; false: deny', 'boolean'),
          opt('reason', 'Why (recorded)'),
        ],
        (a, args, caller) => {
          const { approve, reason } = decisionOf({ approve: args.approve, ...(args.reason !== undefined ? { reason: args.reason } : {}) });
          // With fw.admin.mcp-approval, approving is a human's act (REST, the dashboard): an AI operator may only deny.
          if (approve && a.mcpApproval)
            throw new FwError(
              'forbidden',
              'with fw.admin.mcp-approval, approvals are approved by a human over REST; over MCP they may only be denied',
              403,
            );
          return a.governance.approvals.decide(str(args, 'id') ?? '', approve, reason, caller);
        },
        (args) => str(args, 'id') ?? '(missing)',
      ),
      write(
        'fw_governance_reload',
        'governance.reload',
        'Reads the policy file again and applies it at once; a bad file changes nothing and says what is wrong',
        [],
        async (a, _args, caller) => {
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
  return { registry, approvable };
}
