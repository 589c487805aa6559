import type { Principal } from '@fw/runtime';
import type { LogLevel } from '../context.js';
import { McpError, RpcCode } from '../errors.js';
import { McpSession, type Sink } from '../protocol/session.js';
import { InputRequiredSignal, requireCapability, type InputRequest } from './input.js';

/**
 * The per-request stand-in for a session under 2026-07-28: it lives for one request, holds what
 * that request's `_meta` declared (version, capabilities, client, log level) and the input
 * answers it carries, and is never registered with the endpoint — no session id is minted. The
 * dispatcher and every handler see the same `McpSession` shape in both eras.
 */
export class StatelessSession extends McpSession {
  /** Undefined when the request set no `io.modelcontextprotocol/logLevel`: then no logs at all (basic/index RequestMetaObject). */
  readonly requestLogLevel: LogLevel | undefined;
  /** Answers of earlier rounds (from a verified requestState) merged with this round's `inputResponses`. */
  answers: Record<string, Record<string, unknown>> = {};

  constructor(
    server: string,
    transport: 'streamable-http' | 'websocket',
    principal: Principal | undefined,
    sink: Sink,
    init: {
      protocolVersion: string;
      clientCapabilities: Record<string, unknown>;
      clientInfo: { name: string; version: string } | undefined;
      logLevel: LogLevel | undefined;
    },
    clientAddress?: string,
  ) {
    super(server, transport, principal, sink, clientAddress);
    this.protocolVersion = init.protocolVersion;
    this.clientCapabilities = init.clientCapabilities;
    this.clientInfo = init.clientInfo;
    this.initialized = true;
    this.requestLogLevel = init.logLevel;
    if (init.logLevel) this.logLevel = init.logLevel;
  }

  /** 2026-07-28 forbids server-to-client requests: input travels in `input_required` results. */
  override request(method: string): Promise<Record<string, unknown>> {
    return Promise.reject(
      new McpError(
        RpcCode.MethodNotFound,
        'mcp_no_client_requests',
        `protocol ${this.protocolVersion} has no server-to-client requests (${method}); use ctx.input()`,
      ),
    );
  }

  /** The answer for `key`, or the signal that asks the client for it (after the capability check). */
  answer(key: string, request: InputRequest): Record<string, unknown> {
    const found = this.answers[key];
    if (found) return found;
    requireCapability(this.clientCapabilities, request.method);
    throw new InputRequiredSignal({ [key]: request });
  }

  /** All answers, or one signal asking for every missing one at once. */
  answerAll(requests: Record<string, InputRequest>): Record<string, Record<string, unknown>> {
    const missing: Record<string, InputRequest> = {};
    const out: Record<string, Record<string, unknown>> = {};
    for (const [key, request] of Object.entries(requests)) {
      const found = this.answers[key];
      if (found) out[key] = found;
      else {
        requireCapability(this.clientCapabilities, request.method);
        missing[key] = request;
      }
    }
    if (Object.keys(missing).length > 0) throw new InputRequiredSignal(missing);
    return out;
  }
}
