/**
 * The fw client: one logical connection to an fw endpoint that survives transport failures.
 *
 * A connection attempt walks a *round* of candidates (endpoint × transport, the one that worked
 * last first); a candidate that fails before its handshake hands over to the next one at once.
 * When a whole round fails, the next round waits an exponential, jittered backoff. Once open, a
 * drop reconnects with `tracking` + `last` so the server replays what we missed (exactly once, as
 * we also drop ids we have already seen); if the server has forgotten us (404
 * unknown_tracking_id) we connect fresh with `since` cursors and let the broadcasters' replay
 * caches fill the gap, again dropping what we already have by broadcaster sequence.
 */
import { backoffDelay, reconnectOptions, type ReconnectOptions } from './backoff.js';
import { consoleLogger, type ClientLogger } from './default-logger.js';
import { ClientError } from './errors.js';
import { encodeSince, resolveEndpoint } from './endpoint.js';
import { isCredentialReason, type Gap, type ServerFrame, type TransportName, type UpstreamKind } from '@fw/protocol';
import { answerToolCall, parseToolCall, type ToolCall, type ToolHandler } from './tool-bridge.js';
import type { FetchLike, TransportConnection, TransportOpener, WebSocketConstructor } from './transport.js';
import { openLongPolling } from './transports/long-polling.js';
import { openSse, openStreaming } from './transports/stream.js';
import { openWebSocket } from './transports/websocket.js';

export type ClientState = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface ConnectOptions {
  /** Transports to try, in order. Default `['websocket', 'sse', 'long-polling']`. */
  transports?: TransportName[];
  /** WebSocket implementation. Default `globalThis.WebSocket` (`@fw/client/node` passes `ws`). */
  WebSocket?: WebSocketConstructor;
  /** fetch implementation for the HTTP transports. Default `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Backoff between failed rounds; `false` never reconnects. */
  reconnect?: Partial<ReconnectOptions> | false;
  /**
   * Silence (ms) after which the connection counts as dead and is replaced. Default 3 × the
   * server's heartbeat interval from the handshake (a live connection may be quiet for two).
   */
  heartbeatTimeout?: number;
  /** How long (ms) a transport may take to deliver its handshake. Default 10 000. */
  connectTimeout?: number;
  /** Messages `send()` may queue while not connected. Default 1000. */
  maxQueue?: number;
  /** Where a listener that threw is reported (`error(fields, message)`, pino's shape). Default: written to the developer tools console (stderr under Node). */
  logger?: ClientLogger;
  /**
   * The credential (a bearer token): `?access_token=` on a WebSocket, `Authorization: Bearer`
   * on the HTTP transports. A function is called before every connection round (it may be
   * async): when the server refuses or ends a credential (401, or it expired or was revoked on an
   * open connection), the client calls it for a new one and reconnects, resuming where it was.
   * With a string (or none), such a refusal ends the client (`onClose` gets the reason).
   */
  token?: string | (() => string | Promise<string>);
}

export interface MessageMeta {
  /** The resource's own sequence number of this message. */
  id: number;
  /** The broadcaster it came from (undefined for a unicast). */
  broadcaster: string | undefined;
  /** Its sequence in that broadcaster (undefined for a unicast or a broadcast to a subset). */
  broadcasterSeq: number | undefined;
  transport: TransportName;
}

export type MessageListener = (data: string, meta: MessageMeta) => void;

/**
 * The message types of one endpoint, for TypeScript: `in` what the server sends (JSON), `out`
 * what the client sends. `connect<ChatMessages>(url)` then types `send` and `onJson`. Types are
 * not checked at run time: validate messages from a server you do not trust.
 */
export interface MessageMap {
  in?: unknown;
  out?: unknown;
}
/** What `send` takes: the map's `out`, else any string or JSON value. */
export type MessageOut<M extends MessageMap> = M extends { out: infer O } ? O : string | object;
/** What `onJson` listeners get: the map's `in`, else `unknown`. */
export type MessageIn<M extends MessageMap> = M extends { in: infer I } ? I : unknown;
export type JsonListener<T> = (data: T, meta: MessageMeta) => void;
export type StateListener = (state: ClientState, previous: ClientState) => void;
export type CloseListener = (reason: string) => void;
export type GapListener = (gap: Gap) => void;

/** What a reconnect brought back (`onRecovery`). */
export interface Recovery {
  /** True when the client has every message it missed while away, exactly once. */
  recovered: boolean;
  /** Whether the server still had the resource (a resume); false: a fresh resource caught up with `since`. */
  resumed: boolean;
  /** What is missing, and why (empty when `recovered`). */
  gaps: Gap[];
}
export type RecoveryListener = (recovery: Recovery) => void;
export type ErrorListener = (error: ClientError) => void;

export const DEFAULT_TRANSPORTS: readonly TransportName[] = Object.freeze(['websocket', 'sse', 'long-polling']);
const DEFAULT_CONNECT_TIMEOUT = 10_000;
const DEFAULT_MAX_QUEUE = 1000;
/** The server refuses a longer `since` (docs/protocol.md); the oldest cursors are left out. */
const MAX_SINCE_LENGTH = 4096;
/**
 * Silence, in heartbeat intervals, before a connection counts as dead. The server sends a
 * heartbeat at a sweep that finds nothing sent since the previous one, so a live connection can
 * be quiet for up to two intervals; a third means a heartbeat went missing.
 */
const HEARTBEAT_TOLERANCE = 3;
/** Gaps remembered to recognise one sent again after a resume (the server repeats those the client may have missed). */
const GAP_MEMORY = 256;

/**
 * A message (or bridge answer) on its way up. `seq` is its number on the current resource (0:
 * not sent yet); `sent`: handed to a connection whose answer (an `ack`, a POST's 2xx) has not
 * come, so the server may have it. `done` settles the `send()` promise.
 */
interface Upstream {
  data: string;
  kind: UpstreamKind;
  seq: number;
  sent: boolean;
  done?: (error?: ClientError) => void;
}

const OPENERS: Record<TransportName, TransportOpener> = {
  websocket: openWebSocket,
  sse: openSse,
  'long-polling': openLongPolling,
  streaming: openStreaming,
};

interface Candidate {
  endpoint: number;
  transport: number;
}

export class FwClient<M extends MessageMap = MessageMap> {
  private _state: ClientState = 'connecting';
  private _uuid: string | undefined;
  private _transport: TransportName | undefined;
  private readonly endpoints: URL[];
  private readonly transports: TransportName[];
  private readonly env: { WebSocket: WebSocketConstructor | undefined; fetch: FetchLike | undefined };
  private readonly reconnect: ReconnectOptions | false;
  private readonly connectTimeout: number;
  private readonly logger: ClientLogger;
  private readonly maxQueue: number;
  private readonly heartbeatTimeoutOption: number | undefined;
  private readonly tokenSource: ConnectOptions['token'];
  /** The credential of the current round. */
  private credential: string | undefined;
  /** The last number given to a message on the current resource. */
  private upSeq = 0;
  /** The server acknowledges numbered WebSocket messages (its handshake has `ack`). */
  private acks = false;

  /** Whether `_uuid` may be offered as `tracking` (false once the server said it forgot it). */
  private resumable = false;
  private lastId = 0;
  private readonly cursors = new Map<string, number>();
  /** The server's broadcast-sequence epoch the cursors belong to (from the handshake). */
  private epoch: string | undefined;
  /** The recovery of the current connection, from its handshake until the server's `rec` frame. */
  private recovery: Recovery | undefined;
  /** Whether the current connection was asked to recover (its handshake is followed by a `rec` frame). */
  private recovering = false;
  /** The client had a connection before: every later handshake is a reconnect. */
  private everOpened = false;
  private readonly seenGaps = new Set<string>();

  private conn: TransportConnection | undefined;
  /** Bumped for every connection so late callbacks of a replaced one are ignored. */
  private generation = 0;
  private current: Candidate | undefined;
  private opened = false;
  private preferred: Candidate = { endpoint: 0, transport: 0 };
  private round: Candidate[] = [];
  private failedRounds = 0;

  private handshakeTimer: ReturnType<typeof setTimeout> | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private silenceTimer: ReturnType<typeof setTimeout> | undefined;
  private heartbeatTimer: ReturnType<typeof setInterval> | undefined;
  private heartbeatTimeout = 0;
  /** The server's heartbeat interval from the last handshake. */
  private heartbeatInterval = 0;
  private lastSeen = 0;
  private sentSinceHeartbeat = false;

  /** Upstream texts in order, until the server has taken them: application messages and bridge answers. */
  private readonly outbox: Upstream[] = [];
  private flushing = false;
  private readonly tools = new Map<string, ToolHandler>();

  private readonly messageListeners = new Set<MessageListener>();
  private readonly stateListeners = new Set<StateListener>();
  private readonly closeListeners = new Set<CloseListener>();
  private readonly gapListeners = new Set<GapListener>();
  private readonly recoveryListeners = new Set<RecoveryListener>();
  private readonly errorListeners = new Set<ErrorListener>();
  private readonly otherListeners = new Set<(frame: Record<string, unknown>) => void>();

  constructor(url: string | URL | ReadonlyArray<string | URL>, options: ConnectOptions = {}) {
    const urls = typeof url === 'string' || url instanceof URL ? [url] : [...url];
    if (urls.length === 0) throw new TypeError('connect() needs at least one endpoint URL');
    this.endpoints = urls.map(resolveEndpoint);
    this.transports = [...(options.transports ?? DEFAULT_TRANSPORTS)];
    for (const t of this.transports) if (!(t in OPENERS)) throw new TypeError(`unknown transport '${t}'`);
    if (this.transports.length === 0) throw new TypeError('connect() needs at least one transport');
    const g = globalThis as { WebSocket?: WebSocketConstructor; fetch?: FetchLike };
    this.env = { WebSocket: options.WebSocket ?? g.WebSocket, fetch: options.fetch ?? g.fetch?.bind(globalThis) };
    this.reconnect = options.reconnect === false ? false : reconnectOptions(options.reconnect);
    this.connectTimeout = options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT;
    this.maxQueue = options.maxQueue ?? DEFAULT_MAX_QUEUE;
    this.logger = options.logger ?? consoleLogger;
    this.heartbeatTimeoutOption = options.heartbeatTimeout;
    this.tokenSource = options.token;
    this.credential = typeof options.token === 'string' ? options.token : undefined;
    this.startRound();
  }

  get state(): ClientState {
    return this._state;
  }

  /** The resource uuid the server assigned (undefined before the first handshake). */
  get uuid(): string | undefined {
    return this._uuid;
  }

  /** The transport of the current (or last) connection. */
  get transport(): TransportName | undefined {
    return this._transport;
  }

  /** The endpoint of the current (or last) connection. */
  get url(): string {
    return this.endpoints[(this.current ?? this.preferred).endpoint]!.href;
  }

  /**
   * Sends a message (objects are JSON-encoded), exactly once: queued, in order, while
   * (re)connecting, and sent again after a reconnect until the server confirms it. The promise
   * resolves once the server has taken it, and rejects when it cannot be: refused (e.g. 413),
   * the client closed first, or `send_unconfirmed` (the server lost the connection's state before
   * confirming). Awaiting it is optional: a rejection nobody awaits is not an unhandled one.
   */
  send(data: MessageOut<M>): Promise<void> {
    if (this._state === 'closed') throw new ClientError('client_closed', 'the client is closed');
    if (this.outbox.length >= this.maxQueue) throw new ClientError('send_queue_full', `send queue is full (${this.maxQueue} messages)`);
    let done!: Upstream['done'];
    const confirmed = new Promise<void>((resolve, reject) => {
      done = (error) => (error ? reject(error) : resolve());
    });
    confirmed.catch(() => undefined);
    this.outbox.push({ data: typeof data === 'string' ? data : JSON.stringify(data as object), kind: 'm', seq: 0, sent: false, done });
    void this.flush();
    return confirmed;
  }

  /** Closes for good: no reconnect, queued messages are dropped, close listeners get `reason`. */
  close(reason = 'client closed'): void {
    this.terminate(reason);
  }

  onMessage(listener: MessageListener): () => void {
    return add(this.messageListeners, listener);
  }

  /**
   * Messages parsed as JSON, typed by the connection's message map (`connect<Map>(…)`). A message
   * that is not JSON is not passed on: error listeners get `invalid_message`.
   */
  onJson(listener: JsonListener<MessageIn<M>>): () => void {
    return this.onMessage((data, meta) => {
      let value: unknown;
      try {
        value = JSON.parse(data);
      } catch {
        this.emit(this.errorListeners, new ClientError('invalid_message', `message ${meta.id} is not JSON`));
        return;
      }
      listener(value as MessageIn<M>, meta);
    });
  }

  onStateChange(listener: StateListener): () => void {
    return add(this.stateListeners, listener);
  }

  /** Called once, when the client ends: the server's reason, `client closed`, or why it gave up. */
  onClose(listener: CloseListener): () => void {
    return add(this.closeListeners, listener);
  }

  /**
   * Messages this client will not get, and why: said at the place in the stream where they are
   * missing (before the next message delivered), during a reconnect's recovery or mid-stream
   * (a slow-consumer drop, a cluster link outage).
   */
  onGap(listener: GapListener): () => void {
    return add(this.gapListeners, listener);
  }

  /**
   * After every reconnect, once the server has replayed what it could: `recovered` is true when
   * nothing is missing; otherwise `gaps` says what is (the same gaps `onGap` reports).
   */
  onRecovery(listener: RecoveryListener): () => void {
    return add(this.recoveryListeners, listener);
  }

  /**
   * Frames of kinds the client's core does not decode (a room's `presence`, `members`, `refused`),
   * parsed but not checked: for the layer that knows them (`room(client)`, `@fw/client/room`), which
   * checks them itself. Kept out of the core so a page without rooms does not load their code.
   */
  onOtherFrame(listener: (frame: Record<string, unknown>) => void): () => void {
    return add(this.otherListeners, listener);
  }

  /** Every transport failure, for logs and diagnostics (the client recovers by itself). */
  onError(listener: ErrorListener): () => void {
    return add(this.errorListeners, listener);
  }

  /** Answers the server's bridge `tool-call`s for `name`. Returns a function that unregisters it. */
  registerTool(name: string, handler: ToolHandler): () => void {
    if (this.tools.has(name)) throw new ClientError('duplicate_tool', `tool '${name}' already has a handler`);
    this.tools.set(name, handler);
    return () => {
      if (this.tools.get(name) === handler) this.tools.delete(name);
    };
  }

  // ---- connection rounds -------------------------------------------------------------------

  private startRound(): void {
    this.retryTimer = undefined;
    const source = this.tokenSource;
    if (typeof source !== 'function') return this.walkRound();
    // A new credential for every round: the last one may be what the server refused.
    Promise.resolve()
      .then(source)
      .then(
        (token) => {
          this.credential = token;
          if (this._state !== 'closed') this.walkRound();
        },
        (e: unknown) => {
          if (this._state === 'closed') return;
          this.emit(this.errorListeners, new ClientError('unauthorized', `token(): ${e}`));
          this.round = [];
          this.nextCandidate();
        },
      );
  }

  private walkRound(): void {
    const round: Candidate[] = [];
    const n = this.endpoints.length;
    for (let i = 0; i < n; i++) {
      const endpoint = (this.preferred.endpoint + i) % n;
      const first = endpoint === this.preferred.endpoint ? this.preferred.transport : 0;
      round.push({ endpoint, transport: first });
      for (let t = 0; t < this.transports.length; t++) if (t !== first) round.push({ endpoint, transport: t });
    }
    this.round = round;
    this.nextCandidate();
  }

  private nextCandidate(): void {
    const next = this.round.shift();
    if (next) return this.open(next);
    this.failedRounds++;
    if (this.reconnect === false) return this.terminate('could not connect');
    if (this.failedRounds > this.reconnect.maxAttempts) return this.terminate(`gave up after ${this.failedRounds} failed attempts`);
    this.scheduleRound(backoffDelay(this.failedRounds - 1, this.reconnect));
  }

  private scheduleRound(delay: number): void {
    this.retryTimer = setTimeout(() => this.startRound(), delay);
  }

  private open(candidate: Candidate): void {
    const gen = ++this.generation;
    this.current = candidate;
    this.opened = false;
    const params: Record<string, string | undefined> = { fw: '1' };
    if (this.resumable && this._uuid !== undefined) {
      params.tracking = this._uuid;
      params.last = String(this.lastId);
    } else if (this.cursors.size > 0) {
      params.since = encodeSince(this.cursors, MAX_SINCE_LENGTH);
      params.epoch = this.epoch;
    }
    // The server answers a resume or a `since` replay with a `rec` frame once it has replayed.
    this.recovering = params.tracking !== undefined || params.since !== undefined;
    this.handshakeTimer = setTimeout(
      () => this.fail(gen, new ClientError('handshake_timeout', `no handshake within ${this.connectTimeout} ms`)),
      this.connectTimeout,
    );
    const transport = this.transports[candidate.transport]!;
    try {
      this.conn = this.openTransport(transport, candidate, params, gen);
    } catch (e) {
      // e.g. a WebSocket constructor refusing the URL: this candidate failed, try the next.
      queueMicrotask(() => this.fail(gen, e instanceof ClientError ? e : new ClientError('transport_unavailable', String(e))));
    }
  }

  private openTransport(
    transport: TransportName,
    candidate: Candidate,
    params: Record<string, string | undefined>,
    gen: number,
  ): TransportConnection {
    return OPENERS[transport]({
      endpoint: this.endpoints[candidate.endpoint]!,
      params,
      env: this.env,
      heartbeat: this.heartbeatInterval,
      token: this.credential,
      sink: {
        frame: (frame) => {
          if (gen === this.generation) this.onFrame(frame, transport);
        },
        alive: (other) => {
          if (gen !== this.generation) return;
          this.lastSeen = Date.now();
          if (other !== undefined)
            this.emit(this.otherListeners, typeof other === 'string' ? (JSON.parse(other) as Record<string, unknown>) : other);
        },
        end: (error) => {
          if (gen === this.generation) this.onEnd(error);
        },
      },
    });
  }

  /** Abandons connection `gen` (if still current) because of `error`. */
  private fail(gen: number, error: ClientError): void {
    if (gen !== this.generation || this._state === 'closed') return;
    this.conn?.close(false);
    this.onEnd(error);
  }

  private onEnd(error: ClientError): void {
    const wasOpen = this.opened;
    this.dropConnection();
    if (error.status === 401 || isCredentialReason(error.code)) return this.credentialLost(error, wasOpen);
    if (error.code === 'closed_by_server') return this.terminate(error.message, false);
    // A server that shut down (WebSocket 1012) acknowledged, before it went, every message it
    // took: the rest were not taken and go to the next server as not sent.
    if (error.problemCode === 'service_restart') for (const e of this.outbox) e.sent = false;
    this.emit(this.errorListeners, error);
    if (this._state === 'closed') return;
    if (
      error.code === 'http_error' &&
      error.status === 400 &&
      error.problemCode === 'invalid_query' &&
      (this.resumable || this.cursors.size > 0)
    ) {
      // The server refuses our resume parameters: a connection is worth more than the resume
      // state, so shed it step by step (tracking first, then the cursors) and start over.
      if (this.resumable) this.resumable = false;
      else this.cursors.clear();
      if (wasOpen) this.setState('reconnecting');
      return this.startRound();
    }
    if (error.code === 'unknown_tracking_id') {
      // The server forgot us: a new round at once, fresh, with `since` cursors. A new round, not
      // the next candidate: a browser only learns this on its second transport (a refused
      // upgrade shows no status), yet the preferred transport is fine for a fresh connection.
      this.resumable = false;
      if (wasOpen) this.setState('reconnecting');
      return this.startRound();
    }
    if (!wasOpen) return this.nextCandidate();
    if (this.reconnect === false) return this.terminate(`connection lost: ${error.message}`);
    this.setState('reconnecting');
    this.failedRounds = 0;
    this.round = [];
    this.scheduleRound(backoffDelay(0, this.reconnect));
  }

  /**
   * The server refused the credential (401) or ended it on an open connection (expired,
   * revoked). With a `token` function the client gets a new one and reconnects (a resume: the
   * server kept the resource); otherwise it stops rather than knock with a dead credential.
   */
  private credentialLost(error: ClientError, wasOpen: boolean): void {
    this.emit(this.errorListeners, error);
    if (typeof this.tokenSource !== 'function') return this.terminate(error.message, false);
    if (this._state === 'closed') return;
    if (wasOpen) this.setState('reconnecting');
    // The other candidates would show the same credential: end the round, back off, ask anew.
    this.round = [];
    if (!wasOpen) return this.nextCandidate();
    if (this.reconnect === false) return this.terminate(error.message, false);
    this.failedRounds = 0;
    this.scheduleRound(backoffDelay(0, this.reconnect));
  }

  private dropConnection(): void {
    this.generation++;
    this.conn = undefined;
    this.opened = false;
    clearTimeout(this.handshakeTimer);
    clearTimeout(this.silenceTimer);
    clearInterval(this.heartbeatTimer);
    this.handshakeTimer = this.silenceTimer = this.heartbeatTimer = undefined;
  }

  /** Ends the client. `byClient`: tell the server to end the resource too (it already has otherwise). */
  private terminate(reason: string, byClient = true): void {
    if (this._state === 'closed') return;
    const conn = this.conn;
    this.dropConnection();
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.round = [];
    for (const e of this.outbox.splice(0)) e.done?.(new ClientError('client_closed', `closed before it was taken: ${reason}`));
    conn?.close(byClient);
    this.setState('closed');
    this.emit(this.closeListeners, reason);
    this.messageListeners.clear();
    this.stateListeners.clear();
    this.closeListeners.clear();
    this.gapListeners.clear();
    this.recoveryListeners.clear();
    this.otherListeners.clear();
    this.errorListeners.clear();
  }

  // ---- frames --------------------------------------------------------------------------------

  private onFrame(frame: ServerFrame, transport: TransportName): void {
    this.lastSeen = Date.now();
    switch (frame.t) {
      case 'hs':
        return this.onHandshake(frame.uuid, frame.resumed, frame.heartbeat, transport, frame.epoch, frame.ack);
      case 'm': {
        // Exactly once: a resumed stream may repeat what we saw; a `since` replay may too.
        if (frame.id <= this.lastId) return;
        this.lastId = frame.id;
        if (frame.b !== undefined && frame.bid !== undefined) {
          const seen = this.cursors.get(frame.b);
          if (seen !== undefined && frame.bid <= seen) return;
          this.cursors.set(frame.b, frame.bid);
        }
        const meta: MessageMeta = { id: frame.id, broadcaster: frame.b, broadcasterSeq: frame.bid, transport };
        for (const l of this.messageListeners) {
          try {
            l(frame.d, meta);
          } catch (e) {
            this.report(e);
          }
        }
        return;
      }
      case 'tool-call': {
        // In the message sequence (so a resume replays it once), but never the application's.
        if (frame.id <= this.lastId) return;
        this.lastId = frame.id;
        const call = parseToolCall(frame.d);
        if (call) this.answer(call);
        return;
      }
      case 'gap': {
        const { t: _, ...gap } = frame;
        // A resume repeats the gaps placed after `last` (the client may not have had them).
        const key = `${gap.reason}|${gap.b ?? ''}|${gap.from ?? ''}|${gap.to ?? ''}|${gap.lost ?? ''}`;
        if (gap.from !== undefined && this.seenGaps.has(key)) return;
        this.seenGaps.add(key);
        if (this.seenGaps.size > GAP_MEMORY) this.seenGaps.delete(this.seenGaps.values().next().value!);
        this.recovery?.gaps.push(gap);
        return this.emit(this.gapListeners, gap);
      }
      case 'rec': {
        const recovery = this.recovery;
        if (recovery === undefined) return;
        this.recovery = undefined;
        recovery.recovered = frame.recovered && recovery.gaps.length === 0;
        return this.emit(this.recoveryListeners, recovery);
      }
      case 'ack':
        return this.confirm(frame.s);
      case 'close':
        // A credential that ended: the server keeps the resource for a resume with a new one.
        if (isCredentialReason(frame.reason)) return this.fail(this.generation, new ClientError(frame.reason, frame.reason));
        return this.terminate(frame.reason, false);
      case 'reconnect':
        // The server shuts down; the stream ends right after this frame, and that end is a drop:
        // the client reconnects with backoff and resumes (to another node behind a balancer).
        return;
      case 'hb':
        return;
    }
  }

  private onHandshake(
    uuid: string,
    resumed: boolean,
    heartbeat: number,
    transport: TransportName,
    epoch: string | undefined,
    ack: number | undefined,
  ): void {
    // Cursors taken in another epoch (the server restarted) would make us drop its new messages
    // as duplicates; the server replayed its whole cache for them, so start counting afresh.
    const restarted = epoch !== undefined && this.epoch !== undefined && epoch !== this.epoch;
    if (restarted) this.cursors.clear();
    if (epoch !== undefined) this.epoch = epoch;
    if (this.opened) {
      this._uuid = uuid;
      return;
    }
    clearTimeout(this.handshakeTimer);
    this.handshakeTimer = undefined;
    // A new resource numbers its messages from 1 again.
    const fresh = !resumed || uuid !== this._uuid;
    const hadMessages = this.lastId > 0;
    if (fresh) this.lastId = 0;
    this.resync(fresh, ack);
    if (this.everOpened) {
      const recovery: Recovery = { recovered: true, resumed: !fresh, gaps: [] };
      if (this.recovering) {
        this.recovery = recovery; // completed by the server's `rec` frame
      } else if (fresh) {
        // Back on a fresh resource with no cursors to catch up with: whatever was sent to the
        // old one after what we have is gone, and the server cannot say how much.
        if (hadMessages) {
          const gap: Gap = { reason: restarted ? 'server-restarted' : 'grace-expired' };
          recovery.gaps.push(gap);
          recovery.recovered = false;
          this.emit(this.gapListeners, gap);
        }
        queueMicrotask(() => this.emit(this.recoveryListeners, recovery));
      }
    }
    this.everOpened = true;
    this._uuid = uuid;
    this.resumable = true;
    this._transport = transport;
    this.opened = true;
    this.preferred = this.current ?? this.preferred;
    this.failedRounds = 0;
    this.round = [];
    this.armHeartbeat(heartbeat);
    this.setState('open');
    void this.flush();
  }

  private armHeartbeat(interval: number): void {
    const gen = this.generation;
    this.heartbeatInterval = interval;
    // A held long-poll is silent by design; watch it only when the app asked for a timeout.
    const watch = this.conn?.watchesSilence === true || this.heartbeatTimeoutOption !== undefined;
    this.heartbeatTimeout = this.heartbeatTimeoutOption ?? interval * HEARTBEAT_TOLERANCE;
    if (watch && this.heartbeatTimeout > 0) {
      // One timer re-armed at the deadline, not one per frame: frames only stamp `lastSeen`.
      const check = (): void => {
        if (gen !== this.generation) return;
        const idle = Date.now() - this.lastSeen;
        if (idle >= this.heartbeatTimeout) {
          return this.fail(gen, new ClientError('heartbeat_timeout', `nothing received for ${idle} ms`));
        }
        this.silenceTimer = setTimeout(check, this.heartbeatTimeout - idle);
      };
      this.silenceTimer = setTimeout(check, this.heartbeatTimeout);
    }
    if (interval > 0 && this.conn?.heartbeat) {
      const conn = this.conn;
      this.heartbeatTimer = setInterval(() => {
        if (!this.sentSinceHeartbeat) conn.heartbeat?.();
        this.sentSinceHeartbeat = false;
      }, interval);
    }
  }

  // ---- sending -------------------------------------------------------------------------------

  /**
   * A handshake: on a resumed resource the server says (`ack`) up to which number it has taken
   * our messages; the rest go again with their numbers (it takes each once). A fresh resource
   * knows nothing of the old one: what was sent there unconfirmed may or may not have been taken,
   * and is not sent twice (`send_unconfirmed`); the rest are numbered afresh.
   */
  private resync(fresh: boolean, ack: number | undefined): void {
    if (ack !== undefined) this.acks = true;
    else if (fresh) this.acks = false;
    if (!fresh) {
      if (ack !== undefined) this.confirm(ack);
      for (const e of this.outbox) e.sent = false;
      return;
    }
    for (const e of [...this.outbox]) {
      if (e.sent) this.settle(e, new ClientError('send_unconfirmed', 'the server lost the connection before confirming it'));
      e.seq = 0;
    }
    this.upSeq = 0;
  }

  /** The server has taken every message numbered up to `seq`. */
  private confirm(seq: number): void {
    for (const e of [...this.outbox]) if (e.seq > 0 && e.seq <= seq) this.settle(e);
  }

  private settle(e: Upstream, error?: ClientError): void {
    const i = this.outbox.indexOf(e);
    if (i >= 0) this.outbox.splice(i, 1);
    e.done?.(error);
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      for (let e: Upstream | undefined; (e = this.outbox.find((x) => !x.sent)) && this.opened && this.conn; ) {
        const conn = this.conn;
        const gen = this.generation;
        e.seq ||= ++this.upSeq;
        e.sent = true;
        try {
          await conn.send(e.data, e.kind, e.seq);
        } catch (err) {
          const error = err instanceof ClientError ? err : new ClientError('connection_lost', String(err));
          // An answer, whatever it says, means the server did not take it; only a lost answer leaves that open.
          if (error.status !== undefined) e.sent = false;
          if (gen !== this.generation) continue;
          const status = error.status ?? 500;
          if (status < 500 && status !== 401 && status !== 404 && status !== 408 && status !== 429) {
            // The server refused this message itself (too large, bad): resending cannot help. It
            // took nothing, so its number goes to the next message (HTTP sends one at a time).
            if (e.seq === this.upSeq) this.upSeq--;
            this.settle(e, error);
            this.emit(this.errorListeners, error);
            continue;
          }
          // The credential, the resource or the connection is gone: keep the message for the next connection.
          this.fail(gen, error);
          break;
        }
        if (this._state === 'closed') break;
        // Over HTTP the answer says it was taken; over WebSocket the server's `ack` will (an older server sends none).
        if (conn.confirms || !this.acks) this.settle(e);
        this.sentSinceHeartbeat = true;
      }
    } finally {
      this.flushing = false;
    }
  }

  private answer(call: ToolCall): void {
    void answerToolCall(this.tools.get(call.toolName), call).then((response) => {
      if (this._state === 'closed') return;
      // Not subject to maxQueue: the server is waiting for exactly this answer.
      this.outbox.push({ data: response, kind: 'tool-response', seq: 0, sent: false });
      void this.flush();
    });
  }

  // ---- listeners -----------------------------------------------------------------------------

  /** A throwing listener must not break the connection logic: it is reported and the rest go on. */
  private report(err: unknown): void {
    this.logger.error({ err }, 'listener failed');
  }

  private setState(state: ClientState): void {
    const previous = this._state;
    if (previous === state) return;
    this._state = state;
    for (const l of this.stateListeners) {
      try {
        l(state, previous);
      } catch (e) {
        this.report(e);
      }
    }
  }

  private emit<T>(listeners: Set<(value: T) => void>, value: T): void {
    for (const l of listeners) {
      try {
        l(value);
      } catch (e) {
        this.report(e);
      }
    }
  }
}

function add<T>(set: Set<T>, listener: T): () => void {
  set.add(listener);
  return () => void set.delete(listener);
}

/** Opens a client to one endpoint (or several, tried in order for failover). */
export function connect<M extends MessageMap = MessageMap>(
  url: string | URL | ReadonlyArray<string | URL>,
  options?: ConnectOptions,
): FwClient<M> {
  return new FwClient<M>(url, options);
}
