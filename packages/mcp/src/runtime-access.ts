import type { Broadcaster, Framework, RuntimeView } from '@fw/runtime';

/**
 * The runtime's broadcaster factory and view, read structurally so this module compiles and runs
 * against a kernel-only framework too (tools then simply see `undefined`).
 */
interface BroadcasterLookup {
  lookup?(id: string): Broadcaster | undefined;
  get?(id: string): Broadcaster | undefined;
}

export function lookupBroadcaster(fw: Framework, id: string): Broadcaster | undefined {
  const factory = (fw as unknown as { broadcasters?: BroadcasterLookup }).broadcasters;
  if (!factory) return undefined;
  if (typeof factory.lookup === 'function') return factory.lookup(id);
  if (typeof factory.get === 'function') return factory.get(id);
  return undefined;
}

export function runtimeView(fw: Framework): RuntimeView | undefined {
  return (fw as unknown as { runtime?: RuntimeView }).runtime;
}
