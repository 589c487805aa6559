/**
 * The tables of the store, as Kysely sees them. Times are epoch milliseconds (`bigint` columns,
 * read back as numbers on both dialects). JSON documents are stored as text so that one schema
 * serves SQLite and PostgreSQL alike.
 */
import type { SpendDailyTable } from './spend.js';
import type { Generated } from 'kysely';

export interface A2aTaskTable {
  id: string;
  agent: string;
  context_id: string;
  /** A2A state name: submitted, working, completed, failed, canceled, … */
  state: string;
  created_at: number;
  updated_at: number;
  /** When a finished task stops being readable; null while it is live. */
  expires_at: number | null;
  /** The whole A2A Task (status, history, artifacts) as JSON. */
  body: string;
  /**
   * Who created it (migration 0004): `principal:<id>`, or `anonymous:<key>` (the key bound to its
   * context); null for a task stored before owners existed, which no caller owns.
   */
  owner: string | null;
}

export interface AgentSessionTable {
  id: string;
  agent: string;
  resource_uuid: string | null;
  /**
   * Who owns the conversation: `principal:<id>` (only that principal resumes it) or
   * `anonymous:<key>` (resumed by whoever presents the session id, the anonymous client's
   * capability). Before migration 0004 this was the bare principal id; null: nobody.
   */
  owner: string | null;
  started_at: number;
  last_activity_at: number;
  ended_at: number | null;
  /** Why it ended: `closed` (the client left), `interrupted` (the server stopped). */
  end_reason: string | null;
  message_count: number;
}

export interface AgentSessionMessageTable {
  session_id: string;
  seq: number;
  role: string;
  content: string;
  at: number;
}

export interface AgentJournalTable {
  /** Monotonic per store: the cursor of journal pages. */
  id: number;
  at: number;
  kind: string;
  coordination_id: string;
  coordinator: string;
  agent: string;
  /** The third party of an event: a handoff's origin or an evaluator (the agent filter matches it too). */
  other: string | null;
  /** The remaining fields (skill, durationMs, error, reason, score, …) as JSON. */
  body: string;
}

/**
 * One row per party of a journal event (its agent, its coordinator, its third party): the agent
 * filter walks `(party, id)` backwards instead of OR-ing three indexes and sorting the union.
 */
export interface AgentJournalPartyTable {
  party: string;
  id: number;
  kind: string;
}

export interface AgentRunTable {
  id: string;
  agent: string;
  /** `a2a`, `agui` or `chat`. */
  protocol: string;
  /** The protocol's own id: the A2A task id, the AG-UI run id or the chat session id. */
  ref: string | null;
  /** A coordinator's run: its coordination id (the journal's key). */
  coordination_id: string | null;
  /** running, completed, failed, cancelled, interrupted */
  state: string;
  started_at: number;
  ended_at: number | null;
  error: string | null;
  /** Who started it (migration 0004): `principal:<id>` or `anonymous:<key>`; null before owners existed. */
  owner: string | null;
}

/** One admin audit record; the whole entry (as @fw/admin writes it) is in `body`. */
export interface AdminAuditTable {
  /** Unique per record (several processes may share one store). */
  id: string;
  /** The admin's sequence number within its process lifetime (continued from the loaded records). */
  seq: number;
  /** Epoch milliseconds: the order of the log and the retention key. */
  at: number;
  action: string;
  principal: string | null;
  outcome: string;
  /** Retention class: `action` (writes, credentials, configuration) or `refusal` (aggregated refusals); each is pruned to its own cap. Default `action`. */
  class: Generated<string>;
  /** The whole audit entry as JSON. */
  body: string;
}

/** One recorded agent run on the tape (migration 0007-tape). */
export interface TapeRunTable {
  id: string;
  agent: string;
  /** chat, a2a, agui, dispatch, mcp; null for a run started in code. */
  protocol: string | null;
  ref: string | null;
  owner: string | null;
  /** The principal's id when the owner is one. */
  principal: string | null;
  parent_run_id: string | null;
  coordination_id: string | null;
  session_id: string | null;
  /** open, then exactly one of completed, failed, cancelled (interrupted when a process stopped mid-run). */
  status: string;
  started_at: number;
  ended_at: number | null;
  duration_ms: number | null;
  input_tokens: Generated<number>;
  output_tokens: Generated<number>;
  /** Steps recorded (the next step's seq). */
  steps: Generated<number>;
  error: string | null;
}

/** One typed step of a taped run; its content is JSON in `body`. */
export interface TapeStepTable {
  run_id: string;
  seq: number;
  at: number;
  /** input, model-request, model-response, tool-call, handoff, end */
  kind: string;
  duration_ms: number | null;
  body: string;
}

/** The write probe's row (health.ts). */
export interface StoreProbeTable {
  id: string;
  at: number;
}

/** One dataset case (migration 0010-evals): what to ask an agent and what it should answer. */
export interface EvalCaseTable {
  id: string;
  dataset: string;
  input: string;
  /** The output expected; what the scorer compares the agent's answer with. */
  expected: string;
  /** The taped run it was promoted from, if any. */
  source_run_id: string | null;
  created_at: number;
}

/** One eval run: a dataset against an agent with a scorer. */
export interface EvalRunTable {
  id: string;
  dataset: string;
  agent: string;
  /** exact, contains, json-schema, or a custom scorer's name. */
  scorer: string;
  /** running, then completed or failed (interrupted when a process stopped mid-run). */
  status: string;
  started_at: number;
  ended_at: number | null;
  cases: number;
  done: Generated<number>;
  passed: Generated<number>;
  error: string | null;
}

/** One case's result in an eval run. */
export interface EvalResultTable {
  eval_run_id: string;
  case_id: string;
  /** The agent run that answered (its id on the tape). */
  run_id: string | null;
  output: string | null;
  /** 1 passed, 0 not (SQLite has no boolean). */
  passed: number;
  /** Why the scorer said so, or the run's error. */
  detail: string | null;
  duration_ms: number;
}

export interface StoreSchema {
  fw_a2a_tasks: A2aTaskTable;
  fw_agent_sessions: AgentSessionTable;
  fw_agent_session_messages: AgentSessionMessageTable;
  fw_agent_journal: AgentJournalTable;
  fw_agent_journal_parties: AgentJournalPartyTable;
  fw_agent_runs: AgentRunTable;
  fw_admin_audit: AdminAuditTable;
  fw_tape_runs: TapeRunTable;
  fw_tape_steps: TapeStepTable;
  fw_store_probe: StoreProbeTable;
  fw_eval_cases: EvalCaseTable;
  fw_eval_runs: EvalRunTable;
  fw_eval_results: EvalResultTable;
  /** Daily spend (migration 0011-spend, spend.ts). */
  fw_spend_daily: SpendDailyTable;
}

/** Kysely's row type helper for generated columns, re-exported for repositories added later. */
export type { Generated };
