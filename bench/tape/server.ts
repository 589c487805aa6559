/**
 * The server under test for bench/tape, alone in its process: fw with the agent module, one
 * model-backed agent with a tool (`surveyor`, chat over WebSocket at /fw/agent/surveyor), its
 * model the local server of model-server.ts, its store the embedded default (a SQLite file in a
 * data directory made for the run), and the run tape on or off (`fw.agent.tape.enabled`).
 *
 *   node bench/dist/tape/server.js on|off <model base URL> <data dir> <port>
 *
 * `cpu` first waits for the store's write queue, so that the tape's deferred writes of the
 * turns just run are in the CPU they report, then answers the process's CPU time (user +
 * system, every thread: libSQL's included); `tape` answers the newest run on the tape and how many runs completed on it.
 */
import { Framework } from '@fw/runtime';
import { Agent, AgentModule, AgentTool } from '@fw/agent';
import { serveParent } from '../common/child.js';

const [, , side, modelUrl, dataDir, port] = process.argv;

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
  'fw.agent.tape.enabled': side === 'on',
});
await fw.use(module);
await fw.listen(Number(port), '127.0.0.1');

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
});
process.send!({ type: 'ready' });
