/**
 * An fw process for the kill -9 chaos test: the agent module with an echoing runtime on an
 * ephemeral port, its store given by the environment (FW_CHILD_DATA_DIR: an embedded SQLite file
 * there; FW_CHILD_POSTGRES_URL: PostgreSQL). Prints `{"port": n}` once it listens.
 */
import { Agent } from '../../dist/index.js';
import { ProbeRuntime, startApp } from '../helpers.js';

@Agent({ name: 'keeper', description: 'echoes' })
class Keeper {}

const postgres = process.env.FW_CHILD_POSTGRES_URL;
const app = await startApp(
  (m) => m.mount(Keeper),
  {
    ...(postgres ? { 'fw.store.postgres-url': postgres } : { 'fw.data-dir': process.env.FW_CHILD_DATA_DIR ?? '' }),
    'fw.agent.prompts.per-minute': 100_000,
    'fw.agent.prompts.burst': 100_000,
    // Evicting a finished task deletes its row: the audit needs every acknowledged one kept.
    'fw.agent.tasks.max': 1_000_000,
    'fw.log.level': 'warn',
  },
  [new ProbeRuntime()],
);
process.stdout.write(`${JSON.stringify({ port: Number(new URL(app.base).port) })}\n`);
