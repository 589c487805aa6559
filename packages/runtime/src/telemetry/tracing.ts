/**
 * OpenTelemetry traces through `@opentelemetry/api` only: the application registers an SDK (and a
 * context manager and the W3C propagator, as `NodeSDK` does) and fw's spans go to it; without one
 * the api's no-op tracer makes every span a shared non-recording object. See docs/operations.md,
 * *Tracing*, for the span names and attributes.
 */
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
  type Tracer,
} from '@opentelemetry/api';

const VERSION = (createRequire(import.meta.url)('@fw/runtime/package.json') as { version: string }).version;

/**
 * fw's tracer (instrumentation scope `fw`), taken once: the api hands out a proxy that follows an
 * SDK registered later, so no call re-resolves the global provider.
 */
export const fwTracer: Tracer = trace.getTracer('fw', VERSION);

export { SpanKind, SpanStatusCode, type Attributes, type Span };

/** Reads W3C trace context from a carrier of string or string-list values (Node's request headers, MCP `_meta`). */
export const headerGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
    return undefined;
  },
};

/**
 * The context a request to an fw route runs in: the trace its `traceparent` header names, unless
 * a span is already active (an HTTP instrumentation's server span for this request is the better
 * parent). Undefined when there is nothing to continue, so the common case costs one header read.
 */
export function incomingContext(req: IncomingMessage): Context | undefined {
  if (req.headers.traceparent === undefined) return undefined;
  const active = context.active();
  if (trace.getSpan(active)) return undefined;
  return propagation.extract(active, req.headers, headerGetter);
}

/** Runs `fn` in `ctx` when there is one. */
export function withContext<T>(ctx: Context | undefined, fn: () => T): T {
  return ctx ? context.with(ctx, fn) : fn();
}

/** Marks a span failed: `error.type`, the exception event, status ERROR with a short message. */
export function failSpan(span: Span, err: unknown, type?: string): void {
  const e = err instanceof Error ? err : new Error(String(err));
  span.setAttribute('error.type', type ?? ((e as { code?: unknown }).code !== undefined ? String((e as { code?: unknown }).code) : e.name));
  span.recordException(e);
  span.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
}

export interface TracedOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent context; default the active one. */
  parent?: Context;
  /** `error.type` for a thrown error (default its `code`, else its name); return undefined for the default. */
  errorType?: (err: unknown) => string | undefined;
}

/**
 * Runs `fn` in a new active span (its children nest under it) and ends the span when `fn`
 * settles; a throw marks it failed and is rethrown.
 */
export async function traced<T>(name: string, options: TracedOptions, fn: (span: Span) => Promise<T> | T): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = fwTracer.startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    failSpan(span, err, options.errorType?.(err));
    throw err;
  } finally {
    span.end();
  }
}

/** The context `carrier` (an MCP request's `params._meta`) names with W3C trace context, or undefined. */
export function carriedContext(carrier: unknown): Context | undefined {
  if (carrier === null || typeof carrier !== 'object' || typeof (carrier as { traceparent?: unknown }).traceparent !== 'string')
    return undefined;
  return propagation.extract(context.active(), carrier as Record<string, unknown>, headerGetter);
}
