import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Framework } from '@fw/runtime';
import { McpMessage, McpParam, McpPrompt, McpResource, McpServer, mountMcpServer } from '../dist/index.js';

/** completion/complete answers from the completers handlers declare; RFC 6570 templates resolve resources. */
const CITIES = ['paris', 'park city', 'parma', 'prague', 'lyon'];
const LANGS: Record<string, string[]> = { fr: ['paris', 'lyon'], it: ['parma'] };

@McpServer({ name: 'complete', version: '1.0.0', path: '/c' })
class Completing {
  @McpPrompt({ name: 'trip', description: 'Plans a trip' })
  trip(
    @McpParam({ name: 'country', description: 'Country code', complete: (v) => Object.keys(LANGS).filter((c) => c.startsWith(v)) })
    country: string,
    @McpParam({
      name: 'city',
      description: 'City',
      complete: (v, ctx) => (LANGS[ctx.arguments.country ?? ''] ?? CITIES).filter((c) => c.startsWith(v)),
    })
    city: string,
  ): McpMessage[] {
    return [McpMessage.user(`Plan a trip to ${city}, ${country}`)];
  }

  @McpResource({ uri: 'fw://weather/{city}{?units}', name: 'Weather', mimeType: 'application/json' })
  weather(
    @McpParam({ name: 'city', complete: (v) => CITIES.filter((c) => c.startsWith(v)) }) city: string,
    @McpParam({ name: 'units', required: false }) units: string | undefined,
  ): object {
    return { city, units: units ?? 'metric' };
  }

  @McpResource({ uri: 'file:///{+path}', name: 'File', mimeType: 'text/plain' })
  file(@McpParam({ name: 'path' }) path: string): string {
    return `content of ${path}`;
  }

  @McpResource({ uri: 'fw://many/{n}', name: 'Many' })
  many(@McpParam({ name: 'n', complete: () => Array.from({ length: 150 }, (_, i) => `v${i}`) }) n: string): string {
    return n;
  }
}

test('completion/complete: prompt arguments and template variables from their completers (with context), capped at 100; templates per RFC 6570', async () => {
  const fw = new Framework({ configFile: false });
  mountMcpServer(fw, Completing);
  const { port } = await fw.listen(0, '127.0.0.1');
  const client = new Client({ name: 'completion-test', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/c`)));
    const cities = await client.complete({ ref: { type: 'ref/prompt', name: 'trip' }, argument: { name: 'city', value: 'par' } });
    assert.deepEqual(cities.completion, { values: ['paris', 'park city', 'parma'], total: 3, hasMore: false });
    const inFrance = await client.complete({
      ref: { type: 'ref/prompt', name: 'trip' },
      argument: { name: 'city', value: 'p' },
      context: { arguments: { country: 'fr' } },
    });
    assert.deepEqual(inFrance.completion.values, ['paris']);
    const viaTemplate = await client.complete({
      ref: { type: 'ref/resource', uri: 'fw://weather/{city}{?units}' },
      argument: { name: 'city', value: 'pr' },
    });
    assert.deepEqual(viaTemplate.completion.values, ['prague']);
    const none = await client.complete({
      ref: { type: 'ref/resource', uri: 'fw://weather/{city}{?units}' },
      argument: { name: 'units', value: '' },
    });
    assert.deepEqual(none.completion, { values: [], total: 0, hasMore: false });
    const capped = await client.complete({ ref: { type: 'ref/resource', uri: 'fw://many/{n}' }, argument: { name: 'n', value: '' } });
    assert.equal(capped.completion.values.length, 100);
    assert.equal(capped.completion.total, 150);
    assert.equal(capped.completion.hasMore, true);
    await assert.rejects(
      client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } }),
      /unknown prompt/,
    );

    const weather = await client.readResource({ uri: 'fw://weather/lyon?units=imperial' });
    assert.deepEqual(JSON.parse(String((weather.contents[0] as { text: string }).text)), { city: 'lyon', units: 'imperial' });
    const plain = await client.readResource({ uri: 'fw://weather/paris' });
    assert.deepEqual(JSON.parse(String((plain.contents[0] as { text: string }).text)), { city: 'paris', units: 'metric' });
    const file = await client.readResource({ uri: 'file:///docs/guide/intro.md' });
    assert.equal((file.contents[0] as { text: string }).text, 'content of docs/guide/intro.md');
    const templates = await client.listResourceTemplates();
    assert.deepEqual(templates.resourceTemplates.map((t) => t.uriTemplate).sort(), [
      'file:///{+path}',
      'fw://many/{n}',
      'fw://weather/{city}{?units}',
    ]);
  } finally {
    await client.close();
    await fw.close();
  }
});
