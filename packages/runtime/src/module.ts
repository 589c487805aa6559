import type { Framework } from './framework.js';

/**
 * A module (an fw add-on package or the app's own) plugs into a framework with `fw.use(module)`:
 * it declares its configuration keys, mounts its routes and publishes its services. The kernel
 * knows no module by name. Installed modules are closed in reverse order by `fw.close()`.
 */
export interface FrameworkModule {
  readonly name: string;
  install(fw: Framework): void | Promise<void>;
  close?(): void | Promise<void>;
}
