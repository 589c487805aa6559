import type { ConfigSchema } from './config.js';

/** The runtime's configuration keys. Each is documented in docs/configuration.md. */
export const RUNTIME_CONFIG: ConfigSchema = {
  'fw.path': { type: 'string', default: '/fw', description: 'Framework path under which real-time handlers are mounted' },
  'fw.port': { type: 'number', default: 8080, description: 'Port used by fw.listen() when none is given; `PORT` is read when `FW_PORT` is not set', envAliases: ['PORT'] },
  'fw.host': { type: 'string', default: '127.0.0.1', description: 'Host used by fw.listen() when none is given' },
  'fw.data-dir': { type: 'string', default: '.fw-data', description: 'Directory where fw keeps durable state (audit log, store); relative to the working directory; empty keeps everything in memory' },
  'fw.modules.autoload': { type: 'boolean', default: true, description: 'Configure installed fw modules (@fw/mcp, @fw/agent, @fw/admin, @fw/redis) automatically' },
  'fw.websocket.max-payload': { type: 'number', default: 65536, description: 'Largest client message in bytes: a bigger WebSocket frame closes with 1009, a bigger POST gets 413' },
  'fw.resume.buffer': { type: 'number', default: 1024, description: 'Frames kept per resource for resume (and not yet flushed); overflow becomes a gap frame' },
  'fw.resume.grace': { type: 'duration', default: 15000, description: 'How long a dropped fw-protocol resource is kept for a reconnect with its tracking id' },
  'fw.broadcaster.replay-cache': { type: 'number', default: 256, description: 'Messages each broadcaster keeps for fresh connections that pass `since`' },
  'fw.broadcaster.sequence-memory': { type: 'number', default: 10000, description: 'Destroyed broadcasters whose next sequence is remembered, so one recreated under the same id numbers on instead of from 1 (0: off)' },
  'fw.broadcaster.destroy-empty': { type: 'boolean', default: true, description: 'Destroy a broadcaster created for a handler path once its last resource leaves' },
  'fw.slow-consumer.high-water-mark': { type: 'number', default: 1048576, description: 'Bytes buffered for one connection above which the slow-consumer policy applies' },
  'fw.slow-consumer.policy': { type: 'string', default: 'drop', description: '`drop` (skip messages, counted; the client gets a gap before the next message) or `disconnect` (cut the connection, counted; the resource is kept and the client resumes)' },
  'fw.heartbeat.interval': { type: 'duration', default: 25000, description: 'Heartbeat interval (a global heartbeat interceptor); 0 switches it off' },
  'fw.idle-timeout': { type: 'duration', default: 0, description: 'Close resources that sent nothing for this long (a global idle-timeout interceptor); 0 switches it off' },
  'fw.origin.allow': { type: 'string', default: '', description: 'Comma-separated Origins allowed to connect besides same-origin and non-browser clients; `*` allows any' },
  'fw.long-polling.timeout': { type: 'duration', default: 25000, description: 'How long a long-polling GET is held open when there is nothing to send' },
  'fw.metrics.enabled': { type: 'boolean', default: true, description: 'Serve Prometheus metrics at <fw.path>/metrics and record the histograms behind them' },
  'fw.metrics.token': { type: 'string', default: '', description: 'Bearer token a non-loopback Prometheus scraper must send to <fw.path>/metrics (separate from every admin credential); empty: loopback scrapers only' },
  'fw.metrics.allow-loopback': { type: 'boolean', default: true, description: 'Let loopback scrapers read <fw.path>/metrics without the token; switch off when a reverse proxy on the same host forwards it' },
  'fw.metrics.process': { type: 'boolean', default: false, description: "Also export prom-client's default process_* and nodejs_* metrics (CPU, memory, event-loop lag, GC) in fw's registry" },
  'fw.close.drain-timeout': { type: 'duration', default: 2000, description: 'How long close() waits for connections to end before destroying them' },
};
