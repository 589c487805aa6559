// Loaded with `node --import` into every example the docs test runs. The examples listen on and
// connect to the ports the docs show (8080, 3000, 4000, …), but the machine running the test is
// shared: each port an example listens on becomes a free one, in that process only, and every
// loopback connection the process makes to the port it asked for goes to the one it got. Ports
// the process does not listen on itself may be mapped by the test (DOCS_TEST_PORTS: 8080 → the
// demo's port), so a client example reaches the demo the docs mean. Each listener is reported on
// fd DOCS_TEST_FD as `listening <asked> <got>`, for the test to probe it.
import { writeSync } from 'node:fs';
import net from 'node:net';

const ports = new Map(JSON.parse(process.env.DOCS_TEST_PORTS ?? '[]'));
const fd = Number(process.env.DOCS_TEST_FD ?? 3);
const LOOPBACK = new Set([undefined, null, '', 'localhost', '127.0.0.1', '::1', '[::1]']);
const ANY = new Set(['0.0.0.0', '::']);

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  let asked;
  const first = args[0];
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    asked = Number(first);
    args[0] = 0;
    if (ANY.has(args[1])) args[1] = '127.0.0.1';
  } else if (first && typeof first === 'object' && !Array.isArray(first) && ('port' in first || 'host' in first)) {
    asked = Number(first.port ?? 0);
    args[0] = { ...first, port: 0, ...(ANY.has(first.host) ? { host: '127.0.0.1' } : {}) };
  } else if (first === undefined || typeof first === 'function') {
    asked = 0;
  }
  if (asked !== undefined) {
    this.once('listening', () => {
      const address = this.address();
      if (!address || typeof address !== 'object') return;
      if (asked > 0) ports.set(asked, address.port);
      try {
        writeSync(fd, `listening ${asked} ${address.port}\n`);
      } catch {}
    });
  }
  return listen.apply(this, args);
};

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  // net.connect() hands over [options, callback] (its normalized form); a socket may also be
  // given (options) or (port, host).
  const normalized = Array.isArray(args[0]) ? args[0] : undefined;
  const options = normalized ? normalized[0] : args[0];
  if (options && typeof options === 'object' && LOOPBACK.has(options.host) && ports.has(Number(options.port))) {
    const moved = { ...options, port: ports.get(Number(options.port)) };
    if (normalized) normalized[0] = moved;
    else args[0] = moved;
  } else if (typeof options === 'number' && LOOPBACK.has(args[1]) && ports.has(options)) {
    args[0] = ports.get(options);
  }
  return connect.apply(this, args);
};
