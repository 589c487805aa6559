#!/usr/bin/env node
// Writes the key tables of docs/configuration.md from the modules' `defineConfig` declarations,
// so the docs cannot drift from the code: each `## … (`@fw/<package>`)` section's table is
// replaced by one row per declared key (key, environment variable, type, default, meaning). The
// prose around the tables is written by hand and kept. `--check` fails instead of writing when
// the file is out of date (the configuration-docs test runs it). Needs a build (`npm run build`).
import { readFileSync, writeFileSync } from 'node:fs';
import { envName, RUNTIME_CONFIG } from '@fw/runtime';
import { MCP_CONFIG, MCP_OAUTH_CONFIG } from '@fw/mcp';
import { AGENT_CONFIG } from '@fw/agent';
import { ADMIN_CONFIG } from '@fw/admin';
import { CLUSTER_CONFIG } from '@fw/redis';
import { STORE_CONFIG } from '@fw/store';

export const SCHEMAS = {
  '@fw/runtime': RUNTIME_CONFIG,
  '@fw/mcp': { ...MCP_CONFIG, ...MCP_OAUTH_CONFIG },
  '@fw/agent': AGENT_CONFIG,
  '@fw/store': STORE_CONFIG,
  '@fw/admin': ADMIN_CONFIG,
  '@fw/redis': CLUSTER_CONFIG,
};

const HEADER = ['| key | environment | type | default | meaning |', '|---|---|---|---|---|'];

function cell(text) {
  return String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function shownDefault(def) {
  if (def.shownDefault !== undefined) return `\`${def.shownDefault}\``;
  return `\`${typeof def.default === 'string' ? def.default : JSON.stringify(def.default)}\``.replace('``', '`""`');
}

export function table(schema) {
  const rows = Object.entries(schema).map(([key, def]) => {
    const env = [envName(key), ...(def.envAliases ?? [])].map((n) => `\`${n}\``).join(', ');
    return `| \`${key}\` | ${env} | ${def.type} | ${shownDefault(def)} | ${cell(def.description)} |`;
  });
  return [...HEADER, ...rows];
}

/** docs/configuration.md with every module's table regenerated. */
export function render(doc) {
  const lines = doc.split('\n');
  const out = [];
  const seen = new Set();
  let pending;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const heading = /^## .*\(`(@fw\/[a-z-]+)`\)/.exec(line);
    if (heading) pending = heading[1];
    if (pending && line.startsWith('| key |')) {
      const schema = SCHEMAS[pending];
      if (!schema) throw new Error(`docs/configuration.md: no schema for ${pending}`);
      out.push(...table(schema));
      seen.add(pending);
      pending = undefined;
      while (i + 1 < lines.length && lines[i + 1].startsWith('|')) i++;
      continue;
    }
    out.push(line);
  }
  const missing = Object.keys(SCHEMAS).filter((p) => !seen.has(p));
  if (missing.length) throw new Error(`docs/configuration.md has no table section for ${missing.join(', ')}`);
  return out.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = new URL('../docs/configuration.md', import.meta.url);
  const doc = readFileSync(file, 'utf8');
  const next = render(doc);
  if (process.argv.includes('--check')) {
    if (next !== doc) {
      console.error('docs/configuration.md is out of date: run `npm run docs:config`');
      process.exit(1);
    }
  } else if (next !== doc) {
    writeFileSync(file, next);
    console.log('docs/configuration.md updated');
  }
}
