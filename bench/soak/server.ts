/**
 * The server under test for bench/soak, alone in its process: fw with the agent module on an
 * embedded SQLite data directory (`fw.data-dir` = argv[2]), every store setting at its default
 * unless the environment says otherwise (FW_STORE_BUDGET, FW_STORE_RETENTION_INTERVAL, …: fw's
 * usual configuration). Agents: `soak` (chat, A2A, AG-UI) and the coordinator `lead`, which
 * dispatches to `soak` twice per run (journal events, more runs). The model is the offline
 * provider (it echoes the prompt), so what grows is what a real client can make grow.
 *
 * IPC (bench/common/child.ts): `stats` answers the store's measurement, the budget's state, rows
 * per table, what retention deleted, its longest transaction, and the event loop's longest stall
 * since the last `stats`.
 *
 *   node bench/dist/soak/server.js <data-dir>
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Framework } from '@fw/runtime';
import { Agent, Coordinator, OnPrompt, agents, type CoordinatorContext } from '@fw/agent';
import { PRUNED_TABLES, type FwStore } from '@fw/store';
import { serveParent } from '../common/child.js';

@Agent({ name: 'soak', description: 'Echoes through the offline model' })
class SoakAgent {}

@Coordinator({ name: 'lead', description: 'Dispatches to soak twice', fleet: ['soak'] })
class Lead {
  @OnPrompt()
  async prompt(message: string, ctx: CoordinatorContext): Promise<string> {
    const first = await ctx.dispatch('soak', message, { skill: 'first' });
    ctx.handoff('soak', 'soak', 'again');
    const second = await ctx.dispatch('soak', first.text.slice(0, 200), { skill: 'second' });
    ctx.evaluate('soak', { evaluator: 'lead', score: 1, passed: true });
    return second.text;
  }
}

const dir = process.argv[2];
if (!dir) throw new Error('usage: server.js <data-dir>');
const fw = new Framework({ configFile: false, 'fw.data-dir': dir, 'fw.ai.auto': false, 'fw.heartbeat.interval': 0 });
const module = agents({ agents: [SoakAgent, Lead] });
await fw.use(module);
const { port } = await fw.listen(0, '127.0.0.1');
const store = module.db as FwStore;
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();

async function rows(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of [...PRUNED_TABLES, 'fw_admin_audit'] as const) {
    const r = await store.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    out[table] = Number(r?.n ?? 0);
  }
  return out;
}

serveParent({
  stats: async () => {
    const c = store.retention.counters;
    const stallMs = loop.max / 1e6;
    loop.reset();
    return {
      type: 'stats',
      size: store.budget.state().size ?? null,
      refusing: store.budget.state().refusing ?? null,
      refusals: store.budget.refusals,
      rows: await rows(),
      pruned: Object.fromEntries(c.pruned),
      passes: c.passes,
      transactions: c.transactions,
      longestTransactionMs: c.longestTransactionMs,
      longestReclaimStepMs: c.longestReclaimStepMs,
      reclaimedBytes: c.reclaimedBytes,
      lastPass: store.retention.last ?? null,
      stallMs,
      rss: process.memoryUsage().rss,
    };
  },
});
process.send!({ type: 'ready', port });
