import { FwError } from '@fw/runtime';

/** A cross-node request that did not get an answer in time (or Redis is down). */
export class NodeUnreachableError extends FwError {
  constructor(
    readonly node: string,
    detail: string,
  ) {
    super('node_unreachable', `node '${node}' did not answer: ${detail}`, 504, { node });
  }
}

/** Bad cluster configuration, found at start. */
export class ClusterConfigError extends FwError {
  constructor(detail: string) {
    super('invalid_config', detail, 500);
  }
}
