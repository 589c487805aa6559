// The Agents tab: every @Agent and @Coordinator with its badges, the sessions of the selected
// agent, the AI runtimes (the active one marked) and the MCP registry.

import { get, getOptional, request, seg } from './api.js';
import { createTable } from './data-table.js';
import { $, h, setText } from './dom.js';
import { ago, dateTime, num, shortId } from './format.js';
import { throttled } from './schedule.js';
import { createAgentState } from './agent-state.js';
import { confirmStep, failure, gateForm, quote, result } from './write-form.js';

const POLL_MS = 5000;
const badge = (text, cls = '') => h('span', { class: `badge ${cls}`.trim(), text });

export function createAgentsTab(ctx) {
  let selectedAgent = null;
  const state = createAgentState(ctx);
  /** Whether the principal may stop a session's model call (GET session); the server checks again. */
  let mayCancelInflight = false;

  const agentsTable = createTable($('#agents-table'), {
    label: 'Agents and coordinators',
    rowKey: (a) => a.name,
    empty: 'No agents are registered (is @fw/agent installed?).',
    sort: { key: 'name', dir: 'ascending' },
    columns: [
      { key: 'name', label: 'Name', render: (a) => h('strong', { text: a.name }), title: (a) => a.description || a.name },
      { key: 'kind', label: 'Kind', render: (a) => badge(a.kind, a.kind === 'coordinator' ? 'accent' : '') },
      { key: 'version', label: 'Version' },
      { key: 'path', label: 'Path', render: (a) => h('code', { text: a.path }) },
      { key: 'headless', label: 'Headless', value: (a) => Boolean(a.headless) },
      {
        key: 'protocols',
        label: 'Protocols',
        value: (a) => (a.protocols ?? []).join(' '),
        render: (a) => ((a.protocols ?? []).length ? a.protocols.map((p) => badge(p, ['a2a', 'mcp', 'agui'].includes(p) ? p : '')) : '—'),
      },
      { key: 'activeSessions', label: 'Sessions', num: true },
      {
        key: 'fleet',
        label: 'Fleet',
        wrap: true,
        value: (a) => (a.fleet ?? []).join(', '),
        sig: (a) => JSON.stringify([a.fleet, fleets.get(a.name)]),
        // Remote members (reached over A2A) are marked, with their URL on hover.
        render: (a) => {
          const detail = new Map((fleets.get(a.name) ?? []).map((m) => [m.name, m]));
          const names = a.fleet ?? [];
          if (!names.length) return '—';
          return names.flatMap((n, i) => {
            const m = detail.get(n);
            const item = m?.location === 'remote' ? [n, ' ', h('span', { class: 'badge', text: 'remote', title: m.url ?? '' })] : [n];
            return i ? [', ', ...item] : item;
          });
        },
      },
      { key: 'description', label: 'Description', wrap: true },
    ],
    onRowActivate: (a) => {
      selectedAgent = a.name;
      state.showAgent(a);
      refreshSessions.now();
    },
    note: 'Select an agent to list its sessions and see its state.',
  });

  const sessionsTable = createTable($('#sessions-table'), {
    label: 'Agent sessions',
    rowKey: (s) => s.id,
    empty: 'No active sessions.',
    sort: { key: 'startedAt', dir: 'descending' },
    columns: [
      { key: 'id', label: 'Session', render: (s) => h('code', { text: shortId(s.id, 12) }), title: (s) => s.id },
      { key: 'agentName', label: 'Agent' },
      {
        key: 'resourceUuid',
        label: 'Resource',
        render: (s) => (s.resourceUuid ? h('code', { text: shortId(s.resourceUuid) }) : '—'),
        title: (s) => s.resourceUuid ?? '',
      },
      {
        key: 'startedAt',
        label: 'Started',
        render: (s) => ago(s.startedAt),
        sig: (s) => ago(s.startedAt),
        title: (s) => dateTime(s.startedAt),
      },
      {
        key: 'lastActivityAt',
        label: 'Last activity',
        render: (s) => ago(s.lastActivityAt),
        sig: (s) => ago(s.lastActivityAt),
        title: (s) => dateTime(s.lastActivityAt),
      },
      { key: 'messageCount', label: 'Messages', num: true },
      {
        key: 'actions',
        label: '',
        sortable: false,
        sig: () => String(mayCancelInflight),
        render: (s) =>
          mayCancelInflight
            ? h('button', {
                type: 'button',
                class: 'small danger',
                text: 'Stop…',
                attrs: {
                  'aria-label': `Stop the model call of session ${s.id}`,
                  title: 'Stop the model call in flight; the user stays connected',
                },
                on: { click: () => stopModelCall(s.id) },
              })
            : '',
      },
    ],
    onRowActivate: (s) => state.showSession(s.id),
    note: 'Select a session to read its conversation.',
  });

  // --- cancel in flight: stop a session's model call, keep its user (docs/governance.md) ----------
  const cancelForm = $('#form-cancel-inflight');
  function stopModelCall(id) {
    cancelForm.elements.session.value = id;
    result(cancelForm, 'pending', '');
    cancelForm.requestSubmit();
  }
  cancelForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    const f = cancelForm;
    const id = f.elements.session.value.trim();
    const reason = f.elements.reason.value.trim();
    if (!id) return;
    const ok = await confirmStep(
      f,
      [
        'Stop the model call in flight of session ',
        quote(id),
        reason ? [' with reason ', quote(reason)] : null,
        '? The answer is cut off; the user stays connected and may ask again.',
      ],
      'Stop model call',
    );
    if (!ok) return result(f, 'pending', 'Nothing was done.');
    result(f, 'pending', 'Stopping…');
    try {
      const { data } = await request(`sessions/${seg(id)}/cancel-inflight`, { method: 'POST', ...(reason ? { body: { reason } } : {}) });
      if (data?.cancelled) result(f, 'success', 'Stopped the model call of session ', quote(id), ` on ${data.node ?? 'its node'}.`);
      else result(f, 'success', 'Nothing was in flight in session ', quote(id), '.');
    } catch (err) {
      failure(f, err, 'session');
    }
  });

  const runtimesTable = createTable($('#runtimes-table'), {
    label: 'AI runtimes',
    rowKey: (r) => r.name,
    empty: 'No AI runtime is registered.',
    sort: { key: 'priority', dir: 'descending' },
    columns: [
      { key: 'name', label: 'Name', render: (r) => [h('strong', { text: r.name }), ' ', r.active ? badge('active', 'ok') : null] },
      { key: 'available', label: 'Available', render: (r) => (r.available ? badge('available', 'ok') : badge('unavailable', 'bad')) },
      { key: 'priority', label: 'Priority', num: true },
      {
        key: 'capabilities',
        label: 'Capabilities',
        value: (r) => (r.capabilities ?? []).join(' '),
        render: (r) => (r.capabilities ?? []).map((c) => badge(c)),
        wrap: true,
      },
      { key: 'models', label: 'Models', value: (r) => (r.models ?? []).join(', '), wrap: true },
    ],
  });

  // --- MCP registry: one view at a time ---------------------------------------------------------
  const mcpViews = {
    tools: {
      label: 'Tools',
      endpoint: 'mcp/tools',
      key: (t) => `${t.server ?? '*'}|${t.name}`,
      empty: 'No MCP tools.',
      columns: [
        { key: 'name', label: 'Name', render: (t) => h('code', { text: t.name }) },
        { key: 'description', label: 'Description', wrap: true },
        { key: 'params', label: 'Parameters', value: (t) => Object.keys(t.inputSchema?.properties ?? {}).join(', '), wrap: true },
        { key: 'origin', label: 'Origin' },
        { key: 'server', label: 'Server', value: (t) => t.server ?? 'all servers' },
      ],
    },
    resources: {
      label: 'Resources',
      endpoint: 'mcp/resources',
      key: (r) => `${r.server ?? '*'}|${r.uri}`,
      empty: 'No MCP resources.',
      columns: [
        { key: 'uri', label: 'URI', render: (r) => [h('code', { text: r.uri }), r.template ? [' ', badge('template')] : null] },
        { key: 'name', label: 'Name' },
        { key: 'description', label: 'Description', wrap: true },
        { key: 'mimeType', label: 'MIME type' },
        { key: 'server', label: 'Server', value: (r) => r.server ?? 'all servers' },
      ],
    },
    prompts: {
      label: 'Prompts',
      endpoint: 'mcp/prompts',
      key: (p) => `${p.server ?? '*'}|${p.name}`,
      empty: 'No MCP prompts.',
      columns: [
        { key: 'name', label: 'Name', render: (p) => h('code', { text: p.name }) },
        { key: 'description', label: 'Description', wrap: true },
        {
          key: 'arguments',
          label: 'Arguments',
          value: (p) => (p.arguments ?? []).map((a) => `${a.name}${a.required ? '' : '?'}`).join(', '),
          wrap: true,
        },
        { key: 'origin', label: 'Origin' },
        { key: 'server', label: 'Server', value: (p) => p.server ?? 'all servers' },
      ],
    },
    sessions: {
      label: 'Sessions',
      endpoint: 'mcp/sessions',
      key: (s) => s.id,
      empty: 'No MCP sessions.',
      columns: [
        { key: 'id', label: 'Session', render: (s) => h('code', { text: shortId(s.id, 12) }), title: (s) => s.id },
        { key: 'server', label: 'Server' },
        { key: 'transport', label: 'Transport' },
        { key: 'client', label: 'Client', value: (s) => [s.clientName, s.clientVersion].filter(Boolean).join(' ') },
        { key: 'protocolVersion', label: 'Protocol' },
        { key: 'requests', label: 'Requests', num: true },
        {
          key: 'lastActivityAt',
          label: 'Last activity',
          render: (s) => ago(s.lastActivityAt),
          sig: (s) => ago(s.lastActivityAt),
          title: (s) => dateTime(s.lastActivityAt),
        },
      ],
    },
    pending: {
      label: 'Pending bridge calls',
      endpoint: 'mcp/bridge/pending',
      key: (c) => c.id,
      empty: 'No pending bridge calls.',
      columns: [
        { key: 'id', label: 'Call', render: (c) => h('code', { text: shortId(c.id, 12) }), title: (c) => c.id },
        { key: 'toolName', label: 'Tool' },
        {
          key: 'resourceUuid',
          label: 'Resource',
          render: (c) => h('code', { text: shortId(c.resourceUuid) }),
          title: (c) => c.resourceUuid,
        },
        { key: 'startedAt', label: 'Started', render: (c) => ago(c.startedAt), sig: (c) => ago(c.startedAt) },
        { key: 'timeoutMs', label: 'Timeout (ms)', num: true },
      ],
    },
  };
  const mcpHost = $('#mcp-views');
  const bar = h('div', { class: 'subtabs-bar', attrs: { role: 'group', 'aria-label': 'MCP registry view' } });
  const body = h('div');
  mcpHost.append(bar, body);
  let mcpCurrent = 'tools';
  for (const [name, v] of Object.entries(mcpViews)) {
    v.count = h('span', { class: 'count', text: '' });
    v.button = h(
      'button',
      { type: 'button', class: 'small', attrs: { 'aria-pressed': String(name === mcpCurrent) }, on: { click: () => showMcp(name) } },
      v.label,
      ' ',
      v.count,
    );
    bar.append(v.button);
    v.host = h('div', { hidden: name !== mcpCurrent });
    body.append(v.host);
    v.table = createTable(v.host, { label: `MCP ${v.label.toLowerCase()}`, rowKey: v.key, empty: v.empty, columns: v.columns });
  }
  function showMcp(name) {
    mcpCurrent = name;
    for (const [n, v] of Object.entries(mcpViews)) {
      v.button.setAttribute('aria-pressed', String(n === name));
      v.host.hidden = n !== name;
    }
  }

  // --- refresh --------------------------------------------------------------------------------
  const fleets = new Map(); // coordinator name → fleet members with their location
  const refreshAgents = throttled(
    async () => {
      const [{ data }, coordinatorInfos] = await Promise.all([
        get('agents', { limit: 1000 }),
        getOptional('coordinators', { limit: 1000 }, []),
      ]);
      fleets.clear();
      for (const c of coordinatorInfos) fleets.set(c.name, c.fleet ?? []);
      const agents = data ?? [];
      agentsTable.setRows(agents);
      ctx.setAgentNames(agents.map((a) => a.name));
      const coordinators = agents.filter((a) => a.kind === 'coordinator').length;
      const n = agents.length - coordinators;
      setText($('#agents-note'), `${num(n)} agent${n === 1 ? '' : 's'}, ${num(coordinators)} coordinator${coordinators === 1 ? '' : 's'}`);
      if (!selectedAgent && agents[0]) {
        selectedAgent = agents[0].name;
        state.showAgent(agents[0]);
      }
      agentsTable.select(selectedAgent);
    },
    1000,
    (err) => agentsTable.setError(err),
  );

  const refreshSessions = throttled(
    async () => {
      if (!selectedAgent) {
        sessionsTable.setRows([]);
        setText($('#sessions-title'), 'Sessions');
        return;
      }
      setText($('#sessions-title'), `Sessions of ${selectedAgent}`);
      agentsTable.select(selectedAgent);
      sessionsTable.setRows(await getOptional(`agents/${seg(selectedAgent)}/sessions`, { limit: 1000 }, []));
    },
    1000,
    (err) => sessionsTable.setError(err),
  );

  const refreshRuntimes = throttled(
    async () => {
      runtimesTable.setRows((await get('runtimes', { limit: 1000 })).data ?? []);
    },
    1000,
    (err) => runtimesTable.setError(err),
  );

  const refreshMcp = throttled(async () => {
    const [servers, ...lists] = await Promise.all([
      getOptional('mcp/servers', { limit: 1000 }, []),
      ...Object.values(mcpViews).map((v) => getOptional(v.endpoint, { limit: 1000 }, [])),
    ]);
    Object.values(mcpViews).forEach((v, i) => {
      v.table.setRows(lists[i]);
      v.count.textContent = num(lists[i].length);
    });
    setText(
      $('#mcp-servers'),
      servers.length
        ? `Servers: ${servers.map((s) => `${s.name} ${s.version} at ${s.path} (${num(s.sessions)} sessions)`).join(' · ')}`
        : 'No MCP server (is @fw/mcp installed?)',
    );
  }, 1000);

  let visible = false;
  let poll;
  const refreshAll = () => {
    refreshAgents.trigger();
    refreshSessions.trigger();
    refreshRuntimes.trigger();
    refreshMcp.trigger();
  };

  return {
    applySession(session) {
      mayCancelInflight = session?.permissions?.['session.cancel-inflight'] === true;
      gateForm(cancelForm, mayCancelInflight, session, 'stop model calls');
      refreshSessions.trigger();
    },
    start() {
      // Agent names feed the journal form's suggestions even before the tab is opened.
      refreshAgents.trigger();
    },
    show() {
      visible = true;
      refreshAgents.now().then(() => refreshSessions.now());
      refreshRuntimes.now();
      refreshMcp.now();
      clearInterval(poll);
      poll = setInterval(refreshAll, POLL_MS);
    },
    hide() {
      visible = false;
      clearInterval(poll);
    },
    resync() {
      if (visible) refreshAll();
    },
    onEvent(ev) {
      if (!visible) return;
      if (ev.type === 'AgentSessionStarted' || ev.type === 'AgentSessionEnded') {
        refreshAgents.trigger();
        refreshSessions.trigger();
      }
    },
  };
}
