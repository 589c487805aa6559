/**
 * The server under test of bench/durability, one child process per run: fw with the agent module
 * and an echoing model (no model time: what is measured is fw and its store), on loopback. The fw
 * it runs is the one built under FW_BENCH_ROOT (default: this checkout), so the same bench drives
 * an older build (`--baseline <dir>`: fire-and-forget writes) and this one in one run. The store is
 * a SQLite file in FW_BENCH_DATA_DIR or PostgreSQL at FW_BENCH_POSTGRES_URL. Tells its parent
 * `{type: 'ready', port}`; exits on SIGTERM or when the parent goes away.
 */
import { resolve } from 'node:path';

const root = resolve(process.env.FW_BENCH_ROOT ?? new URL('../../..', import.meta.url).pathname);
const runtime = (await import(`${root}/packages/runtime/dist/index.js`)) as typeof import('@fw/runtime');
const agent = (await import(`${root}/packages/agent/dist/index.js`)) as typeof import('@fw/agent');

/** Answers every prompt at once with its own text: fw's and the store's cost is what remains. */
const echo = {
  name: 'echo',
  priority: 5,
  capabilities: ['streaming'],
  models: ['echo-1'],
  isAvailable: () => true,
  async *stream(request: { messages: { content: unknown }[] }) {
    yield { type: 'text' as const, delta: `echo: ${String(request.messages[request.messages.length - 1]?.content ?? '')}` };
    yield { type: 'finish' as const, reason: 'stop' };
  },
};

class Keeper {}
agent.Agent({ name: 'keeper', description: 'echoes' })(Keeper);

const postgres = process.env.FW_BENCH_POSTGRES_URL;
const fw = new runtime.Framework({
  configFile: false,
  env: {},
  'fw.ai.auto': false,
  'fw.log.level': 'error',
  ...(postgres ? { 'fw.store.postgres-url': postgres } : { 'fw.data-dir': process.env.FW_BENCH_DATA_DIR ?? '' }),
  'fw.agent.prompts.per-minute': 10_000_000,
  'fw.agent.prompts.burst': 10_000_000,
  'fw.agent.sessions.max': 100_000,
  'fw.agent.tasks.max': 1_000_000,
  'fw.agent.tasks.max-per-address': 0,
  'fw.store.budget': 0,
  'fw.store.min-free-disk': 0,
} as ConstructorParameters<typeof runtime.Framework>[0]);
const module = new agent.AgentModule({ providers: [echo as never] });
await fw.use(module);
module.mount(Keeper);
const addr = await fw.listen(0, '127.0.0.1');
process.send?.({ type: 'ready', port: addr.port });
// The bench stops it with SIGTERM (or by going away).
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
