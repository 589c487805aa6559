import { randomBytes } from 'node:crypto';
import { errorSummary, FwError, type Logger } from '@fw/runtime';

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

/**
 * The agent store could not be read or written (a PostgreSQL that went away, a full disk). The
 * driver's own message names internal addresses and paths (`connect ECONNREFUSED 10.0.0.5:5432`):
 * it is logged where the store was called, and this is what the client reads.
 */
export class StoreUnavailableError extends FwError {
  constructor() {
    super('store_unavailable', 'the agent store is unavailable; try again later', 503, undefined, { 'retry-after': '5' });
  }
}

/**
 * What a client may read of a failure. An FwError was thrown on purpose and says what it means
 * (an agent that wants its user to read a message throws one). Anything else can carry what a
 * client must never see: a driver's `connect ECONNREFUSED 10.0.0.5:5432`, a file path, a model
 * backend's URL. It is logged here with a reference, and the client gets the reference only, so
 * an operator can still find the cause.
 */
export function publicError(
  err: unknown,
  log: Logger,
  fields: Record<string, unknown>,
  fallbackCode = 'internal_error',
): { code: string; message: string } {
  if (err instanceof FwError) return { code: err.code, message: err.message };
  const ref = randomBytes(6).toString('hex');
  log.error({ ...fields, ref, error: errorSummary(err) }, 'agent request failed');
  return { code: fallbackCode, message: `internal error (ref ${ref}); the server log has the cause` };
}
