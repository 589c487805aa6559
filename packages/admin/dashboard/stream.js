// The live event stream: `/fw/admin/events` through fw's own transport (`/fw/client.js`, fw
// protocol: heartbeats, resume). This module only supervises it: it reports one of four states
// and keeps a connection alive for as long as the page is open, whatever the client library
// decides. A server that closes the stream on purpose (restart, shutdown) or a tracking id that
// expired still ends in a fresh connection after a short back-off, so the page recovers by
// itself and never needs a reload.

import { auth, CLIENT_PATH, EVENTS_PATH } from './api.js';

/** Back-off between attempts of the supervisor (ms); the fw client has its own on top. */
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 5000;
/** After this long without a working stream the state says offline rather than reconnecting. */
const OFFLINE_AFTER_MS = 30_000;

/**
 * @param {{ onEvent(ev: object): void, onState(state: 'connecting'|'connected'|'reconnecting'|'offline', detail?: string): void, onOpen(info: { resumed: boolean, first: boolean }): void }} hooks
 */
export function createEventStream(hooks) {
  let current; // { close() } of the live attempt
  let stopped = false;
  let retryTimer;
  let attempt = 0;
  let everConnected = false;
  let lostSince = 0;
  let state = '';
  let clientModule; // the loaded @fw/client browser build, or null when it is not served

  function setState(next, detail) {
    if (next === 'reconnecting' && lostSince && Date.now() - lostSince > OFFLINE_AFTER_MS) next = 'offline';
    if (!navigator.onLine && next !== 'connected') next = 'offline';
    if (next === state && !detail) return;
    state = next;
    hooks.onState(next, detail);
  }

  function url() {
    const u = new URL(EVENTS_PATH, location.href);
    const token = auth.token;
    if (token) u.searchParams.set('access_token', token);
    return u;
  }

  function deliver(text) {
    let ev;
    try {
      ev = JSON.parse(text);
    } catch {
      return; // not an event: ignore rather than break the feed
    }
    if (ev && typeof ev === 'object' && typeof ev.type === 'string') hooks.onEvent(ev);
  }

  const callbacks = {
    open(resumed) {
      attempt = 0;
      lostSince = 0;
      const wasConnected = everConnected;
      everConnected = true;
      setState('connected');
      hooks.onOpen({ resumed: Boolean(resumed), first: !wasConnected });
    },
    message: deliver,
    /** The transport dropped; the client may be retrying on its own. */
    lost(detail) {
      lostSince ||= Date.now();
      setState(everConnected ? 'reconnecting' : 'connecting', detail);
    },
    /** This attempt is over for good: start another one. */
    ended(detail) {
      current = undefined;
      lostSince ||= Date.now();
      setState(everConnected ? 'reconnecting' : 'connecting', detail);
      schedule();
    },
  };

  function schedule() {
    if (stopped || retryTimer) return;
    const delay = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** Math.min(attempt, 4)) * (0.75 + Math.random() * 0.5);
    attempt++;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void open();
    }, delay);
  }

  async function loadClient() {
    if (clientModule !== undefined) return clientModule;
    try {
      const mod = await import(new URL(CLIENT_PATH, location.href).href);
      clientModule = typeof mod.connect === 'function' ? mod : null;
    } catch {
      clientModule = null;
      // Not cached as null forever: the client script may appear after a server restart.
      setTimeout(() => {
        if (clientModule === null) clientModule = undefined;
      }, 10_000);
    }
    return clientModule;
  }

  let opening = false;
  async function open() {
    // One attempt at a time: a restart or an `online` event during the client's import joins it.
    if (stopped || current || opening) return;
    opening = true;
    setState(everConnected ? 'reconnecting' : 'connecting');
    let mod;
    try {
      mod = await loadClient();
    } finally {
      opening = false;
    }
    if (stopped || current) return;
    current = mod ? openWithFwClient(mod, url(), callbacks) : openRaw(url(), callbacks);
  }

  function onOnline() {
    if (stopped) return;
    if (!current) {
      clearTimeout(retryTimer);
      retryTimer = undefined;
      attempt = 0;
      void open();
    } else setState(state === 'connected' ? 'connected' : 'reconnecting');
  }
  function onOffline() {
    if (state !== 'connected') setState('offline');
  }
  // While offline the state must still flip from reconnecting to offline after the grace.
  setInterval(() => {
    if (state === 'reconnecting') setState('reconnecting');
  }, 1000);
  addEventListener('online', onOnline);
  addEventListener('offline', onOffline);

  return {
    /** (Re)connects now: at start, and after the token changed. */
    restart() {
      stopped = false;
      current?.close();
      current = undefined;
      clearTimeout(retryTimer);
      retryTimer = undefined;
      attempt = 0;
      void open();
    },
    /** Closes the stream until the next restart (while the sign-in form is up). */
    stop() {
      stopped = true;
      clearTimeout(retryTimer);
      retryTimer = undefined;
      current?.close();
      current = undefined;
    },
    get state() {
      return state;
    },
  };
}

/**
 * One attempt through @fw/client. The client reconnects and resumes on its own after a network
 * drop (state `reconnecting`); when it ends (the server closed the stream on purpose, or it gave
 * up), the attempt is over and the supervisor starts a fresh one.
 */
function openWithFwClient(mod, url, cb) {
  let done = false;
  let client;
  try {
    client = mod.connect(url.href, {
      // WebSocket first; the HTTP transports only where a proxy refuses the upgrade.
      transports: ['websocket', 'sse', 'long-polling'],
      reconnect: { minDelay: 250, maxDelay: RETRY_MAX_MS },
    });
  } catch (err) {
    queueMicrotask(() => cb.ended(err instanceof Error ? err.message : String(err)));
    return {
      close() {
        done = true;
      },
    };
  }
  // A server restart is a drop: the client reconnects by itself and, seeing the new server's
  // epoch, takes its events from the start of their new numbering (docs/protocol.md).
  client.onStateChange((state) => {
    if (done) return;
    if (state === 'open') cb.open(false);
    else if (state === 'reconnecting') cb.lost('the connection dropped');
  });
  client.onMessage((data) => {
    if (!done) cb.message(data);
  });
  client.onClose((reason) => {
    if (done) return;
    done = true;
    cb.ended(reason);
  });
  return {
    close() {
      done = true;
      client.close('dashboard closed the stream');
    },
  };
}

/** Fallback when /fw/client.js is not served: a plain WebSocket gets raw frames (one JSON event each). */
function openRaw(url, cb) {
  let done = false;
  const wsUrl = new URL(url.href);
  wsUrl.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(wsUrl.href);
  ws.onopen = () => {
    if (!done) cb.open(false);
  };
  ws.onmessage = (e) => {
    if (!done && typeof e.data === 'string') cb.message(e.data);
  };
  ws.onclose = (e) => {
    if (done) return;
    done = true;
    cb.ended(e.reason || `closed (${e.code})`);
  };
  return {
    close() {
      done = true;
      ws.close();
    },
  };
}
