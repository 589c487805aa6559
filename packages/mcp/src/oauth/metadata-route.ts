import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Framework } from '@fw/runtime';
import { RESOURCE_METADATA_PREFIX, type ProtectedResource } from './resource-server.js';

/**
 * Serves an endpoint's RFC 9728 metadata at `/.well-known/oauth-protected-resource<path>` (the
 * path-aware form MCP clients try first), and, for the endpoint at `/mcp`, also at the root
 * `/.well-known/oauth-protected-resource` (the fallback of basic/authorization "Protected
 * Resource Metadata Discovery Requirements"). Public and read-only, behind the framework's
 * Host/Origin screening like every fw route. Returns the remover.
 */
export function mountResourceMetadata(fw: Framework, resource: ProtectedResource, atRoot: boolean): () => void {
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    req.resume();
    const body = JSON.stringify(resource.metadata(req));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-cache' });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  const removers = [fw.route('GET', `${RESOURCE_METADATA_PREFIX}${resource.path}`, handler)];
  if (atRoot) removers.push(fw.route('GET', RESOURCE_METADATA_PREFIX, handler));
  return () => removers.forEach((r) => r());
}
