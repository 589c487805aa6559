import { CONTENT_ROLE } from '../content.js';
import { REQUIRED_ROLE } from '../authorizer.js';
import type { AdminRoute } from './router.js';
import type { JsonSchema } from './route-doc.js';

export interface OpenApiOptions {
  /** `servers[0].url`: where the routes are reached, e.g. `/api/admin` or `https://admin.example.com/api/admin`. */
  base: string;
  version: string;
}

const PROBLEM: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem details with a stable `code`',
  required: ['type', 'title', 'status', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string', description: 'Stable machine-readable error code' },
    detail: { type: 'string' },
  },
};

/**
 * The OpenAPI 3.1 document of the admin REST API, generated from the route table: every route
 * with its method, path parameters (from the `{name}` segments), paging, query, body, success
 * reply and the problem+json errors every route can answer. Served at `<base>/openapi.json`.
 */
export function openApiDocument(routes: readonly AdminRoute[], options: OpenApiOptions): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  for (const route of routes) {
    const doc = route.doc;
    tags.add(doc.tag);
    const parameters: Record<string, unknown>[] = [];
    for (const m of route.path.matchAll(/\{([A-Za-z0-9_]+)\*?\}/g)) {
      parameters.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
    }
    if (doc.paged) {
      parameters.push(
        { name: 'offset', in: 'query', description: 'Items to skip', schema: { type: 'integer', minimum: 0, default: 0 } },
        {
          name: 'limit',
          in: 'query',
          description: 'Page size (default fw.admin.page.default-limit, at most fw.admin.page.max-limit)',
          schema: { type: 'integer', minimum: 1 },
        },
      );
    }
    for (const [name, q] of Object.entries(doc.query ?? {})) {
      parameters.push({ name, in: 'query', description: q.description, schema: q.schema });
    }
    const success =
      doc.reply === 'text'
        ? { description: 'OK', content: { [doc.textType ?? 'text/plain']: { schema: { type: 'string' } } } }
        : doc.reply === 'list'
          ? {
              description: 'OK: one page of the list',
              headers: {
                'X-Total-Count': { description: 'Items in the whole list', schema: { type: 'integer' } },
                'X-Missing-Nodes': {
                  description: 'Cluster mode: nodes that did not answer in time (the list leaves them out)',
                  schema: { type: 'string' },
                },
              },
              content: { 'application/json': { schema: { type: 'array', items: { type: 'object' } } } },
            }
          : { description: 'OK', content: { 'application/json': { schema: { type: 'object' } } } };
    const operation: Record<string, unknown> = {
      operationId: operationId(route),
      summary: doc.summary,
      tags: [doc.tag],
      ...(parameters.length ? { parameters } : {}),
      ...(doc.body ? { requestBody: { required: doc.body.required, content: { 'application/json': { schema: doc.body.schema } } } } : {}),
      responses: {
        200: success,
        default: { description: 'An error', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
      },
      ...(doc.public ? { security: [] } : {}),
      ...(doc.content ? { 'x-fw-content-role': CONTENT_ROLE } : {}),
      ...(route.write ? { 'x-fw-action': route.write.action, 'x-fw-role': REQUIRED_ROLE[route.write.action] } : {}),
    };
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'fw admin API',
      version: options.version,
      description:
        'The REST API of the fw admin plane (docs/admin.md). Loopback clients need no credential until authentication is configured (fw.auth.tokens, fw.auth.jwt.*, fw.admin.auth.token or an authenticator); then send Authorization: Bearer <token>. Reads need the viewer role, reads of content (x-fw-content-role: run tapes) the operator role; write operations carry x-fw-action (the control action) and x-fw-role (the role it needs), then the authorizer checks.',
    },
    servers: [{ url: options.base }],
    tags: [...tags].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { Problem: PROBLEM },
    },
    // `{}`: without a configured token, loopback clients get in with no credential.
    security: [{ bearer: [] }, {}],
  };
}

function operationId(route: AdminRoute): string {
  const words = route.path
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/[{}*]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : '')));
  return [route.method.toLowerCase(), ...words.map((w) => w.charAt(0).toUpperCase() + w.slice(1))].join('');
}
