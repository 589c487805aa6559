import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startHarness } from './harness.js';

const API = '/api/admin';

interface Document {
  openapi: string;
  servers: { url: string }[];
  paths: Record<
    string,
    Record<
      string,
      { operationId: string; summary: string; parameters?: { name: string; in: string }[]; 'x-fw-action'?: string; security?: unknown[] }
    >
  >;
}

test('/api/admin/openapi.json: a valid OpenAPI 3.1 document listing every mounted admin route, served without a credential', async () => {
  const h = await startHarness({ 'fw.admin.auth.token': 'admin-secret-token-1234' });
  try {
    // The rest of the API still needs the token; the description does not.
    assert.equal((await h.get(`${API}/overview`)).status, 401);
    const res = await h.get(`${API}/openapi.json`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const doc = (await res.json()) as Document;

    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(validator.version, '3.1');
    // The validator does reject a broken document (the check above can fail).
    const broken = structuredClone(doc) as unknown as { paths: Record<string, unknown> };
    broken.paths['/broken'] = { get: { responses: { 200: { content: 'not an object' } } } };
    assert.equal((await new Validator().validate(broken as unknown as Record<string, unknown>)).valid, false);
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(doc.servers, [{ url: API }]);

    // Every route of fw's route table under the admin base is in the document, and nothing else.
    const mounted = h.fw.httpRoutes
      .list()
      .filter((r) => r.path.startsWith(`${API}/`))
      .map((r) => `${r.method} ${r.path.slice(API.length)}`)
      .sort();
    const described = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    assert.deepEqual(described, mounted);
    assert.ok(mounted.length >= 37, `all ${mounted.length} routes`);

    const operations = Object.values(doc.paths).flatMap((ops) => Object.values(ops));
    assert.equal(new Set(operations.map((o) => o.operationId)).size, operations.length, 'operationIds are unique');
    assert.ok(operations.every((o) => o.summary.length > 0));
    // Path parameters come from the route patterns; write routes name their control action.
    assert.deepEqual(
      doc.paths['/resources/{uuid}']?.delete?.parameters?.filter((p) => p.in === 'path').map((p) => p.name),
      ['uuid'],
    );
    assert.equal(doc.paths['/resources/{uuid}']?.delete?.['x-fw-action'], 'disconnect');
    assert.equal(doc.paths['/broadcasters/broadcast']?.post?.['x-fw-action'], 'broadcast');
    assert.deepEqual(doc.paths['/openapi.json']?.get?.security, []);
    assert.ok(doc.paths['/resources']?.get?.parameters?.some((p) => p.name === 'limit'));
  } finally {
    await h.close();
  }
});
