// The Agents tab's agent state: the selected session's conversation (read, and cleared by an
// operator) and the selected agent's memory (its facts: listed, added, removed). What agents were
// told and remember is content: a viewer is told it needs the operator role. Text only.

import { ApiError, request, seg } from './api.js';
import { $, h, replace, setText } from './dom.js';
import { dateTime } from './format.js';

export function createAgentState(ctx) {
  let agent = null; // the selected AgentInfo
  let sessionId = null;
  const status = $('#state-status');

  const say = (text, kind = '') => {
    status.dataset.kind = kind;
    setText(status, text);
  };
  const why = (err) =>
    err instanceof ApiError
      ? err.status === 403
        ? `Refused: ${err.detail || 'needs the operator role'}`
        : err.status === 409
          ? `Refused: ${err.detail}`
          : `${err.title}${err.detail ? `: ${err.detail}` : ''}`
      : String(err?.message ?? err);

  async function loadFacts() {
    const box = $('#state-facts');
    if (!agent?.memory) {
      replace(
        box,
        h('p', { class: 'empty', text: agent ? `${agent.name} keeps no memory (declared without memory: true).` : 'Select an agent.' }),
      );
      $('#state-fact-form').hidden = true;
      return;
    }
    $('#state-fact-form').hidden = !ctx.may('agent-state');
    try {
      const { data } = await request(`agents/${seg(agent.name)}/facts`);
      const facts = data ?? [];
      replace(
        box,
        facts.length === 0
          ? h('p', { class: 'empty', text: 'No facts yet.' })
          : h(
              'ul',
              { class: 'facts', attrs: { 'aria-label': `Facts of ${agent.name}` } },
              facts.map((f) =>
                h(
                  'li',
                  { dataset: { factId: f.id } },
                  h('span', { class: 'fact', text: f.content }),
                  h('span', { class: 'muted', text: ` ${f.source ?? 'local operator'}, ${dateTime(f.createdAt)} ` }),
                  ctx.may('agent-state')
                    ? h('button', {
                        type: 'button',
                        class: 'link-button',
                        text: 'Remove',
                        title: `Remove this fact of ${agent.name}`,
                        on: { click: () => removeFact(f) },
                      })
                    : null,
                ),
              ),
            ),
      );
    } catch (err) {
      replace(box, h('p', { class: 'empty', text: why(err) }));
    }
  }

  async function loadConversation() {
    const box = $('#state-conversation');
    $('#state-clear').hidden = !(sessionId && ctx.may('agent-state'));
    if (!agent || !sessionId) {
      replace(box, h('p', { class: 'empty', text: 'Select a session to read its conversation.' }));
      return;
    }
    try {
      const { data } = await request(`agents/${seg(agent.name)}/conversation/${seg(sessionId)}`);
      const messages = data?.messages ?? [];
      replace(
        box,
        messages.length === 0
          ? h('p', { class: 'empty', text: 'The conversation is empty.' })
          : h(
              'ol',
              { class: 'conversation', attrs: { 'aria-label': `Conversation of session ${sessionId}` } },
              messages.map((m) => h('li', { dataset: { role: m.role } }, h('strong', { text: `${m.role}: ` }), m.content)),
            ),
      );
    } catch (err) {
      replace(box, h('p', { class: 'empty', text: why(err) }));
    }
  }

  async function removeFact(f) {
    try {
      await request(`agents/${seg(agent.name)}/facts/${seg(f.id)}`, { method: 'DELETE' });
      say('Fact removed.', 'success');
    } catch (err) {
      say(why(err), 'error');
    }
    await loadFacts();
  }

  $('#state-fact-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const form = /** @type {HTMLFormElement} */ (e.currentTarget);
    const content = String(new FormData(form).get('content') ?? '').trim();
    if (!agent || !content) return;
    try {
      await request(`agents/${seg(agent.name)}/facts`, { method: 'POST', body: { content } });
      form.reset();
      say('Fact added.', 'success');
    } catch (err) {
      say(why(err), 'error');
    }
    await loadFacts();
  });

  $('#state-clear').addEventListener('click', async () => {
    if (!agent || !sessionId) return;
    try {
      const { data } = await request(`agents/${seg(agent.name)}/conversation/${seg(sessionId)}`, { method: 'DELETE' });
      say(`Conversation cleared (${data?.cleared ?? 0} messages).`, 'success');
    } catch (err) {
      say(why(err), 'error');
    }
    await loadConversation();
  });

  return {
    /** The agent selected in the agents table (its AgentInfo). */
    showAgent(info) {
      if (agent?.name !== info?.name) sessionId = null;
      agent = info ?? null;
      setText($('#state-title'), agent ? `State of ${agent.name}` : 'Agent state');
      say('');
      void loadFacts();
      void loadConversation();
    },
    showSession(id) {
      sessionId = id;
      void loadConversation();
    },
  };
}
