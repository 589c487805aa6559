/**
 * The client half of the bidirectional tool bridge (docs/protocol.md): the server sends the
 * message `{"type":"tool-call","id","toolName","arguments"}`; the client answers with
 * `{"type":"tool-response","id","result"}` from the handler the app registered, or with
 * `{"type":"tool-response","id","error"}` when there is none or it fails.
 */
export interface ToolCall {
  id: string | number;
  toolName: string;
  arguments: Record<string, unknown>;
}

/** Returns the tool's result: a string is sent as is, anything else JSON-encoded (undefined → ""). */
export type ToolHandler = (args: Record<string, unknown>, call: ToolCall) => unknown;

/** The tool call carried by a message payload, or undefined for an ordinary message. */
export function parseToolCall(payload: string): ToolCall | undefined {
  // Cheap pre-filter: ordinary chat traffic never pays for a JSON.parse.
  if (!payload.includes('"tool-call"')) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (o.type !== 'tool-call' || typeof o.toolName !== 'string') return undefined;
  if (typeof o.id !== 'string' && typeof o.id !== 'number') return undefined;
  const args = typeof o.arguments === 'object' && o.arguments !== null && !Array.isArray(o.arguments) ? (o.arguments as Record<string, unknown>) : {};
  return { id: o.id, toolName: o.toolName, arguments: args };
}

/** Runs the handler and encodes the `tool-response` message. Never rejects. */
export async function answerToolCall(handler: ToolHandler | undefined, call: ToolCall): Promise<string> {
  try {
    if (!handler) throw new Error(`no handler registered for tool '${call.toolName}'`);
    const value = await handler(call.arguments, call);
    const result = typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
    return JSON.stringify({ type: 'tool-response', id: call.id, result });
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    return JSON.stringify({ type: 'tool-response', id: call.id, error: error || 'tool failed' });
  }
}
