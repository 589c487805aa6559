import type { Framework } from './framework.js';

/**
 * The frameworks of this process that are not closed, for the few APIs that speak of "the
 * process's" framework (`McpRegistry.get()`). Weak references only: a framework nobody holds any
 * more drops out when it is collected, so keeping this set never keeps a framework alive, and it
 * holds nothing of its own (everything a framework serves stays on the instance).
 */
const live = new Set<WeakRef<Framework>>();

/** Adds a framework; returns the function that removes it (called when it has closed). */
export function trackFramework(fw: Framework): () => void {
  const ref = new WeakRef(fw);
  live.add(ref);
  return () => {
    live.delete(ref);
  };
}

/** The frameworks created in this process and not closed yet, oldest first. */
export function liveFrameworks(): Framework[] {
  const out: Framework[] = [];
  for (const ref of live) {
    const fw = ref.deref();
    if (fw) out.push(fw);
    else live.delete(ref);
  }
  return out;
}
