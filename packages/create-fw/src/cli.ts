import { readFileSync } from 'node:fs';
import { basename, relative, resolve } from 'node:path';
import { checkPackageName, generate } from './generate.js';
import { PART_INFO, PARTS, packagesFor, devPackagesFor, type Part } from './parts.js';
import { askParts } from './prompt.js';
import { closure, readTarballs } from './tarballs.js';
import type { PackageSource } from './templates/package-json.js';
import { writeApp } from './write.js';

export const USAGE = `Usage: npm create fw@latest [directory] -- [options]
       create-fw [directory] [options]

Writes a TypeScript fw app into <directory> (default: fw-app): src/app.ts, src/main.ts, a test,
a README, a package.json ("type": "module") and the tsconfig.json fw's docs assume.

Parts (asked one by one when none is given and the terminal is interactive):
  --realtime, --no-realtime   real-time handlers: WebSocket, SSE, long-polling  (default: yes)
  --mcp, --no-mcp             an MCP server at /mcp                             (default: yes)
  --agents, --no-agents       agents over A2A, AG-UI and MCP                    (default: no)
  --admin, --no-admin         the admin plane: dashboard, REST API              (default: yes)
  --cluster, --no-cluster     cluster mode on Redis                             (default: no)
  --all                       every part

Options:
  --from <dir>    install the fw packages from the tarballs in <dir>, not the registry (until
                  fw is published: \`npm run pack\` in an fw clone writes them and prints <dir>)
  --name <name>   the package name (default: the directory's name)
  -y, --yes       ask nothing: parts not given take their defaults
  -h, --help      print this and exit`;

interface Args {
  help: boolean;
  yes: boolean;
  dir?: string;
  name?: string;
  from?: string;
  /** Parts switched on (true) or off (false) by a flag. */
  parts: Map<Part, boolean>;
}

/** A command line create-fw does not understand: printed with a pointer to --help, exit code 2. */
class UsageError extends Error {}

/** The command line, strictly: an unknown option is refused (Node 20's parseArgs has no --no-x). */
export function parseArgs(argv: readonly string[]): Args {
  const args: Args = { help: false, yes: false, parts: new Map() };
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!;
    const [flag, inline] =
      raw.startsWith('--') && raw.includes('=') ? [raw.slice(0, raw.indexOf('=')), raw.slice(raw.indexOf('=') + 1)] : [raw, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '' || (inline === undefined && v.startsWith('-')))
        throw new UsageError(`option '${flag}' needs a value`);
      return v;
    };
    if (flag === '-h' || flag === '--help') args.help = true;
    else if (flag === '-y' || flag === '--yes') args.yes = true;
    else if (flag === '--all') for (const p of PARTS) args.parts.set(p, true);
    else if (flag === '--from') args.from = value();
    else if (flag === '--name') args.name = value();
    else if (flag.startsWith('--') && PARTS.includes(flag.slice(2) as Part)) args.parts.set(flag.slice(2) as Part, true);
    else if (flag.startsWith('--no-') && PARTS.includes(flag.slice(5) as Part)) args.parts.set(flag.slice(5) as Part, false);
    else if (flag.startsWith('-')) throw new UsageError(`unknown option '${flag}'`);
    else if (args.dir === undefined) args.dir = raw;
    else throw new UsageError(`unexpected argument '${raw}' (one directory only)`);
  }
  return args;
}

export interface Io {
  cwd: string;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Runs the scaffolder; resolves with the process's exit code (0 done, 1 failed, 2 usage). */
export async function main(
  argv: readonly string[],
  io: Io = { cwd: process.cwd(), stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const say = (text: string): void => void io.stdout.write(`${text}\n`);
  let args: Args;
  try {
    args = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`create-fw: ${err.message}\nTry --help for the options.\n`);
    return 2;
  }
  if (args.help) {
    say(USAGE);
    return 0;
  }
  try {
    const dir = resolve(io.cwd, args.dir ?? 'fw-app');
    const name = args.name ?? basename(dir);
    const badName = checkPackageName(name);
    if (badName) throw new Error(`'${name}' is not a valid package name: it ${badName}; pass --name`);
    const parts = await chooseParts(args, io);
    const source = packageSource(args.from, io.cwd, parts);
    writeApp(dir, generate({ name, parts, source }));
    const shown = relative(io.cwd, dir) || '.';
    const list = PARTS.filter((p) => parts.has(p)).join(', ') || 'the runtime only';
    say(
      `Created ${shown}: a TypeScript fw app with ${list}${source.kind === 'tarballs' ? `, fw packages from ${resolve(io.cwd, args.from!)}` : ''}.`,
    );
    say('');
    say('Next:');
    if (shown !== '.') say(`  cd ${shown.includes(' ') ? JSON.stringify(shown) : shown}`);
    say('  npm install && npm start');
    return 0;
  } catch (err) {
    io.stderr.write(`create-fw: ${(err as Error).message}\n`);
    return 1;
  }
}

/** Flags decide; without any, an interactive terminal is asked and anything else takes the defaults. */
async function chooseParts(args: Args, io: Io): Promise<Set<Part>> {
  if (args.parts.size === 0 && !args.yes && io.stdin.isTTY) return askParts(io.stdin, io.stdout);
  return new Set(PARTS.filter((p) => args.parts.get(p) ?? PART_INFO[p].byDefault));
}

/** The registry at this scaffolder's own version, or the tarballs of `--from` (every fw package the app needs). */
function packageSource(from: string | undefined, cwd: string, parts: ReadonlySet<Part>): PackageSource {
  if (from === undefined) return { kind: 'registry', range: `^${ownVersion()}` };
  const tarballs = readTarballs(resolve(cwd, from));
  const { found, missing } = closure([...packagesFor(parts), ...devPackagesFor(parts)], tarballs);
  if (missing.length > 0) {
    throw new Error(
      `--from ${from}: no tarball for ${missing.join(', ')} (run \`npm run pack\` in your fw clone; it writes every package)`,
    );
  }
  return { kind: 'tarballs', tarballs: new Map(found.map((t) => [t.name, t])) };
}

function ownVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}
