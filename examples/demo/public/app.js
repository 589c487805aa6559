// The chat page: plain ES module, no build step. It talks to the server only through the fw
// client served at /fw/client.js. Everything from the network is rendered with textContent,
// never as HTML.
import { connect } from '/fw/client.js';
import { room as roomOf } from '/fw/room.js';

const $ = (id) => document.getElementById(id);
const ROOM = /^[a-z0-9][a-z0-9-]{0,31}$/;
let client;
let room = ROOM.test(location.hash.slice(1)) ? location.hash.slice(1) : 'lobby';

$('name').value = localStorage.getItem('fw-chat-name') || `guest-${Math.floor(Math.random() * 1000)}`;
$('transport-choice').value = localStorage.getItem('fw-chat-transport') || 'auto';

function line(parts, cls) {
  const li = document.createElement('li');
  if (cls) li.className = cls;
  for (const [text, partCls] of parts) {
    const span = document.createElement('span');
    if (partCls) span.className = partCls;
    span.textContent = text;
    li.append(span);
  }
  const list = $('messages');
  const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
  list.append(li);
  while (list.children.length > 500) list.firstElementChild.remove();
  if (atBottom) list.scrollTop = list.scrollHeight;
}

function system(text) {
  line([[text]], 'system');
}

function show(data) {
  let msg;
  try {
    msg = JSON.parse(data);
  } catch {
    msg = undefined;
  }
  render(msg, data);
}

/** A streamed agent reply: its chunks join one line (found by the message's `stream` id). */
function streamed(msg) {
  const list = $('messages');
  let li = [...list.children].find((el) => el.dataset.stream === msg.stream);
  if (!li) {
    const when = typeof msg.at === 'number' ? new Date(msg.at).toLocaleTimeString() : '';
    line(
      [
        [when, 'when'],
        [String(msg.user ?? 'agent'), 'who'],
        ['', 'text'],
      ],
      'agent-line',
    );
    li = list.lastElementChild;
    li.dataset.stream = msg.stream;
    li.setAttribute('aria-busy', 'true');
  }
  li.querySelector('.text').textContent += msg.text;
  if (msg.done === true) li.removeAttribute('aria-busy');
}

function render(msg, raw) {
  if (msg && typeof msg === 'object' && typeof msg.stream === 'string' && typeof msg.text === 'string') {
    streamed(msg);
  } else if (msg && typeof msg === 'object' && typeof msg.text === 'string') {
    const when = typeof msg.at === 'number' ? new Date(msg.at).toLocaleTimeString() : '';
    // The demo's simulated participants say so in every message (and their names start with sim-).
    const parts =
      msg.simulated === true
        ? [[when, 'when'], [String(msg.user ?? 'anonymous'), 'who'], ['simulated', 'sim'], [msg.text]]
        : [[when, 'when'], [String(msg.user ?? 'anonymous'), 'who'], [msg.text]];
    line(parts, msg.simulated === true ? 'simulated' : undefined);
  } else {
    line([[String(raw)]]);
  }
}

/** The room's recent messages (a page joining a busy room starts with the conversation, not blank). */
async function recentMessages(name) {
  try {
    const res = await fetch(`/demo/rooms/${encodeURIComponent(name)}/messages`);
    return res.ok ? (await res.json()).messages : [];
  } catch {
    return [];
  }
}

function setState(state) {
  $('state').textContent = state;
  $('state').dataset.state = state;
  $('transport').textContent = client?.transport ?? '–';
}

let joins = 0;

async function join(name) {
  client?.close();
  client = undefined;
  const joining = ++joins;
  room = name;
  location.hash = name;
  $('room-title').textContent = `#${name}`;
  $('messages').replaceChildren();
  // History first, then the live connection: nothing shown twice (a message sent in between is
  // missed by this page, as it would be by a page that opened a moment later).
  const recent = await recentMessages(name);
  if (joining !== joins) return;
  for (const msg of recent) render(msg, '');
  const choice = $('transport-choice').value;
  // The name is this page's member metadata: the room's presence shows it to everyone.
  const meta = JSON.stringify({ name: $('name').value.trim().slice(0, 32) || 'anonymous' });
  const c = connect(
    `/fw/chat/${encodeURIComponent(name)}?meta=${encodeURIComponent(meta)}`,
    choice === 'auto' ? {} : { transports: [choice] },
  );
  client = c;
  const members = roomOf(c);
  const presence = () => {
    if (c === client) showPresence(members, c);
  };
  members.onMembers(presence);
  members.onJoin(presence);
  members.onLeave(presence);
  members.onRefused((f) => {
    if (c === client) system(`not sent: ${f.reason === 'rate_limited' ? 'too fast, slow down' : f.reason}`);
  });
  c.onStateChange((state) => {
    if (c !== client) return;
    setState(state);
    if (state === 'open') system(`connected to #${name} via ${c.transport}`);
    if (state === 'reconnecting') system('connection lost, reconnecting…');
  });
  c.onMessage((data) => {
    if (c === client) show(data);
  });
  c.onGap((lost) => {
    if (c === client) system(`${lost} messages were lost while reconnecting`);
  });
  c.onClose((reason) => {
    if (c !== client) return;
    setState('closed');
    system(`disconnected: ${reason}`);
  });
  setState(c.state);
  refreshRooms();
}

/** Who is in the room (the room's presence): names from the members' metadata, agents marked. */
function showPresence(members, c) {
  const all = [...members.members.values()];
  $('presence-count').textContent = String(members.total);
  // The room list's count of this room follows at once (the others at the next refresh).
  const current = $('rooms').querySelector('button[aria-current="true"] .members');
  if (current) current.textContent = String(members.total);
  $('presence').replaceChildren(
    ...all.map((m) => {
      const li = document.createElement('li');
      const name = typeof m.meta.name === 'string' ? m.meta.name : (m.principal ?? 'anonymous');
      li.textContent = m.meta.agent === true ? `${name} (agent)` : m.id === c.uuid ? `${name} (you)` : name;
      if (m.meta.agent === true) li.className = 'agent';
      else if (m.id === c.uuid) li.className = 'you';
      return li;
    }),
  );
}

async function refreshRooms() {
  let rooms = [];
  try {
    rooms = (await (await fetch('/demo/rooms')).json()).rooms;
  } catch {
    return;
  }
  const list = $('rooms');
  list.replaceChildren();
  for (const r of rooms) {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = `#${r.name}`;
    const members = document.createElement('span');
    members.className = 'members';
    members.textContent = String(r.members);
    b.append(members);
    b.setAttribute('aria-current', String(r.name === room));
    b.addEventListener('click', () => join(r.name));
    li.append(b);
    list.append(li);
  }
}

$('composer').addEventListener('submit', (e) => {
  e.preventDefault();
  const text = $('text').value.trim();
  if (!text || !client) return;
  const user = $('name').value.trim() || 'anonymous';
  localStorage.setItem('fw-chat-name', user);
  client.send({ user, text, at: Date.now() });
  $('text').value = '';
});

$('new-room').addEventListener('submit', (e) => {
  e.preventDefault();
  const name = $('new-room-name').value.trim().toLowerCase();
  if (!ROOM.test(name)) return;
  $('new-room-name').value = '';
  join(name);
});

$('transport-choice').addEventListener('change', () => {
  localStorage.setItem('fw-chat-transport', $('transport-choice').value);
  join(room);
});

// The ticker: the simulation's broadcaster, subscribe-only, a few prices a second.
const prices = new Map();
const ticker = connect('/fw/demo/ticker');
ticker.onMessage((data) => {
  let tick;
  try {
    tick = JSON.parse(data);
  } catch {
    return;
  }
  if (!tick || typeof tick.symbol !== 'string' || typeof tick.price !== 'number') return;
  prices.set(tick.symbol, tick);
  const list = $('ticker');
  list.replaceChildren(
    ...[...prices.values()].map((t) => {
      const li = document.createElement('li');
      const change = typeof t.change === 'number' ? t.change : 0;
      li.textContent = `${t.symbol} ${t.price.toFixed(2)} ${change >= 0 ? '▲' : '▼'} ${Math.abs(change).toFixed(2)}`;
      li.className = change >= 0 ? 'up' : 'down';
      return li;
    }),
  );
});

// The simulation switch: starting and stopping it is an admin write (loopback only, or a
// credential), so a refusal is shown rather than hidden.
async function refreshSimulation() {
  try {
    const status = await (await fetch('/demo/simulation')).json();
    $('simulation-switch').checked = status.running === true;
  } catch {
    // the next refresh tries again
  }
}

$('simulation-switch').addEventListener('change', async () => {
  const running = $('simulation-switch').checked;
  $('simulation-note').textContent = '';
  try {
    const res = await fetch('/demo/simulation', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ running }),
    });
    const body = await res.json();
    if (!res.ok) throw new Error(body.detail ?? `HTTP ${res.status}`);
    $('simulation-switch').checked = body.running === true;
    $('simulation-note').textContent = body.running ? 'simulation on' : 'simulation off';
  } catch (err) {
    $('simulation-switch').checked = !running;
    $('simulation-note').textContent = `switch refused: ${err.message}`;
  }
});

join(room);
refreshSimulation();
setInterval(() => {
  refreshRooms();
  refreshSimulation();
}, 5000);
