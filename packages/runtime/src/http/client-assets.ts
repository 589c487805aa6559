import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { HttpRouteHandler, Method } from './router.js';
import { sendProblem } from './problem.js';

/** The bundles `@fw/client` builds (its scripts/bundle.mjs), by the name they are served under. */
const ASSETS: Record<string, { file: string; type: string }> = {
  'client.js': { file: 'client.js', type: 'text/javascript; charset=utf-8' },
  'client.js.map': { file: 'client.js.map', type: 'application/json; charset=utf-8' },
  'client.global.js': { file: 'client.global.js', type: 'text/javascript; charset=utf-8' },
  'client.global.js.map': { file: 'client.global.js.map', type: 'application/json; charset=utf-8' },
  // The room layer (docs/rooms.md), loaded only by pages that use rooms: `import { room } from '/fw/room.js'`.
  'room.js': { file: 'room.js', type: 'text/javascript; charset=utf-8' },
  'room.js.map': { file: 'room.js.map', type: 'application/json; charset=utf-8' },
};

interface Asset {
  type: string;
  etag: string;
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
}

/**
 * Serves the browser client with no build step for users: `<fw>/client.js` is one minified ES
 * module (`import { connect } from '/fw/client.js'`), `<fw>/client.global.js` an IIFE defining
 * `fw` for a plain `<script>`, `<fw>/room.js` the room layer (`room(client)`), each with its source map. Read and compressed (gzip, brotli) once,
 * on first request; served with a strong ETag (304 on revalidation), `Cache-Control: no-cache`
 * (browsers revalidate, so a server upgrade is picked up at once) and `Vary: Accept-Encoding`.
 */
export function mountClientAssets(host: {
  path: string;
  route(method: Method, path: string, handler: HttpRouteHandler): () => void;
}): void {
  const loaded = new Map<string, Promise<Asset | null>>();
  const load = (name: string): Promise<Asset | null> => {
    let p = loaded.get(name);
    if (!p) {
      p = readAsset(ASSETS[name]!.file, ASSETS[name]!.type);
      loaded.set(name, p);
      // A missing build is retried on the next request (it may be built meanwhile).
      void p.then((a) => a === null && loaded.delete(name));
    }
    return p;
  };
  for (const name of Object.keys(ASSETS)) {
    host.route('GET', `${host.path}/${name}`, async (req, res) => {
      const asset = await load(name);
      if (asset === null) {
        sendProblem(res, 503, 'client_not_built', '@fw/client is not installed or its browser bundle is not built (npm run build)');
        return;
      }
      send(req, res, asset);
    });
  }
}

async function readAsset(file: string, type: string): Promise<Asset | null> {
  let identity: Buffer;
  try {
    const dir = join(dirname(createRequire(import.meta.url).resolve('@fw/client/package.json')), 'dist', 'browser');
    identity = await readFile(join(dir, file));
  } catch {
    return null;
  }
  return {
    type,
    etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`,
    identity,
    gzip: gzipSync(identity, { level: 9 }),
    br: brotliCompressSync(identity, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length },
    }),
  };
}

function send(req: IncomingMessage, res: ServerResponse, asset: Asset): void {
  const common = { etag: asset.etag, 'cache-control': 'no-cache', vary: 'accept-encoding' };
  if (etagMatches(req.headers['if-none-match'], asset.etag)) {
    res.writeHead(304, common);
    res.end();
    return;
  }
  const encoding = pickEncoding(req.headers['accept-encoding']);
  const body = encoding === 'br' ? asset.br : encoding === 'gzip' ? asset.gzip : asset.identity;
  res.writeHead(200, {
    ...common,
    'content-type': asset.type,
    'content-length': body.length,
    ...(encoding !== 'identity' ? { 'content-encoding': encoding } : {}),
    'x-content-type-options': 'nosniff',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** RFC 9110 §13.1.2: a list of entity tags or `*`; weak comparison (W/ prefixes ignored). */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/** RFC 9110 §12.5.3: the preferred of br and gzip the client accepts (q > 0), else identity. */
export function pickEncoding(header: string | undefined): 'br' | 'gzip' | 'identity' {
  if (!header) return 'identity';
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  const weight = (name: string): number => q.get(name) ?? (q.has('*') ? q.get('*')! : 0);
  const br = weight('br');
  const gzip = Math.max(weight('gzip'), q.get('x-gzip') ?? 0);
  if (br > 0 && br >= gzip) return 'br';
  if (gzip > 0) return 'gzip';
  return 'identity';
}
