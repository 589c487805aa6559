/**
 * `@fw/mcp`: expose an fw application's tools, resources and prompts to MCP clients over
 * Streamable HTTP and WebSocket on one path, plus the stdio bridge CLI and the bidirectional
 * tool bridge. See docs/mcp.md.
 */
import './seams.js'; // the package's events and services in the kernel's typed maps
export {
  McpServer,
  McpTool,
  McpResource,
  McpPrompt,
  McpParam,
  type McpServerOptions,
  type McpToolOptions,
  type McpResourceOptions,
  type McpPromptOptions,
  type McpParamOptions,
  type McpServerClass,
} from './decorators.js';
export {
  McpRegistry,
  ToolRegistry,
  type ToolDefinition,
  type ToolSpec,
  type ToolApproval,
  type ToolArgs,
  type ToolInput,
  type ResourceDefinition,
  type PromptDefinition,
  type ToolEntry,
  type ResourceEntry,
  type PromptEntry,
} from './registry.js';
export { toolInputSchema, checkToolArguments, jsonSchemaProblems, InvalidSchemaError, type ToolInputSchema } from './validation.js';
export { McpMessage, McpToolResult, type McpContent } from './message.js';
export type { McpContext, McpSessionHandle, LogLevel } from './context.js';
export type { ParamSpec, ParamType, JsonSchema, Completer } from './schema.js';
export { UriTemplate, UriTemplateError } from './uri-template.js';
export { MODERN_VERSIONS, LEGACY_VERSIONS } from './modern/era.js';
export { InputRequiredSignal, MissingClientCapabilityError } from './modern/input.js';
export { McpError, InvalidParamsError, ResourceNotFoundError, McpRegistrationError, RpcCode } from './errors.js';
export { MCP_CONFIG } from './config.js';
export { MCP_OAUTH_CONFIG, type OAuthSettings } from './oauth/config.js';
export { OAuthRefusal, bearerChallenge, type BearerError } from './oauth/challenge.js';
export { ProtectedResource, RESOURCE_METADATA_PREFIX, type ProtectedResourceMetadata } from './oauth/resource-server.js';
export { mountMcpServer, mountedServers, type MountOptions, type MountedServer } from './server.js';
export { McpEndpoint, type AccessCheck, type EndpointStats } from './endpoint.js';
export { Catalog, type RegistryVisibility } from './catalog.js';
export { SUPPORTED_VERSIONS, LATEST_VERSION } from './protocol/dispatcher.js';
export {
  BiDirectionalToolBridge,
  BridgeTimeoutError,
  BridgeDisconnectedError,
  BridgeLimitError,
  BridgeClientError,
  pendingBridgeCalls,
  type PendingCall,
  type BridgeOptions,
  type BridgeStats,
} from './bridge.js';
export { createAdminView } from './admin-view.js';
export type * from './admin-view.js';
export { McpModule, mcp, type McpModuleOptions } from './module.js';
