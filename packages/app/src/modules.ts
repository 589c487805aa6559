import type { FrameworkModule } from '@fw/runtime';

/** One of fw's add-on packages, and how to make its module with default options. */
export interface KnownModule {
  /** The package, which is also its module's `name` (`@fw/admin`). */
  name: string;
  /** What the module serves, for the start-up line. */
  serves: string;
  /** Imports the package and makes its module; `undefined` when the package is not installed. */
  load(): Promise<FrameworkModule | undefined>;
}

/**
 * fw's add-on modules in the order they install: MCP first (agents serve their tools on it and the
 * admin plane adds its tools to it), then the agents, the admin plane (which lists both), and
 * cluster mode last (it shares what the others registered; it stays a single node unless
 * `fw.cluster.redis-url` is set). Each is an optional peer, imported only here, only when present.
 */
export const FW_MODULES: readonly KnownModule[] = [
  {
    name: '@fw/mcp',
    serves: 'MCP server',
    load: () =>
      present(
        '@fw/mcp',
        import('@fw/mcp').then((m) => m.mcp()),
      ),
  },
  {
    name: '@fw/agent',
    serves: 'agents',
    load: () =>
      present(
        '@fw/agent',
        import('@fw/agent').then((m) => m.agents()),
      ),
  },
  {
    name: '@fw/admin',
    serves: 'admin plane',
    load: () =>
      present(
        '@fw/admin',
        import('@fw/admin').then((m) => m.admin()),
      ),
  },
  {
    name: '@fw/redis',
    serves: 'cluster mode',
    load: () =>
      present(
        '@fw/redis',
        import('@fw/redis').then((m) => m.cluster()),
      ),
  },
];

/**
 * The module, or `undefined` when its package itself is not installed. Anything else (a package
 * that is installed but broken, or misses one of its own dependencies) is rethrown: a broken
 * install must fail the start, not pass for an absent module.
 */
async function present(name: string, loading: Promise<FrameworkModule>): Promise<FrameworkModule | undefined> {
  try {
    return await loading;
  } catch (err) {
    const { code, message } = err as { code?: string; message?: string };
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && (message ?? '').includes(`'${name}'`)) return undefined;
    throw err;
  }
}
