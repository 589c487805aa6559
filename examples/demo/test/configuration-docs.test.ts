// docs/configuration.md is the one place a user looks up a key: every key any fw module declares
// must be there, with its environment variable, its type and its real default.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { envName, RUNTIME_CONFIG, type ConfigSchema } from '@fw/runtime';
import { MCP_CONFIG } from '@fw/mcp';
import { AGENT_CONFIG } from '@fw/agent';
import { ADMIN_CONFIG } from '@fw/admin';
import { CLUSTER_CONFIG } from '@fw/redis';
import { STORE_CONFIG } from '@fw/store';

const doc = readFileSync(new URL('../../../../docs/configuration.md', import.meta.url), 'utf8');
const rows = new Map<string, string[]>();
for (const line of doc.split('\n')) {
  const cells = line.split('|').slice(1, -1).map((c) => c.trim());
  const key = /^`(fw\.[^`]+)`$/.exec(cells[0] ?? '')?.[1];
  if (key) rows.set(key, cells);
}

function shown(value: unknown): string {
  return `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
}

const schemas: Record<string, ConfigSchema> = {
  '@fw/runtime': RUNTIME_CONFIG, '@fw/mcp': MCP_CONFIG, '@fw/agent': AGENT_CONFIG, '@fw/admin': ADMIN_CONFIG, '@fw/redis': CLUSTER_CONFIG, '@fw/store': STORE_CONFIG,
};

for (const [pkg, schema] of Object.entries(schemas)) {
  test(`docs/configuration.md documents every key of ${pkg} with its environment variable, type and default`, () => {
    for (const [key, def] of Object.entries(schema)) {
      const cells = rows.get(key);
      assert.ok(cells, `${key} is missing from docs/configuration.md`);
      assert.equal(cells[1], `\`${envName(key)}\``, `${key}: environment variable`);
      assert.equal(cells[2], def.type, `${key}: type`);
      // An empty default is often derived at start (a node id from the host name): shown as `<how>`.
      const empty = def.default === '' ? ['`""`', '(empty)', '(none)', '—', ...(/^`<.+>`$/.test(cells[3] ?? '') ? [cells[3]!] : [])] : [];
      assert.ok([shown(def.default), ...empty].includes(cells[3] ?? ''), `${key}: default is ${shown(def.default)}, the docs say ${cells[3]}`);
    }
  });
}
