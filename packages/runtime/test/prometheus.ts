/**
 * Parses a Prometheus exposition with the reference parser: the Prometheus project's own Python
 * client (`prometheus_client.parser`, Debian's python3-prometheus-client, which .ci/run installs).
 * The npm parsers at hand collapse labelled histograms into one series, so they cannot check ours.
 */
import { spawn, spawnSync } from 'node:child_process';

export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface PromFamily {
  name: string;
  type: string;
  help: string;
  samples: PromSample[];
}

/** Debian's Python, where the Debian package installs the parser (not a pyenv shim on PATH). */
const PYTHON = process.env.FW_PYTHON ?? '/usr/bin/python3';

const SCRIPT = `
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = []
for f in text_string_to_metric_families(sys.stdin.read()):
    out.append({"name": f.name, "type": f.type, "help": f.documentation,
                "samples": [{"name": s.name, "labels": s.labels, "value": s.value if s.value == s.value else None} for s in f.samples]})
print(json.dumps(out, allow_nan=False, default=str))
`;

/** Why the reference parser cannot run here, or false when it can. */
export const skipNoParser: string | false = (() => {
  const r = spawnSync(PYTHON, ['-c', 'import prometheus_client.parser'], { stdio: 'ignore' });
  if (r.status === 0) return false;
  const why = 'the Prometheus reference parser is missing (apt-get install python3-prometheus-client)';
  if (process.env.CI) throw new Error(why);
  return why;
})();

export function parsePrometheus(text: string): Promise<PromFamily[]> {
  return new Promise((resolve, reject) => {
    const p = spawn(PYTHON, ['-c', SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) reject(new Error(`the Prometheus parser rejected the exposition: ${err}`));
      else resolve(JSON.parse(out) as PromFamily[]);
    });
    p.stdin.end(text);
  });
}
