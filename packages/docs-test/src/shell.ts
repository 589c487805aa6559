import { spawn } from 'node:child_process';
import { failureAt, type Failure } from './failure.js';
import type { CodeBlock } from './markdown.js';

/** A shell example's commands, one per logical line (continuations joined, comments dropped). */
export function commands(code: string): string[] {
  return code
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** Only curl calls: the docs test can run it against the demo. Anything else is checked for syntax. */
export function isCurlOnly(code: string): boolean {
  const list = commands(code);
  return list.length > 0 && list.every((c) => /^curl\s/.test(c));
}

/**
 * What keeps a curl example from running as written: a placeholder (`<uuid>`) or a port other
 * than the demo's 8080. Such an example needs a real value, or a marker saying why it cannot run.
 */
export function curlProblem(code: string): string | undefined {
  const placeholder = /<[A-Za-z][\w-]*>/.exec(code.replace(/#.*$/gm, ''))?.[0];
  if (placeholder) return `has the placeholder ${placeholder}: give it a real value, or mark it <!-- docs-test: skip <reason> -->`;
  for (const m of code.matchAll(/(?:localhost|127\.0\.0\.1|\[::1\]):(\d+)/g)) {
    if (m[1] !== '8080')
      return `calls port ${m[1]}, which the docs test does not serve: use localhost:8080 (the demo), or mark it <!-- docs-test: skip <reason> -->`;
  }
  return undefined;
}

function bash(args: string[], script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-16_000)));
    child.stderr.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-16_000)));
    const limit = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('close', (code) => {
      clearTimeout(limit);
      resolve({ code, output });
    });
    child.stdin.end(script);
  });
}

/** `bash -n`: the example parses as a shell script. */
export async function checkShellSyntax(block: CodeBlock, cwd: string): Promise<Failure | undefined> {
  const { code, output } = await bash(['-n'], block.code, cwd, { PATH: process.env.PATH ?? '' });
  return code === 0
    ? undefined
    : failureAt(
        block,
        'shell syntax',
        'bash -n refuses it',
        output.replace(/bash: line (\d+)/g, (_m, n) => `line ${block.line + Number(n)}`),
      );
}

/**
 * Runs a curl-only example against `port` (the demo's, or the program above the example's):
 * `localhost:8080` and `127.0.0.1:8080` are connected there (the Host header stays what the docs show), every curl fails on an HTTP error
 * status (`--fail-with-body`, so a 415 is a failure with its body shown) and a pipeline fails when
 * any of its commands does.
 */
export async function runCurl(block: CodeBlock, port: number, cwd: string, against = 'the demo'): Promise<Failure | undefined> {
  const prelude = [
    'set -eo pipefail',
    `curl() { command curl --silent --show-error --fail-with-body --max-time 20 --connect-to localhost:8080:127.0.0.1:${port} --connect-to 127.0.0.1:8080:127.0.0.1:${port} "$@"; }`,
    '',
  ].join('\n');
  const { code, output } = await bash([], prelude + block.code, cwd, { PATH: process.env.PATH ?? '' });
  return code === 0 ? undefined : failureAt(block, 'shell run', `a command failed against ${against} (exit ${code})`, output);
}
