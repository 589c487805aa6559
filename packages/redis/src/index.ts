import './seams.js'; // the cluster's event (ClusterChanged) and service in the kernel's typed maps
export { cluster, ClusterModule, readClusterSettings } from './module.js';
export { CLUSTER_CONFIG, type ClusterSettings } from './config.js';
export type { ClusterChange } from './seams.js';
// The cluster contract is the kernel's (`@fw/runtime/adapter`); re-exported for convenience.
export type {
  ClusterService,
  ClusterStatus,
  ClusterNode,
  ClusterOverview,
  ClusterTotals,
  NodeOverview,
  ClusterResource,
  ClusterBroadcaster,
  ClusterPage,
  ClusterList,
  ControlResult,
  ControlOutcome,
  Stamped,
  NodeRecord,
  ClusterMethod,
  ClusterLog,
} from '@fw/runtime/adapter';
export { SharedLog } from './shared-log.js';
export { NodeUnreachableError, ClusterConfigError } from './errors.js';
export { decodeEnvelope, encodeBody, type Envelope } from './envelope.js';
export { Sequencer, type SequencerSink } from './sequencer.js';
