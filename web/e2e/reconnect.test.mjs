// reconnect.test.mjs: the live connection drops (the server is restarted) and
// comes back; the pages reconnect by themselves with ?after= (the newest post
// the page loaded) and ?seen= (the posts that came live since, which a resume
// looks back over: docs/api.md, "Resuming") and show the posts made meanwhile
// exactly once.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, post, follow, desktop, phone, shot, clean, control } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('pages reconnect after a server restart and show what was missed, once', async () => {
  const alice = await newUser('alice'), bob = await newUser('bob');
  await follow(bob, alice);
  const seen = await post(alice, 'Before the restart');

  const D = await desktop(browser, bob), M = await phone(browser, bob);
  const sockets = { desktop: [], mobile: [] };
  D.page.on('websocket', (ws) => sockets.desktop.push(ws.url()));
  M.page.on('websocket', (ws) => sockets.mobile.push(ws.url()));
  await D.page.goto(`${BASE_URL}/`);
  await M.page.goto(`${BASE_URL}/m/`);
  for (const p of [D.page, M.page]) {
    await p.locator('#conn[data-state="connected"]').waitFor();
    await p.locator(`.post[data-id="${seen.id}"]`).waitFor();
    await p.evaluate(() => { window.__noReload = true; });
  }
  const live = await post(alice, 'Live before the restart');
  for (const p of [D.page, M.page]) await p.locator(`.post[data-id="${live.id}"]`).waitFor();

  // The server goes away: the pages notice and say so.
  await control('stop');
  for (const p of [D.page, M.page]) await p.locator('#conn[data-state="reconnecting"]').waitFor();
  await shot(D.page, 'desktop-reconnecting');

  // Hold the pages offline while the server comes back and alice posts, so
  // that the posts can only reach them through the catch-up on reconnect.
  await D.context.setOffline(true);
  await M.context.setOffline(true);
  await D.page.locator('#conn[data-state="offline"]').waitFor();
  await M.page.locator('#offline:not([hidden])').waitFor();
  await shot(M.page, 'mobile-offline-banner');
  await control('start');
  const missed = [await post(alice, 'Missed one'), await post(alice, 'Missed two')];
  const before = { desktop: sockets.desktop.length, mobile: sockets.mobile.length };
  await D.context.setOffline(false);
  await M.context.setOffline(false);

  for (const [name, p] of [['desktop', D.page], ['mobile', M.page]]) {
    await p.locator('#conn[data-state="connected"]').waitFor();
    for (const m of missed) await p.locator(`.post[data-id="${m.id}"]`).waitFor();
    const reconnect = sockets[name].slice(before[name]);
    assert.ok(reconnect.length >= 1, `${name}: no new connection`);
    assert.match(reconnect.at(-1), new RegExp(`[?&]after=${seen.id}(&|$)`), `${name}: reconnected without ?after=`);
    assert.match(reconnect.at(-1), new RegExp(`[?&]seen=${live.id}(&|$)`), `${name}: reconnected without ?seen=`);
  }

  // Once more live, to be sure the new connection carries new posts too.
  const later = await post(alice, 'After the restart');
  for (const p of [D.page, M.page]) await p.locator(`.post[data-id="${later.id}"]`).waitFor();
  await D.page.waitForTimeout(300); // a duplicate would have arrived by now

  for (const [name, p] of [['desktop', D.page], ['mobile', M.page]]) {
    for (const x of [seen, live, ...missed, later]) {
      assert.equal(await p.locator(`.post[data-id="${x.id}"]`).count(), 1, `${name}: post ${x.id} shown once`);
    }
    const ids = await p.$$eval('[role=feed] > [data-key]', (els) => els.map((e) => Number(e.dataset.key)));
    assert.deepEqual(ids.slice(0, 5), [later.id, missed[1].id, missed[0].id, live.id, seen.id], `${name}: newest first`);
    assert.equal(await p.evaluate(() => window.__noReload), true, `${name}: the page was reloaded`);
  }
  await shot(D.page, 'desktop-after-reconnect');
  clean(D.w, 'desktop'); clean(M.w, 'mobile');
  await D.context.close(); await M.context.close();
});
