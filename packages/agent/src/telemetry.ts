/**
 * The agent's spans, in the OpenTelemetry GenAI semantic conventions (development status, as of
 * semconv 1.37+: `gen_ai.provider.name` replaced `gen_ai.system`): `invoke_agent {agent}` for a
 * run, `chat {model}` for each model turn, `execute_tool {tool}` for each tool the agent runs.
 * Prompts and completions are not recorded (they are the users' data; the conventions make them
 * opt-in). Each of them carries the run's id (`fw.run.id`, the run tape's key, docs/runs.md), so a
 * tracing backend links a trace to the run's tape and the tape to its trace.
 */
import { failSpan, fwTracer, SpanKind, type Span } from '@fw/runtime';
import type { AiStreamPart, ModelProvider } from './runtime/port.js';

/** The attribute naming the run a span belongs to: its id on the run tape (`/api/admin/tape/runs/{runId}`). */
export const RUN_ID_ATTRIBUTE = 'fw.run.id';

/** `gen_ai.provider.name` of a model provider. */
export function providerOf(provider: ModelProvider): string {
  return provider.providerName ?? provider.name;
}

/** Starts the span of one model turn under the active context (the run's span); the caller ends it. */
export function startModelSpan(provider: ModelProvider, model: string | undefined, runId: string | undefined): Span {
  return fwTracer.startSpan(model ? `chat ${model}` : 'chat', {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': providerOf(provider),
      ...(model ? { 'gen_ai.request.model': model } : {}),
      ...(runId ? { [RUN_ID_ATTRIBUTE]: runId } : {}),
    },
  });
}

/** Records what the provider said about the turn at its end. */
export function recordFinish(span: Span, part: Extract<AiStreamPart, { type: 'finish' }>): void {
  span.setAttribute('gen_ai.response.finish_reasons', [part.reason]);
  if (part.responseModel) span.setAttribute('gen_ai.response.model', part.responseModel);
  if (part.usage?.inputTokens !== undefined) span.setAttribute('gen_ai.usage.input_tokens', part.usage.inputTokens);
  if (part.usage?.outputTokens !== undefined) span.setAttribute('gen_ai.usage.output_tokens', part.usage.outputTokens);
}

/** A model turn that failed or was cancelled. */
export function failModelSpan(span: Span, err: unknown, cancelled: boolean): void {
  failSpan(span, err, cancelled ? 'cancelled' : undefined);
}
