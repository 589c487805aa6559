/** The `fw-evals` command (evals-cli.ts). */
import { evalsCli } from './evals-cli.js';

process.exitCode = await evalsCli(process.argv.slice(2), { env: process.env, out: (line) => console.log(line) });
