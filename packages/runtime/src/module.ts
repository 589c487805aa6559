import type { Framework } from './framework.js';

/**
 * A module (`@fw/mcp`, `@fw/agent`, `@fw/admin`, `@fw/redis`, or the app's own) plugs into a
 * framework: it declares its configuration keys, mounts its routes and publishes its service.
 * Installed modules are closed in reverse order by `fw.close()`.
 */
export interface FrameworkModule {
  readonly name: string;
  install(fw: Framework): void | Promise<void>;
  close?(): void | Promise<void>;
}

/**
 * The packages fw configures automatically when they are installed, in dependency order. Each
 * exports `createModule(fw)` returning its module, or undefined when switched off by its property.
 */
export const AUTOLOAD_MODULES: readonly string[] = ['@fw/mcp', '@fw/agent', '@fw/admin', '@fw/redis'];

export type ModuleFactory = (fw: Framework) => FrameworkModule | undefined | Promise<FrameworkModule | undefined>;
