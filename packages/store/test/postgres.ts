/** A uniquely named PostgreSQL database on 127.0.0.1:5432 for one test run, dropped afterwards. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_ADMIN_URL = process.env.FW_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(prefix = 'fw_store'): Promise<TestDatabase> {
  const name = `${prefix}_${Date.now()}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect().catch((err: unknown) => {
    throw new Error(`PostgreSQL is not reachable at ${PG_ADMIN_URL} (${(err as Error).message}): these tests need it; start it with pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start, or set FW_TEST_POSTGRES_URL`);
  });
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
