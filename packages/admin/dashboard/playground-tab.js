// The Playground tab (docs/runs.md, "Playground"): chat with any agent as the signed-in operator
// and watch its run as it happens. An agent with a chat endpoint is spoken to over its real chat
// socket (fw's browser client, /fw/client.js, with the page's token); a headless agent with AG-UI
// over its AG-UI endpoint (POST …/agui, an SSE answer). The run the prompt started is found on the
// tape (by its chat session or AG-UI run id) and its steps are read as they are recorded, until it
// ends. The operator's principal owns the session and the run. Model output is content from the
// outside world: everything is rendered as text (dom.js).

import { ApiError, auth, CLIENT_PATH, get, seg } from './api.js';
import { $, h, replace, setText } from './dom.js';
import { duration, num, shortId } from './format.js';

/** How often the open run's steps are read while it records (the tape writes at most every 200 ms). */
const STEPS_POLL_MS = 250;
/** How long to look for the run a prompt started before giving up on showing it. */
const FIND_RUN_MS = 10_000;

export function createPlaygroundTab(shared) {
  const form = /** @type {HTMLFormElement} */ ($('#playground-form'));
  const agentSelect = /** @type {HTMLSelectElement} */ (form.elements.namedItem('agent'));
  const input = /** @type {HTMLTextAreaElement} */ (form.elements.namedItem('message'));
  const convo = $('#playground-conversation');
  const stepsList = $('#playground-steps');
  const runHead = $('#playground-run');
  const state = $('#playground-state');

  /** @type {{ name: string, path: string, headless: boolean, protocols: string[] }[]} */
  let agents = [];
  let chat; // { agent, client, sessionId, ready: Promise<void> } of the open chat socket
  let current; // the assistant bubble being streamed into
  let watching = 0; // generation of the run watch (a new prompt stops the previous one)
  let visible = false;
  let clientModule;

  function say(text, kind = '') {
    state.dataset.kind = kind;
    setText(state, text);
  }

  function bubble(role, text) {
    const body = h('div', { class: 'pg-text', text });
    const li = h(
      'li',
      { class: `pg-msg pg-${role}` },
      h('span', { class: 'pg-role', text: role === 'user' ? 'You' : role === 'agent' ? 'Agent' : 'fw' }),
      body,
    );
    convo.append(li);
    li.scrollIntoView({ block: 'nearest' });
    return body;
  }

  async function loadAgents() {
    const { data } = await get('agents', { limit: 500 });
    agents = (data ?? []).filter((a) => !a.headless || a.protocols?.includes('agui'));
    const keep = agentSelect.value;
    replace(
      agentSelect,
      agents.map((a) => h('option', { value: a.name, text: `${a.name} (${a.headless ? 'AG-UI' : 'chat'})` })),
    );
    if (agents.some((a) => a.name === keep)) agentSelect.value = keep;
    if (!agents.length) say('No agent with a chat or AG-UI endpoint is mounted.', 'refused');
  }

  const agentOf = (name) => agents.find((a) => a.name === name);

  async function fwClient() {
    if (clientModule) return clientModule;
    clientModule = await import(new URL(CLIENT_PATH, location.href).href);
    return clientModule;
  }

  function closeChat() {
    chat?.client.close('playground closed the chat');
    chat = undefined;
  }

  /** Opens the agent's chat socket (once per agent): its first message names the session. */
  async function openChat(agent) {
    if (chat?.agent === agent.name) return chat;
    closeChat();
    const mod = await fwClient();
    const url = new URL(agent.path, location.href);
    if (auth.token) url.searchParams.set('access_token', auth.token);
    const client = mod.connect(url.href, { transports: ['websocket', 'sse', 'long-polling'] });
    let opened;
    const ready = new Promise((resolve) => (opened = resolve));
    const me = { agent: agent.name, client, sessionId: '', ready };
    client.onMessage((data) => {
      let m;
      try {
        m = JSON.parse(String(data));
      } catch {
        return;
      }
      if (m.type === 'session') {
        me.sessionId = m.id;
        setText($('#playground-session'), `session ${shortId(m.id)}`);
        opened();
      } else if (m.type === 'token') {
        current ??= bubble('agent', '');
        current.textContent += m.delta;
      } else if (m.type === 'done') {
        if (!current) bubble('agent', m.text ?? '');
        else current.textContent = m.text ?? current.textContent;
        current = undefined;
        say('The agent answered.', 'success');
      } else if (m.type === 'error' || m.type === 'cancelled') {
        current = undefined;
        bubble('fw', m.type === 'error' ? `Error ${m.code ?? ''}: ${m.message ?? ''}` : `Cancelled: ${m.reason ?? ''}`);
        say(m.type === 'error' ? 'The run failed.' : 'The run was cancelled.', 'error');
      }
    });
    client.onClose((reason) => {
      if (chat === me) chat = undefined;
      say(`The chat socket closed: ${reason}`, 'refused');
      opened();
    });
    chat = me;
    await ready;
    return me;
  }

  /** One AG-UI run: the answer streams back as SSE events on the POST's own response. */
  async function runAgui(agent, text, runId) {
    const threadId = `playground-${uid()}`;
    const res = await fetch(new URL(`${agent.path}/agui`, location.href), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...(auth.token ? { authorization: `Bearer ${auth.token}` } : {}),
      },
      body: JSON.stringify({
        threadId,
        runId,
        messages: [{ id: uid(), role: 'user', content: text }],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      }),
    });
    if (!res.ok || !res.body) {
      const problem = await res.json().catch(() => ({}));
      throw new ApiError(res.status, problem.code ?? `http_${res.status}`, problem.title ?? res.statusText, problem.detail ?? '');
    }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let cut;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = frame
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trimStart())
          .join('\n');
        if (!data) continue;
        let ev;
        try {
          ev = JSON.parse(data);
        } catch {
          continue;
        }
        if (ev.type === 'TEXT_MESSAGE_CONTENT') {
          current ??= bubble('agent', '');
          current.textContent += ev.delta ?? '';
        } else if (ev.type === 'RUN_ERROR') {
          bubble('fw', `Error: ${ev.message ?? ''}`);
          say('The run failed.', 'error');
        } else if (ev.type === 'RUN_FINISHED') say('The agent answered.', 'success');
      }
    }
    current = undefined;
  }

  /** The run a prompt started, from the tape: the newest of the agent that `match`es, not one seen before. */
  async function findRun(agent, match, seen, gen) {
    const until = Date.now() + FIND_RUN_MS;
    while (gen === watching && Date.now() < until) {
      const { data } = await get('tape/runs', { agent, limit: 20 });
      const run = (data ?? []).find((r) => match(r) && !seen.has(r.id));
      if (run) return run;
      await new Promise((r) => setTimeout(r, STEPS_POLL_MS));
    }
    return undefined;
  }

  /** Shows the run's steps as they are recorded, until it ends (or another prompt starts). */
  async function watchRun(agent, match, seen) {
    const gen = ++watching;
    replace(stepsList);
    clearRun();
    setText(runHead, 'Waiting for the run to start…');
    let run;
    try {
      run = await findRun(agent, match, seen, gen);
    } catch (err) {
      setText(runHead, `The run could not be read: ${err instanceof ApiError ? `${err.status} ${err.code}` : String(err)}`);
      return;
    }
    if (gen !== watching) return;
    if (!run) {
      setText(runHead, 'The run did not show on the tape (is fw.agent.tape.enabled off?).');
      return;
    }
    let next = 0;
    for (;;) {
      let steps;
      let runs;
      try {
        [{ data: steps }, { data: runs }] = await Promise.all([
          get(`tape/runs/${seg(run.id)}/steps`, { fromSeq: next }),
          get('tape/runs', { agent, limit: 20 }),
        ]);
      } catch (err) {
        if (gen === watching)
          setText(runHead, `The run could not be read: ${err instanceof ApiError ? `${err.status} ${err.code}` : String(err)}`);
        return;
      }
      if (gen !== watching) return;
      for (const step of steps ?? []) {
        stepsList.append(stepItem(step));
        next = step.seq + 1;
      }
      run = (runs ?? []).find((r) => r.id === run.id) ?? run;
      setText(
        runHead,
        `Run ${shortId(run.id)} · ${run.status} · ${num(next)} steps · ${num(run.inputTokens)} in / ${num(run.outputTokens)} out tokens${run.durationMs !== null ? ` · ${duration(run.durationMs)}` : ''}`,
      );
      runHead.dataset.runId = run.id;
      runHead.dataset.status = run.status;
      if (run.status !== 'open' && (steps ?? []).length === 0) return;
      await new Promise((r) => setTimeout(r, STEPS_POLL_MS));
    }
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const agent = agentOf(agentSelect.value);
    const text = input.value.trim();
    if (!agent || !text) return;
    input.value = '';
    bubble('user', text);
    current = undefined;
    say('Running…', 'pending');
    const seen = new Set(
      ((await get('tape/runs', { agent: agent.name, limit: 20 }).catch(() => ({ data: [] }))).data ?? []).map((r) => r.id),
    );
    try {
      if (!agent.headless) {
        const c = await openChat(agent);
        if (!c.sessionId) return;
        void watchRun(agent.name, (r) => r.sessionId === c.sessionId, seen);
        await c.client.send(text);
      } else {
        const runId = uid();
        void watchRun(agent.name, (r) => r.ref === runId, seen);
        await runAgui(agent, text, runId);
      }
    } catch (err) {
      current = undefined;
      bubble('fw', `Could not send: ${err instanceof ApiError ? `${err.status} ${err.code}: ${err.detail || err.title}` : String(err)}`);
      say('Not sent.', 'error');
    }
  });

  /** Forgets the run shown (its id and status are what a reader of the page goes by). */
  function clearRun() {
    setText(runHead, '');
    delete runHead.dataset.runId;
    delete runHead.dataset.status;
  }

  agentSelect.addEventListener('change', () => {
    closeChat();
    watching++;
    replace(convo);
    replace(stepsList);
    clearRun();
    setText($('#playground-session'), '');
  });

  return {
    start() {},
    show() {
      visible = true;
      loadAgents().catch((err) => say(`Agents could not be read: ${err instanceof Error ? err.message : String(err)}`, 'error'));
    },
    hide() {
      visible = false;
    },
    resync() {
      if (visible) void loadAgents().catch(() => undefined);
    },
    onEvent() {},
  };
}

/** A random UUID (v4); `crypto.randomUUID` exists only in secure contexts, and the page may be served over plain HTTP. */
function uid() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** One tape step as a line: its kind, what it says in short, how long it took. */
function stepItem(step) {
  const b = step.body ?? {};
  let what;
  switch (step.kind) {
    case 'input':
      what = b.message;
      break;
    case 'model-request':
      what = `turn ${b.step} to ${b.provider}${b.model ? ` / ${b.model}` : ''}: ${b.messageCount} messages${b.tools?.length ? `, tools ${b.tools.join(', ')}` : ''}`;
      break;
    case 'model-response':
      what = b.error
        ? `error: ${b.error}`
        : `${b.text ?? ''}${b.toolCalls?.length ? ` [calls ${b.toolCalls.map((c) => c.toolName).join(', ')}]` : ''}`;
      break;
    case 'tool-call':
      what = `${b.toolName}(${JSON.stringify(b.input)}) → ${b.ok ? '' : 'failed: '}${b.output}`;
      break;
    case 'handoff':
      what = `${b.from} → ${b.to}${b.reason ? `: ${b.reason}` : ''}`;
      break;
    case 'end':
      what = `${b.state}${b.text !== undefined ? `: ${b.text}` : b.error ? `: ${b.error}` : ''}`;
      break;
    default:
      what = JSON.stringify(b);
  }
  return h(
    'li',
    { class: 'pg-step', dataset: { kind: step.kind } },
    h('span', { class: 'badge', text: step.kind }),
    h('span', { class: 'pg-step-text', text: what ?? '' }),
    step.durationMs === null || step.durationMs === undefined ? null : h('span', { class: 'muted', text: duration(step.durationMs) }),
  );
}
