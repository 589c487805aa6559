/**
 * bench/journal: the coordination journal at scale. Inserts `--rows` events (default 1,000,000)
 * through the journal's own write path (`CoordinationJournal.record`, batched INSERTs), on the
 * embedded default (a SQLite file through libSQL) and on PostgreSQL (a database made for the run
 * on 127.0.0.1:5432 and dropped afterwards), then times filtered page queries — the admin API's
 * `GET /api/admin/journal` — with p50/p99. Not a test: it prints a table, and a Markdown table
 * for docs/benchmarks.md.
 *
 *   npx tsc -b bench && node bench/dist/journal/index.js [--rows 1000000] [--queries 200]
 *        [--backends sqlite,postgres] [--postgres-url postgres://postgres@127.0.0.1:5432/test]
 *
 * The events look like a busy deployment's: 40 agents, 8 coordinators, a coordination every 5
 * events, kinds dispatch/completion (most), failure (5 %), handoff, evaluation, spread over 30
 * days. Queries (each `--queries` times with random parameters, one page of 50, newest first):
 *   agent            the newest page of one agent (agent, coordinator or third party)
 *   agent + 1 day    one agent within a random day
 *   coordination     one coordination's events
 *   failures         kind=failure of one agent
 *   deep cursor      one agent's page at a random depth (cursor = a random id)
 *   … + total        the same with the matching count (what the admin API returns as X-Total-Count)
 */
import { mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openStore, type FwStore } from '@fw/store';
import { CoordinationJournal, type JournalEntry, type JournalPageQuery } from '@fw/agent';
import { Histogram } from '../common/histogram.js';
import { fmt, markdownTable, textTable } from '../common/table.js';
import { arg } from '../common/args.js';

const argv = process.argv.slice(2);
const ROWS = Number(arg('rows', '1000000'));
const QUERIES = Number(arg('queries', '200'));
const BACKENDS = arg('backends', 'sqlite,postgres').split(',');
const PG_URL = arg('postgres-url', process.env.FW_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
const AGENTS = 40;
const COORDINATORS = 8;
const SPAN_MS = 30 * 24 * 3600_000;
const START = Date.UTC(2026, 0, 1);

/** A small deterministic PRNG (mulberry32): the same events and queries on every backend. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function entry(i: number, rnd: () => number): JournalEntry {
  const coordinationId = `co-${Math.floor(i / 5)}`;
  const coordinator = `lead-${Math.floor(i / 5) % COORDINATORS}`;
  const agent = `agent-${Math.floor(rnd() * AGENTS)}`;
  const r = rnd();
  if (r < 0.45) return { kind: 'dispatch', coordinationId, coordinator, agent, skill: 'work' };
  if (r < 0.9) return { kind: 'completion', coordinationId, coordinator, agent, skill: 'work', durationMs: Math.floor(rnd() * 2000) };
  if (r < 0.95)
    return {
      kind: 'failure',
      coordinationId,
      coordinator,
      agent,
      skill: 'work',
      durationMs: Math.floor(rnd() * 2000),
      error: 'upstream timeout',
    };
  if (r < 0.98)
    return {
      kind: 'handoff',
      coordinationId,
      coordinator,
      agent,
      from: `agent-${Math.floor(rnd() * AGENTS)}`,
      to: agent,
      reason: 'needs review',
    };
  return {
    kind: 'evaluation',
    coordinationId,
    coordinator,
    agent,
    evaluator: 'critic',
    score: Math.round(rnd() * 100) / 100,
    passed: rnd() > 0.2,
  };
}

interface Result {
  backend: string;
  insertS: number;
  sizeMb: number | undefined;
  queries: { name: string; p50: number; p99: number; rows: number }[];
}

async function bench(backend: string, store: FwStore, sizeOf: () => number | undefined): Promise<Result> {
  let clock = START;
  const journal = new CoordinationJournal(
    store,
    () => ({ maxEvents: 0, maxAgeMs: 0 }),
    () => clock,
  );
  await journal.open();
  const rnd = prng(42);
  const step = SPAN_MS / ROWS;
  const t0 = performance.now();
  const BATCH = 10_000;
  for (let i = 0; i < ROWS; i++) {
    clock = START + Math.floor(i * step);
    journal.record(entry(i, rnd));
    if ((i + 1) % BATCH === 0) {
      await journal.flush();
      if ((i + 1) % 100_000 === 0) process.stdout.write(`  ${backend}: ${fmt(i + 1)} events\r`);
    }
  }
  await journal.flush();
  const insertS = (performance.now() - t0) / 1000;
  console.log(`  ${backend}: ${fmt(ROWS)} events inserted in ${insertS.toFixed(1)} s (${fmt(ROWS / insertS)}/s)`);
  // What autovacuum does in production after a bulk load: statistics and the visibility map.
  if (store.kind === 'postgres') {
    const { sql } = await import('kysely');
    await sql`VACUUM ANALYZE fw_agent_journal`.execute(store.db);
    await sql`VACUUM ANALYZE fw_agent_journal_parties`.execute(store.db);
  }

  if (argv.includes('--explain') && store.kind === 'postgres') {
    // The plans of two page queries, to see which index each walks.
    const { sql } = await import('kysely');
    const from = START + SPAN_MS / 2;
    for (const [label, query] of [
      [
        'agent',
        sql`EXPLAIN ANALYZE SELECT j.* FROM fw_agent_journal_parties p JOIN fw_agent_journal j ON j.id = p.id WHERE p.party = 'agent-3' ORDER BY p.id DESC LIMIT 51`,
      ],
      [
        'agent + 1 day',
        sql`EXPLAIN ANALYZE SELECT j.* FROM fw_agent_journal_parties p JOIN fw_agent_journal j ON j.id = p.id WHERE p.party = 'agent-3' AND p.id >= ${Math.floor(ROWS / 2)} AND p.id <= ${Math.floor(ROWS / 2 + ROWS / 30)} AND j.at >= ${from} ORDER BY p.id DESC LIMIT 51`,
      ],
    ] as const) {
      const r = await query.execute(store.db);
      console.log(`-- ${label}\n${(r.rows as Record<string, string>[]).map((x) => Object.values(x)[0]).join('\n')}`);
    }
  }
  const q = prng(7);
  const agent = (): string => `agent-${Math.floor(q() * AGENTS)}`;
  const kinds: [string, () => JournalPageQuery][] = [
    ['agent', () => ({ agent: agent(), limit: 50, withTotal: false })],
    [
      'agent + 1 day',
      () => {
        const from = START + Math.floor(q() * (SPAN_MS - 86_400_000));
        return { agent: agent(), from, to: from + 86_400_000, limit: 50, withTotal: false };
      },
    ],
    ['coordination', () => ({ coordinationId: `co-${Math.floor(q() * (ROWS / 5))}`, limit: 50, withTotal: false })],
    ['failures of an agent', () => ({ agent: agent(), kind: 'failure', limit: 50, withTotal: false })],
    ['deep cursor', () => ({ agent: agent(), cursor: String(1 + Math.floor(q() * ROWS)), limit: 50, withTotal: false })],
    ['agent + total', () => ({ agent: agent(), limit: 50 })],
    [
      'agent + 1 day + total',
      () => {
        const from = START + Math.floor(q() * (SPAN_MS - 86_400_000));
        return { agent: agent(), from, to: from + 86_400_000, limit: 50 };
      },
    ],
  ];
  const queries: Result['queries'] = [];
  for (const [name, make] of kinds) {
    const h = new Histogram();
    let rows = 0;
    for (let i = 0; i < 10; i++) await journal.page(make()); // warm-up
    for (let i = 0; i < QUERIES; i++) {
      const query = make();
      const t = performance.now();
      const page = await journal.page(query);
      h.record((performance.now() - t) * 1000);
      rows += page.events.length;
    }
    queries.push({ name, p50: h.percentile(50) / 1000, p99: h.percentile(99) / 1000, rows: rows / QUERIES });
  }
  return { backend, insertS, sizeMb: sizeOf(), queries };
}

function dirSize(dir: string): number {
  return readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

async function main(): Promise<void> {
  console.log(
    `bench/journal: ${fmt(ROWS)} events, ${QUERIES} queries per kind; node ${process.version}, ${cpus().length} CPUs, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const results: Result[] = [];
  if (BACKENDS.includes('sqlite')) {
    const dir = mkdtempSync(join(tmpdir(), 'fw-bench-journal-'));
    const store = await openStore({ file: join(dir, 'fw.db') });
    try {
      results.push(await bench('embedded SQLite (libSQL)', store, () => dirSize(dir) / 1e6));
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (BACKENDS.includes('postgres')) {
    const name = `fw_bench_journal_${randomBytes(4).toString('hex')}`;
    const admin = async (sql: string): Promise<unknown> => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      try {
        return await c.query(sql);
      } finally {
        await c.end();
      }
    };
    await admin(`CREATE DATABASE "${name}"`);
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    const store = await openStore({ postgresUrl: url.toString() });
    let size: number | undefined;
    try {
      const r = await bench('PostgreSQL 15', store, () => size);
      const res = (await admin(`SELECT pg_database_size('${name}') AS bytes`)) as { rows: { bytes: string }[] };
      r.sizeMb = Number(res.rows[0]!.bytes) / 1e6;
      results.push(r);
    } finally {
      await store.close();
      await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    }
  }
  const headers = ['query (page of 50)', ...results.flatMap((r) => [`${r.backend} p50 ms`, 'p99 ms'])];
  const names = results[0]?.queries.map((q) => q.name) ?? [];
  const rows = names.map((n) => [
    n,
    ...results.flatMap((r) => {
      const x = r.queries.find((q) => q.name === n)!;
      return [x.p50.toFixed(2), x.p99.toFixed(2)];
    }),
  ]);
  const insert = ['insert (events/s)', ...results.flatMap((r) => [fmt(ROWS / r.insertS), `${r.insertS.toFixed(1)} s`])];
  const size = ['size on disk', ...results.flatMap((r) => [r.sizeMb === undefined ? '–' : `${fmt(r.sizeMb)} MB`, ''])];
  console.log(`\n${textTable(headers, [...rows, insert, size])}\n`);
  console.log(markdownTable(headers, [...rows, insert, size]));
  console.log(
    `\nload at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
