/**
 * Live re-run and compare in the agent layer (docs/runs.md, "Re-run and compare"): a re-run sends
 * the taped input (message and history) to the live model as a new run whose parent is the
 * original; the comparison pairs steps by position and sets aside what changes by nature (tool
 * call ids, usage, provider and model), not what the agent or the model said (a tool's arguments,
 * even a field of them named `model`); a run refused before it starts is the caller's error and
 * gives its share back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Framework } from '@fw/runtime';
import { Agent, AgentModule, AgentTool, type AiRequest, type AiStreamPart, type ModelProvider } from '../dist/index.js';

@Agent({ name: 'pricer', headless: true })
class Pricer {
  @AgentTool({
    description: 'Prices a car',
    input: { type: 'object', properties: { model: { type: 'string' } }, required: ['model'] },
  })
  price(input: { model: string }): string {
    return `${input.model}: 100`;
  }
}

/** Calls `price` once with a fresh call id and other usage each time, then answers; `car` is what it asks about. */
class Live implements ModelProvider {
  readonly name = 'live';
  readonly priority = 5;
  readonly capabilities = ['streaming', 'tools'];
  readonly models = ['live-1'];
  car = 'mini';
  requests: AiRequest[] = [];
  isAvailable(): boolean {
    return true;
  }
  async *stream(request: AiRequest): AsyncIterable<AiStreamPart> {
    this.requests.push({ ...request, messages: [...request.messages] }); // the host goes on adding to its array
    if (!request.messages.some((m) => m.role === 'tool')) {
      yield { type: 'tool-call', toolCallId: randomUUID(), toolName: 'price', input: { model: this.car } };
      yield { type: 'finish', reason: 'tool-calls', usage: { inputTokens: Math.floor(Math.random() * 100), outputTokens: 3 } };
      return;
    }
    yield { type: 'text', delta: 'Priced.' };
    yield { type: 'finish', reason: 'stop', usage: { inputTokens: Math.floor(Math.random() * 100), outputTokens: 1 } };
  }
}

async function start() {
  const fw = new Framework({ configFile: false, env: {}, 'fw.data-dir': '', 'fw.ai.auto': false });
  const model = new Live();
  const module = new AgentModule({ agents: [Pricer], providers: [model] });
  await fw.use(module);
  const ended: { runId: string; state: string }[] = [];
  fw.events.on('RunRerunEnded', (e) => ended.push(e));
  return { fw, module, model, ended, tape: module.tape! };
}

async function rerunAndWait(app: Awaited<ReturnType<typeof start>>, runId: string, owner?: string): Promise<string> {
  const { runId: id } = await app.tape.rerun(runId, owner ? { owner } : {});
  while (!app.ended.some((e) => e.runId === id)) await new Promise((r) => setTimeout(r, 5));
  return id;
}

test('a re-run sends the taped message and history to the live model as a child run; same steps compare the same despite new call ids and usage', async () => {
  const app = await start();
  try {
    const history = [
      { role: 'user' as const, content: 'earlier question' },
      { role: 'assistant' as const, content: 'earlier answer' },
    ];
    await app.module.host.run('pricer', { message: 'price it', history }, new AbortController().signal);
    const [original] = await app.tape.runs({ agent: 'pricer' });
    const before = app.model.requests.length;

    const id = await rerunAndWait(app, original!.id, 'principal:otto');
    const first = app.model.requests[before]!;
    assert.deepEqual(
      first.messages.map((m) => [m.role, m.content]),
      [...history.map((m) => [m.role, m.content]), ['user', 'price it']],
      'the live model got the taped history and message',
    );
    const rerun = await app.tape.run(id);
    assert.deepEqual([rerun?.parentRunId, rerun?.principal, rerun?.status], [original!.id, 'otto', 'completed']);
    assert.match(rerun!.ref!, new RegExp(`^rerun:${original!.id}:`));

    const same = await app.tape.compare(original!.id, id);
    assert.equal(same.same, true, JSON.stringify(same.steps.filter((s) => s.differs)));
    assert.deepEqual(
      same.steps.map((s) => s.kind),
      ['input', 'model-request', 'model-response', 'tool-call', 'model-request', 'model-response', 'end'],
    );
    // The call ids did differ: set aside, not equal.
    const ids = same.steps
      .filter((s) => s.kind === 'tool-call')
      .map((s) => [(s.left as { toolCallId: string }).toolCallId, (s.right as { toolCallId: string }).toolCallId]);
    assert.notEqual(ids[0]![0], ids[0]![1]);
    assert.equal(same.summary.sameAnswer, true);

    // Another argument (in a field named `model`, which is not the request's model): those steps differ.
    app.model.car = 'van';
    const other = await rerunAndWait(app, original!.id);
    const cmp = await app.tape.compare(original!.id, other);
    assert.equal(cmp.same, false);
    assert.deepEqual(
      cmp.steps.filter((s) => s.differs).map((s) => s.kind),
      ['model-response', 'tool-call', 'model-request'],
    );
    assert.equal(cmp.summary.firstDifference, 2);
    assert.equal(cmp.summary.sameAnswer, true, 'the answer text is the same');
  } finally {
    await app.fw.close();
  }
});

test('a re-run refused before it starts is the caller’s error and gives the share back; an unknown run is 404', async () => {
  const app = await start();
  try {
    await app.module.host.run('pricer', { message: 'price it' }, new AbortController().signal);
    const [original] = await app.tape.runs({ agent: 'pricer' });
    await assert.rejects(app.tape.rerun('nope', {}), (err: { status?: number }) => err.status === 404);
    await assert.rejects(app.tape.compare(original!.id, 'nope'), (err: { status?: number }) => err.status === 404);

    // A hook that refuses every run (as a kill switch does): the caller gets the refusal.
    const off = app.module.host.hooks.add({
      name: 'refuse',
      runStarted: () => {
        throw Object.assign(new Error('refused by policy'), { status: 503 });
      },
    });
    await assert.rejects(app.tape.rerun(original!.id, { owner: 'principal:otto' }), /refused by policy/);
    off();
    // The share came back: the same caller may re-run at once (per-caller limit 1).
    const id = await rerunAndWait(app, original!.id, 'principal:otto');
    assert.equal((await app.tape.run(id))?.status, 'completed');
  } finally {
    await app.fw.close();
  }
});
