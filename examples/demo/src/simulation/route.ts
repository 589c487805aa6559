/**
 * The simulation's switch over HTTP, for the chat page (and curl):
 *
 * - `GET /demo/simulation`: the status (public, like the room list: it names only simulated things).
 * - `POST /demo/simulation` `{"running": true|false}`: starts or stops it. It changes the server,
 *   so it goes through the admin plane's door: the admin gate (loopback only while no
 *   authentication is configured; otherwise a credential) and then the `operator` role, as the
 *   admin plane's own writes do. Without the admin plane there is no switch (403).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BadRequestError, FwError, hasRole, readJson, requireJsonContentType, sendError, sendJson, type Framework } from '@fw/runtime';
import type { Simulation } from './simulation.js';

/** The switch's body is one flag: anything larger than this is not it. */
const MAX_BODY_BYTES = 1024;

export function installSimulationRoute(fw: Framework, simulation: Simulation): void {
  fw.route('GET', '/demo/simulation', (_req, res) => {
    sendJson(res, 200, simulation.status(), { 'cache-control': 'no-store' });
  });
  fw.route('POST', '/demo/simulation', async (req, res) => {
    try {
      const principal = await admit(fw, req, res);
      requireJsonContentType(req);
      const body = (await readJson(req, MAX_BODY_BYTES)) as { running?: unknown } | null;
      if (typeof body !== 'object' || body === null || typeof body.running !== 'boolean') {
        throw new BadRequestError('expected {"running": true} or {"running": false}');
      }
      if (body.running) simulation.start();
      else simulation.stop();
      fw.logger.child({ module: 'demo' }).info({ running: body.running, principal: principal ?? 'local operator' }, 'simulation switched');
      sendJson(res, 200, simulation.status(), { 'cache-control': 'no-store' });
    } catch (err) {
      sendError(res, err);
    }
  });
}

/** The caller's principal id (undefined: the anonymous loopback operator), or throws the refusal. */
async function admit(fw: Framework, req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
  const admin = fw.services.get('admin');
  if (!admin) throw new FwError('forbidden', 'the simulation switch needs the admin plane (fw.admin.enabled)', 403);
  const gate = await admin.gate.check(req, new URL(req.url ?? '/', 'http://localhost'), { write: true });
  if (!gate.ok) {
    // The Bearer challenge of a 401, as the admin plane sends it.
    for (const [name, value] of Object.entries(gate.headers ?? {})) res.setHeader(name, value);
    throw new FwError(gate.code, gate.detail, gate.status);
  }
  if (gate.principal && !hasRole(gate.principal, 'operator')) {
    throw new FwError('forbidden', `principal '${gate.principal.id}' needs the operator role to switch the simulation`, 403);
  }
  return gate.principal?.id;
}
