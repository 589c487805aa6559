import type { FastifyInstance } from 'fastify';
import { Framework, type FrameworkOptions } from '@fw/runtime';
import { AdminModule } from './module.js';

export interface FwFastifyOptions {
  /** A framework to mount; default: a new one built from `frameworkOptions`. */
  fw?: Framework;
  frameworkOptions?: FrameworkOptions;
  /** Where the dashboard is served besides `/fw/admin/` (default `/admin`). */
  dashboardPath?: string;
  /** Close the framework with the Fastify app (default: true when the plugin created it). */
  closeFramework?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    fw: Framework;
  }
}

/**
 * The second deployment: mounts fw on a Fastify 5 app. fw takes over only its own routes on
 * `app.server` (real-time handlers under `/fw`, the REST API under `/api/admin/`, the event
 * stream, `/fw/admin/`) and serves the dashboard at `/admin/` too; everything else stays
 * Fastify's. Registered without encapsulation, so `app.fw` is visible everywhere.
 *
 *     await app.register(fwAdminPlugin, { frameworkOptions: { 'fw.admin.auth.token': '…' } });
 *     await app.listen({ port: 8080 });
 */
async function plugin(app: FastifyInstance, options: FwFastifyOptions): Promise<void> {
  const fw = options.fw ?? new Framework(options.frameworkOptions);
  // The plugin is the admin plane's: it installs it unless the app already did (with its options).
  if (!fw.hasModule('@fw/admin')) await fw.use(new AdminModule());
  await fw.start();
  fw.attach(app.server);
  const admin = fw.services.get('admin');
  if (admin) admin.mountDashboard(options.dashboardPath ?? '/admin');
  app.decorate('fw', fw);
  // preClose, not onClose: Fastify's server.close() (between the two) waits for every open
  // connection, and fw's SSE and long-polling clients only leave once fw tells them to.
  if (options.closeFramework ?? options.fw === undefined) app.addHook('preClose', async () => fw.close());
}

/** Fastify's marker for a plugin that shares its parent's scope (what `fastify-plugin` sets). */
export const fwAdminPlugin = Object.assign(plugin, {
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: '@fw/admin',
});

export default fwAdminPlugin;
