/**
 * The audit that ends every chaos test: what the clients were told is compared with what the
 * store holds, read straight from the database (the same file or PostgreSQL, opened anew).
 */
import { openStore, type StoreOptions } from '@fw/store';
import type { Outcomes } from './load.js';

export interface AuditResult {
  /** Acknowledged chat turns not stored exactly once (`session/text: count`). */
  turns: string[];
  /** Acknowledged tasks not stored as completed. */
  tasks: string[];
  /** Acknowledged tasks whose run is not recorded as completed (e.g. settled as interrupted). */
  runs: string[];
}

export async function audit(options: StoreOptions, out: Outcomes): Promise<AuditResult> {
  const store = await openStore(options);
  try {
    const messages = await store.db
      .selectFrom('fw_agent_session_messages')
      .select(['session_id', 'content'])
      .select((eb) => eb.fn.countAll().as('n'))
      .where('role', '=', 'user')
      .groupBy(['session_id', 'content'])
      .execute();
    const stored = new Map(messages.map((r) => [`${r.session_id}/${r.content}`, Number(r.n)]));
    const tasks = new Map((await store.db.selectFrom('fw_a2a_tasks').select(['id', 'state']).execute()).map((r) => [r.id, r.state]));
    const runs = new Map(
      (await store.db.selectFrom('fw_agent_runs').select(['ref', 'state']).where('protocol', '=', 'a2a').execute()).map((r) => [
        r.ref,
        r.state,
      ]),
    );
    return {
      turns: out.turns
        .map((t) => `${t.session}/${t.text}`)
        .filter((k) => stored.get(k) !== 1)
        .map((k) => `${k}: ${stored.get(k) ?? 0}`),
      tasks: out.tasks.filter((id) => tasks.get(id) !== 'completed'),
      runs: out.tasks.filter((id) => runs.get(id) !== 'completed'),
    };
  } finally {
    await store.close();
  }
}
