/**
 * The server under test for bench/admin-overhead, alone in its process: fw with one handler
 * (`/fw/bench`) and the admin plane on or off. Same IPC protocol as bench/fanout/server.ts
 * (`publish`, `cpu`, `connections`), plus `admin` for the admin plane's event-stream counters.
 * `traces` registers an OpenTelemetry SDK first, as an application would (a tracer provider with
 * a batch processor, the AsyncLocalStorage context manager, the W3C propagator), exporting to
 * nowhere: what tracing costs fw is then in the measurement, not the exporter's I/O.
 *
 *   node bench/dist/admin-overhead/server.js on|off [traces]
 */
import { Framework } from '@fw/runtime';
import { admin } from '@fw/admin';
import { serveParent } from '../common/child.js';
import { nowUs } from '../common/clock.js';
import { encode } from '../fanout/message.js';

const withAdmin = process.argv[2] === 'on';
if (process.argv[3] === 'traces') {
  const { context, propagation, trace } = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
  const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const exporter = { export: (_spans: unknown[], done: (r: { code: 0 }) => void) => done({ code: 0 }), shutdown: async () => undefined };
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] }));
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}
// Every consumer connects from loopback: no per-address share (fw.connections.max-per-address).
const fw = new Framework({
  configFile: false,
  'fw.heartbeat.interval': 0,
  'fw.connections.max-per-address': 0,
  ...(withAdmin ? { 'fw.admin.mcp-tools': false } : {}),
});
if (withAdmin) await fw.use(admin());
fw.handle('/bench', {});
const { port } = await fw.listen(0, '127.0.0.1');

serveParent({
  connections: () => ({ type: 'connections', connections: fw.resources.size }),
  cpu: () => {
    const c = process.cpuUsage();
    return { type: 'cpu', us: c.user + c.system };
  },
  admin: () => ({ type: 'admin', stats: fw.services.get('admin')?.events.stats() ?? null, runtime: fw.runtime.stats() }),
  /** `count` messages, `perTick` per macrotask, as fast as the event loop turns. */
  publish: async (m) => {
    const phase = m.phase as number;
    const count = m.count as number;
    const perTick = m.perTick as number;
    const startUs = nowUs();
    for (let seq = 0; seq < count; ) {
      for (const end = Math.min(count, seq + perTick); seq < end; seq++)
        fw.broadcasters.lookup('/fw/bench')?.broadcast(encode(phase, seq, nowUs()));
      await new Promise((r) => setImmediate(r));
    }
    return { type: 'published', startUs, endUs: nowUs() };
  },
});
process.send!({ type: 'ready', port });
