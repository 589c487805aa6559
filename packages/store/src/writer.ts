/**
 * What a write handed to `store.writes.commit` writes through: the store's repositories bound to
 * the transaction of its batch, so every write of one batch commits (or rolls back) together.
 */
import type { Kysely } from 'kysely';
import { AuditRecords } from './audit.js';
import { JournalRecords } from './journal.js';
import { RunRecords } from './runs.js';
import type { StoreSchema } from './schema.js';
import { SessionRecords } from './sessions.js';
import { SpendRecords } from './spend.js';
import { TapeRecords } from './tape.js';
import { TaskRecords } from './tasks.js';

export interface StoreWriter {
  readonly tasks: TaskRecords;
  readonly sessions: SessionRecords;
  readonly runs: RunRecords;
  readonly journal: JournalRecords;
  readonly audit: AuditRecords;
  readonly tape: TapeRecords;
  /** Daily spend (governance adds each batch of model calls' usage). */
  readonly spend: SpendRecords;
  /** The batch's transaction itself, for repositories that later migrations add. */
  readonly db: Kysely<StoreSchema>;
}

export function writerOn(db: Kysely<StoreSchema>): StoreWriter {
  return {
    tasks: new TaskRecords(db),
    sessions: new SessionRecords(db),
    runs: new RunRecords(db),
    journal: new JournalRecords(db),
    audit: new AuditRecords(db),
    tape: new TapeRecords(db),
    spend: new SpendRecords(db),
    db,
  };
}
