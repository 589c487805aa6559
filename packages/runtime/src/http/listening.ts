import type { AddressInfo } from 'node:net';
import { describeOrigin, type Config } from '../config.js';
import { FwError } from '../errors.js';
import type { Logger } from '../logging/logger.js';
import type { Endpoints } from './endpoints.js';

/**
 * The origin people reach a listener at: `fw.public-url` when set, else the listening address,
 * with a wildcard (`0.0.0.0`, `::`) shown as loopback, which is where the person starting the
 * server can open it.
 */
export function listeningOrigin(address: AddressInfo, publicUrl: URL | undefined): string {
  if (publicUrl) return publicUrl.href.replace(/\/+$/, '');
  let host = address.address;
  if (host === '0.0.0.0') host = '127.0.0.1';
  else if (host === '::') host = '[::1]';
  else if (address.family === 'IPv6' || host.includes(':')) host = `[${host}]`;
  return `http://${host}:${address.port}`;
}

/**
 * Logs, once per listener, every URL fw serves there: the app's origin and each endpoint a
 * module registered (dashboard, MCP, agents). One info line through the framework's logger: the
 * message reads as text, the fields (`url`, `endpoints`) are there for log pipelines.
 */
export function logListening(log: Logger, address: AddressInfo, publicUrl: URL | undefined, endpoints: Endpoints): void {
  const origin = listeningOrigin(address, publicUrl);
  const urls = Object.fromEntries(endpoints.list().map((e) => [e.name, `${origin}${e.path}`]));
  const listed = Object.entries(urls).map(([name, url]) => `${name} ${url}`);
  log.info({ url: `${origin}/`, endpoints: urls }, `fw listening on ${origin}/${listed.length > 0 ? ` — ${listed.join(', ')}` : ''}`);
}

/** `listen()` could not take its port: in use, or not allowed. The message says how to fix it. */
export class ListenError extends FwError {
  constructor(code: 'port_in_use' | 'port_forbidden', message: string) {
    super(code, message, 500);
    this.name = 'ListenError';
  }
}

/**
 * Turns the server's EADDRINUSE / EACCES into one line that says what to do, naming where the
 * port came from (the `listen(port)` argument, or `fw.port` from FW_PORT, PORT, the file…);
 * any other error is returned unchanged.
 */
export function listenFailure(err: unknown, port: number, host: string, config: Config, portGiven: boolean): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code !== 'EADDRINUSE' && code !== 'EACCES') return err;
  const from = portGiven ? 'the port given to listen()' : `fw.port, from ${describeOrigin('fw.port', config.origin('fw.port'))}`;
  const where = `${host}:${port} (${from})`;
  // listen(port) ignores FW_PORT and PORT: the fix is then in the code, or in not passing a port.
  const another = (example: number) =>
    portGiven
      ? `pass another port to listen(), or none so that FW_PORT / PORT decide (FW_PORT=${example})`
      : `set FW_PORT=${example} (or PORT), or 0 for any free port`;
  return code === 'EADDRINUSE'
    ? new ListenError(
        'port_in_use',
        `cannot listen on ${where}: the port is already in use. Stop the process that holds it, or ${another(port + 1)}`,
      )
    : new ListenError('port_forbidden', `cannot listen on ${where}: not allowed (ports below 1024 need privileges); ${another(8080)}`);
}
