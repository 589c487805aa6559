/** A uniquely named PostgreSQL database for one test run (FW_TEST_POSTGRES_URL, default 127.0.0.1:5432), dropped afterwards. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_ADMIN_URL = process.env.FW_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

async function run(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect().catch((err: unknown) => {
    throw new Error(
      `PostgreSQL is not reachable at ${PG_ADMIN_URL} (${(err as Error).message}): these tests need it; start it with pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start, or set FW_TEST_POSTGRES_URL`,
    );
  });
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

export async function createTestDatabase(prefix = 'fw_test'): Promise<TestDatabase> {
  const name = `${prefix}_${Date.now()}_${randomBytes(4).toString('hex')}`;
  await run(`CREATE DATABASE "${name}"`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
