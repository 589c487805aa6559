/**
 * The client half of the bidirectional tool bridge (docs/protocol.md): the server sends a
 * `tool-call` frame whose `d` is `{"type":"tool-call","id","toolName","arguments"}`; the client
 * answers with a `tool-response` frame carrying `{"type":"tool-response","id","result"}` from the
 * handler the app registered, or `{"type":"tool-response","id","error"}` when there is none or it
 * fails. Ordinary messages of that shape are the application's and are never answered.
 */
export interface ToolCall {
  id: string | number;
  toolName: string;
  arguments: Record<string, unknown>;
}

/** Returns the tool's result: a string is sent as is, anything else JSON-encoded (undefined → ""). */
export type ToolHandler = (args: Record<string, unknown>, call: ToolCall) => unknown;

/** The tool call a `tool-call` frame carries, or undefined when it is malformed. */
export function parseToolCall(payload: string): ToolCall | undefined {
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
  const args =
    typeof o.arguments === 'object' && o.arguments !== null && !Array.isArray(o.arguments) ? (o.arguments as Record<string, unknown>) : {};
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
