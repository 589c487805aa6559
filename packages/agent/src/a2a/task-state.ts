import { TaskState } from '@a2a-js/sdk';

const NAMES: Record<number, string> = {
  [TaskState.TASK_STATE_SUBMITTED]: 'submitted',
  [TaskState.TASK_STATE_WORKING]: 'working',
  [TaskState.TASK_STATE_COMPLETED]: 'completed',
  [TaskState.TASK_STATE_FAILED]: 'failed',
  [TaskState.TASK_STATE_CANCELED]: 'canceled',
  [TaskState.TASK_STATE_INPUT_REQUIRED]: 'input-required',
  [TaskState.TASK_STATE_REJECTED]: 'rejected',
  [TaskState.TASK_STATE_AUTH_REQUIRED]: 'auth-required',
};

/** The A2A state names used in events and the admin plane (`working`, `canceled`, …). */
export function stateName(state: TaskState | undefined): string {
  return state === undefined ? 'unknown' : (NAMES[state] ?? 'unknown');
}

export function stateFromName(name: string): TaskState | undefined {
  for (const [k, v] of Object.entries(NAMES)) if (v === name) return Number(k) as TaskState;
  return undefined;
}

const TERMINAL = new Set(['completed', 'failed', 'canceled', 'rejected']);

export function isTerminal(state: TaskState | undefined): boolean {
  return TERMINAL.has(stateName(state));
}
