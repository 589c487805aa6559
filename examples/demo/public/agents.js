// The agents panel of the chat page: talks to the demo agents over AG-UI (POST
// /fw/agent/{name}/agui answers a server-sent event stream of @ag-ui/core events). Tokens are
// appended as they arrive, tool calls and sub-agent dispatches are shown as they happen, and Stop
// cancels the run on the server (POST …/agui/runs/{runId}/cancel). The run's outcome is whatever
// the server reports in RUN_FINISHED — so a cancel from the dashboard or the admin MCP tool shows
// here as "canceled" too (the dashboard's word, A2A's). Everything from the network is rendered with textContent.
// With authentication configured (fw.auth.*), the agents answer 401: the panel then asks for a
// token and sends it as `Authorization: Bearer` (kept in sessionStorage, like the dashboard's).

const $ = (id) => document.getElementById(id);
const agents = new Map();
/** Per agent: the AG-UI thread and its messages, so a follow-up question has the earlier turns. */
const threads = new Map();
let current;

const TOKEN_KEY = 'fw.agent.token';

function storedToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY) || '';
  } catch {
    return ''; // storage disabled: the field is all there is
  }
}

/** Headers of every agent request: the token, when one was given. */
function headers(extra) {
  const token = $('agent-token').value.trim() || storedToken();
  return token ? { ...extra, authorization: `Bearer ${token}` } : extra;
}

/** A 401: show the token field (the server requires a credential) and say so. */
function needToken() {
  $('agent-auth').hidden = false;
  $('agent-token').focus();
  entry('this server requires a credential for its agents: enter a token and ask again', 'error');
}

$('agent-token').addEventListener('input', () => {
  try {
    const token = $('agent-token').value.trim();
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    /* storage disabled */
  }
});

function newId() {
  return crypto.randomUUID();
}

function entry(text, cls) {
  const li = document.createElement('li');
  if (cls) li.className = cls;
  li.textContent = text;
  const list = $('agent-transcript');
  list.append(li);
  while (list.children.length > 300) list.firstElementChild.remove();
  list.scrollTop = list.scrollHeight;
  return li;
}

/** The run's state, with the moment it was reached (tests measure how fast a cancel shows). */
function setRunState(state, text = state) {
  const el = $('agent-status');
  el.dataset.state = state;
  el.dataset.at = String(Date.now());
  el.textContent = text;
  const running = state === 'running';
  $('agent-stop').disabled = !running;
  $('agent-send').disabled = running;
}

async function loadAgents() {
  let list = [];
  try {
    list = (await (await fetch('/demo/agents')).json()).agents;
  } catch {
    entry('could not load the agent list', 'error');
    return;
  }
  const select = $('agent-choice');
  select.replaceChildren();
  for (const a of list) {
    agents.set(a.name, a);
    const option = document.createElement('option');
    option.value = a.name;
    option.textContent = a.kind === 'coordinator' ? `${a.name} (coordinator)` : a.name;
    select.append(option);
  }
  select.value = agents.has('assistant') ? 'assistant' : (list[0]?.name ?? '');
  describe();
}

function describe() {
  $('agent-description').textContent = agents.get($('agent-choice').value)?.description ?? '';
}

/** Splits an SSE byte stream into events: `data:` lines joined, one JSON value per event. */
async function* sseEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      const data = block
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) yield JSON.parse(data);
    }
  }
}

async function run(agentName, text) {
  const agent = agents.get(agentName);
  if (!agent) return;
  const thread = threads.get(agentName) ?? { id: newId(), messages: [] };
  threads.set(agentName, thread);
  const runId = newId();
  const userMessage = { id: newId(), role: 'user', content: text };
  const run = { agent: agentName, runId, answer: '', tools: new Map(), outcome: undefined };
  current = run;
  $('agent-run-id').textContent = `agui:${agentName}:${runId}`;
  $('agent-transcript').dataset.runId = runId;
  entry(`you → ${agentName}: ${text}`, 'user');
  setRunState('running', 'running…');
  let answerLine;
  try {
    const res = await fetch(agent.agui, {
      method: 'POST',
      headers: headers({ 'content-type': 'application/json', accept: 'text/event-stream' }),
      body: JSON.stringify({
        threadId: thread.id,
        runId,
        messages: [...thread.messages, userMessage],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      }),
    });
    if (res.status === 401) {
      needToken();
      setRunState('error', 'error: needs a token (401)');
      if (!$('agent-prompt').value) $('agent-prompt').value = text; // to ask again once the token is in
      return;
    }
    if (!res.ok) {
      const problem = await res.json().catch(() => ({}));
      throw new Error(problem.detail ?? problem.title ?? `HTTP ${res.status}`);
    }
    for await (const ev of sseEvents(res.body)) {
      switch (ev.type) {
        case 'RUN_STARTED':
          // An anonymous run's owner key: Stop must present it (a principal's run needs none).
          run.runKey = ev.metadata?.['fw.runKey'];
          break;
        case 'TEXT_MESSAGE_START':
          answerLine = entry('', 'assistant');
          break;
        case 'TEXT_MESSAGE_CONTENT':
          answerLine ??= entry('', 'assistant');
          answerLine.textContent += ev.delta;
          run.answer += ev.delta;
          break;
        case 'TEXT_MESSAGE_END':
          answerLine = undefined;
          break;
        case 'TOOL_CALL_START':
          run.tools.set(ev.toolCallId, { line: entry(`tool ${ev.toolCallName}(`, 'tool'), args: '' });
          break;
        case 'TOOL_CALL_ARGS': {
          const call = run.tools.get(ev.toolCallId);
          if (call) call.args += ev.delta;
          break;
        }
        case 'TOOL_CALL_END': {
          const call = run.tools.get(ev.toolCallId);
          if (call) call.line.textContent += `${call.args})`;
          break;
        }
        case 'TOOL_CALL_RESULT':
          entry(`  ↳ ${typeof ev.content === 'string' ? ev.content : JSON.stringify(ev.content)}`, 'tool');
          break;
        case 'SUBAGENT_STARTED':
          entry(`dispatch → ${ev.name} (${ev.description ?? ''})`, 'tool');
          break;
        case 'SUBAGENT_FINISHED':
          entry(`  ↳ done (${String(ev.result ?? '').length} characters)`, 'tool');
          break;
        case 'SUBAGENT_ERROR':
          entry(`  ↳ failed: ${ev.message}`, 'error');
          break;
        // A tool call waiting for a human (docs/governance.md, "Human approval"): the run pauses
        // in place until an operator decides in the admin plane.
        case 'CUSTOM':
          if (ev.name === 'fw.interrupt')
            entry(
              `⏸ ${ev.value?.message ?? 'awaiting approval'}: approve or deny it in the dashboard or POST /api/admin/approvals/${ev.value?.id}`,
              'system',
            );
          else if (ev.name === 'fw.interrupt.resolved')
            entry(
              `  ↳ approval ${ev.value?.payload?.status ?? ev.value?.status}${ev.value?.payload?.reason ? `: ${ev.value.payload.reason}` : ''}`,
              'system',
            );
          break;
        case 'RUN_FINISHED':
          run.outcome = ev.outcome?.type === 'cancelled' ? 'cancelled' : 'finished';
          break;
        case 'RUN_ERROR':
          run.outcome = 'error';
          entry(`error: ${ev.message}${ev.code ? ` (${ev.code})` : ''}`, 'error');
          break;
      }
    }
    if (run.outcome === 'finished') {
      thread.messages.push(userMessage, { id: newId(), role: 'assistant', content: run.answer });
      setRunState('finished');
    } else if (run.outcome === 'cancelled') {
      // AG-UI reports the outcome as "cancelled"; the page says "canceled", as the dashboard does.
      entry('run canceled', 'system');
      setRunState('canceled');
    } else if (run.outcome === 'error') {
      setRunState('error');
    } else {
      entry('the stream ended before the run finished', 'error');
      setRunState('error', 'error: stream ended early');
    }
  } catch (err) {
    entry(`error: ${err.message}`, 'error');
    setRunState('error');
  } finally {
    if (current === run) current = undefined;
  }
}

$('agent-choice').addEventListener('change', describe);

$('agent-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const text = $('agent-prompt').value.trim();
  if (!text || current) return;
  $('agent-prompt').value = '';
  void run($('agent-choice').value, text);
});

// Stop asks the server to cancel; the stream then ends with RUN_FINISHED "cancelled", shown as
// "canceled", which is what the page shows (it does not pretend: a run that finished first stays finished).
$('agent-stop').addEventListener('click', async () => {
  const run = current;
  if (!run) return;
  $('agent-stop').disabled = true;
  try {
    const res = await fetch(`${agents.get(run.agent).agui}/runs/${encodeURIComponent(run.runId)}/cancel`, {
      method: 'POST',
      headers: headers({ 'content-type': 'application/json' }),
      body: JSON.stringify(run.runKey ? { runKey: run.runKey } : {}),
    });
    if (!res.ok && res.status !== 404) entry(`stop refused: HTTP ${res.status}`, 'error');
  } catch (err) {
    entry(`stop failed: ${err.message}`, 'error');
  }
});

setRunState('idle');
if (storedToken()) {
  $('agent-token').value = storedToken();
  $('agent-auth').hidden = false;
}
void loadAgents();
