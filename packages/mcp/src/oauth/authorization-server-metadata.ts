/** How long one metadata request may take before the next token tries again. */
const DISCOVERY_TIMEOUT_MS = 5_000;

/**
 * The well-known metadata URLs of an issuer, in the order MCP clients try them
 * (basic/authorization "Authorization Server Metadata Discovery"): RFC 8414 §3.1 with path
 * insertion, OpenID Connect Discovery with path insertion, then with the path appended.
 */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  if (path === '') {
    return [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`];
  }
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * The `jwks_uri` of an authorization server, from its metadata. The document must name the same
 * issuer it was fetched for (RFC 8414 §3.3), or it is not used.
 */
export async function discoverJwksUri(issuer: string): Promise<string> {
  const tried: string[] = [];
  for (const url of metadataUrls(issuer)) {
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
      });
    } catch (err) {
      tried.push(`${url}: ${(err as Error).message}`);
      continue;
    }
    if (!res.ok) {
      await res.body?.cancel();
      tried.push(`${url}: HTTP ${res.status}`);
      continue;
    }
    const doc = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown };
    if (doc.issuer !== issuer)
      throw new Error(`the metadata at ${url} names the issuer '${String(doc.issuer)}', not '${issuer}' (RFC 8414 §3.3)`);
    if (typeof doc.jwks_uri !== 'string') throw new Error(`the metadata at ${url} has no jwks_uri`);
    return doc.jwks_uri;
  }
  throw new Error(`no authorization server metadata for '${issuer}' (${tried.join('; ')})`);
}
