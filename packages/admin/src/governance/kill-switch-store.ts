import type { FwStore } from '@fw/store';
import { parseKillSwitchState, type KillSwitchState } from './kill-switch.js';

type StoreModule = typeof import('@fw/store');

/** The store's key of the kill switch. */
export const KILL_SWITCH_KEY = 'kill-switch';

/** Where the kill switch is kept across restarts: fw's store (the agent host's own, the one its runs are recorded in). */
export interface KillSwitchPersistence {
  load(): Promise<KillSwitchState | undefined>;
  save(state: KillSwitchState): Promise<void>;
}

/** The persistence on `store`, or undefined when @fw/store is not installed. */
export async function storePersistence(store: FwStore): Promise<KillSwitchPersistence | undefined> {
  let mod: StoreModule;
  try {
    mod = await import('@fw/store');
  } catch {
    return undefined;
  }
  const records = new mod.GovernanceRecords(store.db);
  return {
    load: async () => {
      const row = await records.get<unknown>(KILL_SWITCH_KEY);
      return row ? parseKillSwitchState(row.value) : undefined;
    },
    save: (state) => records.put(KILL_SWITCH_KEY, state, state.version),
  };
}
