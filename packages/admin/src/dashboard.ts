import { readFile } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendProblem, type Framework } from '@fw/runtime';
import { DEFAULT_DOCS_URL } from './config.js';

/** The dashboard's static files (index.html, app.js, app.css), shipped beside dist/ in the package. */
export const DASHBOARD_DIR = fileURLToPath(new URL('../dashboard/', import.meta.url));

export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'";

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/** A file name we serve: plain segments only, no dot-files, no `..`, no backslashes. */
const SAFE = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/**
 * Serves the dashboard at `prefix/` (`/fw/admin/` by default). The page itself loads without a
 * credential (it shows a sign-in form when the API answers 401); its data comes from the REST API
 * and the event stream, which the gate protects. Returns a function that unmounts it.
 */
export function mountDashboard(fw: Framework, prefix: string, dir = DASHBOARD_DIR): () => void {
  const rewrite = pointAt(fw.path, docsUrlOf(fw));
  const removers = [
    fw.route('GET', `${prefix}/`, (req, res, ctx) => {
      // The router treats `/x/` and `/x` as one route: redirect the bare form so relative URLs resolve.
      if (!ctx.url.pathname.endsWith('/')) {
        res.writeHead(301, { location: `${prefix}/${queryOf(req)}`, 'content-length': 0 });
        res.end();
        return;
      }
      return serveFile(res, dir, 'index.html', req.method === 'HEAD', rewrite);
    }),
    fw.route('GET', `${prefix}/{file*}`, (req, res, ctx) => {
      const name = ctx.params.file ?? '';
      return serveFile(res, dir, name, req.method === 'HEAD', name === 'index.html' ? rewrite : undefined);
    }),
  ];
  return () => removers.forEach((r) => r());
}

function queryOf(req: IncomingMessage): string {
  const q = (req.url ?? '').indexOf('?');
  return q >= 0 ? (req.url ?? '').slice(q) : '';
}

/** fw.admin.docs-url, checked: an absolute http(s) URL (anything else would be a link to nowhere, or a script). */
function docsUrlOf(fw: Framework): string {
  const value = fw.config.get('fw.admin.docs-url');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RangeError(`fw.admin.docs-url must be an absolute http or https URL, got '${value}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new RangeError(`fw.admin.docs-url must be an http or https URL, got '${value}'`);
  return url.href;
}

/** Text safe inside a double-quoted HTML attribute. */
function attribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The page finds the event stream, the fw client and the docs through `<meta>` tags written for
 * the default framework path `/fw` and the repository's docs; they are rewritten to match
 * another `fw.path` or fw.admin.docs-url.
 */
function pointAt(fwPath: string, docsUrl: string): ((html: string) => string) | undefined {
  if (fwPath === '/fw' && docsUrl === DEFAULT_DOCS_URL) return undefined;
  const set = (html: string, name: string, value: string): string =>
    html.replace(
      new RegExp(`(<meta name="${name}" content=")[^"]*(")`),
      (_m, open: string, close: string) => `${open}${attribute(value)}${close}`,
    );
  return (html) => set(set(set(html, 'fw-admin-events', `${fwPath}/admin/events`), 'fw-client', `${fwPath}/client.js`), 'fw-docs', docsUrl);
}

async function serveFile(res: ServerResponse, dir: string, name: string, head: boolean, rewrite?: (html: string) => string): Promise<void> {
  const root = resolve(dir);
  const path = resolve(root, name);
  if (!SAFE.test(name) || name.split('/').includes('..') || !path.startsWith(root + sep)) {
    sendProblem(res, 404, 'not_found', 'no such dashboard file');
    return;
  }
  let content: Buffer;
  try {
    content = await readFile(path);
    if (rewrite) content = Buffer.from(rewrite(content.toString('utf8')));
  } catch {
    sendProblem(res, 404, 'not_found', `no dashboard file '${name}'`);
    return;
  }
  res.writeHead(200, {
    'content-type': TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
    'content-length': content.length,
    'content-security-policy': DASHBOARD_CSP,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'cache-control': 'no-cache',
  });
  res.end(head ? undefined : content);
}
