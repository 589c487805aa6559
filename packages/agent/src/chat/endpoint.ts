/**
 * The chat session endpoint of a non-headless agent: a real-time handler at `/fw/agent/{name}`
 * over fw's transports. One connection (resource) is one agent session, announced first as
 * `{type:'session', id, resumed, history}`. Each client message is a prompt (plain text, or JSON
 * `{"text": "…"}`); the answer streams back to that client only as `{type:'token', delta}`
 * messages, then `{type:'done', text}` once the turn is durable in the store (or
 * `{type:'error', code, message}`: `store_unavailable` when it could not be written; or
 * `{type:'cancelled', reason}` when an operator cancelled the model call: the session stays open
 * for the next prompt).
 *
 * Sessions are kept in the store: a client that reconnects with `?session=<id>` (a reloaded page,
 * a restarted server) continues that conversation and gets its recent turns back in `history`.
 * Each session records its owner: with authentication on, only the same principal resumes it; an
 * anonymous session is resumed by whoever presents its id (server-generated, sent to that client
 * only: the id is the conversation's secret). Each prompt takes one of the caller's prompts
 * (`fw.agent.prompts.*`).
 */
import { ownerOf, type Framework, type Handler, type Interceptor, type Resource } from '@fw/runtime';
import type { AgentHost, MountedAgent } from '../host.js';
import type { AgentSession } from '../sessions.js';
import { publicError, RunCancelledError } from '../errors.js';
import type { ApprovalEvent } from '../run-event.js';

const SESSION = 'fw.agent.session';
const OPENING = 'fw.agent.session.opening';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A resumed session when `?session=` names one this client may continue, else a new one; either
 * takes one of the caller's share of the sessions (refused past it: the connection is closed with
 * the reason).
 */
async function openSession(host: AgentHost, agent: MountedAgent, resource: Resource): Promise<AgentSession> {
  host.store.budget.admit(); // storage_budget_exceeded closes the connection (store retention)
  const asked = resource.query.get('session');
  const principal = resource.principal;
  const lease = host.limits.sessions.acquire({ principal, address: resource.remoteAddress });
  let session: AgentSession;
  let resumed: AgentSession | undefined;
  try {
    resumed = asked && UUID.test(asked) ? await host.sessions.resume(asked, agent.name, resource.uuid, principal) : undefined;
    session = resumed ?? host.sessions.start(agent.name, resource.uuid, ownerOf(principal));
  } catch (err) {
    lease.release();
    throw err;
  }
  session.lease = lease;
  resource.write({
    type: 'session',
    id: session.id,
    resumed: resumed !== undefined,
    history: session.history.map((m) => ({ role: m.role, content: m.content })),
  });
  return session;
}

export function mountChat(fw: Framework, host: AgentHost, agent: MountedAgent): () => void {
  const handler: Handler = {
    open(resource) {
      const opened = openSession(host, agent, resource).then(
        (session) => {
          if (resource.closed) {
            host.sessions.end(session);
            return undefined;
          }
          resource.attributes.set(SESSION, session);
          return session;
        },
        (err: unknown) => {
          resource.close(publicError(err, host.log, { agent: agent.name, session: 'opening' }).message);
          return undefined;
        },
      );
      resource.attributes.set(OPENING, opened);
    },
    message(resource, data) {
      const opening = resource.attributes.get(OPENING) as Promise<AgentSession | undefined> | undefined;
      void opening?.then((session) => {
        if (session) return prompt(host, agent, resource, session, data);
      });
    },
    // A principal whose credential expires or is revoked loses the conversation with it: the
    // session ends (a prompt in flight is cancelled) with the runtime's reason.
    credentialEnded(resource, reason) {
      resource.close(`credential_${reason}`);
    },
    close(resource) {
      const opening = resource.attributes.get(OPENING) as Promise<AgentSession | undefined> | undefined;
      void opening?.then((session) => {
        if (session) host.sessions.end(session);
      });
    },
  };
  // The same gate as A2A, AG-UI and the agent's MCP endpoint: a chat runs the model and the
  // agent's tools. On a socket or stream a browser cannot set headers, so `?access_token=` counts
  // (context.socket); the principal owns the resource (its POSTs and resumes) and the session.
  const auth: Interceptor = {
    name: 'agent-auth',
    connect: async (ctx) => {
      const principal = await host.auth?.check(ctx.req, { socket: true });
      if (principal) ctx.principal = principal;
    },
  };
  return fw.handle(`/agent/${encodeURIComponent(agent.name)}`, handler, {
    broadcaster: null,
    interceptors: [auth],
    description: `agent ${agent.name} chat sessions`,
  });
}

async function prompt(host: AgentHost, agent: MountedAgent, resource: Resource, session: AgentSession, data: string): Promise<void> {
  const text = parsePrompt(data);
  const max = host.fw.config.get('fw.agent.max-message-chars');
  if (text === undefined || text.length === 0) {
    resource.write({ type: 'error', code: 'bad_request', message: 'expected a text prompt or {"text": "…"}' });
    return;
  }
  if (text.length > max) {
    resource.write({ type: 'error', code: 'limit_exceeded', message: `prompt longer than fw.agent.max-message-chars (${max})` });
    return;
  }
  host.sessions.touch(session);
  if (session.running) {
    resource.write({ type: 'error', code: 'busy', message: 'the previous prompt is still being answered' });
    return;
  }
  const wait = host.limits.prompts.tryTake({ principal: resource.principal, address: resource.remoteAddress });
  if (wait > 0) {
    const retryAfter = Math.max(1, Math.ceil(wait / 1000));
    resource.write({
      type: 'error',
      code: 'rate_limited',
      message: `fw.agent.prompts.per-minute: too many prompts from this caller; retry in ${retryAfter} s`,
      retryAfter,
    });
    return;
  }
  const ac = new AbortController();
  session.running = ac;
  try {
    host.store.budget.admit(); // an error frame storage_budget_exceeded (store retention)
    host.store.writes.admit(); // an error frame store_unavailable while the store is down
    const answer = await host.run(
      agent.name,
      {
        message: text,
        history: [...session.history],
        sessionId: session.id,
        protocol: 'chat',
        ref: session.id,
        ...(session.owner ? { owner: session.owner } : {}),
      },
      ac.signal,
      (ev) => {
        if (ev.type === 'text' && !ev.subagentRunId) resource.write({ type: 'token', delta: ev.delta });
        // A tool call waits for a human (docs/governance.md, "Human approval"): the prompt, then its decision.
        else if (ev.type === 'approval') resource.write(approvalFrame(ev));
      },
    );
    // Confirmed only once durable: a turn the store could not take ends in an error frame
    // (store_unavailable), never in a `done` the client would believe.
    await host.sessions.remember(session, { role: 'user', content: text }, { role: 'assistant', content: answer });
    resource.write({ type: 'done', text: answer });
  } catch (err) {
    if (!ac.signal.aborted && err instanceof RunCancelledError) {
      // Stopped from outside this client (an operator's cancel-inflight): the model call ends,
      // the session goes on, and the client may send its next prompt on the same socket.
      resource.write({ type: 'cancelled', reason: err.message });
    } else if (!ac.signal.aborted || !(ac.signal.reason instanceof RunCancelledError)) {
      // What a client may read: an FwError's message, else a reference to the logged cause.
      resource.write({ type: 'error', ...publicError(err, host.log, { agent: agent.name, session: session.id }, 'run_failed') });
    }
  } finally {
    session.running = undefined;
  }
}

/** The chat frame of an approval: `{type: 'approval', id, status, tool, toolCallId, reason, expiresAt}`. */
function approvalFrame(ev: ApprovalEvent): Record<string, unknown> {
  return {
    type: 'approval',
    id: ev.approvalId,
    status: ev.status,
    tool: ev.toolName,
    toolCallId: ev.toolCallId,
    reason: ev.reason,
    expiresAt: ev.expiresAt,
    message:
      ev.status === 'pending'
        ? `the run awaits a human's approval of '${ev.toolName}' (approval ${ev.approvalId}, until ${ev.expiresAt})`
        : `the call of '${ev.toolName}' was ${ev.status}${ev.reason ? `: ${ev.reason}` : ''}`,
  };
}

function parsePrompt(data: string): string | undefined {
  const t = data.trim();
  if (t.startsWith('{')) {
    try {
      const v = JSON.parse(t) as { text?: unknown };
      return typeof v.text === 'string' ? v.text : undefined;
    } catch {
      return t;
    }
  }
  return t;
}
