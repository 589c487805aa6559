/**
 * Rooms in Chromium (docs/rooms.md): the dashboard's Rooms view follows joins and leaves live,
 * in both themes; the chat page lists who is in its room (names from the members' metadata, the
 * lobby's agent among them) and the agent member answers `@assistant` in the room, streamed.
 * Real Chromium, real sockets on loopback; screenshots for the docs (dashboard-rooms*.png, chat-presence.png).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { connect, type FwClient } from '@fw/client/node';
import {
  closeSession,
  IMAGES_DIR,
  launchBrowser,
  openDashboard,
  screenshot,
  selectTab,
  skipBrowser,
  startTarget,
  type Target,
} from './dashboard-helpers.js';
import { mkdirSync } from 'node:fs';

describe('rooms: the dashboard Rooms view and the chat page presence', { skip: skipBrowser }, () => {
  let target: Target;
  let browser: Browser;
  const clients: FwClient[] = [];

  before(async () => {
    target = await startTarget();
    browser = await launchBrowser();
  });
  after(async () => {
    for (const c of clients) c.close();
    await closeSession({ browser, target });
  });

  const member = (room: string, name: string): FwClient => {
    const c = connect(`${target.url}/fw/chat/${room}?meta=${encodeURIComponent(JSON.stringify({ name }))}`, { transports: ['websocket'] });
    clients.push(c);
    return c;
  };
  const rowsOf = (page: Page, table: string) =>
    page.$$eval(`${table} tbody tr`, (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td as HTMLElement).innerText.trim())),
    );

  it('the Rooms view lists rooms and members and follows joins and leaves without a reload', async () => {
    const { page, errors } = await openDashboard(browser, target.url);
    await selectTab(page, 'rooms');
    // The lobby has its agent member from the start.
    await page.waitForFunction(() => document.querySelector('#rooms-table')?.textContent?.includes('/fw/chat/lobby'));
    const ada = member('lobby', 'ada');
    member('lobby', 'bea');
    member('random', 'cy');
    await page.waitForFunction(() => document.getElementById('rooms-count')?.textContent === '2 rooms, 4 members');
    assert.deepEqual(await rowsOf(page, '#rooms-table'), [
      ['/fw/chat/lobby', '3'],
      ['/fw/chat/random', '1'],
    ]);
    await page.waitForFunction(() => document.querySelectorAll('#room-members-table tbody tr').length === 3);
    const lobby = await rowsOf(page, '#room-members-table');
    assert.deepEqual(
      lobby.map((r) => r[1]),
      ['{"name":"assistant","agent":true,"virtual":true}', '{"name":"ada"}', '{"name":"bea"}'],
    );
    assert.equal(lobby[0]![0], 'room:/fw/chat/lobby');
    mkdirSync(IMAGES_DIR, { recursive: true });
    await screenshot(page, 'rooms');

    ada.close();
    await page.waitForFunction(() => document.getElementById('rooms-count')?.textContent === '2 rooms, 3 members');
    await page.waitForFunction(() => document.querySelectorAll('#room-members-table tbody tr').length === 2);
    // The event feed says who joined and left, by the name in their metadata.
    const feed = await page.$eval('#feed', (el) => (el as HTMLElement).textContent ?? '');
    assert.match(feed, /bea joined \/fw\/chat\/lobby/);
    assert.match(feed, /ada left \/fw\/chat\/lobby/);
    // Selecting another room lists its members.
    await page.click('#rooms-table tbody tr:nth-child(2)');
    await page.waitForFunction(() => document.getElementById('room-members-title')?.textContent === 'Members of /fw/chat/random');
    assert.deepEqual(errors, []);
    await page.close();

    const dark = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    await dark.goto(`${target.url}/fw/admin/#rooms`);
    await dark.waitForFunction(() => document.getElementById('rooms-count')?.textContent === '2 rooms, 3 members');
    await screenshot(dark, 'rooms-dark');
    await dark.close();
  });

  it('the chat page lists the room’s members by name, the agent among them, and the agent answers @assistant streamed', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.addInitScript(() => localStorage.setItem('fw-chat-name', 'dee'));
    await page.goto(`${target.url}/#lobby`);
    await page.waitForFunction(() => document.getElementById('presence')?.textContent?.includes('dee (you)'));
    const names = async () => page.$$eval('#presence li', (lis) => lis.map((li) => li.textContent));
    assert.deepEqual(await names(), ['assistant (agent)', 'bea', 'dee (you)']);
    const eve = member('lobby', 'eve');
    await page.waitForFunction(() => document.getElementById('presence')?.textContent?.includes('eve'));
    assert.equal(await page.textContent('#presence-count'), '4');

    await page.fill('#text', '@assistant what time is it? /time');
    await page.press('#text', 'Enter');
    // The answer is one line, filled as it streams, then no longer busy.
    await page.waitForFunction(() => {
      const li = document.querySelector('#messages li.agent-line');
      return li !== null && !li.hasAttribute('aria-busy') && (li.querySelector('.text')?.textContent ?? '').length > 0;
    });
    assert.equal(await page.locator('#messages li.agent-line').count(), 1);
    assert.equal(await page.textContent('#messages li.agent-line .who'), 'assistant');
    mkdirSync(IMAGES_DIR, { recursive: true });
    await page.screenshot({ path: `${IMAGES_DIR}chat-presence.png` });

    eve.close();
    await page.waitForFunction(() => !document.getElementById('presence')?.textContent?.includes('eve'));
    assert.deepEqual(errors, []);
    await page.close();
  });
});
