import type { Duplex } from 'node:stream';

/** Answers a refused upgrade with an HTTP status and a problem+json body, then closes the socket. */
export function rejectUpgrade(socket: Duplex, status: number, code: string, detail: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ type: 'about:blank', title: code, status, code, detail });
  socket.end(
    `HTTP/1.1 ${status} ${code}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
