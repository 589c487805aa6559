import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, Framework } from '@fw/runtime';
import { bearerChallenge, mountMcpServer } from '../dist/index.js';

/** Each `fw.mcp.oauth.*` mistake is a ConfigError naming the key and the value, at mount time. */
function mount(options: Record<string, unknown>): void {
  const fw = new Framework({ configFile: false, ...options });
  mountMcpServer(fw, { name: 'x', path: '/mcp' }, { frameworkRegistry: false });
}

test('OAuth configuration mistakes are refused with a message naming the key', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [
      { 'fw.mcp.oauth.authorization-servers': 'login.example.com' },
      /fw\.mcp\.oauth\.authorization-servers: 'login\.example\.com' is not an absolute URL/,
    ],
    [{ 'fw.mcp.oauth.authorization-servers': 'https://login.example.com/?tenant=1' }, /must be an http\(s\) URL without query or fragment/],
    [
      { 'fw.mcp.oauth.authorization-servers': 'https://login.example.com', 'fw.mcp.oauth.jwks-url': 'keys.json' },
      /fw\.mcp\.oauth\.jwks-url: 'keys\.json' is not an absolute URL/,
    ],
    [
      { 'fw.mcp.oauth.authorization-servers': 'https://login.example.com', 'fw.mcp.oauth.scopes': 'files:"read"' },
      /fw\.mcp\.oauth\.scopes: 'files:"read"' is not a valid OAuth scope/,
    ],
    [
      { 'fw.mcp.oauth.authorization-servers': 'https://login.example.com', 'fw.mcp.oauth.tool-scopes': 'write_file' },
      /fw\.mcp\.oauth\.tool-scopes: 'write_file' is not tool=scope/,
    ],
    [
      { 'fw.mcp.oauth.authorization-servers': 'https://login.example.com', 'fw.mcp.oauth.tool-scopes': 'write_file=' },
      /the entry of 'write_file' names no scope/,
    ],
    [
      { 'fw.mcp.oauth.authorization-servers': 'https://login.example.com', 'fw.mcp.oauth.tool-scopes': 'a=x,a=y' },
      /the tool 'a' is listed twice/,
    ],
  ];
  for (const [options, message] of cases) {
    assert.throws(
      () => mount(options),
      (err: unknown) => err instanceof ConfigError && message.test(err.message),
      JSON.stringify(options),
    );
  }
  // Off by default: nothing to check, nothing mounted at the well-known path.
  assert.doesNotThrow(() => mount({}));
});

test('an error_description cannot break out of its quoted string (RFC 6750 §3 character set)', () => {
  const header = bearerChallenge({
    resourceMetadata: 'https://a.example/.well-known/oauth-protected-resource/mcp',
    error: 'invalid_token',
    errorDescription: 'bad "quote"\\ and\r\nInjected: yes',
  });
  assert.equal(
    header,
    'Bearer error="invalid_token", error_description="bad quote andInjected: yes", resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp"',
  );
});
