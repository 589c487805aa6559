/**
 * The server under test for bench/tape, alone in its process: fw with the agent module, one
 * model-backed agent with a tool (`surveyor`, chat over WebSocket at /fw/agent/surveyor), its
 * model the local server of model-server.ts, its store the embedded default (a SQLite file in a
 * data directory made for the run), and the run tape on or off (`fw.agent.tape.enabled`).
 *
 *   node bench/dist/tape/server.js on|off <model base URL> <data dir> <port> [tape|budgets]
 *
 * `budgets` compares governance instead (issue 26, item 3: ≤ 2 % per model call): the tape is off
 * on both sides, `on` installs the admin plane with a price table and budgets of every scope
 * (limits never reached, so every check runs and nothing is refused), `off` installs no admin
 * plane. `spend` answers what the `on` side counted; `hooks-cpu` then runs synthetic model calls
 * through the budget hooks alone and answers their CPU per call.
 *
 * `cpu` first waits for the store's write queue, so that the tape's deferred writes of the
 * turns just run are in the CPU they report, then answers the process's CPU time (user +
 * system, every thread: libSQL's included); `tape` answers the newest run on the tape and how many runs completed on it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Framework } from '@fw/runtime';
import { Agent, AgentModule, AgentTool, type RunHooks, type RunScope } from '@fw/agent';
import { admin, type AdminService } from '@fw/admin';
import { serveParent } from '../common/child.js';

const [, , side, modelUrl, dataDir, port, compare = 'tape'] = process.argv;
const budgets = compare === 'budgets';
const governed = budgets && side === 'on';

@Agent({ name: 'surveyor', description: 'Measures things with a tool, then answers' })
class Surveyor {
  @AgentTool({ description: 'Measures a thing', input: { type: 'object', properties: { thing: { type: 'string' } }, required: ['thing'] } })
  measure(input: { thing: string }): string {
    return `${input.thing}: ${input.thing.length} m`;
  }
}

const module = new AgentModule({ agents: [Surveyor] });
const fw = new Framework({
  configFile: false,
  env: {},
  'fw.data-dir': dataDir,
  'fw.log.level': 'warn',
  'fw.heartbeat.interval': 0,
  'fw.connections.max-per-address': 0,
  // Every client is one loopback caller: no prompt rate limit (it would pace the bench, not fw).
  'fw.agent.prompts.per-minute': 0,
  'fw.ai.auto': true,
  'fw.ai.base-url': modelUrl,
  'fw.ai.model': 'bench-model',
  'fw.agent.tape.enabled': !budgets && side === 'on',
  ...(governed ? governance() : {}),
});
await fw.use(module);
if (governed) await fw.use(admin());
await fw.listen(Number(port), '127.0.0.1');

/** A price for the bench model and budgets of every scope, far from their limits. */
function governance(): Record<string, unknown> {
  const file = join(dataDir!, 'policies.json');
  writeFileSync(
    file,
    JSON.stringify({
      policies: [],
      budgets: [
        { id: 'per-run', scope: 'run', soft: { tokens: 1e9 }, hard: { tokens: 1e10 } },
        { id: 'surveyor-daily', scope: 'agent', key: 'surveyor', soft: { tokens: 1e10 }, hard: { tokens: 1e11, usd: 1e6 } },
        { id: 'each-principal', scope: 'principal', hard: { usd: 1e6 } },
      ],
    }),
  );
  return {
    'fw.admin.governance.policy-file': file,
    'fw.agent.prices': JSON.stringify({ 'bench-*': { input: 0.15, output: 0.6, cached: 0.075 } }),
  };
}

/**
 * The budget hooks alone, on this idle process after the rounds: `runs` synthetic runs of two
 * model calls, each answer streamed in `parts` pieces, through the governed server's own hooks
 * object (its ledger, budgets and price table), timed by the process's CPU time. Returns CPU µs
 * per model call.
 */
async function hooksCpu(hooks: RunHooks, runs: number, parts: number): Promise<number> {
  const request = { messages: [{ role: 'user' as const, content: 'which is longer, the rope or the pole?' }] };
  const signal = new AbortController().signal;
  const before = process.cpuUsage();
  for (let i = 0; i < runs; i++) {
    const run: RunScope = {
      runId: `micro-${i}`,
      agent: 'surveyor',
      protocol: 'chat',
      ref: undefined,
      owner: 'principal:bench',
      principalId: 'bench',
      parentRunId: undefined,
      coordinationId: undefined,
      sessionId: undefined,
      startedAt: Date.now(),
      signal,
      abort: () => undefined,
      warn: () => undefined,
      notify: () => undefined,
    };
    for (let step = 0; step < 2; step++) {
      const call = { step, provider: 'openai-compatible', model: 'bench-model', request };
      await hooks.beforeModelCall?.(run, call);
      for (let k = 0; k < parts; k++) hooks.modelPart?.(run, call, { type: 'text', delta: `word${k} ` });
      hooks.afterModelCall?.(run, call, {
        text: ANSWER,
        toolCalls: [],
        usage: { inputTokens: 120, outputTokens: 80 },
        responseModel: 'bench-model',
        finishReason: 'stop',
        durationMs: 1,
      });
    }
    await hooks.runEnded?.(run, { state: 'completed', durationMs: 1 });
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / (2 * runs);
}

const ANSWER = Array.from({ length: 40 }, (_, i) => `word${i} `).join('');

serveParent({
  cpu: async () => {
    await module.db.writes.flush();
    const c = process.cpuUsage();
    return { type: 'cpu', us: c.user + c.system };
  },
  /** After the measurement: the newest run on the tape (status, steps), so the bench knows recording happened. */
  tape: async () => {
    const [run] = module.tape ? await module.tape.runs({ agent: 'surveyor', limit: 1 }) : [];
    const completed = await module.db.db
      .selectFrom('fw_tape_runs')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('status', '=', 'completed')
      .executeTakeFirst();
    return { type: 'tape', status: run?.status ?? null, steps: run?.steps ?? 0, completed: Number(completed?.n ?? 0) };
  },
  /** budgets mode: what the governed side counted today, and the time spent in the budget hooks. */
  spend: async () => {
    const service = fw.services.get('admin') as AdminService | undefined;
    if (!service) return { type: 'spend', calls: 0, costUsd: 0 };
    const report = await service.governance.budgets.spend('agent', new Date(Date.now() - 86_400_000));
    return { type: 'spend', calls: report.total.calls, costUsd: report.total.costUsd };
  },
  /** budgets mode, after `spend`: the budget hooks' own CPU per model call (synthetic runs, `runs` of them). */
  'hooks-cpu': async (message) => {
    const service = fw.services.get('admin') as AdminService;
    return { type: 'hooks-cpu', us: await hooksCpu(service.governance.budgets.hooks, Number(message.runs ?? 5000), 40) };
  },
});
process.send!({ type: 'ready' });
