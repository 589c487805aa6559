export { createModule, ClusterModule, readClusterSettings } from './module.js';
export { CLUSTER_CONFIG, type ClusterSettings } from './config.js';
export type {
  ClusterService, ClusterStatus, ClusterNode, ClusterOverview, ClusterTotals, NodeOverview, ClusterResource,
  ClusterBroadcaster, ClusterPage, ClusterList, ControlResult, ControlOutcome, Stamped,
} from './cluster-service.js';
export type { NodeRecord } from './presence.js';
export type { RpcHandler } from './rpc.js';
export { SharedLog } from './shared-log.js';
export { NodeUnreachableError, ClusterConfigError } from './errors.js';
export { decodeEnvelope, encodeBody, type Envelope } from './envelope.js';
export { Sequencer, type SequencerSink } from './sequencer.js';
