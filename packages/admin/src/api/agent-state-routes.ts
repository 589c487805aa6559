/**
 * The agent-state routes (docs/agents.md, "Agent state"): a chat session's stored conversation,
 * read and cleared, and the facts an agent with memory keeps, listed, added and removed. What
 * agents were told and remember is content: every route needs the content role (content.ts); the
 * writes are the operator's `agent-state` control action, audited and announced.
 */
import { FwError, NotFoundError } from '@fw/runtime';
import type { ControlPlane } from '../control.js';
import { requireContent } from '../content.js';
import type { AdminGate } from '../gate.js';
import type { AgentAdminView } from '../peer-types.js';
import type { Views } from '../views.js';
import { requireString } from './params.js';
import type { AdminRequest, AdminRoute, Reply } from './router.js';

type StateView = Required<Pick<AgentAdminView, 'conversation' | 'clearConversation' | 'facts' | 'addFact' | 'removeFact'>>;

export function agentStateRoutes(d: { views: Views; control: ControlPlane; gate: AdminGate }): AdminRoute[] {
  const { views, control, gate } = d;
  const json = (body: unknown, status?: number): Reply => ({ kind: 'json', body, ...(status ? { status } : {}) });
  const param = (r: AdminRequest, name: string): string => r.params[name] ?? '';
  const caller = (r: AdminRequest) => ({ principal: r.principal, source: r.source, address: r.address });
  /** The agent layer's state, once the caller may read content; 404 without the agent module. */
  const stateFor = (r: AdminRequest, target: string): StateView => {
    requireContent(r.principal, gate.authRequired, target);
    const v = views.agent;
    if (!v.conversation || !v.clearConversation || !v.facts || !v.addFact || !v.removeFact)
      throw new FwError('agents_unavailable', 'no agent state: the agent module is not installed', 404);
    return v as StateView;
  };
  const sourceOf = (r: AdminRequest): string | null => (r.principal ? `principal:${r.principal.id}` : null);

  return [
    {
      method: 'GET',
      path: '/agents/{agentName}/conversation/{sessionId}',
      doc: {
        tag: 'agents',
        reply: 'object',
        content: true,
        summary: "A chat session's stored conversation: {agentName, sessionId, live, messages: [{seq, role, content, at}]}",
      },
      handle: async (r) => {
        const sessionId = param(r, 'sessionId');
        const conversation = await stateFor(r, sessionId).conversation(param(r, 'agentName'), sessionId);
        if (!conversation) throw new NotFoundError('session', sessionId);
        return json(conversation);
      },
    },
    {
      method: 'DELETE',
      path: '/agents/{agentName}/conversation/{sessionId}',
      doc: {
        tag: 'agents',
        reply: 'object',
        content: true,
        summary: "Forgets a session's conversation: its stored messages and, when live, the history its next turn sends to the model",
      },
      write: { action: 'agent-state', target: { param: 'sessionId' }, body: 'optional' },
      handle: async (r) => {
        const sessionId = param(r, 'sessionId');
        // The role is checked (and a refusal audited) by the control plane first; the operator reads content.
        const cleared = await control.perform('agent-state', sessionId, caller(r), async () => {
          const out = await stateFor(r, sessionId).clearConversation(param(r, 'agentName'), sessionId);
          if (!out) throw new NotFoundError('session', sessionId);
          return out;
        });
        return json(cleared);
      },
    },
    {
      method: 'GET',
      path: '/agents/{agentName}/facts',
      doc: {
        tag: 'agents',
        reply: 'list',
        content: true,
        summary: 'The facts an agent with memory keeps, newest first: {id, agent, content, source, createdAt}',
      },
      handle: async (r) => {
        const name = param(r, 'agentName');
        const facts = await stateFor(r, name).facts(name);
        return { kind: 'list', items: facts, total: facts.length };
      },
    },
    {
      method: 'POST',
      path: '/agents/{agentName}/facts',
      doc: {
        tag: 'agents',
        reply: 'object',
        content: true,
        summary: 'Adds a fact to an agent with memory (201 with the fact); 409 memory_full at fw.agent.memory.max-facts',
        body: {
          required: true,
          schema: { type: 'object', required: ['content'], properties: { content: { type: 'string', minLength: 1 } } },
        },
      },
      write: { action: 'agent-state', target: { param: 'agentName' }, body: 'required' },
      handle: async (r) => {
        const name = param(r, 'agentName');
        const content = requireString(r.body, 'content');
        return json(
          await control.perform('agent-state', name, caller(r), () => stateFor(r, name).addFact(name, content, sourceOf(r))),
          201,
        );
      },
    },
    {
      method: 'DELETE',
      path: '/agents/{agentName}/facts/{factId}',
      doc: { tag: 'agents', reply: 'object', content: true, summary: "Removes one of an agent's facts: {removed: factId}" },
      write: { action: 'agent-state', target: { param: 'agentName' }, body: 'optional' },
      handle: async (r) => {
        const name = param(r, 'agentName');
        const factId = param(r, 'factId');
        await control.perform('agent-state', name, caller(r), async () => {
          if (!(await stateFor(r, name).removeFact(name, factId))) throw new NotFoundError('fact', factId);
        });
        return json({ removed: factId });
      },
    },
  ];
}
