export { RunHookSet, type ModelCall, type ModelResult, type RunHooks, type RunOutcome, type ToolResult } from './run-hooks.js';
export { principalIdOf, type RunScope, type RunWarning } from './run-scope.js';
