import type { IncomingMessage } from 'node:http';
import type { Authenticator } from './auth/authenticator.js';
import type { ClusterService } from './cluster.js';

/**
 * The services modules publish on a framework, by name. The kernel declares the seams it defines
 * itself; every other package adds its own with a module augmentation, next to the interface it
 * implements, so `fw.services.get('mcp')` is typed without a cast and a name maps to one type:
 *
 * ```ts
 * declare module '@fw/runtime' {
 *   interface FwServices { mcp: McpAdminView }
 * }
 * ```
 */
export interface FwServices {
  /** The app's own authenticator, asked first by the framework's chain (`frameworkAuthenticator`). */
  authenticator: Authenticator;
  /**
   * Who makes a request, for surfaces that do not authenticate themselves (MCP sessions). The admin plane
   * publishes its gate's chain (admin token, the app's resolver, `fw.auth.*`) unless the app provides its own.
   */
  'principal-resolver': Authenticator;
  /**
   * Who may read `<fw.path>/metrics` with a credential, when a module authenticates more than
   * `fw.auth.*` does: the admin plane publishes its gate's chain (its `fw.admin.auth.token`, its
   * principal resolver, `fw.auth.*`) while it requires authentication. Provided, or with
   * `fw.auth.*` configured, loopback scrapers need a credential too (unless
   * `fw.metrics.allow-loopback` says otherwise).
   */
  'metrics.authenticator': Authenticator;
  /** The client's address of a request; default the runtime's (`clientAddress`, trusted-proxy aware). */
  'client-address': (req: IncomingMessage) => string | undefined;
  /** Cluster mode (provided by a scaling module such as the Redis cluster package); absent on a single node. */
  cluster: ClusterService;
}

export type ServiceName = keyof FwServices;

/**
 * The framework's service registry. Modules publish their read/control interface under a
 * well-known name and look each other up lazily, at request time, so that install order does not
 * matter and an absent module is simply `undefined` (its admin views are empty, never an error).
 */
export class Services {
  private readonly map = new Map<ServiceName, unknown>();
  private readonly waiting = new Map<ServiceName, ((service: never) => void)[]>();

  provide<K extends ServiceName>(name: K, service: FwServices[K]): void {
    this.map.set(name, service);
    const waiting = this.waiting.get(name);
    if (waiting) {
      this.waiting.delete(name);
      for (const fn of waiting) (fn as (service: FwServices[K]) => void)(service);
    }
  }

  get<K extends ServiceName>(name: K): FwServices[K] | undefined {
    return this.map.get(name) as FwServices[K] | undefined;
  }

  /**
   * Calls `fn` with the service now if it is there, else once when it is first provided. For a
   * module that plugs into another one whichever is installed first.
   */
  whenProvided<K extends ServiceName>(name: K, fn: (service: FwServices[K]) => void): void {
    const service = this.get(name);
    if (service !== undefined) {
      fn(service);
      return;
    }
    let list = this.waiting.get(name);
    if (!list) this.waiting.set(name, (list = []));
    list.push(fn as (service: never) => void);
  }

  names(): ServiceName[] {
    return [...this.map.keys()];
  }
}
