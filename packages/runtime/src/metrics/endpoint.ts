import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Authenticator } from '../auth/authenticator.js';
import { hasRole } from '../auth/roles.js';
import type { Config } from '../config.js';
import { FwError } from '../errors.js';
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
 * never needs an admin token: `Authorization: Bearer <fw.metrics.token>`, or any credential the
 * framework accepts whose principal has the `viewer` role. Loopback peers get in without either
 * while no authentication is configured (secure by default on a developer's machine, as the
 * admin plane); once one is, a credential-less loopback caller is refused like any other, unless
 * `fw.metrics.allow-loopback` is set to true explicitly. `authenticator` is looked up per
 * request: undefined means no authentication is configured.
 */
export function mountMetrics(host: MetricsHost, authenticator: () => Authenticator | undefined = () => undefined): void {
  if (!host.metrics.enabled) return;
  // The token rule every bearer secret follows, checked once at start (the value is fixed by then).
  tokenFromConfig(host.config, 'fw.metrics.token');
  host.route('GET', `${host.path}/metrics`, async (req, res, ctx) => {
    const denied = await checkAccess(req, ctx.url, host.config, authenticator());
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

async function checkAccess(req: IncomingMessage, url: URL, config: Config, auth: Authenticator | undefined): Promise<Denial | undefined> {
  const token = config.get('fw.metrics.token');
  const given = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  // Compare digests: equal length, constant time, whatever was sent.
  if (token && given !== undefined && timingSafeEqual(digest(given), digest(token))) return undefined;
  if (given !== undefined && auth) {
    let principal;
    try {
      principal = await auth(req, url, { socket: false });
    } catch (err) {
      const detail = err instanceof FwError && err.status === 401 ? err.message : 'the credential could not be verified';
      return { status: 401, code: 'metrics_unauthorized', detail };
    }
    if (principal) {
      if (hasRole(principal, 'viewer')) return undefined;
      return {
        status: 403,
        code: 'metrics_forbidden',
        detail: `principal '${principal.id}' has no admin role (viewer, operator or admin)`,
      };
    }
  }
  // Loopback may read without a credential while no authentication is configured (or by explicit
  // choice); a header it sends then is not looked at, as before authentication existed.
  const loopbackOpen = config.isSet('fw.metrics.allow-loopback') ? config.get('fw.metrics.allow-loopback') : auth === undefined;
  if (loopbackOpen && isLoopback(clientAddress(req))) return undefined;
  if (given !== undefined)
    return { status: 401, code: 'metrics_unauthorized', detail: 'neither the metrics token nor a credential fw accepts' };
  if (!token && !auth) {
    return {
      status: 403,
      code: 'metrics_forbidden',
      detail: 'without fw.metrics.token the metrics endpoint answers loopback scrapers only',
    };
  }
  return {
    status: 401,
    code: 'metrics_unauthorized',
    detail: 'send Authorization: Bearer <fw.metrics.token> or a credential with the viewer role',
  };
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}
