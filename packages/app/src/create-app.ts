import { Framework, type FrameworkModule, type FrameworkOptions } from '@fw/runtime';
import { FW_MODULES } from './modules.js';

export interface AppOptions extends FrameworkOptions {
  /**
   * Modules to install as given: one of fw's (`agents({ agents: [Planner] })`, `admin({ authorizer })`)
   * replaces the default instance of the same package, in its place; others (the app's own) are
   * installed after fw's.
   */
  modules?: readonly FrameworkModule[];
}

/**
 * A Framework with every fw module that is installed already installed (spec §1: the admin module
 * "is configured automatically when present"): `@fw/mcp`, `@fw/agent`, `@fw/admin` and
 * `@fw/redis`, in that order, each with its default options unless `modules` gives one. A module
 * switched off by its key (`fw.admin.enabled=false`, `fw.agent.enabled=false`, `fw.mcp.enabled=false`;
 * cluster mode without `fw.cluster.redis-url`) installs nothing, as with `fw.use()`. Logs one
 * line saying which modules were installed and which packages are not. `fw.use()` keeps working
 * for anything else, before `listen`/`attach`:
 *
 * ```ts
 * const fw = await createApp({ 'fw.admin.auth.token': process.env.ADMIN_TOKEN });
 * await fw.listen();
 * ```
 */
export async function createApp(options: AppOptions = {}): Promise<Framework> {
  const { modules = [], ...frameworkOptions } = options;
  const fw = new Framework(frameworkOptions);
  const given = new Map(modules.map((m) => [m.name, m]));
  const installed: string[] = [];
  const absent: string[] = [];
  try {
    for (const known of FW_MODULES) {
      const module = given.get(known.name) ?? (await known.load());
      given.delete(known.name);
      if (!module) {
        absent.push(known.name);
        continue;
      }
      await fw.use(module);
      installed.push(known.name);
    }
    for (const module of given.values()) {
      await fw.use(module);
      installed.push(module.name);
    }
  } catch (err) {
    await fw.close(); // what was installed is closed again: no half-started app left behind
    throw err;
  }
  fw.logger
    .child({ module: 'app' })
    .info(
      { installed, absent },
      `modules: ${installed.join(', ') || 'none'}${absent.length > 0 ? ` (not installed: ${absent.join(', ')})` : ''}`,
    );
  return fw;
}
