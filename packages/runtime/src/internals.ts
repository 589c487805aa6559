/**
 * `@fw/runtime/internals`: the runtime's own classes, for fw's tests and benchmarks that park
 * thousands of resources without sockets. Not a public API: no stability promise, and an
 * application never needs it.
 */
export { Runtime, type RuntimeSettings, type RuntimeCounters, type RuntimeDiagnostics } from './runtime.js';
export { FwResource } from './resource/resource.js';
export { FwBroadcaster } from './broadcast/broadcaster.js';
export { Outgoing } from './broadcast/outgoing.js';
export { HandlerTransports } from './transport/endpoint.js';
