/** The dashboard's Docs link (fw.admin.docs-url): the default, a configured URL written safely into the page, and a refused one. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '@fw/runtime';
import { admin, DEFAULT_DOCS_URL } from '../dist/index.js';

async function page(props: Record<string, unknown>): Promise<string> {
  const fw = new Framework({ configFile: false, 'fw.admin.mcp-tools': false, ...props });
  try {
    await fw.use(admin());
    const { port } = await fw.listen(0, '127.0.0.1');
    const res = await fetch(`http://127.0.0.1:${port}/fw/admin/`);
    assert.equal(res.status, 200);
    return await res.text();
  } finally {
    await fw.close();
  }
}

const docsMeta = (html: string): string | undefined => /<meta name="fw-docs" content="([^"]*)">/.exec(html)?.[1];

test('fw.admin.docs-url: the repository docs by default; a configured URL is written into the page as attribute text', async () => {
  assert.equal(docsMeta(await page({})), DEFAULT_DOCS_URL);
  const hostile = 'https://docs.example.com/fw?q="><script>alert(1)</script>';
  const html = await page({ 'fw.admin.docs-url': hostile });
  assert.equal(docsMeta(html), 'https://docs.example.com/fw?q=%22%3E%3Cscript%3Ealert(1)%3C/script%3E');
  assert.doesNotMatch(html, /<script>alert/);
});

test('fw.admin.docs-url: anything but an absolute http(s) URL stops the admin plane at start, naming the key', async () => {
  for (const value of ['javascript:alert(1)', '/docs', 'not a url']) {
    const fw = new Framework({ configFile: false, 'fw.admin.mcp-tools': false, 'fw.admin.docs-url': value });
    await assert.rejects(fw.use(admin()), /fw\.admin\.docs-url/, value);
    await fw.close();
  }
});
