import { performance } from 'node:perf_hooks';
import { DecisionLog, type DecisionRecord } from './decision-log.js';
import { SlidingWindow } from './sliding-window.js';
import { digestOf, type PolicyDefinition, type PolicyFile, type PolicyRule } from './policy-file.js';

/**
 * What a policy is asked about. `tool_call`: may `agent` call `tool` with `arguments`;
 * `model_call`: may it call its model with `content` (the newest user message);
 * `model_output`: may the model's answer so far (`content`) go on.
 */
export interface PolicyRequest {
  agent: string;
  action: 'tool_call' | 'model_call' | 'model_output';
  principal?: string | undefined;
  runId?: string | undefined;
  tool?: string | undefined;
  arguments?: unknown;
  content?: string | undefined;
}

/** A code policy's answer: deny with a reason, or nothing to say (undefined / allow). */
export type PolicyVerdict = { decision: 'deny'; reason: string } | { decision: 'allow' } | undefined | void;

/** A policy written as a function (the code hook), evaluated after the file's policies. */
export interface CodePolicy {
  name: string;
  description?: string;
  mode?: 'enforce' | 'dry-run';
  /**
   * Ask it about model output too (`model_output`, on every streamed part of a run's answer, with
   * the answer so far); false by default, since it then runs once per token.
   */
  watchesOutput?: boolean;
  evaluate(request: Readonly<PolicyRequest>): PolicyVerdict;
}

/** What POST governance/check answers (the Agent Governance Toolkit's shape), and what the run hooks act on. */
export interface PolicyDecision {
  allowed: boolean;
  decision: 'allow' | 'deny';
  reason: string;
  matched_policy: string | null;
  evaluation_ms: number;
  /** Policies in dry-run mode that would have denied (only when some did). */
  dry_run?: string[];
}

/** A policy as GET governance/policies lists it. */
export interface PolicySummary {
  name: string;
  kind: 'file' | 'code';
  mode: 'enforce' | 'dry-run';
  description: string | null;
  /** sha256 of the policy's canonical JSON (a code policy: of its function's source). */
  digest: string;
  rules: number;
  /** Evaluations that denied (enforce) or would have denied (dry-run) since it was loaded. */
  denied: number;
  wouldDeny: number;
}

interface Compiled {
  name: string;
  kind: 'file' | 'code';
  mode: 'enforce' | 'dry-run';
  description: string | null;
  digest: string;
  ruleCount: number;
  agents: RegExp | undefined;
  principals: RegExp | undefined;
  /** Answers the denial's reason, or undefined; records a rate-limit hit in `hits` (kept only when the call goes on). */
  check(request: PolicyRequest, now: number, hits: (() => void)[]): string | undefined;
  denied: number;
  wouldDeny: number;
  hasOutputRules: boolean;
  /** Its `require-approval` rules (file policies only). */
  approvals: { tools: RegExp; reason: string | undefined; timeoutMs: number | undefined }[];
}

/** A policy's requirement of a human's approval for a tool call. */
export interface ApprovalRequirement {
  policy: string;
  reason: string;
  timeoutMs: number | undefined;
}

/** Rate-limit windows kept at most (oldest forgotten first): a flood of distinct principals costs bounded memory. */
const MAX_WINDOWS = 10_000;
/** Context members longer than this are shortened in the decision log. */
const SNAPSHOT_CHARS = 512;

/**
 * The policies of one node and their decisions. Evaluation: each policy that governs the agent
 * and principal, in file order then code order; the first enforcing policy that denies decides;
 * a dry-run policy that would deny is counted and logged, and evaluation goes on. No policy that
 * denies: allowed. Rate limits count the calls that went on (a refused call uses no quota, and a
 * check, which only asks, uses none either).
 */
export class PolicyEngine {
  private filePolicies: Compiled[] = [];
  private codePolicies: Compiled[] = [];
  private readonly windows = new Map<string, SlidingWindow>();
  readonly decisions: DecisionLog;
  /** The loaded file's digest (null: none loaded). */
  fileDigest: string | null = null;
  /** Any policy with a content rule on model output (the per-token hook does nothing otherwise). */
  hasOutputRules = false;
  /** Told of every denial and dry-run hit (the governance event). */
  onDenied: ((record: DecisionRecord) => void) | undefined;

  constructor(decisionLogSize: number) {
    this.decisions = new DecisionLog(decisionLogSize);
  }

  /** Replaces the file's policies at once (the file was checked before); their counters and windows start anew. */
  load(file: PolicyFile): void {
    this.filePolicies = file.policies.map((p) => compileDefinition(p, this.windows));
    this.fileDigest = digestOf(file);
    this.windows.clear();
    this.refresh();
  }

  /** Adds a code policy; returns the function that removes it. */
  use(policy: CodePolicy): () => void {
    const compiled = compileCode(policy);
    this.codePolicies = [...this.codePolicies, compiled];
    this.refresh();
    return () => {
      this.codePolicies = this.codePolicies.filter((c) => c !== compiled);
      this.refresh();
    };
  }

  get size(): number {
    return this.filePolicies.length + this.codePolicies.length;
  }

  list(): PolicySummary[] {
    return [...this.filePolicies, ...this.codePolicies].map((c) => ({
      name: c.name,
      kind: c.kind,
      mode: c.mode,
      description: c.description,
      digest: c.digest,
      rules: c.ruleCount,
      denied: c.denied,
      wouldDeny: c.wouldDeny,
    }));
  }

  /**
   * Decides `request` and logs the decision. The per-token output check passes `stream`: allows
   * are not logged, and a dry-run policy already hit in this answer (named in `stream.dryRun`) is
   * not counted again. No policy loaded: allowed, nothing logged.
   */
  evaluate(request: PolicyRequest, source: DecisionRecord['source'], stream?: { dryRun: Set<string> }): PolicyDecision {
    const start = performance.now();
    const policies = this.size === 0 ? [] : [...this.filePolicies, ...this.codePolicies];
    const now = Date.now();
    const hits: (() => void)[] = [];
    const dryRun: string[] = [];
    let denied: { policy: Compiled; reason: string } | undefined;
    let governed = false;
    for (const p of policies) {
      if (!governs(p, request)) continue;
      if (request.action === 'model_output' && !p.hasOutputRules) continue;
      if (stream?.dryRun.has(p.name)) continue;
      governed = true;
      let reason: string | undefined;
      try {
        reason = p.check(request, now, hits);
      } catch (err) {
        // A code policy that throws denies: a guard that cannot decide fails closed.
        reason = `the policy failed: ${(err as Error).message}`;
      }
      if (reason === undefined) continue;
      if (p.mode === 'dry-run') {
        p.wouldDeny++;
        dryRun.push(p.name);
        stream?.dryRun.add(p.name);
        this.record(request, source, start, 'dry-run', p.name, reason);
        continue;
      }
      p.denied++;
      denied = { policy: p, reason };
      break;
    }
    // A check is a read (POST governance/check: a viewer may ask): it evaluates the rate limits
    // without using their quota, or anyone could exhaust another principal's quota by asking.
    if (!denied && source !== 'check') for (const hit of hits) hit();
    const evaluationMs = round(performance.now() - start);
    const decision: PolicyDecision = denied
      ? { allowed: false, decision: 'deny', reason: denied.reason, matched_policy: denied.policy.name, evaluation_ms: evaluationMs }
      : {
          allowed: true,
          decision: 'allow',
          reason: governed ? 'no policy denies it' : 'no policy governs it',
          matched_policy: null,
          evaluation_ms: evaluationMs,
        };
    if (dryRun.length > 0) decision.dry_run = dryRun;
    if (denied) this.record(request, source, start, 'deny', denied.policy.name, denied.reason);
    else if (!stream && policies.length > 0) this.record(request, source, start, 'allow', null, decision.reason);
    return decision;
  }

  private record(
    request: PolicyRequest,
    source: DecisionRecord['source'],
    start: number,
    decision: DecisionRecord['decision'],
    policy: string | null,
    reason: string,
  ): void {
    const record: DecisionRecord = {
      time: new Date().toISOString(),
      policy,
      decision,
      reason,
      evaluation_ms: round(performance.now() - start),
      source,
      action: request.action,
      agent: request.agent,
      context: snapshot(request),
    };
    this.decisions.add(record);
    if (decision !== 'allow') this.onDenied?.(record);
  }

  /**
   * The first enforcing file policy that governs the call and requires a human's approval of its
   * tool, or undefined. Not a decision: the call was allowed, and now waits for a human.
   */
  approvalFor(request: PolicyRequest): ApprovalRequirement | undefined {
    if (request.action !== 'tool_call' || request.tool === undefined) return undefined;
    for (const p of this.filePolicies) {
      if (p.mode !== 'enforce' || p.approvals.length === 0 || !governs(p, request)) continue;
      const rule = p.approvals.find((a) => a.tools.test(request.tool ?? ''));
      if (rule)
        return { policy: p.name, reason: rule.reason ?? `policy '${p.name}' requires a human's approval`, timeoutMs: rule.timeoutMs };
    }
    return undefined;
  }

  private refresh(): void {
    this.hasOutputRules = [...this.filePolicies, ...this.codePolicies].some((p) => p.hasOutputRules);
  }
}

function governs(p: Compiled, request: PolicyRequest): boolean {
  if (p.agents && !p.agents.test(request.agent)) return false;
  if (p.principals && !p.principals.test(request.principal ?? '')) return false;
  return true;
}

function compileCode(policy: CodePolicy): Compiled {
  return {
    name: policy.name,
    kind: 'code',
    mode: policy.mode ?? 'enforce',
    description: policy.description ?? null,
    digest: digestOf({ name: policy.name, mode: policy.mode ?? 'enforce', source: policy.evaluate.toString() }),
    ruleCount: 1,
    agents: undefined,
    principals: undefined,
    check: (request) => {
      const verdict = policy.evaluate(request);
      return verdict && verdict.decision === 'deny' ? verdict.reason : undefined;
    },
    denied: 0,
    wouldDeny: 0,
    hasOutputRules: policy.watchesOutput === true,
    approvals: [],
  };
}

function compileDefinition(p: PolicyDefinition, windows: Map<string, SlidingWindow>): Compiled {
  const checks = p.rules.map((rule, index) => compileRule(p.name, index, rule, windows));
  return {
    name: p.name,
    kind: 'file',
    mode: p.mode ?? 'enforce',
    description: p.description ?? null,
    digest: digestOf(p),
    ruleCount: p.rules.length,
    agents: p.agents ? globs(p.agents) : undefined,
    principals: p.principals ? globs(p.principals) : undefined,
    check: (request, now, hits) => {
      for (const check of checks) {
        const reason = check(request, now, hits);
        if (reason !== undefined) return reason;
      }
      return undefined;
    },
    denied: 0,
    wouldDeny: 0,
    hasOutputRules: p.rules.some((r) => r.type === 'content' && r.on === 'output'),
    approvals: p.rules.flatMap((r) =>
      r.type === 'require-approval'
        ? [{ tools: globs(r.tools), reason: r.reason, timeoutMs: r.timeout_seconds === undefined ? undefined : r.timeout_seconds * 1000 }]
        : [],
    ),
  };
}

type RuleCheck = (request: PolicyRequest, now: number, hits: (() => void)[]) => string | undefined;

function compileRule(policy: string, index: number, rule: PolicyRule, windows: Map<string, SlidingWindow>): RuleCheck {
  const why = (fallback: string) => rule.reason ?? fallback;
  switch (rule.type) {
    case 'deny-tools': {
      const denied = globs(rule.tools);
      return (r) =>
        r.action === 'tool_call' && r.tool !== undefined && denied.test(r.tool) ? why(`the tool '${r.tool}' is denied`) : undefined;
    }
    case 'allow-tools': {
      const allowed = globs(rule.tools);
      return (r) =>
        r.action === 'tool_call' && r.tool !== undefined && !allowed.test(r.tool) ? why(`the tool '${r.tool}' is not allowed`) : undefined;
    }
    case 'argument': {
      const tool = globs([rule.tool]);
      const pattern = rule.pattern !== undefined ? new RegExp(rule.pattern) : undefined;
      return (r) => {
        if (r.action !== 'tool_call' || r.tool === undefined || !tool.test(r.tool)) return undefined;
        const args = r.arguments;
        if (args === null || typeof args !== 'object' || !(rule.argument in args)) return undefined;
        const value = (args as Record<string, unknown>)[rule.argument];
        const broken = argumentProblem(rule, pattern, value);
        return broken ? why(`the argument '${rule.argument}' of '${r.tool}' ${broken}`) : undefined;
      };
    }
    case 'content': {
      const pattern = new RegExp(rule.pattern, rule.flags);
      const action = rule.on === 'input' ? 'model_call' : 'model_output';
      return (r) =>
        r.action === action && r.content !== undefined && pattern.test(r.content)
          ? why(`the model ${rule.on} matches a forbidden pattern`)
          : undefined;
    }
    case 'require-approval':
      // Denies nothing: the engine's approvalFor() reads these rules.
      return () => undefined;
    case 'rate-limit': {
      const tools = rule.tools ? globs(rule.tools) : undefined;
      const windowMs = rule.window_seconds * 1000;
      const per = rule.per ?? 'agent';
      return (r, now, hits) => {
        if (rule.on === 'tool' ? r.action !== 'tool_call' || (tools && !tools.test(r.tool ?? '')) : r.action !== 'model_call')
          return undefined;
        const who = per === 'agent' ? r.agent : per === 'principal' ? (r.principal ?? '') : (r.runId ?? '');
        const key = `${policy}\u0000${index}\u0000${who}`;
        let window = windows.get(key);
        if (!window) windows.set(key, (window = new SlidingWindow(windowMs)));
        if (window.count(now) >= rule.max)
          return why(`the rate limit of ${rule.max} ${rule.on} calls per ${rule.window_seconds} s (per ${per}) is reached`);
        const stamps = window;
        hits.push(() => {
          stamps.add(now);
          // Re-inserted: the map's order is least recently used first.
          windows.delete(key);
          windows.set(key, stamps);
          if (windows.size > MAX_WINDOWS) windows.delete(windows.keys().next().value as string);
        });
        return undefined;
      };
    }
  }
}

function argumentProblem(rule: Extract<PolicyRule, { type: 'argument' }>, pattern: RegExp | undefined, value: unknown): string | undefined {
  if (rule.enum && !rule.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) return 'is not one of the allowed values';
  if (rule.minimum !== undefined || rule.maximum !== undefined) {
    if (typeof value !== 'number') return 'must be a number';
    if (rule.minimum !== undefined && value < rule.minimum) return `is below ${rule.minimum}`;
    if (rule.maximum !== undefined && value > rule.maximum) return `is above ${rule.maximum}`;
  }
  if (pattern || rule.max_length !== undefined) {
    if (typeof value !== 'string') return 'must be a string';
    if (rule.max_length !== undefined && value.length > rule.max_length) return `is longer than ${rule.max_length} characters`;
    if (pattern && !pattern.test(value)) return `does not match ${rule.pattern}`;
  }
  return undefined;
}

/** One regular expression for a list of names where `*` is any run of characters. */
function globs(names: readonly string[]): RegExp {
  const alternatives = names.map((n) => n.split('*').map(escapeRegExp).join('.*'));
  return new RegExp(`^(?:${alternatives.join('|')})$`);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** What the decision log keeps of a request: every member, long ones shortened. */
function snapshot(r: PolicyRequest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (r.principal !== undefined) out.principal = r.principal;
  if (r.runId !== undefined) out.runId = r.runId;
  if (r.tool !== undefined) out.tool = r.tool;
  if (r.arguments !== undefined) {
    const json = JSON.stringify(r.arguments) ?? '';
    out.arguments = json.length > SNAPSHOT_CHARS ? `${json.slice(0, SNAPSHOT_CHARS)}…` : r.arguments;
  }
  if (r.content !== undefined) out.content = r.content.length > SNAPSHOT_CHARS ? `${r.content.slice(0, SNAPSHOT_CHARS)}…` : r.content;
  return out;
}
