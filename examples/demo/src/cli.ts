import { parseArgs } from 'node:util';

/** What `npm start -- …` (node examples/demo/dist/src/main.js …) accepts. */
export const USAGE = `Usage: npm start -- [options]        (or: node examples/demo/dist/src/main.js [options])

The fw demo: chat rooms, agents, an MCP server and the admin plane, on one port.

Options:
  --port <n>   port to listen on (default: FW_PORT, else PORT, else 8080; 0 picks a free one)
  --host <h>   address to listen on (default: FW_HOST, else 127.0.0.1; 0.0.0.0 for every interface)
  -h, --help   print this and exit

Environment: every fw.* key as FW_* (docs/configuration.md), the demo's as DEMO_* (docs/demo.md),
e.g. DEMO_SIMULATION=false npm start for a quiet demo.`;

/** A command line the demo does not understand: printed with a pointer to --help, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface DemoArgs {
  help: boolean;
  port?: number;
  host?: string;
}

/** Parses the demo's command line strictly: an unknown option or a stray argument is a UsageError. */
export function parseDemoArgs(argv: readonly string[]): DemoArgs {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    // node:util's own messages are long and differ between Node versions: say it in one short line.
    const { code, message } = err as { code?: string; message: string };
    const option = /'(-{1,2}[^'\s]+)/.exec(message)?.[1] ?? '';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`unknown option '${option}'`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new UsageError(`option '${option}' needs a value`);
    throw new UsageError(message.split('\n')[0] ?? String(err));
  }
  const { values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const out: DemoArgs = { help: values.help === true };
  if (values.port !== undefined) {
    const port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535) throw new UsageError(`--port needs a port number (0-65535), got '${values.port}'`);
    out.port = port;
  }
  if (values.host !== undefined) {
    if (values.host === '') throw new UsageError('--host needs an address');
    out.host = values.host;
  }
  return out;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
