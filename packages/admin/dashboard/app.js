// fw admin dashboard: wiring. Loads the session (who am I, what may I do), starts the live event
// stream, and hands events and connection changes to the tabs. Plain browser ES modules,
// no build step, no dependency; everything from the server is rendered as text.

import { ApiError, auth, get } from './api.js';
import { createAgentsTab } from './agents-tab.js';
import { createControlTab } from './control-tab.js';
import { createDashboardTab } from './dashboard-tab.js';
import { $, h, replace, setText } from './dom.js';
import { createEvalsTab } from './evals-tab.js';
import { createJournalTab } from './journal-tab.js';
import { createFleetTab } from './fleet-tab.js';
import { createGovernanceTab } from './governance-tab.js';
import { createRunsTab } from './runs-tab.js';
import { createPlaygroundTab } from './playground-tab.js';
import { createRoomsTab } from './rooms-tab.js';
import { createEventStream } from './stream.js';
import { createTabs } from './tabs.js';
import { setupTheme } from './theme.js';

/** Broadcaster ids offered as suggestions in the Control and resource filter fields. */
const SUGGESTIONS_LIMIT = 500;

const STATE_LABEL = {
  connecting: 'Connecting…',
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  offline: 'Offline',
  'signed-out': 'Signed out',
};

/** What the signed-in principal may do (from GET session); nothing until the session says so. */
let permissions = {};

const shared = {
  may: (action) => permissions[action] === true,
  setVersion(v) {
    setText($('#version'), v ? `v${v}` : '');
  },
  setBroadcasterIds(ids) {
    // Keeps what the datalist already offers so a paged table does not shrink the suggestions,
    // up to a bound (the newest seen win).
    const list = $('#broadcaster-ids');
    const known = new Set([...list.options].map((o) => o.value));
    for (const id of ids) if (!known.has(id)) list.append(h('option', { value: id }));
    while (list.options.length > SUGGESTIONS_LIMIT) list.firstElementChild.remove();
  },
  setAgentNames(names) {
    replace(
      $('#agent-names'),
      names.map((n) => h('option', { value: n })),
    );
  },
  selectTab: (name) => tabs.select(name),
  prefillBroadcast: (id) => control.prefillBroadcast(id),
  prefillDisconnect: (uuid) => control.prefillDisconnect(uuid),
};

const dashboard = createDashboardTab(shared);
const agents = createAgentsTab(shared);
const journal = createJournalTab();
const runs = createRunsTab(shared);
const fleet = createFleetTab();
const rooms = createRoomsTab();
const governance = createGovernanceTab();
const control = createControlTab(shared);
const playground = createPlaygroundTab(shared);
const evals = createEvalsTab(shared);
const views = { dashboard, agents, journal, runs, fleet, rooms, governance, control, playground, evals };

const tabs = createTabs($('#tablist'), (name) => {
  for (const [n, v] of Object.entries(views)) (n === name ? v.show : v.hide)();
});

// --- connection state ------------------------------------------------------------------------
const conn = $('#conn');
function showState(state, detail) {
  conn.dataset.state = state;
  setText($('#conn-label'), STATE_LABEL[state] ?? state);
  conn.title = detail ? `Event stream: ${STATE_LABEL[state]} (${detail})` : `Event stream: ${STATE_LABEL[state]}`;
  document.documentElement.dataset.conn = state;
}

const stream = createEventStream({
  onEvent(ev) {
    for (const v of Object.values(views)) v.onEvent(ev);
  },
  onState: showState,
  onOpen({ first }) {
    // Whatever happened while the stream was down (a server restart, a network cut) is read
    // again from the API, so the counters and tables are right without a reload.
    if (!first) {
      void loadSession();
      void seedFeed();
    }
    for (const v of Object.values(views)) v.resync();
  },
  onCredentialEnded(reason) {
    // The token is dead: forget it and ask for a new one (the stream stays stopped until then).
    auth.token = '';
    askForToken(
      reason === 'revoked' ? 'Your access was revoked. Sign in with another token.' : 'Your session expired. Sign in again to continue.',
    );
  },
  onRetry() {
    // A 401 here brings up the sign-in form and stops the stream (auth.onUnauthorized).
    void loadSession().catch(() => undefined);
  },
});

// --- session and sign-in ---------------------------------------------------------------------
const signin = $('#signin');
const signinForm = $('#signin-form');
let signingIn = false;

/** Stops the stream and shows the sign-in form with `message`. */
function askForToken(message) {
  if (signingIn) return;
  signingIn = true;
  stream.stop();
  signin.hidden = false;
  setText($('#signin-error'), message);
  signinForm.elements.token.focus();
}

auth.onUnauthorized = () => askForToken(auth.token ? 'The token was not accepted.' : '');

signinForm.addEventListener('submit', async (e) => {
  e.preventDefault();
  const token = signinForm.elements.token.value.trim();
  if (!token) return;
  auth.token = token;
  try {
    await get('session');
  } catch (err) {
    auth.token = '';
    setText(
      $('#signin-error'),
      err instanceof ApiError && err.status === 401
        ? 'That token was not accepted.'
        : `Sign-in failed: ${err instanceof Error ? err.message : String(err)}`,
    );
    signingIn = true;
    return;
  }
  signingIn = false;
  signin.hidden = true;
  signinForm.reset();
  start();
});

$('#sign-out').addEventListener('click', () => {
  auth.token = '';
  location.reload();
});

async function loadSession() {
  try {
    const { data } = await get('session');
    permissions = data?.permissions ?? {};
    const role = data?.role ? ` (${data.role})` : '';
    setText(
      $('#principal'),
      data?.principal
        ? `Signed in as ${data.principal}${role}`
        : data?.authRequired
          ? ''
          : 'Local operator (loopback, no authentication configured)',
    );
    $('#principal').dataset.role = data?.role ?? '';
    $('#sign-out').hidden = !auth.token;
    control.applySession(data);
    agents.applySession(data);
    governance.applySession(data);
    runs.applySession();
    dashboard.resync();
    return data;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) throw err;
    if (err instanceof ApiError && err.status === 403) {
      showBanner(`The admin plane refused this page: ${err.detail || err.title}`);
    }
    return undefined;
  }
}

async function seedFeed() {
  try {
    const { data } = await get('events/recent', { limit: 200 });
    if (Array.isArray(data)) dashboard.feed.seed(data);
  } catch {
    /* the live stream fills the feed anyway */
  }
}

function showBanner(text) {
  const b = $('#banner');
  b.textContent = text;
  b.hidden = !text;
}

let started = false;
async function start() {
  // Session, data and stream all start at once: a 401 on any of them brings up the sign-in form.
  const session = loadSession();
  if (!started) {
    started = true;
    for (const v of Object.values(views)) v.start();
    tabs.start();
  } else {
    for (const v of Object.values(views)) v.resync();
  }
  void seedFeed();
  stream.restart();
  try {
    await session;
    if (!signingIn) showBanner('');
  } catch {
    /* 401: the sign-in form is up */
  }
}

// The REST API going away shows on the status counter even before the stream notices.
auth.onReachability = (ok) => {
  if (!ok) dashboard.onUnreachable();
};

// The docs link follows the server's fw.admin.docs-url (written into the page's <meta>).
const docsUrl = document.querySelector('meta[name="fw-docs"]')?.getAttribute('content');
if (docsUrl) $('#docs-link').setAttribute('href', docsUrl);
setupTheme(/** @type {HTMLButtonElement} */ ($('#theme-toggle')));

showState('connecting');
void start();
