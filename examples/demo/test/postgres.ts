/** A uniquely named PostgreSQL database on 127.0.0.1:5432 for one test run, dropped afterwards. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const ADMIN_URL = process.env.FW_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export async function createTestDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${Date.now()}_${randomBytes(4).toString('hex')}`;
  const run = async (sql: string): Promise<void> => {
    const c = new pg.Client({ connectionString: ADMIN_URL });
    await c.connect().catch((err: unknown) => {
      throw new Error(`PostgreSQL is not reachable at ${ADMIN_URL} (${(err as Error).message}): these tests need it; start it with pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start, or set FW_TEST_POSTGRES_URL`);
    });
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await run(`CREATE DATABASE "${name}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
