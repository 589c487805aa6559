/**
 * The event stream cut by a server restart: the page says so (reconnecting, offline while the
 * browser has no network), comes back by itself on the same address without a reload, and its
 * counters match the new server again.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import {
  closeSession,
  connectClient,
  counter,
  openSession,
  skipBrowser,
  startTarget,
  waitForConnState,
  waitForCounter,
  type Target,
  type TestClient,
} from './dashboard-helpers.js';

describe('dashboard across a server restart', { skip: skipBrowser, timeout: 60_000 }, () => {
  let target: Target | undefined;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const clients: TestClient[] = [];

  before(async () => {
    ({ target, browser, page, errors } = await openSession((t) => t.fw.handle('/dash-restart/{room}', {})));
  });

  after(() => closeSession({ clients, browser, ...(target ? { target } : {}) }));

  it('shows reconnecting while the server is down, then recovers with the right counters', async () => {
    const first = target!;
    const url = first.url;
    const port = Number(new URL(url).port);
    for (let i = 0; i < 3; i++) clients.push(await connectClient(url, '/fw/dash-restart/a'));
    // The page's own event stream is internal: not counted as a user connection.
    await waitForCounter(page, 'connections', first.fw.resources.size - 1);
    assert.ok((await counter(page, 'connections')) >= 3, 'three clients, not the page itself');
    const reloads: string[] = [];
    page.on('framenavigated', (f) => {
      if (f === page.mainFrame()) reloads.push(f.url());
    });

    await first.close();
    target = undefined;
    await waitForConnState(page, 'reconnecting');
    assert.equal(await page.locator('#conn-label').innerText(), 'Reconnecting…');
    for (const c of clients.splice(0)) c.client.close();

    // A table that cannot refresh says so, and keeps the last rows it had.
    await page.fill('#res-search', 'dash-restart');
    await page.locator('#res-table .table-error', { hasText: 'not answering' }).waitFor();
    assert.equal(await page.locator('dd[data-counter="status"]').innerText(), 'UNREACHABLE');
    await page.fill('#res-search', '');

    // The browser losing its network while the stream is down reads as offline.
    await page.context().setOffline(true);
    await waitForConnState(page, 'offline');
    assert.equal(await page.locator('#conn-label').innerText(), 'Offline');
    await page.context().setOffline(false);
    await waitForConnState(page, 'reconnecting');

    target = await startTarget(port);
    target.fw.handle('/dash-restart/{room}', {});
    await waitForConnState(page, 'connected', 20_000);
    const fresh = await connectClient(url, '/fw/dash-restart/b');
    clients.push(fresh);
    // The stream is live again: the new client's connection reaches the feed.
    await page.locator('#feed li[data-type="ResourceConnected"]', { hasText: fresh.uuid }).waitFor();
    // And the counters are the new server's, not the old one's: one client (its own stream is internal).
    await waitForCounter(page, 'connections', target.fw.resources.size - 1);
    assert.equal(await counter(page, 'connections'), 1);
    const overview = (await (await fetch(`${url}/api/admin/overview`)).json()) as Record<string, number>;
    for (const key of ['connections', 'broadcasters', 'agentCount', 'activeSessions', 'taskCount']) {
      await waitForCounter(page, key, overview[key]!);
    }
    assert.equal(await page.locator('dd[data-counter="status"]').innerText(), 'UP');
    await page.locator('#res-table .table-error').waitFor({ state: 'hidden' });
    assert.deepEqual(reloads, [], 'the page was not reloaded');
    assert.deepEqual(errors, []);
  });
});
