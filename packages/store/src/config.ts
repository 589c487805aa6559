import { defineConfig, type ConfigTypes } from '@fw/runtime';
import { RETENTION_CONFIG } from './retention/config.js';

/** The store's configuration keys (documented in docs/configuration.md and docs/agents.md). */
export const STORE_CONFIG = defineConfig({
  'fw.store.postgres-url': {
    type: 'string',
    default: '',
    description:
      'PostgreSQL connection string (postgres://user:pass@host:5432/db) for the store; empty keeps it in an embedded SQLite file in fw.data-dir (env FW_STORE_POSTGRES_URL)',
  },
  'fw.store.postgres-pool': { type: 'number', default: 10, description: 'Connections in the PostgreSQL pool of the store' },
  'fw.store.file': { type: 'string', default: 'fw.db', description: 'File name of the embedded SQLite store inside fw.data-dir' },
  'fw.store.sqlite-synchronous': {
    type: 'string',
    default: 'full',
    description:
      "How the embedded SQLite store syncs its commits: 'full' fsyncs each commit before fw confirms it (survives a power loss or a disk that fails); 'normal' survives a killed process only, at about twice the chat turns per second (docs/operations.md)",
  },
  'fw.store.retry-budget': {
    type: 'duration',
    default: '5s',
    description:
      'How long a write keeps retrying (with backoff) a store fault such as a PostgreSQL restart or failover, a cut connection or a full disk; past it the store counts as down and writes fail at once with 503 store_unavailable until a write succeeds again',
  },
  'fw.store.probe-interval': {
    type: 'duration',
    default: '1s',
    description:
      "How often a tiny probe write checks the store (readiness 'store': it notices a fault when nobody writes, and the recovery)",
  },
  'fw.store.probe-timeout': {
    type: 'duration',
    default: '2s',
    description: 'A probe write that takes longer than this counts as a store fault (readiness 503)',
  },
  ...RETENTION_CONFIG,
});

declare module '@fw/runtime' {
  interface FwConfigKeys extends ConfigTypes<typeof STORE_CONFIG> {}
}
