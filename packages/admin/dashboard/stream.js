// The live event stream: `/fw/admin/events` through fw's own transport (`/fw/client.js`, fw
// protocol: heartbeats, resume). This module only supervises it: it reports one of four states
// and keeps a connection alive for as long as the page is open, whatever the client library
// decides. A server that closes the stream on purpose (restart, shutdown) or a tracking id that
// expired still ends in a fresh connection after a short back-off, so the page recovers by
// itself and never needs a reload. One end is final: the server ends the stream because its
// credential expired or was revoked (a `SessionEnded` event, then the close reason
// `credential_expired` / `credential_revoked`). Reconnecting with that token could only be
// refused again, so the supervisor stops and tells the page, which asks for a new token.

import { auth, CLIENT_PATH, EVENTS_PATH } from './api.js';

/** Back-off between attempts of the supervisor (ms); the fw client has its own on top. */
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 5000;
/** After this long without a working stream the state says offline rather than reconnecting. */
const OFFLINE_AFTER_MS = 30_000;

/** The close reason (or SessionEnded event) of a stream ended for its credential: `expired` or `revoked`. */
export function credentialEnd(reason) {
  const m = /^credential_(expired|revoked)\b/.exec(String(reason ?? ''));
  return m ? m[1] : undefined;
}

/**
 * @param {{ onEvent(ev: object): void, onState(state: 'connecting'|'connected'|'reconnecting'|'offline'|'signed-out', detail?: string): void, onOpen(info: { resumed: boolean, first: boolean }): void, onCredentialEnded(reason: 'expired'|'revoked'): void, onRetry?(): void }} hooks
 */
export function createEventStream(hooks) {
  let current; // { close() } of the live attempt
  let stopped = false;
  let retryTimer;
  let attempt = 0;
  let everConnected = false;
  let lostSince = 0;
  let state = '';
  let sessionEnded; // 'expired' | 'revoked' once the server said the stream ends for its credential
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
    if (!ev || typeof ev !== 'object' || typeof ev.type !== 'string') return;
    // The server's last word before it closes the stream: the close that follows is final.
    if (ev.type === 'SessionEnded') {
      sessionEnded = ev.reason === 'revoked' ? 'revoked' : 'expired';
      return;
    }
    hooks.onEvent(ev);
  }

  /** The credential is no longer good: stop for good (until a restart with a new token) and say so. */
  function endForCredential(reason) {
    stopped = true;
    clearTimeout(retryTimer);
    retryTimer = undefined;
    current?.close();
    current = undefined;
    setState('signed-out', reason === 'revoked' ? 'access revoked' : 'session expired');
    hooks.onCredentialEnded(reason);
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
    /** This attempt is over for good: start another one, unless the server ended it for its credential. */
    ended(detail) {
      current = undefined;
      const credential = credentialEnd(detail) ?? sessionEnded;
      sessionEnded = undefined;
      if (credential) {
        endForCredential(credential);
        return;
      }
      lostSince ||= Date.now();
      setState(everConnected ? 'reconnecting' : 'connecting', detail);
      // The page checks its session before each retry: a token that stopped working brings up
      // the sign-in form (and stops the stream) instead of a loop of refused connections.
      hooks.onRetry?.();
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
      sessionEnded = undefined;
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
      setState('signed-out');
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
