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
  ...RETENTION_CONFIG,
});

declare module '@fw/runtime' {
  interface FwConfigKeys extends ConfigTypes<typeof STORE_CONFIG> {}
}
