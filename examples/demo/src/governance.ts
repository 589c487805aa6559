/**
 * The demo's governance: a policy file with a budget on the `slow` agent (GET
 * /api/admin/governance/budgets lists it, the dashboard shows where it stands), used unless the
 * operator names a policy file of their own (`FW_ADMIN_GOVERNANCE_POLICY_FILE`, `fw.config.json`
 * or the demo's options).
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envName, type FrameworkOptions } from '@fw/runtime';

const KEY = 'fw.admin.governance.policy-file';

/** examples/demo/governance/policies.json (from dist/src/ or src/ alike: two levels up from dist/src). */
export const DEMO_POLICY_FILE = fileURLToPath(new URL('../../governance/policies.json', import.meta.url));

/** The demo's policy file as a default under `config`, when nobody chose one. */
export function withDemoGovernance(config: FrameworkOptions | undefined): FrameworkOptions {
  const own = config ?? {};
  if ((own as Record<string, unknown>)[KEY] !== undefined || process.env[envName(KEY)] !== undefined || configFileSets()) return own;
  return { [KEY]: DEMO_POLICY_FILE, ...own };
}

/** `fw.config.json` names the key (flat or nested), as the framework reads it. */
function configFileSets(): boolean {
  const file = resolve('fw.config.json');
  if (!existsSync(file)) return false;
  try {
    let node: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof node === 'object' && node !== null && KEY in node) return true;
    for (const part of KEY.split('.'))
      node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined;
    return node !== undefined;
  } catch {
    return false; // the framework reports a broken file itself
  }
}
