/**
 * 100 000 resources on the server: the resources table pages through them from the server and
 * never asks for more than a page; paging, the last page and a search all answer from the API.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { FwResource } from '@fw/runtime/internals';
import { launchBrowser, openDashboard, skipBrowser, startTarget, type Target } from './dashboard-helpers.js';

const COUNT = 100_000;

/**
 * Registers `count` real resources (parked: no socket, like a client within its resume grace)
 * in the runtime's registry, so the admin API serves them as it would connected clients,
 * without 100 000 sockets in a test.
 */
function parkResources(target: Target, count: number): FwResource[] {
  const rt = target.fw.runtime;
  const handler = rt.handlers.find((h) => h.path === '/fw/dash-paging/{room}');
  assert.ok(handler);
  const req = { socket: { remoteAddress: '127.0.0.1' } } as unknown as IncomingMessage;
  const parked: FwResource[] = [];
  for (let i = 0; i < count; i++) {
    const r = new FwResource(rt, handler, randomUUID(), {
      transport: i % 2 ? 'websocket' : 'sse',
      protocol: 'fw',
      path: `/fw/dash-paging/room${i % 10}`,
      params: { room: `room${i % 10}` },
      query: new URLSearchParams(),
      req,
      principal: undefined,
      attributes: undefined,
    });
    rt.resources.add(r);
    parked.push(r);
  }
  return parked;
}

const range = (page: Page) => page.locator('#res-table .pager .range');

describe('dashboard with 100 000 resources', { skip: skipBrowser, timeout: 60_000 }, () => {
  let target: Target;
  let browser: Browser;
  let page: Page;
  let parked: FwResource[] = [];
  const limits: number[] = [];

  before(async () => {
    target = await startTarget();
    target.fw.handle('/dash-paging/{room}', {});
    parked = parkResources(target, COUNT);
    browser = await launchBrowser();
    ({ page } = await openDashboard(browser, target.url));
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname === '/api/admin/resources') limits.push(Number(u.searchParams.get('limit')));
    });
  });

  after(async () => {
    for (const r of parked) target.fw.runtime.resources.remove(r);
    await browser?.close();
    await target?.close();
  });

  it('pages through every resource from the server, a page at a time', async () => {
    const total = target.fw.resources.size;
    assert.ok(total > COUNT);
    const fmt = (n: number) => n.toLocaleString('en-US');
    await range(page)
      .filter({ hasText: `1–50 of ${fmt(total)}` })
      .waitFor();
    assert.equal(await page.locator('#res-table tbody tr').count(), 50);
    const firstPage = await page.locator('#res-table tbody tr').first().getAttribute('data-key');

    await page.click('#res-table .pager button[aria-label="Next page of Resources"]');
    await range(page)
      .filter({ hasText: `51–100 of ${fmt(total)}` })
      .waitFor();
    assert.notEqual(await page.locator('#res-table tbody tr').first().getAttribute('data-key'), firstPage);

    await page.click('#res-table .pager button[aria-label="Last page of Resources"]');
    const lastStart = Math.floor((total - 1) / 50) * 50 + 1;
    await range(page)
      .filter({ hasText: `${fmt(lastStart)}–${fmt(total)} of ${fmt(total)}` })
      .waitFor();
    assert.equal(await page.locator('#res-table tbody tr').count(), total - lastStart + 1);
    assert.equal(await page.locator('#res-table button[aria-label="Next page of Resources"]').isDisabled(), true);

    const wanted = parked[31_337]!.uuid;
    await page.fill('#res-search', wanted);
    await range(page).filter({ hasText: '1–1 of 1' }).waitFor();
    assert.equal(await page.locator('#res-table tbody tr').getAttribute('data-key'), wanted);

    assert.ok(limits.length >= 3);
    assert.ok(
      limits.every((l) => l > 0 && l <= 200),
      `every request asks for one page: ${limits.join(',')}`,
    );
  });
});
