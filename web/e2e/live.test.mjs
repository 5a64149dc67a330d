// live.test.mjs: bob follows alice, alice posts, and bob's open page shows the
// post without a reload within two seconds, on the desktop page and in the
// mobile app on a phone-sized touch screen.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, post, desktop, phone, shot, clean } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('desktop: a followed user’s new post appears live on the home page', async () => {
  const alice = await newUser('alice'), bob = await newUser('bob');
  await post(alice, 'An older post from before the follow.');
  const A = await desktop(browser, alice), B = await desktop(browser, bob);

  // Bob follows alice from her profile page.
  await B.page.goto(`${BASE_URL}/u/${alice.username}`);
  const followBtn = B.page.locator('#main').getByRole('button', { name: `Follow ${alice.username}` });
  await followBtn.click();
  await B.page.locator('#main').getByRole('button', { name: `Unfollow ${alice.username}` }).waitFor();
  // One follower is "1 Follower", not "1 Followers".
  await B.page.locator('.stat', { hasText: /^1 Follower$/ }).waitFor();
  await shot(B.page, 'desktop-profile');

  // Bob goes home (client-side navigation, no reload) and waits for the live feed.
  await B.page.getByRole('link', { name: 'Home' }).click();
  await B.page.locator('#conn[data-state="connected"]').waitFor();
  await B.page.evaluate(() => { window.__noReload = true; });

  // Alice writes a post in her page; the counter counts down as she types.
  await A.page.goto(`${BASE_URL}/`);
  const text = `Live hello ${Date.now()}`;
  const box = A.page.getByLabel('Write a post');
  await box.fill(text);
  assert.equal(await A.page.locator('.counter .count-num').textContent(), String(280 - text.length));
  await A.page.getByRole('button', { name: 'Post', exact: true }).click();

  const card = B.page.locator('.post', { hasText: text });
  await card.waitFor();
  assert.equal(await B.page.evaluate(() => window.__noReload), true, 'the page was reloaded');
  assert.equal(await card.count(), 1);
  // Newest first: the live post is the top of the feed.
  assert.equal(await B.page.locator('[role=feed] .post').first().locator('.content').textContent(), text);
  await shot(B.page, 'desktop-home-live');
  clean(A.w, 'alice'); clean(B.w, 'bob');
  await A.context.close(); await B.context.close();
});

test('desktop: posts arriving while scrolled down wait behind "N new posts"', async () => {
  const alice = await newUser('alice'), bob = await newUser('bob');
  await fetch(`${BASE_URL}/api/v1/users/${alice.username}/follow`, { method: 'PUT', headers: { Authorization: 'Bearer ' + bob.token } });
  for (let i = 1; i <= 12; i++) await post(alice, `Filler post number ${i}, long enough to take some room on the page.`);
  const B = await desktop(browser, bob);
  await B.page.goto(`${BASE_URL}/`);
  await B.page.locator('#conn[data-state="connected"]').waitFor();
  await B.page.mouse.wheel(0, 1200);
  await B.page.waitForFunction(() => scrollY > 300);
  const first = await post(alice, 'Arrived while bob was reading below.');
  await post(alice, 'And another one.');
  const pill = B.page.locator('.new-pill');
  await pill.filter({ hasText: '2 new posts' }).waitFor();
  assert.equal(await B.page.locator(`.post[data-id="${first.id}"]`).count(), 0, 'held posts must not move the page');
  await shot(B.page, 'desktop-new-posts-pill');
  await pill.click();
  await B.page.locator(`.post[data-id="${first.id}"]`).waitFor();
  await B.page.waitForFunction(() => scrollY < 50);
  assert.equal(await B.page.locator('[role=feed] .post').first().locator('.content').textContent(), 'And another one.');
  assert.ok(await pill.isHidden());
  clean(B.w, 'bob');
  await B.context.close();
});

test('mobile: a followed user’s new post appears live in the app (360 px, touch)', async () => {
  const alice = await newUser('alice'), bob = await newUser('bob');
  const A = await phone(browser, alice), B = await phone(browser, bob);

  await B.page.goto(`${BASE_URL}/m/#/u/${alice.username}`);
  await B.page.locator('#main').getByRole('button', { name: `Follow ${alice.username}` }).tap();
  await B.page.locator('#main').getByRole('button', { name: `Unfollow ${alice.username}` }).waitFor();
  await B.page.locator('.tabbar [data-tab=home]').tap();
  await B.page.locator('#conn[data-state="connected"]').waitFor();
  await B.page.evaluate(() => { window.__noReload = true; });
  // Nothing is wider than the screen.
  assert.ok(await B.page.evaluate(() => document.documentElement.scrollWidth <= 360), 'page wider than 360 px');

  await A.page.goto(`${BASE_URL}/m/`);
  await A.page.locator('.tabbar [data-tab=compose]').tap();
  const text = `From my phone ${Date.now()}`;
  await A.page.getByLabel('Write a post').fill(text);
  await shot(A.page, 'mobile-compose');
  await A.page.getByRole('button', { name: 'Post', exact: true }).tap();

  await B.page.locator('.post', { hasText: text }).waitFor();
  assert.equal(await B.page.evaluate(() => window.__noReload), true, 'the page was reloaded');
  await shot(B.page, 'mobile-home-live');
  // Alice's app went back home and shows her own post once.
  await A.page.locator('.post', { hasText: text }).waitFor();
  assert.equal(await A.page.locator('.post', { hasText: text }).count(), 1);
  // Touch targets are at least 44 px.
  const small = await B.page.$$eval('.tabbar .tab, .action', (els) => els.filter((e) => {
    const r = e.getBoundingClientRect(); return r.width > 0 && (r.height < 44 || r.width < 44);
  }).length);
  assert.equal(small, 0, 'touch targets smaller than 44 px');
  clean(A.w, 'alice'); clean(B.w, 'bob');
  await A.context.close(); await B.context.close();
});
