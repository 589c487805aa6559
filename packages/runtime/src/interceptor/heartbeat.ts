import type { Interceptor } from '../model.js';
import { FwResource } from '../resource/resource.js';
import type { ResourceRegistry } from '../resource/registry.js';
import type { Timers } from '../timers.js';

/**
 * Keeps quiet connections alive: every `interval` ms, each connection that was sent nothing since
 * the last sweep gets a heartbeat (fw `hb` frame, WebSocket ping for raw clients, SSE comment).
 * One shared timer for all resources, running only while there are any; no per-resource state
 * beyond a set entry.
 */
export function heartbeat(options: { interval: number }): Interceptor {
  const members = new Set<FwResource>();
  return sweeping(
    options.interval,
    members,
    (r) => members.add(r),
    (r) => members.delete(r) && members.size === 0,
  );
}

/**
 * The runtime's own heartbeat (`fw.heartbeat`), a global interceptor: every resource is a member,
 * so it walks the registry instead of keeping a set of its own (a set entry is ~28 bytes per
 * connection). It runs while the registry holds any resource (a terminated resource has left it
 * before its interceptors are detached).
 */
export function everyResourceHeartbeat(interval: number, resources: ResourceRegistry): Interceptor {
  return sweeping(
    interval,
    { [Symbol.iterator]: () => resources.values() },
    () => undefined,
    () => resources.size === 0,
  );
}

/**
 * Resources a sweep visits before it yields to the event loop. Pinging every connection in one
 * turn held the loop for the whole sweep (bench/scale/sweep: see docs/benchmarks.md, *Scale*);
 * in slices, other work runs between them. A member added during a sweep may be visited by it,
 * one removed is not.
 */
const SWEEP_SLICE = 250;

/** The shared timer: started by the first `attach`, stopped when `leave` says no member is left. */
function sweeping(
  interval: number,
  members: Iterable<FwResource>,
  join: (r: FwResource) => void,
  leave: (r: FwResource) => boolean,
): Interceptor {
  let timer: NodeJS.Timeout | undefined;
  let timers: Timers | undefined;
  // The sweep under way, if it has not reached the end yet.
  let walk: Iterator<FwResource> | undefined;
  const slice = (): void => {
    for (let i = 0; i < SWEEP_SLICE; i++) {
      const next = walk?.next();
      if (next === undefined || next.done) {
        walk = undefined;
        return;
      }
      next.value.heartbeat();
    }
    setImmediate(slice);
  };
  const sweep = (): void => {
    if (walk !== undefined) return; // the last sweep is still going: it covers this one
    walk = members[Symbol.iterator]();
    slice();
  };
  return {
    name: 'heartbeat',
    attach(resource) {
      if (!(resource instanceof FwResource) || interval <= 0 || resource.closed) return;
      join(resource);
      if (timer === undefined) {
        timers = resource.runtime.timers;
        timer = timers.interval(sweep, interval);
      }
    },
    detach(resource) {
      if (!(resource instanceof FwResource) || !leave(resource) || timer === undefined) return;
      timers?.clear(timer);
      timer = undefined;
      walk = undefined;
    },
  };
}
