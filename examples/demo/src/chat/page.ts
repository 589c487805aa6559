import { readFile } from 'node:fs/promises';
import type { Framework } from '@fw/runtime';

const PUBLIC = new URL('../../../public/', import.meta.url);
const FILES: Record<string, [string, string]> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/app.css': ['app.css', 'text/css; charset=utf-8'],
  '/agents.js': ['agents.js', 'text/javascript; charset=utf-8'],
};

/** Serves the chat page (examples/demo/public, no build step) at `/`. */
export function installChatPage(fw: Framework): void {
  for (const [path, [file, type]] of Object.entries(FILES)) {
    fw.route('GET', path, async (_req, res) => {
      const body = await readFile(new URL(file, PUBLIC));
      res.writeHead(200, {
        'content-type': type,
        'content-length': body.length,
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
        // The page loads only its own files and talks only to this origin.
        'content-security-policy':
          "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'",
      });
      res.end(body);
    });
  }
}
