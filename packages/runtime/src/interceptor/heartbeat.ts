import type { Interceptor } from '../model.js';
import { FwResource } from '../resource/resource.js';
import type { Timers } from '../timers.js';

/**
 * Keeps quiet connections alive: every `interval` ms, each connection that was sent nothing since
 * the last sweep gets a heartbeat (fw `hb` frame, WebSocket ping for raw clients, SSE comment).
 * One shared timer for all resources, running only while there are any; no per-resource state
 * beyond a set entry.
 */
export function heartbeat(options: { interval: number }): Interceptor {
  const members = new Set<FwResource>();
  let timer: NodeJS.Timeout | undefined;
  let timers: Timers | undefined;
  const sweep = (): void => {
    for (const r of members) r.heartbeat();
  };
  return {
    name: 'heartbeat',
    attach(resource) {
      if (!(resource instanceof FwResource) || options.interval <= 0) return;
      members.add(resource);
      if (timer === undefined) {
        timers = resource.runtime.timers;
        timer = timers.interval(sweep, options.interval);
      }
    },
    detach(resource) {
      if (!members.delete(resource as FwResource) || members.size > 0 || timer === undefined) return;
      timers?.clear(timer);
      timer = undefined;
    },
  };
}
