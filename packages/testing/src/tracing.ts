/**
 * An in-memory OpenTelemetry setup for fw's tracing tests, shared by every package's suite:
 * `import { registerTracing } from '@fw/testing/tracing'` (a subpath, so the main entry needs no SDK).
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

/**
 * What an application's OpenTelemetry setup does (NodeSDK registers the same three globals), with
 * an in-memory exporter: each span is there as soon as it ends.
 */
export function registerTracing(): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return exporter;
}

/** The finished span of that name (the last one when several), failing when there is none. */
export function spanNamed(exporter: InMemorySpanExporter, name: string): ReadableSpan {
  const span = exporter
    .getFinishedSpans()
    .filter((s) => s.name === name)
    .at(-1);
  if (!span)
    throw new Error(
      `no span '${name}'; finished: ${exporter
        .getFinishedSpans()
        .map((s) => s.name)
        .join(', ')}`,
    );
  return span;
}

/** The id of a span's parent (sdk-trace-base 2.x keeps it in `parentSpanContext`). */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
