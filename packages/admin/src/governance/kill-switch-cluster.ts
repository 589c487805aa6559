import { FwError } from '@fw/runtime';
import type { ClusterService } from '@fw/runtime/adapter';
import { parseKillSwitchState, type KillSwitch, type KillSwitchState } from './kill-switch.js';

/** "Take this state": sent to every node when the switch changes; each answers its acknowledgement. */
export const KILL_SWITCH_APPLY = 'governance.kill-switch.apply';
/** "What do you enforce?": the per-node view of GET governance/health. */
export const KILL_SWITCH_STATE = 'governance.kill-switch.state';
/** The cluster's shared log of kill-switch states, newest first: a node that starts (or missed a change) reads it. */
export const KILL_SWITCH_LOG = 'governance.kill-switch';

/** One node's answer: the state it now enforces (by version) and since when. */
export interface NodeAck {
  node: string;
  armed: boolean;
  scope: string;
  version: number;
  /** When this node adopted the state it enforces (ISO-8601). */
  ackAt: string;
}

/** Registers this node's kill-switch methods; returns the function that removes them. */
export function registerKillSwitchMethods(
  cluster: ClusterService,
  killSwitch: KillSwitch,
  adopt: (state: KillSwitchState) => void,
): () => void {
  const ack = (): NodeAck => ({
    node: cluster.nodeId,
    armed: killSwitch.state.armed,
    scope: killSwitch.state.scope,
    version: killSwitch.state.version,
    ackAt: killSwitch.adoptedAt,
  });
  const removers = [
    cluster.handle(KILL_SWITCH_APPLY, (args) => {
      // From another node, over Redis: checked before it can stop anything.
      const state = parseKillSwitchState(args.state);
      if (!state) throw new FwError('bad_request', "'state' must be a kill-switch state", 400);
      adopt(state);
      return ack();
    }),
    cluster.handle(KILL_SWITCH_STATE, () => ack()),
  ];
  return () => removers.forEach((r) => r());
}

/** The newest state in the cluster's shared log, or undefined (none yet); throws when Redis cannot be read. */
export async function sharedKillSwitchState(cluster: ClusterService): Promise<KillSwitchState | undefined> {
  const [newest] = await cluster.log<{ state?: unknown }>(KILL_SWITCH_LOG).list(1);
  return newest ? parseKillSwitchState(newest.state) : undefined;
}
