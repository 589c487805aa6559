/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it), kept loose on purpose: it is data to describe. */
export type JsonSchema = Record<string, unknown>;

export interface QueryParamDoc {
  description: string;
  schema: JsonSchema;
}

/**
 * What one admin route does, written next to the route (routes.ts) so the OpenAPI document
 * (openapi.ts) is generated from the route table and cannot drift from it.
 */
export interface RouteDoc {
  summary: string;
  /** Groups operations in the document (`overview`, `agents`, `broadcasters`, …). */
  tag: string;
  /** What a success answers: a JSON object, a JSON list (with X-Total-Count), or text. */
  reply: 'object' | 'list' | 'text';
  /** Text replies: their media type. */
  textType?: string;
  /** `offset`/`limit` paging of a list (and the default page size it uses). */
  paged?: boolean;
  /** Query parameters besides paging. */
  query?: Record<string, QueryParamDoc>;
  /** The JSON request body: `optional` for DELETE/cancel, whose reason may also be in the query. */
  body?: { required: boolean; schema: JsonSchema };
  /** Answered without a credential (nothing in it depends on who asks or on live data). */
  public?: boolean;
  /** Answers content (run tapes: messages, tool arguments and results): needs the content role (content.ts). */
  content?: boolean;
}

/** A message to send: a string, or a JSON object/array sent as its JSON text (params.ts requireMessage). */
export const MESSAGE_SCHEMA: JsonSchema = {
  oneOf: [{ type: 'string' }, { type: 'object' }, { type: 'array' }],
  description: 'A string, or JSON sent as its text',
};
export const REASON_BODY: JsonSchema = {
  type: 'object',
  properties: { reason: { type: 'string', maxLength: 1024, description: 'Why (recorded in the audit log and told to the client)' } },
};
export const TIME_SCHEMA: JsonSchema = { type: 'string', description: 'ISO-8601 time or epoch milliseconds' };
