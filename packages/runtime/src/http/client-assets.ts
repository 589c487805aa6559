import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import type { HttpRouteHandler, Method } from './router.js';
import { sendProblem } from './problem.js';

const ENTRY = "// fw browser client: the ES module build of @fw/client\nexport * from './client/index.js';\n";
const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};
const SAFE = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/**
 * Serves the browser build of `@fw/client` with no build step for users: `<fw>/client.js` is an
 * ES module entry that re-exports `./client/index.js`, and `<fw>/client/*` maps to the files of
 * the package's `dist/src/`. Only `.js` and source maps, no traversal, revalidated via ETag.
 */
export function mountClientAssets(host: { path: string; route(method: Method, path: string, handler: HttpRouteHandler): () => void }): void {
  let dir: string | null | undefined;
  const clientDir = (): string | null => {
    if (dir === undefined) {
      try {
        dir = join(dirname(createRequire(import.meta.url).resolve('@fw/client/package.json')), 'dist', 'src');
      } catch {
        dir = null;
      }
    }
    return dir;
  };

  host.route('GET', `${host.path}/client.js`, (req, res) => {
    send(req, res, ENTRY, TYPES['.js']!, `"entry-${ENTRY.length}"`);
  });

  host.route('GET', `${host.path}/client/{file*}`, async (req, res, ctx) => {
    const file = ctx.params['file'] ?? '';
    const ext = file.slice(file.lastIndexOf('.'));
    const type = TYPES[ext];
    if (!SAFE.test(file) || file.split('/').some((s) => s === '.' || s === '..') || type === undefined) {
      sendProblem(res, 404, 'not_found', `no client file '${file}'`);
      return;
    }
    const root = clientDir();
    if (root === null) {
      sendProblem(res, 503, 'client_not_built', '@fw/client is not installed or not built');
      return;
    }
    const full = join(root, file);
    if (!full.startsWith(root + sep)) {
      sendProblem(res, 404, 'not_found', `no client file '${file}'`);
      return;
    }
    let info;
    try {
      info = await stat(full);
    } catch {
      info = undefined;
    }
    if (!info?.isFile()) {
      sendProblem(res, 404, 'not_found', `no client file '${file}'`);
      return;
    }
    const etag = `"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}"`;
    send(req, res, await readFile(full), type, etag);
  });
}

function send(req: IncomingMessage, res: ServerResponse, body: string | Buffer, type: string, etag: string): void {
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, { etag, 'cache-control': 'no-cache' });
    res.end();
    return;
  }
  res.writeHead(200, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    // Revalidate every time: the client build changes with the server, and 304s are cheap.
    'cache-control': 'no-cache',
    etag,
    'x-content-type-options': 'nosniff',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
