/**
 * The shape of A2A request params, checked before @a2a-js/sdk sees them. The SDK's converters
 * trust the shape (a `null` part, an array as a task id, a number as file bytes end in a
 * TypeError that the SDK answered as -32603 "Internal error" with the JavaScript message), so a
 * request that is not what the protocol says is refused here as Invalid params (-32602), naming
 * what is wrong. Unknown members are allowed (newer clients send fields this version does not
 * know); a member present as `null` counts as absent, as in proto3 JSON.
 *
 * A2A 1.0 (ProtoJSON: camelCase or the proto field name in snake_case) and 0.3 (JSON-RPC schema)
 * differ in their messages and parts. Push notification configs are not served (the cards say
 * `pushNotifications: false`), so their methods and a send's push config are refused before the
 * SDK converts them.
 */

type Check = (value: unknown, at: string) => string | undefined;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const string: Check = (v, at) => (typeof v === 'string' ? undefined : `${at} must be a string`);
const nonEmptyString: Check = (v, at) => (typeof v === 'string' && v !== '' ? undefined : `${at} must be a non-empty string`);
const integer: Check = (v, at) => (typeof v === 'number' && Number.isSafeInteger(v) ? undefined : `${at} must be an integer`);
const boolean: Check = (v, at) => (typeof v === 'boolean' ? undefined : `${at} must be a boolean`);
const anyObject: Check = (v, at) => (isObject(v) ? undefined : `${at} must be an object`);
const anyJson: Check = () => undefined;
const stringOrInteger: Check = (v, at) =>
  typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v)) ? undefined : `${at} must be a string or an integer`;
const absent =
  (why: string): Check =>
  (_v, at) =>
    `${at}: ${why}`;

function array(of: Check): Check {
  return (v, at) => {
    if (!Array.isArray(v)) return `${at} must be an array`;
    for (let i = 0; i < v.length; i++) {
      const problem = of(v[i], `${at}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  };
}

interface Field {
  check: Check;
  required?: boolean;
  /** Other spellings of the member (ProtoJSON accepts the proto field name). */
  aliases?: readonly string[];
}

function object(fields: Record<string, Field | Check>): Check {
  return (v, at) => {
    if (!isObject(v)) return `${at} must be an object`;
    for (const [name, f] of Object.entries(fields)) {
      const field = typeof f === 'function' ? { check: f } : f;
      let seen = false;
      for (const key of [name, ...(field.aliases ?? [])]) {
        const member = Object.hasOwn(v, key) ? v[key] : undefined;
        if (member === undefined || member === null) continue;
        seen = true;
        const problem = field.check(member, `${at}.${key}`);
        if (problem) return problem;
      }
      if (field.required && !seen) return `${at}.${name} is required`;
    }
    return undefined;
  };
}

const NO_PUSH = 'push notifications are not supported by this agent';
const metadata: Field = { check: anyObject };

// A2A 1.0 (a2a.proto in ProtoJSON).

const part10 = object({
  text: string,
  raw: string,
  url: string,
  data: anyJson,
  metadata,
  filename: string,
  mediaType: { check: string, aliases: ['media_type'] },
});

const message10 = object({
  messageId: { check: nonEmptyString, required: true, aliases: ['message_id'] },
  contextId: { check: string, aliases: ['context_id'] },
  taskId: { check: string, aliases: ['task_id'] },
  role: stringOrInteger,
  parts: { check: array(part10), required: true },
  metadata,
  extensions: array(string),
  referenceTaskIds: { check: array(string), aliases: ['reference_task_ids'] },
});

const tenant: Field = { check: string };

const send10 = object({
  tenant,
  message: { check: message10, required: true },
  configuration: object({
    acceptedOutputModes: { check: array(string), aliases: ['accepted_output_modes'] },
    taskPushNotificationConfig: { check: absent(NO_PUSH), aliases: ['task_push_notification_config'] },
    historyLength: { check: integer, aliases: ['history_length'] },
    returnImmediately: { check: boolean, aliases: ['return_immediately'] },
  }),
  metadata,
});

const byId10 = object({
  tenant,
  id: { check: nonEmptyString, required: true },
  historyLength: { check: integer, aliases: ['history_length'] },
  metadata,
});

const list10 = object({
  tenant,
  contextId: { check: string, aliases: ['context_id'] },
  status: stringOrInteger,
  pageSize: { check: integer, aliases: ['page_size'] },
  pageToken: { check: string, aliases: ['page_token'] },
  historyLength: { check: integer, aliases: ['history_length'] },
  statusTimestampAfter: { check: string, aliases: ['status_timestamp_after'] },
  includeArtifacts: { check: boolean, aliases: ['include_artifacts'] },
});

// A2A 0.3 (the JSON-RPC schema of a2a.json 0.3).

const part03: Check = (v, at) => {
  if (!isObject(v)) return `${at} must be an object`;
  switch (v.kind) {
    case 'text':
      return object({ text: { check: string, required: true }, metadata })(v, at);
    case 'file': {
      const problem = object({
        file: {
          check: object({ bytes: string, uri: string, mimeType: string, name: string }),
          required: true,
        },
        metadata,
      })(v, at);
      if (problem) return problem;
      const file = v.file as Record<string, unknown>;
      return typeof file.bytes === 'string' || typeof file.uri === 'string' ? undefined : `${at}.file needs bytes or uri`;
    }
    case 'data':
      return object({ data: { check: anyObject, required: true }, metadata })(v, at);
    default:
      return `${at}.kind must be 'text', 'file' or 'data'`;
  }
};

const message03 = object({
  messageId: { check: nonEmptyString, required: true },
  role: { check: (v, at) => (v === 'user' || v === 'agent' ? undefined : `${at} must be 'user' or 'agent'`), required: true },
  parts: { check: array(part03), required: true },
  contextId: string,
  taskId: string,
  metadata,
  extensions: array(string),
  referenceTaskIds: array(string),
});

const send03 = object({
  message: { check: message03, required: true },
  configuration: object({
    acceptedOutputModes: array(string),
    pushNotificationConfig: absent(NO_PUSH),
    historyLength: integer,
    blocking: boolean,
  }),
  metadata,
});

const byId03 = object({ id: { check: nonEmptyString, required: true }, historyLength: integer, metadata });

/** A Map, not an object literal: a method named `__proto__` or `toString` must find nothing. */
const CHECKS: ReadonlyMap<string, Check> = new Map([
  ['SendMessage', send10],
  ['SendStreamingMessage', send10],
  ['GetTask', byId10],
  ['CancelTask', byId10],
  ['SubscribeToTask', byId10],
  ['ListTasks', list10],
  ['message/send', send03],
  ['message/stream', send03],
  ['tasks/get', byId03],
  ['tasks/cancel', byId03],
  ['tasks/resubscribe', byId03],
]);

/** The push notification config methods (1.0 and 0.3): not served. */
export const PUSH_CONFIG_METHODS: ReadonlySet<string> = new Set([
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
]);

/**
 * The JSON-RPC methods of each version. The SDK's own test (`method in table`) also accepts
 * `__proto__`, `constructor` or `toString`, which then reached code that looked them up.
 */
const METHODS_V1: ReadonlySet<string> = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
]);
const METHODS_V03: ReadonlySet<string> = new Set([
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
]);

/** Is `method` a JSON-RPC method of A2A 0.3 (`legacy`) or 1.0? */
export function isA2AMethod(method: string, legacy: boolean): boolean {
  return (legacy ? METHODS_V03 : METHODS_V1).has(method);
}

/** What is wrong with a method's params (an object already), or undefined when they have the protocol's shape. */
export function paramsProblem(method: string, params: Record<string, unknown> | undefined): string | undefined {
  const check = CHECKS.get(method);
  if (!check) return undefined;
  return check(params ?? {}, 'params');
}

/** The message of a send whose params passed `paramsProblem`. */
export function sentMessage(params: Record<string, unknown> | undefined): Record<string, unknown> {
  return (params?.message ?? {}) as Record<string, unknown>;
}

/** The context a send's message names ('' when none). */
export function sentContextId(params: Record<string, unknown> | undefined): string {
  const m = sentMessage(params);
  const id = m.contextId ?? m.context_id;
  return typeof id === 'string' ? id : '';
}

/** The existing task a send's message continues ('' when it starts a new one). */
export function sentTaskId(params: Record<string, unknown> | undefined): string {
  const m = sentMessage(params);
  const id = m.taskId ?? m.task_id;
  return typeof id === 'string' ? id : '';
}

/**
 * A message has a prompt when a part is non-blank text, a file or data (A2A 1.0: `text`, `raw`,
 * `url`, `data`; 0.3: `kind`). A message of blank text only would run the model on nothing.
 */
export function hasPrompt(params: Record<string, unknown> | undefined, legacy: boolean): boolean {
  const parts = sentMessage(params).parts;
  if (!Array.isArray(parts)) return false;
  return parts.some((p: unknown) => {
    if (!isObject(p)) return false;
    if (legacy) return p.kind === 'text' ? typeof p.text === 'string' && p.text.trim().length > 0 : true;
    if (typeof p.text === 'string') return p.text.trim().length > 0;
    return [p.raw, p.url, p.data].some((x) => x !== undefined && x !== null);
  });
}
