/**
 * Replay without a model: runs a taped run's agent again on its recorded input, with a model
 * provider that answers each model call with the recorded output of that turn (its text, tool
 * calls, finish and usage) instead of calling a model (`RunInput.provider`). The agent's own code
 * (its prompt handler, tool methods, everything between) runs for real, so a changed tool or
 * prompt handler shows as a divergence: a tool call with other arguments or another result, a
 * model call the tape has no answer for, a different answer or end.
 *
 * What a replay does not reproduce: a coordinator's dispatches to other agents run live (each a run
 * of its own, with the active provider); AG-UI state, forwarded props and client tools are not on
 * the tape.
 */
import { randomUUID } from 'node:crypto';
import { FwError, NotFoundError } from '@fw/runtime';
import type { AgentHost } from '../host.js';
import type { AiRequest, AiStreamPart, ModelProvider } from '../runtime/port.js';
import type { TapeReader } from './reader.js';
import type { TapeBodies, TapeStep } from './steps.js';

/** One tool call as the replay made it, beside the taped one at the same position. */
export interface ReplayedToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  ok: boolean;
  output: string;
}

/** Where the replay first went another way than the tape. */
export interface ReplayDivergence {
  /** `tool-call`: another tool, arguments or result; `model-call`: the agent asked the model for a turn the tape does not have, or ended before the tape's last; `end`: another answer or end state. */
  kind: 'tool-call' | 'model-call' | 'end';
  /** The tool call's position in the run (0 = the first), for `tool-call`. */
  index?: number;
  /** The model turn, for `model-call`. */
  step?: number;
  message: string;
  recorded: unknown;
  replayed: unknown;
}

export interface ReplayResult {
  /** The taped run that was replayed. */
  runId: string;
  /** The replay's own run (on the tape too, its `ref` is `replay:<runId>`). */
  replayRunId: string | null;
  agent: string;
  /** The model calls answered from the tape (the model itself got none). */
  modelCalls: number;
  recordedModelCalls: number;
  toolCalls: ReplayedToolCall[];
  recordedToolCalls: ReplayedToolCall[];
  state: 'completed' | 'failed' | 'cancelled';
  text: string | null;
  error: string | null;
  /** null when the replay did what the tape says. */
  divergence: ReplayDivergence | null;
}

/** Answers the model calls of a replay from the tape, in order; past the last, it refuses. */
class TapeProvider implements ModelProvider {
  readonly name = 'tape-replay';
  readonly priority = 0;
  readonly capabilities = ['streaming', 'tools'];
  readonly models: readonly string[];
  calls = 0;
  /** Set when the agent asked for a turn the tape has no answer for. */
  exhausted: number | undefined;

  constructor(private readonly responses: readonly TapeBodies['model-response'][]) {
    this.models = [responses[0]?.responseModel ?? 'tape'];
  }

  /** Model turns on the tape. */
  get recorded(): number {
    return this.responses.length;
  }

  isAvailable(): boolean {
    return true;
  }

  async *stream(_request: AiRequest): AsyncIterable<AiStreamPart> {
    const step = this.calls++;
    const r = this.responses[step];
    if (!r) {
      this.exhausted = step;
      throw new FwError('replay_diverged', `the replay asked for model turn ${step}, which the tape does not have`, 409);
    }
    if (r.error !== undefined) throw new Error(r.error);
    if (r.text) yield { type: 'text', delta: r.text };
    for (const c of r.toolCalls) yield { type: 'tool-call', toolCallId: c.toolCallId, toolName: c.toolName, input: c.input };
    yield {
      type: 'finish',
      reason: r.finishReason ?? 'stop',
      ...(r.usage ? { usage: r.usage } : {}),
      ...(r.responseModel ? { responseModel: r.responseModel } : {}),
    };
  }
}

/** Replays a taped run (see the file's comment); `signal` stops it. */
export async function replayRun(host: AgentHost, reader: TapeReader, runId: string, signal: AbortSignal): Promise<ReplayResult> {
  const run = await reader.run(runId);
  if (!run) throw new NotFoundError('run', runId);
  if (run.status === 'open') throw new FwError('run_open', 'the run is still recording; replay it once it has ended', 409);
  host.get(run.agent);
  const steps = await reader.steps(runId);
  const input = find(steps, 'input');
  if (!input) throw new FwError('run_not_replayable', 'the tape has no input for this run', 409);
  const responses = steps.filter((s) => s.kind === 'model-response').map((s) => s.body as TapeBodies['model-response']);
  const recordedToolCalls = steps.filter((s) => s.kind === 'tool-call').map((s) => ({ ...(s.body as TapeBodies['tool-call']) }));
  const recordedEnd = find(steps, 'end');
  const provider = new TapeProvider(responses);

  // The replay's own run is told apart by its ref; the hook sees only its tool calls.
  const ref = `replay:${runId}:${randomUUID()}`;
  const toolCalls: ReplayedToolCall[] = [];
  let replayRunId: string | null = null;
  const off = host.hooks.add({
    name: 'replay',
    runStarted: (scope) => {
      if (scope.ref === ref) replayRunId = scope.runId;
    },
    afterToolCall: (scope, call, result) => {
      if (scope.ref === ref)
        toolCalls.push({ toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, ok: result.ok, output: result.text });
    },
  });
  let state: ReplayResult['state'] = 'completed';
  let text: string | null = null;
  let error: string | null = null;
  try {
    text = await host.run(run.agent, { message: input.message, history: input.history, ref, provider }, signal);
  } catch (err) {
    state = signal.aborted ? 'cancelled' : 'failed';
    error = (err as Error)?.message ?? String(err);
  } finally {
    off();
  }
  return {
    runId,
    replayRunId,
    agent: run.agent,
    modelCalls: provider.calls,
    recordedModelCalls: responses.length,
    toolCalls,
    recordedToolCalls,
    state,
    text,
    error,
    divergence: divergenceOf(recordedToolCalls, toolCalls, provider, recordedEnd, { state, text, error }),
  };
}

function find<K extends 'input' | 'end'>(steps: TapeStep[], kind: K): TapeBodies[K] | undefined {
  return steps.find((s) => s.kind === kind)?.body as TapeBodies[K] | undefined;
}

/** The first place the replay differs from the tape, in the order the run went. */
function divergenceOf(
  recorded: readonly ReplayedToolCall[],
  replayed: readonly ReplayedToolCall[],
  provider: TapeProvider,
  recordedEnd: TapeBodies['end'] | undefined,
  end: { state: string; text: string | null; error: string | null },
): ReplayDivergence | null {
  const n = Math.max(recorded.length, replayed.length);
  for (let i = 0; i < n; i++) {
    const a = recorded[i];
    const b = replayed[i];
    const what = !a
      ? 'a tool call the tape does not have'
      : !b
        ? 'no call where the tape has one'
        : a.toolName !== b.toolName
          ? 'another tool'
          : JSON.stringify(a.input) !== JSON.stringify(b.input)
            ? 'other arguments'
            : a.ok !== b.ok || a.output !== b.output
              ? 'another result'
              : undefined;
    if (what)
      return {
        kind: 'tool-call',
        index: i,
        message: `tool call ${i}${a ? ` (${a.toolName})` : b ? ` (${b.toolName})` : ''}: ${what}`,
        recorded: a ?? null,
        replayed: b ?? null,
      };
  }
  if (provider.exhausted !== undefined)
    return {
      kind: 'model-call',
      step: provider.exhausted,
      message: `the agent asked for model turn ${provider.exhausted}; the tape has ${provider.exhausted}`,
      recorded: null,
      replayed: null,
    };
  if (provider.calls < provider.recorded && end.state === 'completed')
    return {
      kind: 'model-call',
      step: provider.calls,
      message: `the agent ended after ${provider.calls} model turns; the tape has ${provider.recorded}`,
      recorded: null,
      replayed: null,
    };
  if (recordedEnd) {
    const same = recordedEnd.state === end.state && (end.state === 'completed' ? (recordedEnd.text ?? '') === (end.text ?? '') : true);
    if (!same)
      return {
        kind: 'end',
        message: `the run ended ${end.state}; the tape says ${recordedEnd.state}`,
        recorded: recordedEnd,
        replayed: {
          state: end.state,
          ...(end.text !== null ? { text: end.text } : {}),
          ...(end.error !== null ? { error: end.error } : {}),
        },
      };
  }
  return null;
}
