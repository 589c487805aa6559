import type { Framework } from '@fw/runtime';

/** The kinds of change `ClusterChanged` reports. */
export type ClusterChange =
  | 'redis-down'
  | 'redis-up'
  | 'node-joined'
  | 'node-left'
  | 'messages-lost'
  | 'messages-recovered'
  | 'clients-moved';

/**
 * What cluster mode adds to the kernel's event map: Redis going down / coming back, nodes
 * joining / leaving, and cross-node messages lost or recovered, so no loss is ever silent. (Not in
 * the admin spec's eleven.) The `cluster` service itself is the kernel's contract
 * (`@fw/runtime/adapter`), which this package implements.
 */
declare module '@fw/runtime' {
  interface FwEventMap {
    ClusterChanged: { node: string; change: ClusterChange; detail: string; lost?: number; recovered?: number; moved?: number };
  }
}

/** Counts cluster changes in fw's metrics (docs/operations.md), when metrics are on. */
export function countClusterEvents(fw: Framework): void {
  if (!fw.metrics.enabled) return;
  const changes = fw.metrics.tally(
    'fw_cluster_changes_total',
    'Cluster changes seen by this node (redis-down, redis-up, node-joined, node-left, messages-lost, messages-recovered, clients-moved)',
    ['change'],
  );
  const lost = fw.metrics.tally('fw_cluster_messages_lost_total', 'Cross-node broadcasts this node reported lost', []);
  fw.events.on('ClusterChanged', (e) => {
    changes({ change: e.change });
    if (e.change === 'messages-lost' && e.lost) lost({}, e.lost);
  });
}
