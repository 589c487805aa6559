/** Command line of fw-mcp-stdio-bridge: the URL, extra headers (credentials), verbosity. */
export interface BridgeOptions {
  url: URL;
  headers: Record<string, string>;
  verbose: boolean;
}

export const USAGE = `usage: fw-mcp-stdio-bridge [options] <http(s)://host:port/mcp>

Connects a stdio-only MCP client to an fw MCP endpoint over Streamable HTTP. Reads one JSON-RPC
message per stdin line and writes every message from the server to stdout, one per line.
Speaks both eras: requests with the 2026-07-28 _meta envelope are sent statelessly, an
initialize opens a legacy session.

options:
  -H, --header 'Name: value'   send this header with every HTTP request (repeatable),
                               e.g. --header 'Authorization: Bearer <token>'
  --verbose                    diagnostics on stderr (default: only fatal errors)
  -h, --help                   this text

environment:
  FW_MCP_BRIDGE_TOKEN          sends 'Authorization: Bearer <token>' (keeps the secret out of
                               the process list; --header Authorization wins)
  FW_MCP_BRIDGE_HEADERS        more headers, one 'Name: value' per line

exit codes: 0 stdin closed, 2 bad usage or URL, 3 server unreachable`;

/** Header names the bridge manages itself and a user may not override. */
const RESERVED = new Set([
  'content-type',
  'accept',
  'mcp-session-id',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'content-length',
  'host',
]);

export type Parsed = { kind: 'run'; options: BridgeOptions } | { kind: 'help' } | { kind: 'error'; message: string };

function addHeader(into: Record<string, string>, raw: string): string | undefined {
  const colon = raw.indexOf(':');
  if (colon <= 0) return `a header must look like 'Name: value', got '${raw}'`;
  const name = raw.slice(0, colon).trim().toLowerCase();
  const value = raw.slice(colon + 1).trim();
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)) return `'${name}' is not a valid header name`;
  if (!/^[\t\x20-\x7e]*$/.test(value)) return `the value of header '${name}' contains characters a header cannot carry`;
  if (RESERVED.has(name) || name.startsWith('mcp-param-')) return `the bridge sets '${name}' itself`;
  into[name] = value;
  return undefined;
}

export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv): Parsed {
  const headers: Record<string, string> = {};
  let verbose = false;
  let target: string | undefined;
  for (const extra of (env.FW_MCP_BRIDGE_HEADERS ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)) {
    const wrong = addHeader(headers, extra);
    if (wrong) return { kind: 'error', message: `FW_MCP_BRIDGE_HEADERS: ${wrong}` };
  }
  if (env.FW_MCP_BRIDGE_TOKEN) headers.authorization = `Bearer ${env.FW_MCP_BRIDGE_TOKEN}`;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '-h' || a === '--help') return { kind: 'help' };
    if (a === '--verbose' || a === '-v') verbose = true;
    else if (a === '-H' || a === '--header') {
      const value = argv[++i];
      if (value === undefined) return { kind: 'error', message: `${a} needs a value ('Name: value')` };
      const wrong = addHeader(headers, value);
      if (wrong) return { kind: 'error', message: wrong };
    } else if (a.startsWith('--header=')) {
      const wrong = addHeader(headers, a.slice('--header='.length));
      if (wrong) return { kind: 'error', message: wrong };
    } else if (a.startsWith('-')) return { kind: 'error', message: `unknown option '${a}'` };
    else if (target === undefined) target = a;
    else return { kind: 'error', message: `one URL only (got '${target}' and '${a}')` };
  }
  if (!target) return { kind: 'error', message: 'the URL of the MCP endpoint is missing' };
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { kind: 'error', message: `not a URL: '${target}'` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { kind: 'error', message: `the URL must be http:// or https://, got '${target}'` };
  return { kind: 'run', options: { url, headers, verbose } };
}
