// mobile.test.mjs: the mobile app as a phone user meets it: log in, the
// main screens (screenshots), opening offline from the service worker's
// cache, and running from another origin against a configured server URL
// with the bearer token, as the packaged Cordova app does.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, APP_ORIGIN, PASSWORD, launch, newUser, post, follow, api, phone, serveApp, shot, clean } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('mobile: log in, screens, comment, profile', async () => {
  const hana = await newUser('hana'), ivan = await newUser('ivan');
  await follow(ivan, hana);
  const p = await post(hana, 'Pull to refresh works on phones too.');
  await post(hana, 'Second post, for a fuller screen.');
  await api('POST', `/posts/${p.id}/comments`, { token: hana.token, body: { content: 'Replying to myself.' } });

  const M = await phone(browser, null);
  const { page } = M;
  await page.goto(`${BASE_URL}/m/#/login`);
  await page.getByRole('heading', { name: 'Log in to Microblog' }).waitFor();
  // Served at /m/ the app talks to its own server: no "Server" link (only Cordova's app asks).
  assert.equal(await page.getByRole('link', { name: 'Server', exact: true }).count(), 0, 'the login offers a Server link outside Cordova');
  const gap = await page.evaluate(() => document.querySelector('.auth h2').getBoundingClientRect().top - document.querySelector('.auth-brand img').getBoundingClientRect().bottom);
  assert.ok(gap >= 12, `the logo is ${gap} px from the heading`);
  await shot(page, 'mobile-login');
  await page.goto(`${BASE_URL}/m/#/signup`);
  await page.getByText('2–30 letters, digits or _.').waitFor();
  await shot(page, 'mobile-signup');
  await page.goto(`${BASE_URL}/m/#/login`);
  await page.getByRole('heading', { name: 'Log in to Microblog' }).waitFor();
  await page.getByLabel('Username').fill(ivan.username);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).tap();
  await page.locator(`.post[data-author="${hana.username}"]`, { hasText: 'Pull to refresh' }).waitFor();
  await page.locator('#conn[data-state="connected"]').waitFor();
  assert.ok(await page.evaluate(() => !!localStorage.getItem('microblog.token')), 'token kept in local storage');
  await shot(page, 'mobile-home');

  // A new post arrives live; pulling down then checks for anything newer
  // (with ?after=) and says there is nothing more.
  const fresh = await post(hana, 'Fresh from the oven.');
  await page.locator(`.post[data-id="${fresh.id}"]`).waitFor(); // live
  const cdp = await page.context().newCDPSession(page);
  const touch = (type, y) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x: 180, y }] });
  await touch('touchStart', 150);
  for (let y = 170; y <= 450; y += 40) await touch('touchMove', y);
  await shot(page, 'mobile-pull-to-refresh');
  await touch('touchEnd');
  await page.locator('.toast', { hasText: 'up to date' }).waitFor();

  // A thread, and a comment from the phone.
  await page.locator(`.post[data-id="${p.id}"] .action`).first().tap();
  await page.locator('.comment', { hasText: 'Replying to myself.' }).waitFor();
  await page.getByLabel(`Reply to ${hana.username}`).first().fill('Nice!');
  await page.getByRole('button', { name: 'Reply', exact: true }).first().tap();
  await page.locator('.comment', { hasText: 'Nice!' }).waitFor();
  await shot(page, 'mobile-thread');

  await page.locator('.tabbar [data-tab=me]').tap(); // five tabs: Public is on Me
  await page.locator('.me-links').getByRole('link', { name: 'Public' }).tap();
  await page.locator(`.post[data-author="${hana.username}"]`, { hasText: 'Second post' }).waitFor();
  await shot(page, 'mobile-public');
  await page.locator('.tabbar [data-tab=me]').tap();
  await page.getByRole('heading', { name: ivan.username }).waitFor();
  await page.getByRole('link', { name: 'Following', exact: true }).tap();
  await page.locator('.user-row', { hasText: hana.username }).waitFor();
  await shot(page, 'mobile-me');
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360), 'page wider than 360 px');

  const token = await page.evaluate(() => localStorage.getItem('microblog.token'));
  await page.getByRole('button', { name: 'Log out' }).tap();
  await page.getByRole('heading', { name: 'Log in to Microblog' }).waitFor();
  assert.equal(await page.evaluate(() => localStorage.getItem('microblog.token')), null);
  await assert.rejects(api('GET', '/me', { token }), /401/, 'the token still works after logging out');
  clean(M.w, 'mobile');
  await M.context.close();
});

test('mobile: installable, and opens offline from the service worker cache', async () => {
  const u = await newUser('june');
  await post(u, 'Saved for offline reading.');
  const M = await phone(browser, u, { serviceWorkers: 'allow', colorScheme: 'dark' });
  const { page } = M;
  await page.goto(`${BASE_URL}/m/`);
  await page.locator('.post', { hasText: 'Saved for offline' }).waitFor();
  await shot(page, 'mobile-home-dark');

  const manifest = await (await fetch(`${BASE_URL}/m/manifest.webmanifest`)).json();
  assert.equal(manifest.display, 'standalone');
  for (const icon of manifest.icons) {
    const res = await fetch(new URL(icon.src, `${BASE_URL}/m/`));
    assert.equal(res.status, 200, icon.src);
    // Read whole: a body left unread holds its connection, and with it
    // this file's process, until the server's idle timeout.
    assert.ok((await res.arrayBuffer()).byteLength > 0, `${icon.src} is empty`);
  }
  assert.ok(manifest.icons.some((i) => i.sizes === '512x512' && i.type === 'image/png'));

  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
  });
  await M.context.setOffline(true);
  await page.reload();
  await page.locator('#offline:not([hidden])').waitFor();
  assert.match(await page.locator('#offline').textContent(), /offline/i);
  await page.locator('.post', { hasText: 'Saved for offline' }).waitFor(); // the last home page, kept on the phone
  assert.ok(await page.locator('.tabbar').isVisible());
  await shot(page, 'mobile-offline');
  await M.context.setOffline(false);
  await page.locator('#conn[data-state="connected"]').waitFor();
  await page.locator('#offline').waitFor({ state: 'hidden' });
  clean(M.w, 'offline');
  await M.context.close();
});

test('mobile: runs from its own origin (as in Cordova) against a configured server, with the bearer token', async () => {
  const kim = await newUser('kim'), lee = await newUser('lee');
  await follow(kim, lee);
  const M = await phone(browser, null);
  const { page } = M;
  await serveApp(M.context);
  await page.goto(`${APP_ORIGIN}/index.html`);
  // No server is known yet: the app asks for one.
  await page.getByLabel('Server address').fill(BASE_URL);
  await shot(page, 'mobile-settings');
  await page.getByRole('button', { name: 'Save' }).tap();
  // Apart from its server, the login keeps a way back to the server's address.
  await page.getByRole('heading', { name: 'Log in to Microblog' }).waitFor();
  await page.getByRole('link', { name: 'Server', exact: true }).waitFor();
  await page.getByLabel('Username').fill(kim.username);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).tap();
  await page.locator('#conn[data-state="connected"]').waitFor();
  const text = `Cross-origin live ${Date.now()}`;
  await post(lee, text);
  await page.locator('.post', { hasText: text }).waitFor();
  // Write through the API from the app's origin (bearer token, no cookie).
  await page.locator('.tabbar [data-tab=compose]').tap();
  await page.getByLabel('Write a post').fill('Sent from the packaged app');
  await page.getByRole('button', { name: 'Post', exact: true }).tap();
  await page.locator('.post', { hasText: 'Sent from the packaged app' }).waitFor();
  const cookies = await M.context.cookies(BASE_URL);
  assert.equal(cookies.length, 0, 'the app must not depend on the cookie');
  clean(M.w, 'cordova');
  await M.context.close();
});

test('mobile: the replies button and Reply agree on whether a comment’s replies are open', async () => {
  const pia = await newUser('pia'), quinn = await newUser('quinn');
  const p = await post(pia, 'A thread to answer.');
  const c = await api('POST', `/posts/${p.id}/comments`, { token: pia.token, body: { content: 'First comment.' } });
  await api('POST', `/posts/${c.id}/comments`, { token: quinn.token, body: { content: 'A reply to the comment.' } });
  const M = await phone(browser, quinn);
  const { page } = M;
  await page.goto(`${BASE_URL}/m/#/p/${p.id}`);
  // The post's own page says when in full (the relative time has it as a tooltip).
  const date = page.locator(`.post-detail[data-id="${p.id}"] .post-date time`);
  assert.match(await date.textContent(), new RegExp(String(new Date().getFullYear())));
  assert.equal(await page.locator(`.post-detail[data-id="${p.id}"] .post-head time`).getAttribute('title'), await date.textContent());
  const comment = page.locator('.comment', { has: page.locator(`.post[data-id="${c.id}"]`) });
  const toggle = comment.locator(':scope > .show-replies');
  const reply = comment.locator(':scope > .comment-children .post', { hasText: 'A reply to the comment.' });
  const state = async () => [await toggle.textContent(), await toggle.getAttribute('aria-expanded'), await reply.isVisible()];
  await toggle.waitFor();
  assert.deepEqual(await state(), ['Show 1 reply', 'false', false]);

  // Reply opens the replies with a form, and the button now offers to hide them.
  await comment.locator(`.post[data-id="${c.id}"]`).getByRole('button', { name: /^Reply/ }).tap();
  await reply.waitFor();
  assert.deepEqual(await state(), ['Hide replies', 'true', true]);
  assert.equal(await comment.getByRole('button', { name: /^Show/ }).count(), 0, 'a "Show" button is left while the replies are open');
  await shot(page, 'mobile-thread-replies-open');
  await toggle.tap();
  assert.deepEqual(await state(), ['Show 1 reply', 'false', false]);
  await toggle.tap();
  assert.deepEqual(await state(), ['Hide replies', 'true', true]);
  assert.equal(await reply.count(), 1, 'opening again loads the replies twice');

  // Reply while open keeps them open; a reply written here is counted.
  await comment.locator(`.post[data-id="${c.id}"]`).getByRole('button', { name: /^Reply/ }).tap();
  assert.deepEqual(await state(), ['Hide replies', 'true', true]);
  await comment.getByLabel(`Reply to ${pia.username}`).fill('Mine too.');
  await comment.getByRole('button', { name: 'Reply', exact: true }).tap();
  await comment.locator('.comment-children .post', { hasText: 'Mine too.' }).waitFor();
  await toggle.tap();
  assert.deepEqual(await state(), ['Show 2 replies', 'false', false]);
  clean(M.w, 'mobile thread');
  await M.context.close();
});
