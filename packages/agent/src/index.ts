/**
 * @fw/agent: agents and coordinators with AI runtimes, sessions, the coordination journal, and
 * the A2A, AG-UI and chat endpoints. See docs/agents.md.
 */
import './seams.js'; // the package's events and services in the kernel's typed maps
export { Agent, Coordinator, AgentTool, OnPrompt, definitionOf } from './decorators.js';
export type {
  AgentOptions,
  CoordinatorOptions,
  ToolOptions,
  AgentToolDefinition,
  FleetMember,
  PromptResult,
  AgentClass,
  AgentDefinition,
} from './decorators.js';
export type { AgentContext, CoordinatorContext, DispatchOptions, DispatchResult } from './context.js';
export type { ApprovalEvent, RunEvent, RunListener } from './run-event.js';
export { AgentModule, agents, mountAgent, agentModuleOf, type AgentModuleOptions, type ProtocolMount } from './module.js';
export {
  RunHookSet,
  principalIdOf,
  type ModelCall,
  type ModelResult,
  type RunHooks,
  type RunOutcome,
  type RunScope,
  type RunWarning,
  type ToolResult,
} from './hooks/index.js';
export { AgentHost, type MountedAgent, type RunInput, type RemoteCaller, type Recovery } from './host.js';
export { CoordinationJournal, isJournalKind, type JournalEntry, type JournalRetention } from './journal.js';
export { SessionTracker, type AgentSession } from './sessions.js';
export { BoundedTaskStore } from './a2a/task-store.js';
export { AGENT_CONFIG } from './config.js';
export * from './tape/index.js';
export * from './pricing/index.js';
export * from './evals/index.js';
export {
  MissingPeerError,
  NoRuntimeError,
  NotInFleetError,
  RunCancelledError,
  TaskNotCancelableError,
  ToolStepLimitError,
} from './errors.js';
export { AgentAuth, AGENT_AUTHENTICATOR_SERVICE, admitAgentCall, type CardSecurity } from './auth.js';
export { OfflineProvider, type OfflineProviderOptions } from './runtime/offline.js';
export { AiSdkProvider, openAiProvider, type AiSdkProviderOptions, type OpenAiProviderOptions } from './runtime/ai-sdk.js';
export { ProviderRegistry } from './runtime/registry.js';
export type { ModelProvider, AiRequest, AiMessage, AiStreamPart, AiToolCall, AiToolSpec, AiUsage } from './runtime/port.js';
export type * from './admin-view.js';
export { CircuitBreaker, type CircuitState, type CircuitSettings, type CircuitTransition } from './coordination/circuit-breaker.js';
export { FleetBreakers, CircuitOpenError, type FleetHealth, type FleetAgentHealth } from './coordination/fleet-health.js';
export { flowOf, percentile, type FlowGraph, type FlowEdge, type FlowNode } from './coordination/flow.js';
export { treeOf } from './journal-tree.js';
export {
  StoreMemory,
  MemoryFullError,
  type AgentMemory,
  type AgentMemoryAccess,
  type AgentFact,
  type MemoryLimits,
} from './memory/memory.js';
