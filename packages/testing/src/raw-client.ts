/**
 * Clients that misbehave at the TCP level, for tests of what a server does when a peer leaves at
 * the worst moment: a WebSocket upgrade request written by hand (so that the test holds the raw
 * socket and can reset it), and a record of uncaught exceptions while the test runs.
 */
import type { TestContext } from 'node:test';

/** The text of a WebSocket upgrade request for `path` on `port` (loopback), with extra header lines. */
export function upgradeRequest(port: number, path: string, headers: Record<string, string> = {}): string {
  const lines = [
    `GET ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    'Upgrade: websocket',
    'Connection: Upgrade',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    'Sec-WebSocket-Version: 13',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/**
 * The uncaught exceptions raised until the test ends. The test runner would fail the test on one
 * anyway; collecting them lets the test say which assertion it broke, and go on to check the rest.
 */
export function uncaughtExceptions(t: TestContext): unknown[] {
  const seen: unknown[] = [];
  const listener = (err: unknown): void => void seen.push(err);
  process.prependListener('uncaughtException', listener);
  t.after(() => void process.off('uncaughtException', listener));
  return seen;
}
