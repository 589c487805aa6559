import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Config } from '../config.js';
import { tokenFromConfig } from '../auth/token-strength.js';
import { sendProblem } from '../http/problem.js';
import { isLoopback } from '../security/loopback.js';
import { clientAddress } from '../security/request-source.js';
import type { HttpRouteHandler, Method } from '../http/router.js';
import type { FwMetrics } from './fw-metrics.js';

export interface MetricsHost {
  readonly path: string;
  readonly config: Config;
  readonly metrics: FwMetrics;
  route(method: Method, path: string, handler: HttpRouteHandler): () => void;
}

/**
 * `GET <fw>/metrics`: the Prometheus exposition, with an access rule of its own so a scraper
 * never holds an admin token. Loopback peers get in without a credential (unless
 * `fw.metrics.allow-loopback` is off, for a reverse proxy on the same host); anyone else needs
 * `Authorization: Bearer <fw.metrics.token>`, and with no token configured gets 403.
 */
export function mountMetrics(host: MetricsHost): void {
  if (!host.metrics.enabled) return;
  // The token rule every bearer secret follows, checked once at start (the value is fixed by then).
  tokenFromConfig(host.config, 'fw.metrics.token');
  host.route('GET', `${host.path}/metrics`, async (req, res) => {
    const denied = checkAccess(req, host.config);
    if (denied) {
      const headers = denied.status === 401 ? { 'www-authenticate': 'Bearer realm="fw-metrics"' } : undefined;
      sendProblem(res, denied.status, denied.code, denied.detail, undefined, headers);
      return;
    }
    const body = await host.metrics.scrape();
    res.writeHead(200, {
      'content-type': host.metrics.contentType,
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
}

interface Denial {
  status: 401 | 403;
  code: string;
  detail: string;
}

function checkAccess(req: IncomingMessage, config: Config): Denial | undefined {
  const token = config.get('fw.metrics.token');
  if (config.get('fw.metrics.allow-loopback') && isLoopback(clientAddress(req))) return undefined;
  if (!token) {
    return {
      status: 403,
      code: 'metrics_forbidden',
      detail: 'without fw.metrics.token the metrics endpoint answers loopback scrapers only',
    };
  }
  const given = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  if (given === undefined) return { status: 401, code: 'metrics_unauthorized', detail: 'send Authorization: Bearer <fw.metrics.token>' };
  // Compare digests: equal length, constant time, whatever was sent.
  if (!timingSafeEqual(digest(given), digest(token))) return { status: 401, code: 'metrics_unauthorized', detail: 'wrong metrics token' };
  return undefined;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}
