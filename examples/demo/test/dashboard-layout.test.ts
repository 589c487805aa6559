/**
 * Issue #29's dashboard findings, checked in Chromium at 800, 1280 and 1920 px (and 1440, where the
 * Broadcasters table was cut): the header keeps the connection status on screen, no table column
 * is cut off, the admin MCP tools are listed on the server that serves them, each AI runtime is
 * listed once, and "canceled" is spelled one way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSession, connectClient, openSession, skipBrowser, type Session, type TestClient } from './dashboard-helpers.js';

const WIDTHS = [800, 1280, 1440, 1920];

test('at 800, 1280, 1440 and 1920 px the header fits with the connection status visible, and the Broadcasters table shows every column', {
  skip: skipBrowser,
}, async () => {
  let session: Session | undefined;
  const clients: TestClient[] = [];
  try {
    session = await openSession();
    // A long broadcaster id, as real apps have, in the table.
    clients.push(await connectClient(session.target.url, '/fw/chat/room-with-a-long-name-for-layout'));
    const { page } = session;
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForFunction(() => (document.querySelector('#bc-table table tbody')?.childElementCount ?? 0) >= 2);
      const m = await page.evaluate(() => {
        const top = document.querySelector('.topbar') as HTMLElement;
        const conn = document.getElementById('conn')!;
        const r = conn.getBoundingClientRect();
        const atCentre = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        const wrap = document.querySelector('#bc-table table')!.parentElement as HTMLElement;
        const box = wrap.getBoundingClientRect();
        const heads = [...document.querySelectorAll('#bc-table th')].map((th) => th.getBoundingClientRect().right);
        return {
          page: document.documentElement.scrollWidth,
          viewport: innerWidth,
          top: [top.scrollWidth, top.clientWidth],
          conn: [r.left, r.right, r.top, r.bottom],
          connShown: conn.contains(atCentre),
          connText: conn.innerText.trim(),
          table: [wrap.scrollWidth, wrap.clientWidth],
          lastHeadRight: Math.max(...heads),
          boxRight: box.right,
        };
      });
      const at = `${width} px: ${JSON.stringify(m)}`;
      assert.ok(m.page <= m.viewport, `no horizontal page scroll at ${at}`);
      assert.ok(m.top[0]! <= m.top[1]!, `the header does not overflow at ${at}`);
      assert.ok(m.conn[0]! >= 0 && m.conn[1]! <= m.viewport && m.conn[2]! >= 0, `the connection status is on screen at ${at}`);
      assert.ok(m.connShown, `nothing covers the connection status at ${at}`);
      assert.equal(m.connText, 'Connected');
      assert.ok(m.table[0]! <= m.table[1]!, `the Broadcasters table needs no scrolling at ${at}`);
      assert.ok(m.lastHeadRight <= m.boxRight + 0.5, `its last column is not cut at ${at}`);
    }
    assert.deepEqual(session.errors, []);
  } finally {
    await closeSession({ clients, ...(session ? { browser: session.browser, target: session.target } : {}) });
  }
});

test('the admin MCP tools are listed on /fw/admin/mcp, not "all servers"; each AI runtime once; "canceled" one way', {
  skip: skipBrowser,
}, async () => {
  let session: Session | undefined;
  try {
    session = await openSession();
    const base = session.target.url;
    const tools = (await (await fetch(`${base}/api/admin/mcp/tools?limit=500`)).json()) as { name: string; server: string | null }[];
    const adminTools = tools.filter((t) => t.name.startsWith('fw_'));
    assert.ok(adminTools.length > 0);
    for (const t of adminTools) assert.equal(t.server, '/fw/admin/mcp', `${t.name} is served on /fw/admin/mcp only`);
    assert.ok(
      tools.some((t) => !t.name.startsWith('fw_') && t.server === '/mcp'),
      'the demo’s own tools are listed on /mcp',
    );
    const runtimes = (await (await fetch(`${base}/api/admin/runtimes`)).json()) as { name: string }[];
    const names = runtimes.map((r) => r.name);
    assert.deepEqual(names, [...new Set(names)], `each runtime once: ${names.join(', ')}`);
    assert.ok(names.includes('offline'));

    // The Agents tab shows the same: the admin tools' server column says /fw/admin/mcp.
    const { page } = session;
    await page.click('#tab-agents');
    const row = page.locator('tr', { hasText: 'fw_list_agents' }).first();
    await row.waitFor();
    assert.match(await row.innerText(), /\/fw\/admin\/mcp/);
    assert.doesNotMatch(await row.innerText(), /all servers/);
    // One spelling, whichever the record carries.
    assert.deepEqual(
      await page.evaluate(async () => {
        const { stateLabel } = (await import('/fw/admin/format.js' as string)) as { stateLabel(s: string): string };
        return [stateLabel('cancelled'), stateLabel('canceled'), stateLabel('completed')];
      }),
      ['canceled', 'canceled', 'completed'],
    );
  } finally {
    await closeSession(session ? { browser: session.browser, target: session.target } : {});
  }
});
