import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import AjvModule, { type ErrorObject } from 'ajv';
import { FwError } from '@fw/runtime';
import { BUDGETS_SCHEMA, budgetProblems, type BudgetDefinition } from './budgets/budget-definition.js';

/** Tool (or agent) names: exact, or with `*` standing for any run of characters. */
type Globs = string[];

/** One rule of a policy; `reason` replaces the default message of a denial. */
export type PolicyRule =
  | { type: 'deny-tools'; tools: Globs; reason?: string }
  | { type: 'allow-tools'; tools: Globs; reason?: string }
  | {
      type: 'rate-limit';
      /** What is counted: tool calls (of `tools`, default all) or model calls. */
      on: 'tool' | 'model';
      tools?: Globs;
      max: number;
      window_seconds: number;
      /** Whose calls share the count (default `agent`). */
      per?: 'agent' | 'principal' | 'run';
      reason?: string;
    }
  | {
      type: 'argument';
      tool: string;
      argument: string;
      minimum?: number;
      maximum?: number;
      pattern?: string;
      enum?: unknown[];
      max_length?: number;
      reason?: string;
    }
  | { type: 'content'; on: 'input' | 'output'; pattern: string; flags?: string; reason?: string }
  /** Not a denial: a call of a listed tool waits for a human's approval (docs/governance.md, "Human approval"). */
  | { type: 'require-approval'; tools: Globs; reason?: string; timeout_seconds?: number };

/** One declarative policy of the policy file. */
export interface PolicyDefinition {
  name: string;
  description?: string;
  /** `dry-run`: evaluated and logged, counts what it would have denied, denies nothing. */
  mode?: 'enforce' | 'dry-run';
  /** The agents it governs (default every one). */
  agents?: Globs;
  /** The principals it governs (default every caller, anonymous ones included). */
  principals?: Globs;
  rules: PolicyRule[];
}

export interface PolicyFile {
  policies: PolicyDefinition[];
  /** Token and cost budgets (docs/governance.md, Budgets and spend). */
  budgets?: BudgetDefinition[];
}

const GLOBS = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 256 }, minItems: 1, maxItems: 1000 };
const REASON = { type: 'string', minLength: 1, maxLength: 1024 };

/** The policy file's JSON schema (draft-07); docs/governance.md describes each member. */
export const POLICY_FILE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['policies'],
  properties: {
    $schema: { type: 'string' },
    budgets: BUDGETS_SCHEMA,
    policies: {
      type: 'array',
      maxItems: 1000,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'rules'],
        properties: {
          name: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' },
          description: { type: 'string', maxLength: 1024 },
          mode: { enum: ['enforce', 'dry-run'] },
          agents: GLOBS,
          principals: GLOBS,
          rules: {
            type: 'array',
            minItems: 1,
            maxItems: 1000,
            items: {
              type: 'object',
              required: ['type'],
              properties: { type: { enum: ['deny-tools', 'allow-tools', 'rate-limit', 'argument', 'content', 'require-approval'] } },
              allOf: [
                {
                  if: { properties: { type: { enum: ['deny-tools', 'allow-tools'] } } },
                  // biome-ignore lint/suspicious/noThenProperty: JSON schema's if/then (one rule kind's members)
                  then: {
                    additionalProperties: false,
                    required: ['tools'],
                    properties: { type: {}, tools: GLOBS, reason: REASON },
                  },
                },
                {
                  if: { properties: { type: { const: 'require-approval' } } },
                  // biome-ignore lint/suspicious/noThenProperty: JSON schema's if/then (one rule kind's members)
                  then: {
                    additionalProperties: false,
                    required: ['tools'],
                    properties: {
                      type: {},
                      tools: GLOBS,
                      reason: REASON,
                      timeout_seconds: { type: 'number', exclusiveMinimum: 0, maximum: 2_592_000 },
                    },
                  },
                },
                {
                  if: { properties: { type: { const: 'rate-limit' } } },
                  // biome-ignore lint/suspicious/noThenProperty: JSON schema's if/then (one rule kind's members)
                  then: {
                    additionalProperties: false,
                    required: ['on', 'max', 'window_seconds'],
                    properties: {
                      type: {},
                      on: { enum: ['tool', 'model'] },
                      tools: GLOBS,
                      max: { type: 'integer', minimum: 0, maximum: 1_000_000 },
                      window_seconds: { type: 'number', exclusiveMinimum: 0, maximum: 86_400 },
                      per: { enum: ['agent', 'principal', 'run'] },
                      reason: REASON,
                    },
                  },
                },
                {
                  if: { properties: { type: { const: 'argument' } } },
                  // biome-ignore lint/suspicious/noThenProperty: JSON schema's if/then (one rule kind's members)
                  then: {
                    additionalProperties: false,
                    required: ['tool', 'argument'],
                    minProperties: 4,
                    properties: {
                      type: {},
                      tool: { type: 'string', minLength: 1, maxLength: 256 },
                      argument: { type: 'string', minLength: 1, maxLength: 256 },
                      minimum: { type: 'number' },
                      maximum: { type: 'number' },
                      pattern: { type: 'string', minLength: 1, maxLength: 1024 },
                      enum: { type: 'array', minItems: 1, maxItems: 1000 },
                      max_length: { type: 'integer', minimum: 0 },
                      reason: REASON,
                    },
                  },
                },
                {
                  if: { properties: { type: { const: 'content' } } },
                  // biome-ignore lint/suspicious/noThenProperty: JSON schema's if/then (one rule kind's members)
                  then: {
                    additionalProperties: false,
                    required: ['on', 'pattern'],
                    properties: {
                      type: {},
                      on: { enum: ['input', 'output'] },
                      pattern: { type: 'string', minLength: 1, maxLength: 1024 },
                      flags: { type: 'string', pattern: '^[imsu]*$' },
                      reason: REASON,
                    },
                  },
                },
              ],
            },
          },
        },
      },
    },
  },
} as const;

// ajv is CommonJS: under NodeNext its default import is the module object (as in @fw/mcp).
type AjvClass = typeof AjvModule.default;
const Ajv = ((AjvModule as unknown as { default?: AjvClass }).default ?? AjvModule) as AjvClass;
const validateFile = new Ajv({ allErrors: true, strict: false }).compile(POLICY_FILE_SCHEMA);

/** A policy file fw refuses: what is wrong, each problem with where it is (a reload answers it as a 400). */
export class PolicyFileError extends FwError {
  constructor(
    message: string,
    readonly problems: string[],
  ) {
    super('invalid_policy_file', `${message}: ${problems.join('; ')}`, 400, { problems });
  }
}

/** Reads, parses and checks a policy file; throws {@link PolicyFileError} with every problem found. */
export function readPolicyFile(path: string): PolicyFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new PolicyFileError(`cannot read the policy file ${path}`, [(err as Error).message]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new PolicyFileError(`the policy file ${path} is not JSON`, [(err as Error).message]);
  }
  return checkPolicyFile(value, path);
}

/** Checks a parsed policy file against the schema, then what a schema cannot say (unique names, valid patterns). */
export function checkPolicyFile(value: unknown, where = 'the policy file'): PolicyFile {
  if (!validateFile(value))
    throw new PolicyFileError(`${where} does not match the policy schema`, (validateFile.errors ?? []).map(problem));
  const file = value as unknown as PolicyFile;
  const problems: string[] = [];
  const names = new Set<string>();
  file.policies.forEach((p, i) => {
    if (names.has(p.name)) problems.push(`/policies/${i}/name: '${p.name}' is used twice`);
    names.add(p.name);
    p.rules.forEach((r, j) => {
      const pattern = r.type === 'content' || r.type === 'argument' ? r.pattern : undefined;
      if (pattern === undefined) return;
      try {
        new RegExp(pattern, r.type === 'content' ? r.flags : undefined);
      } catch (err) {
        problems.push(`/policies/${i}/rules/${j}/pattern: ${(err as Error).message}`);
      }
    });
  });
  problems.push(...budgetProblems(file.budgets ?? []));
  if (problems.length > 0) throw new PolicyFileError(`${where} is not valid`, problems);
  return file;
}

function problem(e: ErrorObject): string {
  const extra = e.keyword === 'additionalProperties' ? ` ('${(e.params as { additionalProperty: string }).additionalProperty}')` : '';
  return `${e.instancePath || '/'}: ${e.message ?? 'invalid'}${extra}`;
}

/** sha256 of a value's canonical JSON (members sorted): the same policy has the same digest on every node. */
export function digestOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
