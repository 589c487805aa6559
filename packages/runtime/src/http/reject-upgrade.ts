import type { Duplex } from 'node:stream';

/**
 * Answers a refused upgrade with an HTTP status and a problem+json body, then closes the socket.
 * `headers` are extra response headers (a `WWW-Authenticate` challenge, `Retry-After`); a value
 * holding a line break is dropped, so no caller can split the response. `members` are added to
 * the body (an FwError's details), as `sendError` does on plain HTTP.
 */
export function rejectUpgrade(
  socket: Duplex,
  status: number,
  code: string,
  detail: string,
  headers?: Record<string, string>,
  members?: Record<string, unknown>,
): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ type: 'about:blank', title: code, status, code, detail, ...members });
  const extra = Object.entries(headers ?? {})
    .filter(([name, value]) => !/[\r\n]/.test(name + value))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${code}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n${extra}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
