/**
 * The request metadata headers a 2026-07-28 client must send over Streamable HTTP
 * (transports/streamable-http "Request Metadata"), built by the bridge from each stdin message:
 * MCP-Protocol-Version from `_meta`, Mcp-Method, Mcp-Name, and `Mcp-Param-*` for tool parameters
 * whose schema carries `x-mcp-header` (learnt from the tools/list results passing through).
 */
type Json = Record<string, unknown>;

const SAFE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** A header value as sent: plain when it is visible ASCII, else the `=?base64?…?=` form. */
export function encodeHeaderValue(value: string): string {
  const sentinel = value.startsWith('=?base64?') && value.endsWith('?=');
  return SAFE.test(value) && !sentinel ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

interface HeaderParam {
  name: string;
  path: string[];
}

function annotated(schema: unknown, path: string[] = []): HeaderParam[] {
  const props = (schema as { properties?: unknown } | undefined)?.properties;
  if (props === null || typeof props !== 'object') return [];
  const out: HeaderParam[] = [];
  for (const [key, sub] of Object.entries(props as Json)) {
    const name = (sub as { 'x-mcp-header'?: unknown } | null)?.['x-mcp-header'];
    if (typeof name === 'string') out.push({ name, path: [...path, key] });
    out.push(...annotated(sub, [...path, key]));
  }
  return out;
}

export class ModernHeaders {
  private readonly toolParams = new Map<string, HeaderParam[]>();

  /** Remembers the x-mcp-header parameters of the tools in a tools/list result. */
  learn(result: unknown): void {
    const tools = (result as { tools?: unknown } | undefined)?.tools;
    if (!Array.isArray(tools)) return;
    for (const t of tools as { name?: unknown; inputSchema?: unknown }[]) {
      if (typeof t.name === 'string') this.toolParams.set(t.name, annotated(t.inputSchema));
    }
  }

  knows(tool: string): boolean {
    return this.toolParams.has(tool);
  }

  for(message: Json): Record<string, string> {
    const method = String(message.method);
    const params = (message.params ?? {}) as Json;
    const meta = (params._meta ?? {}) as Json;
    const out: Record<string, string> = {
      'mcp-protocol-version': String(meta['io.modelcontextprotocol/protocolVersion'] ?? ''),
      'mcp-method': method,
    };
    const name = method === 'tools/call' || method === 'prompts/get' ? params.name : method === 'resources/read' ? params.uri : undefined;
    if (typeof name === 'string') out['mcp-name'] = encodeHeaderValue(name);
    if (method === 'tools/call' && typeof params.name === 'string') {
      for (const p of this.toolParams.get(params.name) ?? []) {
        let value: unknown = params.arguments;
        for (const k of p.path) value = value !== null && typeof value === 'object' ? (value as Json)[k] : undefined;
        if (value === undefined || value === null || typeof value === 'object') continue;
        out[`mcp-param-${p.name.toLowerCase()}`] = encodeHeaderValue(String(value));
      }
    }
    return out;
  }
}
