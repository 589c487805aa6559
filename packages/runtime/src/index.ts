export { Framework, rejectUpgrade, type FrameworkOptions, type UpgradeRouting } from './framework.js';
export { Endpoints, type AnnouncedEndpoint } from './http/endpoints.js';
export { ListenError, listeningOrigin } from './http/listening.js';
export type { FrameworkModule } from './module.js';
export {
  Config,
  ConfigError,
  defineConfig,
  describeOrigin,
  envName,
  parseDuration,
  type ConfigKey,
  type ConfigSchema,
  type ConfigType,
  type ConfigTypes,
  type ConfigValue,
  type ConfigInput,
  type ConfigOptions,
  type FwConfigKeys,
  type ConfigOrigin,
} from './config.js';
export { EventBus, type FwEvent, type FwEventMap, type FwEventType, type Listener, type AnyListener } from './events.js';
export { Services, type FwServices, type ServiceName } from './services.js';
export { RUNTIME_CONFIG } from './runtime-config.js';
export { FwError, NotFoundError, BadRequestError, LimitExceededError } from './errors.js';
export { problem, sendProblem, sendError, type Problem } from './http/problem.js';
export { readBody, sendJson, PayloadTooLargeError } from './http/body.js';
export { whenClosed } from './http/when-closed.js';
export { isLoopback, isLoopbackHostname } from './security/loopback.js';
export { normalizeIp } from './security/ip-address.js';
export { parseHostHeader, type HostHeader } from './security/host-header.js';
export {
  clientAddress,
  requestHost,
  requestProtocol,
  requestSource,
  DEFAULT_JSON_DEPTH,
  type RequestSource,
} from './security/request-source.js';
export { jsonDepthExceeds } from './security/json-depth.js';
export { websocketMaxFragments } from './transport/websocket-limits.js';
export { servedNatively, type NativeSocket, type NativeWebSocketRoute } from './transport/native-upgrade.js';
export {
  readJson,
  readJsonBody,
  parseJson,
  requireJsonContentType,
  isJsonContentType,
  JsonTooDeepError,
  InvalidJsonError,
  UnsupportedMediaTypeError,
  type JsonBodyLimits,
} from './security/json-body.js';
export {
  SecurityPolicy,
  type Refusal,
  type RefusalListener,
  type SecuritySettings,
  type SecurityCounters,
} from './security/security-policy.js';
export { RouteTable, type HttpRouteHandler, type UpgradeRouteHandler, type RouteContext, type Method } from './http/router.js';
export type * from './model.js';
export type { BroadcasterFactory } from './broadcast/factory.js';
export type { ResourceRegistry } from './resource/registry.js';
export { heartbeat } from './interceptor/heartbeat.js';
export { idleTimeout } from './interceptor/idle-timeout.js';
export { authenticate, type AuthenticateOptions } from './interceptor/authenticate.js';
export { Readiness, type ReadinessCheck, type ReadinessContributor, type ReadinessReport } from './health/readiness.js';
export { probePaths, type LifecyclePhase } from './health/probes.js';
export { FwMetrics, type CallOutcome } from './metrics/fw-metrics.js';
export * from './auth/index.js';
export * from './tenancy/index.js';
export { errorSummary, parseLogLevel, LOG_LEVELS, type Logger, type LogFn, type LogLevel } from './logging/logger.js';
export { createDefaultLogger, fallbackLogger } from './logging/default-logger.js';
export { MemoryLogger, type LogEntry } from './logging/memory-logger.js';
export {
  carriedContext,
  failSpan,
  fwTracer,
  headerGetter,
  incomingContext,
  traced,
  withContext,
  SpanKind,
  SpanStatusCode,
  type Attributes,
  type Span,
  type TracedOptions,
} from './telemetry/tracing.js';
export * from './rooms/index.js';
