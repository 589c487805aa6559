/**
 * A budget as the policy file's `budgets` section writes it, and that section's JSON schema (the
 * policy file's schema includes it, so a bad budget fails the start and a reload like a bad policy).
 */

/** A limit in tokens (input + output) and/or USD; either reached is the limit reached. */
export interface BudgetLimit {
  tokens?: number;
  usd?: number;
}

/**
 * `run`: each run (of agent `key`, or every run when `key` is absent); `agent`: the agent `key`
 * per UTC day (absent: each agent, separately); `principal`: the principal `key` per UTC day
 * (absent: each principal, separately; anonymous callers are not counted per principal).
 */
export interface BudgetDefinition {
  id: string;
  scope: 'run' | 'agent' | 'principal';
  key?: string;
  /** Reached: a `BudgetSoftLimitReached` event and a warning in the log; the run goes on. */
  soft?: BudgetLimit;
  /** Reached: the model call is refused, or its stream stopped, with `budget_exceeded`. */
  hard?: BudgetLimit;
  description?: string;
}

const LIMIT = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    tokens: { type: 'integer', minimum: 1, maximum: 1e12, description: 'Input + output tokens' },
    usd: { type: 'number', exclusiveMinimum: 0, maximum: 1e9, description: 'USD, from the price table' },
  },
} as const;

/** The `budgets` member of the policy file's schema. */
export const BUDGETS_SCHEMA = {
  type: 'array',
  maxItems: 1000,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'scope'],
    anyOf: [{ required: ['soft'] }, { required: ['hard'] }],
    properties: {
      id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' },
      scope: { enum: ['run', 'agent', 'principal'] },
      key: { type: 'string', minLength: 1, maxLength: 256 },
      soft: LIMIT,
      hard: LIMIT,
      description: { type: 'string', maxLength: 1024 },
    },
  },
} as const;

/** What a schema cannot say: ids are unique. */
export function budgetProblems(budgets: readonly BudgetDefinition[]): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  budgets.forEach((b, i) => {
    if (ids.has(b.id)) problems.push(`/budgets/${i}/id: '${b.id}' is used twice`);
    ids.add(b.id);
  });
  return problems;
}
