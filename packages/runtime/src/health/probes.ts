import { sendJson } from '../http/body.js';
import type { HttpRouteHandler, Method } from '../http/router.js';
import type { Readiness } from './readiness.js';

/** Where the framework is in its life: probes answer from it before any contributor. */
export type LifecyclePhase = 'starting' | 'running' | 'draining' | 'closed';

export interface ProbeHost {
  readonly path: string;
  readonly readiness: Readiness;
  readonly phase: LifecyclePhase;
  route(method: Method, path: string, handler: HttpRouteHandler): () => void;
}

/** The probe paths under the framework path, answered even before `start()` has finished. */
export function probePaths(fwPath: string): { health: string; ready: string } {
  return { health: `${fwPath}/health`, ready: `${fwPath}/ready` };
}

/**
 * `GET <fw>/health` (liveness: the process answers HTTP; 200 until closed) and `GET <fw>/ready`
 * (readiness: 200 only while running and every contributor is ready, else 503). Both are JSON
 * without credentials and say nothing sensitive: a phase, contributor names, ready flags and
 * short reasons. Load balancers and orchestrators poll them, so neither touches I/O.
 */
export function mountProbes(host: ProbeHost): void {
  const paths = probePaths(host.path);
  host.route('GET', paths.health, (_req, res) => {
    const phase = host.phase;
    sendJson(res, phase === 'closed' ? 503 : 200, { status: phase === 'closed' ? 'closed' : 'ok', phase });
  });
  host.route('GET', paths.ready, (_req, res) => {
    const phase = host.phase;
    const report = host.readiness.evaluate();
    const ready = phase === 'running' && report.ready;
    sendJson(res, ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', phase, checks: report.checks });
  });
}
