import { McpError } from '../errors.js';
import { ModernCode } from './era.js';

/** A request the server needs the client to answer: `sampling/createMessage`, `elicitation/create` or `roots/list`. */
export interface InputRequest {
  method: string;
  params?: Record<string, unknown> | undefined;
}

/** The client capability each input request needs (2026-07-28 schema: InputRequest). */
const CAPABILITY_OF: Record<string, string> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/**
 * Thrown through a handler under 2026-07-28 when it asks for input the client has not supplied
 * yet; the dispatcher turns it into an `InputRequiredResult`. Handlers must let it pass (do not
 * swallow errors you did not expect).
 */
export class InputRequiredSignal extends Error {
  constructor(readonly requests: Record<string, InputRequest>) {
    super('input required');
    this.name = 'InputRequiredSignal';
  }
}

/** `-32021`: the request needs a client capability the client did not declare. */
export class MissingClientCapabilityError extends McpError {
  constructor(capability: string, method: string) {
    super(
      ModernCode.MissingRequiredClientCapability,
      'mcp_missing_client_capability',
      `this request needs the client capability '${capability}' (for ${method}), which the client did not declare`,
      { requiredCapabilities: { [capability]: {} } },
    );
  }
}

/** Throws -32021 when `method` needs a capability missing from `capabilities`; -32602 for unknown input methods. */
export function requireCapability(capabilities: Record<string, unknown>, method: string): void {
  const capability = CAPABILITY_OF[method];
  if (!capability)
    throw new McpError(
      -32602,
      'mcp_invalid_input_request',
      `'${method}' cannot be asked of a client (sampling/createMessage, elicitation/create, roots/list)`,
    );
  if (capabilities[capability] === undefined || capabilities[capability] === null)
    throw new MissingClientCapabilityError(capability, method);
}
