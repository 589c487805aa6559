import type { Interceptor } from '../model.js';
import { FwResource } from '../resource/resource.js';
import type { Timers } from '../timers.js';

/**
 * Closes resources that sent nothing (no message, no heartbeat) for `timeout` ms, with the reason
 * `idle timeout`. One shared sweep every timeout/2: a resource is closed after two quiet sweeps,
 * i.e. between `timeout` and 1.5 × `timeout` after its last frame.
 */
export function idleTimeout(options: { timeout: number }): Interceptor {
  const quiet = new Map<FwResource, number>();
  let timer: NodeJS.Timeout | undefined;
  let timers: Timers | undefined;
  const sweep = (): void => {
    for (const [r, n] of quiet) {
      if (r.heard) {
        r.heard = false;
        quiet.set(r, 0);
      } else if (n + 1 >= 2) {
        r.close('idle timeout');
      } else {
        quiet.set(r, n + 1);
      }
    }
  };
  return {
    name: 'idle-timeout',
    attach(resource) {
      if (!(resource instanceof FwResource) || options.timeout <= 0) return;
      resource.heard = false;
      quiet.set(resource, 0);
      if (timer === undefined) {
        timers = resource.runtime.timers;
        timer = timers.interval(sweep, Math.max(1, Math.floor(options.timeout / 2)));
      }
    },
    detach(resource) {
      if (!quiet.delete(resource as FwResource) || quiet.size > 0 || timer === undefined) return;
      timers?.clear(timer);
      timer = undefined;
    },
  };
}
