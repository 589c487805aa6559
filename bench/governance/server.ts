/**
 * The server under test for bench/governance, alone in its process: fw with a fan-out handler
 * (`/fw/bench`, as bench/fanout) and one agent (`writer`, a `lookup` tool) on the local
 * OpenAI-compatible model; governance `off` (no admin plane) or `on`: the admin plane with its
 * kill switch (armed for another agent, so every run's check does its work and lets it through)
 * and a policy file whose rules and budgets every model and tool call is checked against).
 *
 *   node bench/dist/governance/server.js off|on <model base URL> [<policy file>]
 */
import { Framework } from '@fw/runtime';
import { Agent, AgentTool, agentModuleOf, agents, mountAgent } from '@fw/agent';
import { admin } from '@fw/admin';
import { serveParent } from '../common/child.js';
import { nowUs } from '../common/clock.js';
import { encode } from '../fanout/message.js';

const mode = process.argv[2] as 'none' | 'off' | 'on';
const withAdmin = mode !== 'none';
const governed = mode === 'on';
const modelUrl = process.argv[3]!;
const policyFile = process.argv[4] ?? '';

@Agent({ name: 'writer', description: 'Looks a topic up, then answers', headless: true })
class Writer {
  @AgentTool({ description: 'Looks a topic up', input: { type: 'object', properties: { q: { type: 'string' } } } })
  lookup(input: { q?: string }): string {
    return `notes on ${input.q ?? 'nothing'}`;
  }
}

const fw = new Framework({
  configFile: false,
  'fw.heartbeat.interval': 0,
  'fw.connections.max-per-address': 0,
  'fw.data-dir': '',
  'fw.ai.auto': true,
  'fw.ai.base-url': modelUrl,
  'fw.ai.model': 'bench-model',
  ...(withAdmin ? { 'fw.admin.mcp-tools': false } : {}),
  ...(governed ? { 'fw.admin.governance.policy-file': policyFile } : {}),
});
await fw.use(agents());
mountAgent(fw, Writer);
if (withAdmin) await fw.use(admin());
fw.handle('/bench', {});
const { port } = await fw.listen(0, '127.0.0.1');
if (governed) {
  const res = await fetch(`http://127.0.0.1:${port}/api/admin/governance/kill-switch/arm`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ reason: 'bench: another agent is stopped', scope: 'someone-else' }),
  });
  if (!res.ok) throw new Error(`arming the kill switch failed: ${res.status} ${await res.text()}`);
}
const host = agentModuleOf(fw)!.host;

const cpuUs = (): number => {
  const c = process.cpuUsage();
  return c.user + c.system;
};

serveParent({
  cpu: () => ({ type: 'cpu', us: cpuUs() }),
  /** `count` messages, `perTick` per macrotask, as fast as the event loop turns (bench/fanout). */
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
  /** `runs` agent runs, `concurrency` at a time; each is two model calls and one tool call. */
  runs: async (m) => {
    const runs = m.runs as number;
    const concurrency = m.concurrency as number;
    const before = cpuUs();
    const t0 = nowUs();
    let next = 0;
    let failed = 0;
    const worker = async (): Promise<void> => {
      while (next < runs) {
        next++;
        const text = await host.run('writer', { message: 'what is fw?' }, new AbortController().signal).catch((e: unknown) => {
          failed++;
          return String(e);
        });
        if (!text.includes('framework')) failed++;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return { type: 'ran', cpuUs: cpuUs() - before, wallUs: nowUs() - t0, failed };
  },
  /**
   * Governance's own work for one run, timed alone: what the run hooks ask the policies (two
   * model calls, one tool call, the eight streamed parts the output rule reads), `iterations`
   * times, each as a run of its own (its own rate-limit window, as real runs are).
   */
  engine: (m) => {
    const engine = fw.services.get('admin')?.governance.policies;
    if (!engine) return { type: 'engine', usPerRun: 0 };
    const iterations = m.iterations as number;
    const words = ['fw ', 'is ', 'a ', 'framework ', 'for ', 'real-time ', 'and ', 'agents.'];
    const run = (i: number): void => {
      const base = { agent: 'writer', principal: undefined, runId: `bench-${i}` };
      engine.evaluate({ ...base, action: 'model_call', content: 'what is fw?' }, 'run');
      engine.evaluate({ ...base, action: 'tool_call', tool: 'lookup', arguments: { q: 'fw' } }, 'run');
      engine.evaluate({ ...base, action: 'model_call', content: 'what is fw?' }, 'run');
      const answer = { dryRun: new Set<string>() };
      let text = '';
      for (const w of words) engine.evaluate({ ...base, action: 'model_output', content: (text += w) }, 'run', answer);
    };
    for (let i = 0; i < 1000; i++) run(-i - 1); // warm-up
    const before = cpuUs();
    for (let i = 0; i < iterations; i++) run(i);
    return { type: 'engine', usPerRun: (cpuUs() - before) / iterations };
  },
  decisions: async () => {
    const service = fw.services.get('admin');
    return { type: 'decisions', logged: service ? service.governance.policies.decisions.size : 0 };
  },
});
process.send!({ type: 'ready', port });
