import { AUTH_CONFIG } from './auth/config.js';
import { ROOMS_CONFIG } from './rooms/config.js';
import { defineConfig, type ConfigTypes } from './config.js';

/** The runtime's configuration keys. Each is documented in docs/configuration.md. */
export const RUNTIME_CONFIG = defineConfig({
  'fw.path': { type: 'string', default: '/fw', description: 'Framework path under which real-time handlers are mounted' },
  'fw.port': {
    type: 'number',
    default: 8080,
    description:
      'Port used by fw.listen() when none is given (a port given to listen() is used as is); `PORT` is read when `FW_PORT` is not set',
    envAliases: ['PORT'],
  },
  'fw.host': {
    type: 'string',
    default: '127.0.0.1',
    description:
      'Host used by fw.listen() when none is given; `0.0.0.0` or `::` listens on all interfaces (see [runtime](runtime.md#port-host-and-listening-on-all-interfaces))',
  },
  'fw.bun.native': {
    type: 'boolean',
    default: true,
    description:
      'On Bun, fw.listen() serves through `Bun.serve` (native WebSocket, fetch handler); false: through `node:http` as on Node (see [bun](bun.md))',
  },
  'fw.bun.topics': {
    type: 'boolean',
    default: true,
    description:
      'On `Bun.serve`, a broadcast reaches the WebSockets in step with their resource through one native `server.publish` (fw clients with `ids=implicit`, raw clients); false: one send per socket (see [bun](bun.md#broadcasts))',
  },
  'fw.public-url': {
    type: 'string',
    default: '',
    description:
      'The absolute URL clients reach fw at (e.g. `https://app.example.com`): its host is an allowed Host, its origin an allowed Origin, and agent cards build their URLs from it; empty: the listening address',
  },
  'fw.security.allowed-hosts': {
    type: 'string',
    default: '',
    description:
      'Comma-separated Host names (`name` any port, `name:port` that port) fw routes answer besides `localhost`, `127.0.0.1` and `[::1]` on a loopback listener; `*` allows any Host',
  },
  'fw.security.allowed-origins': {
    type: 'string',
    default: '',
    description:
      'Comma-separated browser Origins allowed on fw routes besides the same origin and the public URL (CORS preflights answer from this list); `*` allows any',
  },
  'fw.security.trusted-proxies': {
    type: 'string',
    default: '',
    description:
      'Comma-separated addresses / CIDR ranges (or `loopback`) of reverse proxies whose X-Forwarded-For/-Proto/-Host fw believes; empty: none',
  },
  'fw.limits.cluster-lookups': {
    type: 'number',
    default: 16,
    description:
      'Concurrent cluster-wide lookups of a tracking id this node does not hold (a message POST or DELETE a balancer without sticky sessions sent to the wrong node, answered 421 naming the right one); past it such a request gets the plain 404 without asking the other nodes. 0 never asks',
  },
  'fw.limits.json-depth': {
    type: 'number',
    default: 64,
    description: 'Deepest nesting of a JSON body or message fw parses; deeper is a 400 `json_too_deep` (a JSON-RPC -32600 on A2A and MCP)',
  },
  ...AUTH_CONFIG,
  ...ROOMS_CONFIG,
  'fw.data-dir': {
    type: 'string',
    default: '.fw-data',
    description:
      'Directory where fw keeps durable state (audit log, store); relative to the working directory; empty keeps everything in memory',
  },
  'fw.websocket.max-payload': {
    type: 'number',
    default: 65536,
    description: 'Largest client message in bytes: a bigger WebSocket frame closes with 1009, a bigger POST gets 413',
  },
  'fw.websocket.max-fragments': {
    type: 'number',
    default: 128,
    description:
      'Most frames one client WebSocket message may be split into, on every fw WebSocket endpoint (real-time and MCP); one more closes with 1008, so a flood of tiny fragments cannot pile up in memory (`ws` alone allows 16,384)',
  },
  'fw.resume.buffer': {
    type: 'number',
    default: 1024,
    description:
      'Frames kept per resource for resume (and not yet written: a connected resource is written before it would overflow); overflow while disconnected becomes a gap frame',
  },
  'fw.resume.grace': {
    type: 'duration',
    default: 15000,
    description: 'How long a dropped fw-protocol resource is kept for a reconnect with its tracking id',
  },
  'fw.broadcaster.replay-cache': {
    type: 'number',
    default: 256,
    description: 'Messages each broadcaster keeps for fresh connections that pass `since`',
  },
  'fw.broadcaster.sequence-memory': {
    type: 'number',
    default: 10000,
    description:
      'Destroyed broadcasters whose next sequence is remembered, so one recreated under the same id numbers on instead of from 1 (0: off)',
  },
  'fw.broadcaster.destroy-empty': {
    type: 'boolean',
    default: true,
    description: 'Destroy a broadcaster created for a handler path once its last resource leaves',
  },
  'fw.slow-consumer.high-water-mark': {
    type: 'number',
    default: 1048576,
    description: 'Bytes buffered for one connection above which the slow-consumer policy applies',
  },
  'fw.slow-consumer.policy': {
    type: 'string',
    default: 'drop',
    description:
      '`drop` (skip messages, counted; the client gets a gap before the next message) or `disconnect` (cut the connection, counted; the resource is kept and the client resumes)',
  },
  'fw.slow-consumer.gap-delay': {
    type: 'duration',
    default: 1000,
    description:
      'Longest a slow-consumer drop (policy `drop`) waits for its gap frame: the gap is written as soon as the connection drains, and after this long at the latest even if it has not, whether or not more messages follow',
  },
  'fw.connections.max': {
    type: 'number',
    default: 100000,
    description:
      'Real-time connections (resources, all four transports; a resume is the same connection) this server holds at most; past it a new one gets 503 `capacity_exhausted` with Retry-After ([runtime](runtime.md#connection-shares))',
  },
  'fw.connections.max-per-principal': {
    type: 'number',
    default: 256,
    description:
      'Real-time connections one authenticated principal may hold (every tab of every device counts); past it 429 `limit_exceeded` with Retry-After. 0: no share cap',
  },
  'fw.connections.max-per-address': {
    type: 'number',
    default: 1024,
    description:
      'Real-time connections one anonymous client address (an IPv6 client: its /64; behind a trusted proxy: the forwarded address) may hold; past it 429 `limit_exceeded` with Retry-After. 0: no share cap',
  },
  'fw.flush.slice': {
    type: 'number',
    default: 256,
    description:
      'Connections written per event-loop turn; the rest are written in the next turns, their later messages joining the same write (0: all in one turn)',
  },
  'fw.heartbeat.interval': {
    type: 'duration',
    default: 25000,
    description: 'Heartbeat interval (a global heartbeat interceptor); 0 switches it off',
  },
  'fw.idle-timeout': {
    type: 'duration',
    default: 0,
    description: 'Close resources that sent nothing for this long (a global idle-timeout interceptor); 0 switches it off',
  },
  'fw.long-polling.timeout': {
    type: 'duration',
    default: 25000,
    description: 'How long a long-polling GET is held open when there is nothing to send',
  },
  'fw.metrics.enabled': {
    type: 'boolean',
    default: true,
    description:
      'Serve Prometheus metrics at `<fw.path>/metrics` and record the histograms behind them ([operations](operations.md#metrics))',
  },
  'fw.metrics.token': {
    type: 'string',
    default: '',
    description:
      'Bearer token a Prometheus scraper sends to `<fw.path>/metrics` (separate from every admin credential; at least 16 characters); a credential with the `viewer` role works too',
  },
  'fw.metrics.allow-loopback': {
    type: 'boolean',
    default: true,
    shownDefault: 'true without authentication, false with',
    description:
      'Let loopback scrapers read `<fw.path>/metrics` without a token or credential. Unset, it is true only while no authentication is configured (`fw.auth.*`, an authenticator, the admin token); switch it off when a reverse proxy on the same host forwards the endpoint',
  },
  'fw.log.level': {
    type: 'string',
    default: 'info',
    description:
      'Level of the default logger (pino): `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`; a `logger` passed to `new Framework()` keeps its own level ([operations](operations.md#logging))',
  },
  'fw.metrics.process': {
    type: 'boolean',
    default: false,
    description: "Also export prom-client's default `process_*` and `nodejs_*` metrics (CPU, memory, event-loop lag, GC) in fw's registry",
  },
  'fw.close.signals': {
    type: 'string',
    default: '',
    description:
      'Comma-separated signals (e.g. `SIGTERM,SIGINT`) on which fw drains (`close()`) and then lets the signal end the process ([operations](operations.md#shutdown)); empty: fw installs no signal handler',
  },
  'fw.close.drain-timeout': {
    type: 'duration',
    default: 2000,
    description:
      'How long close() lets requests in flight (uploads included) finish before answering the rest 503 with Retry-After, and then how long it waits for connections to end before destroying them; also the Retry-After of refused connections ([operations](operations.md#shutdown))',
  },
});

declare module './config.js' {
  interface FwConfigKeys extends ConfigTypes<typeof RUNTIME_CONFIG> {}
}
