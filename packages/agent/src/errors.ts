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
