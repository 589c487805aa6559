/**
 * Types of the optional modules' admin views, imported as types only so that `@fw/admin` runs
 * without `@fw/mcp` and `@fw/agent` installed.
 */
export type {
  McpAdminView,
  McpToolInfo,
  McpResourceInfo,
  McpPromptInfo,
  McpServerInfo,
  McpSessionInfo,
  PendingBridgeCallInfo,
  McpTaskInfo,
} from '@fw/mcp';
export type {
  AgentAdminView,
  AgentInfo,
  AgentSessionInfo,
  CoordinatorInfo,
  JournalEvent,
  JournalQuery,
  CoordinationGraph,
  TaskInfo,
  RuntimeInfo,
  TapeView,
  TapeRun,
  TapeStep,
  TapeRunTree,
  ReplayResult,
  RerunStarted,
  RunComparison,
  EvalsView,
  EvalCase,
  EvalRun,
  EvalResult,
  EvalBaseline,
} from '@fw/agent';
