import { FwError } from '@fw/runtime';

/** No AI runtime is available to answer. */
export class NoRuntimeError extends FwError {
  constructor() {
    super('no_runtime', 'no AI runtime is available', 503);
  }
}

/** A coordinator asked for an agent outside its fleet. */
export class NotInFleetError extends FwError {
  constructor(coordinator: string, agent: string) {
    super('not_in_fleet', `agent '${agent}' is not in the fleet of coordinator '${coordinator}'`, 400, { coordinator, agent });
  }
}

/** The reason a run's signal is aborted with when its task or run is cancelled. */
export class RunCancelledError extends FwError {
  constructor(reason = 'cancelled') {
    super('cancelled', reason, 499);
  }
}

export class TaskNotCancelableError extends FwError {
  constructor(id: string, state: string) {
    super('task_not_cancelable', `task '${id}' is ${state} and can no longer be cancelled`, 409, { id, state });
  }
}

/**
 * An optional peer dependency (`ai`, `@ai-sdk/openai`) is needed for what was asked and is not
 * installed. `alsoMissing` are the other packages the same feature needs and lacks, so that the
 * command in the message installs everything at once (not one package per failed attempt).
 */
export class MissingPeerError extends FwError {
  constructor(peer: string, purpose: string, alsoMissing: readonly string[] = []) {
    const all = [peer, ...alsoMissing.filter((p) => p !== peer)];
    const named =
      all.length === 1
        ? `the package '${peer}', which is not installed`
        : `the packages ${all.map((p) => `'${p}'`).join(', ')}, which are not installed`;
    super('peer_missing', `${purpose} needs ${named}: npm install ${all.join(' ')}`, 503, { peer, missing: all });
  }
}

/**
 * What a failed `import(peer)` should throw: a MissingPeerError when the peer itself is not
 * installed, otherwise the original error (a broken install must not be reported as an absent one).
 */
export function missingPeer(err: unknown, peer: string, purpose: string, alsoMissing: readonly string[] = []): unknown {
  const e = err as { code?: string; message?: string };
  const notFound = e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'MODULE_NOT_FOUND';
  return notFound && (e.message ?? '').includes(`'${peer}'`) ? new MissingPeerError(peer, purpose, alsoMissing) : err;
}

/** The model kept calling tools past `fw.agent.max-tool-steps` turns: the run fails with this reason. */
export class ToolStepLimitError extends FwError {
  constructor(maxSteps: number) {
    super('tool_step_limit', `the model was still calling tools after fw.agent.max-tool-steps (${maxSteps}) turns`, 422, { maxSteps });
  }
}
