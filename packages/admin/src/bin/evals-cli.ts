/**
 * `fw-evals`: runs a dataset against an agent on a running fw from CI (docs/runs.md, "Evals"),
 * through the admin API: starts the eval run, follows its progress, prints each case's result and
 * the pass rate beside the baseline's before it, and exits 0 when the pass rate reaches
 * `--min-pass-rate` (default 1), 1 when it does not or the eval run failed, 2 on a usage or API
 * error. The credential is `--token` or FW_ADMIN_TOKEN (an operator's: evals are content).
 *
 *   fw-evals --url http://127.0.0.1:8080 --dataset smoke --agent support [--scorer exact]
 *            [--schema schema.json] [--min-pass-rate 0.9] [--timeout 600]
 *   fw-evals … --scorer judge --rubric 'answers politely' [--judge-runtime name] [--judge-model id] [--threshold 0.7]
 */
import { readFileSync } from 'node:fs';

export interface EvalsCliIo {
  env: Record<string, string | undefined>;
  out: (line: string) => void;
  /** Between progress reads (ms); tests shorten it. */
  pollMs?: number;
}

interface EvalRunReply {
  id: string;
  status: string;
  cases: number;
  done: number;
  passed: number;
  passRate: number | null;
  error: string | null;
  results?: { caseId: string; passed: boolean; detail: string | null }[];
}

const USAGE =
  'usage: fw-evals --url <fw base URL> --dataset <name> --agent <name> [--scorer exact|contains|json-schema|judge|<custom>] [--schema <file.json>] [--rubric <text> --judge-runtime <name> --judge-model <id> --threshold 0.7] [--min-pass-rate 1] [--timeout 600] [--token <token>]';

class UsageError extends Error {}

function flags(argv: readonly string[]): Map<string, string> {
  const m = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i];
    const value = argv[i + 1];
    if (!key?.startsWith('--') || value === undefined) throw new UsageError(`expected --flag value pairs, got '${key ?? ''}'`);
    m.set(key.slice(2), value);
  }
  return m;
}

/** The judge scorer's options from `--rubric`, `--judge-runtime`, `--judge-model`, `--threshold`. */
function judgeOf(f: Map<string, string>, scorer: string | undefined): Record<string, unknown> | undefined {
  const rubric = f.get('rubric');
  if (scorer !== 'judge') {
    if (rubric !== undefined || f.has('threshold') || f.has('judge-runtime') || f.has('judge-model'))
      throw new UsageError('--rubric, --threshold, --judge-runtime and --judge-model go with --scorer judge');
    return undefined;
  }
  if (!rubric) throw new UsageError('--scorer judge needs --rubric');
  const threshold = f.has('threshold') ? Number(f.get('threshold')) : undefined;
  if (threshold !== undefined && !(threshold >= 0 && threshold <= 1)) throw new UsageError('--threshold is a score, 0 to 1');
  const runtime = f.get('judge-runtime');
  const model = f.get('judge-model');
  return { rubric, ...(runtime ? { runtime } : {}), ...(model ? { model } : {}), ...(threshold !== undefined ? { threshold } : {}) };
}

/** Runs the command; resolves with the exit code. */
export async function evalsCli(argv: readonly string[], io: EvalsCliIo): Promise<number> {
  try {
    const f = flags(argv);
    const url = f.get('url');
    const dataset = f.get('dataset');
    const agent = f.get('agent');
    if (!url || !dataset || !agent) throw new UsageError('--url, --dataset and --agent are needed');
    const minPassRate = Number(f.get('min-pass-rate') ?? '1');
    const timeoutMs = Number(f.get('timeout') ?? '600') * 1000;
    if (!(minPassRate >= 0 && minPassRate <= 1)) throw new UsageError('--min-pass-rate is a fraction, 0 to 1');
    if (!(timeoutMs > 0)) throw new UsageError('--timeout is seconds, more than 0');
    const scorer = f.get('scorer');
    const schemaFile = f.get('schema');
    const schema: unknown = schemaFile ? JSON.parse(readFileSync(schemaFile, 'utf8')) : undefined;
    const judge = judgeOf(f, scorer);
    const token = f.get('token') ?? io.env.FW_ADMIN_TOKEN;
    const api = `${url.replace(/\/+$/, '')}/api/admin`;
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
    const call = async <T>(path: string, init?: RequestInit): Promise<T> => {
      const res = await fetch(api + path, { ...init, headers });
      const body = (await res.json().catch(() => ({}))) as T & { code?: string; detail?: string; title?: string };
      if (!res.ok)
        throw new Error(`${init?.method ?? 'GET'} ${path}: ${res.status} ${body.code ?? ''} ${body.detail ?? body.title ?? ''}`.trim());
      return body;
    };

    const baselines = await call<{ dataset: string; agent: string; scorer: string; passRate: number | null }[]>('/evals/baselines');
    const before = baselines.find((b) => b.dataset === dataset && b.agent === agent && b.scorer === (scorer ?? 'exact'));
    const started = await call<EvalRunReply>('/evals/run', {
      method: 'POST',
      body: JSON.stringify({
        dataset,
        agent,
        ...(scorer ? { scorer } : {}),
        ...(schema !== undefined ? { schema } : {}),
        ...(judge ? { judge } : {}),
      }),
    });
    io.out(`eval run ${started.id}: ${started.cases} cases of ${dataset} against ${agent} (${scorer ?? 'exact'})`);
    const deadline = Date.now() + timeoutMs;
    let run = started;
    while (run.status === 'running') {
      if (Date.now() > deadline) {
        io.out(`timed out after ${timeoutMs / 1000} s: ${run.done} of ${run.cases} cases done`);
        return 1;
      }
      await new Promise((r) => setTimeout(r, io.pollMs ?? 500));
      run = await call<EvalRunReply>(`/evals/runs/${encodeURIComponent(started.id)}`);
    }
    for (const r of run.results ?? []) io.out(`${r.passed ? 'pass' : 'FAIL'} ${r.caseId}${r.detail ? `: ${r.detail}` : ''}`);
    const rate = run.passRate ?? 0;
    const was = before?.passRate === undefined || before.passRate === null ? 'none' : before.passRate.toFixed(3);
    io.out(
      `${run.status}: ${run.passed} of ${run.cases} passed, pass rate ${rate.toFixed(3)} (baseline before: ${was}; needed: ${minPassRate})`,
    );
    if (run.status !== 'completed') {
      io.out(`the eval run ended ${run.status}${run.error ? `: ${run.error}` : ''}`);
      return 1;
    }
    return rate >= minPassRate ? 0 : 1;
  } catch (err) {
    io.out(err instanceof UsageError ? `${err.message}\n${USAGE}` : `fw-evals: ${(err as Error).message}`);
    return 2;
  }
}
