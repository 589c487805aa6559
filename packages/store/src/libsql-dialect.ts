/**
 * A Kysely dialect on `@libsql/client` (embedded SQLite; its native binary ships in the registry
 * package, so nothing is built at install). Kysely's own SQLite adapter, introspector and query
 * compiler do the SQL; this file only connects them to libSQL. `@libsql/kysely-libsql` exists but
 * pins an old client, so the few lines live here.
 *
 * One embedded database is one connection: queries and transactions are serialized by a mutex,
 * as Kysely's own SqliteDriver does. Transactions use plain BEGIN/COMMIT on that connection
 * (libSQL's `client.transaction()` would hand the connection away, which loses a `:memory:` db).
 */
import type { Client, InValue } from '@libsql/client';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';

export class LibsqlDialect implements Dialect {
  constructor(private readonly client: Client) {}
  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }
  createDriver(): Driver {
    return new LibsqlDriver(this.client);
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }
}

class LibsqlConnection implements DatabaseConnection {
  constructor(private readonly client: Client) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const rs = await this.client.execute({ sql: query.sql, args: query.parameters as InValue[] });
    const rows = rs.rows.map((row) => {
      const o: Record<string, unknown> = {};
      rs.columns.forEach((c, i) => (o[c] = row[i]));
      return o as R;
    });
    return {
      rows,
      numAffectedRows: BigInt(rs.rowsAffected),
      ...(rs.lastInsertRowid !== undefined ? { insertId: BigInt(rs.lastInsertRowid) } : {}),
    };
  }

  // biome-ignore lint/correctness/useYield: Kysely's Driver needs the generator; the embedded store has no streaming queries
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported on the embedded store');
  }
}

class LibsqlDriver implements Driver {
  private readonly connection: LibsqlConnection;
  private locked: Promise<void> = Promise.resolve();
  private unlock: (() => void) | undefined;

  constructor(private readonly client: Client) {
    this.connection = new LibsqlConnection(client);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    // A chain of promises: each acquirer waits for the previous holder's release.
    const previous = this.locked;
    let release!: () => void;
    this.locked = new Promise<void>((r) => (release = r));
    await previous;
    this.unlock = release;
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(CompiledQuery.raw('rollback'));
    } catch (err) {
      // SQLite rolls a transaction back by itself on some errors (SQLITE_FULL, SQLITE_IOERR): the
      // ROLLBACK then fails and would hide the error that matters (a full disk) from the caller.
      if (!/no transaction is active/i.test((err as Error)?.message ?? '')) throw err;
    }
  }

  async releaseConnection(): Promise<void> {
    const release = this.unlock;
    this.unlock = undefined;
    release?.();
  }

  async destroy(): Promise<void> {
    this.client.close();
  }
}
