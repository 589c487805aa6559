/**
 * The chat session endpoint of a non-headless agent: a real-time handler at `/fw/agent/{name}`
 * over fw's transports. One connection (resource) is one agent session. Each client message is a
 * prompt (plain text, or JSON `{"text": "…"}`); the answer streams back to that client only as
 * `{type:'token', delta}` messages, then `{type:'done', text}` (or `{type:'error', code, message}`).
 */
import type { Framework, Handler, HandlerOptions, Resource } from '@fw/runtime';
import type { AgentHost, MountedAgent } from '../host.js';
import type { AgentSession } from '../sessions.js';
import { RunCancelledError } from '../errors.js';

/** `fw.handle` as the runtime offers it (present once the transports are installed). */
type HandleFn = (path: string, handler: Handler, options?: HandlerOptions) => (() => void) | void;

const SESSION = 'fw.agent.session';

export function chatAvailable(fw: Framework): boolean {
  return typeof (fw as unknown as { handle?: unknown }).handle === 'function';
}

export function mountChat(fw: Framework, host: AgentHost, agent: MountedAgent): (() => void) | undefined {
  const handle = (fw as unknown as { handle?: HandleFn }).handle;
  if (typeof handle !== 'function') return undefined;
  const handler: Handler = {
    open(resource) {
      try {
        resource.attributes.set(SESSION, host.sessions.start(agent.name, resource.uuid));
      } catch (err) {
        resource.close((err as Error).message);
      }
    },
    message(resource, data) {
      const session = resource.attributes.get(SESSION) as AgentSession | undefined;
      if (session) void prompt(host, agent, resource, session, data);
    },
    close(resource) {
      const session = resource.attributes.get(SESSION) as AgentSession | undefined;
      if (session) host.sessions.end(session);
    },
  };
  const off = handle.call(fw, `/agent/${encodeURIComponent(agent.name)}`, handler, { broadcaster: null, description: `agent ${agent.name} chat sessions` });
  return typeof off === 'function' ? off : undefined;
}

async function prompt(host: AgentHost, agent: MountedAgent, resource: Resource, session: AgentSession, data: string): Promise<void> {
  const text = parsePrompt(data);
  const max = host.fw.config.get<number>('fw.agent.max-message-chars');
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
  const ac = new AbortController();
  session.running = ac;
  try {
    const answer = await host.run(agent.name, { message: text, history: [...session.history], sessionId: session.id, protocol: 'chat', ref: session.id }, ac.signal, (ev) => {
      if (ev.type === 'text' && !ev.subagentRunId) resource.write({ type: 'token', delta: ev.delta });
    });
    host.sessions.remember(session, { role: 'user', content: text }, { role: 'assistant', content: answer });
    resource.write({ type: 'done', text: answer });
  } catch (err) {
    if (!ac.signal.aborted || !(ac.signal.reason instanceof RunCancelledError)) {
      resource.write({ type: 'error', code: (err as { code?: string }).code ?? 'run_failed', message: (err as Error)?.message ?? String(err) });
    }
  } finally {
    session.running = undefined;
  }
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
