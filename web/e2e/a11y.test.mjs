// a11y.test.mjs: the desktop page on a phone-width screen fits without
// sideways scrolling and names every control, including those that show
// only an icon there, on every main screen (notifications, search, topics
// and who liked a post too), and so does the mobile app; the "reposted"
// badge, a liked post's count, topic links and the unread badge are
// readable (WCAG AA, 4.5:1) in light and dark mode, on the desktop page and
// in the mobile app.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, post, follow, api, phone, shot, clean, watch, fits, unnamedControls, contrast } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** narrow opens the desktop page on a 360×740 screen, logged in as u (or anonymous). */
async function narrow(u, colorScheme = 'light') {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, colorScheme, locale: 'en-US' });
  if (u) await context.addCookies([{ name: 'auth', value: u.token, url: BASE_URL, httpOnly: true, sameSite: 'Lax' }]);
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  return { context, page, w: watch(page) };
}

/** check asserts that page, as it is now, fits 360 px and names all its links and buttons. */
async function check(page, label) {
  assert.ok(await fits(page), `${label}: ${await page.evaluate(() => document.documentElement.scrollWidth)} px wide on a 360 px screen`);
  assert.deepEqual(await unnamedControls(page), [], `${label}: links or buttons without an accessible name`);
}

test('desktop page at phone width: fits the screen, every control named', async () => {
  const rita = await newUser('rita'), sam = await newUser('samuel_longname');
  await follow(rita, sam);
  const p = await post(sam, 'A post with a long address: https://example.com/a/rather/long/path/that/does/not/break/easily/at/all');
  await post(rita, 'Worth reading.', p.id);
  await api('POST', `/posts/${p.id}/comments`, { token: rita.token, body: { content: 'Agreed.' } });
  // Something for rita's notifications, a topic and a list of likes.
  const own = await post(rita, `About #a11y_${Date.now().toString(36)} and #无障碍#, with @${sam.username}`);
  await api('PUT', `/posts/${own.id}/like`, { token: sam.token });
  await follow(sam, rita);

  const D = await narrow(rita);
  const { page } = D;
  await page.goto(`${BASE_URL}/`);
  await page.locator('.post-repost').first().waitFor();
  await page.locator('#conn[data-state="connected"]').waitFor();
  await check(page, 'home');
  await shot(page, 'desktop-360-home');
  // The connection indicator's longer states fit too.
  for (const [state, text] of [['connecting', 'Connecting…'], ['reconnecting', 'Reconnecting…'], ['offline', 'Offline']]) {
    await page.evaluate(([s, t]) => {
      const conn = document.getElementById('conn');
      conn.dataset.state = s;
      conn.querySelector('.conn-label').textContent = t;
    }, [state, text]);
    assert.ok(await fits(page), `home with the indicator ${state}: wider than 360 px`);
  }
  await shot(page, 'desktop-360-offline');

  for (const [path, ready, name] of [
    ['/public', '.post', 'public'],
    [`/u/${sam.username}`, '.profile-name', 'profile'],
    [`/u/${sam.username}/followers`, '.user-row', 'followers'],
    [`/p/${p.id}`, '.comment', 'thread'],
    ['/notifications', '.notif', 'notifications'],
    [`/search?q=${sam.username.slice(0, 4)}`, '.search-page-results .user-row', 'search'],
    [`/t/${encodeURIComponent('无障碍')}`, `.post[data-id="${own.id}"]`, 'topic'],
    [`/p/${own.id}/likes`, '.user-row', 'likes'],
  ]) {
    await page.goto(BASE_URL + path);
    await page.locator(ready).first().waitFor();
    await check(page, name);
    await shot(page, `desktop-360-${name}`, { fullPage: true });
  }
  // The repost dialog.
  await page.goto(`${BASE_URL}/`);
  await page.locator('.post').first().getByRole('button', { name: /^Repost/ }).click();
  await page.getByRole('dialog').waitFor();
  await check(page, 'repost dialog');
  await shot(page, 'desktop-360-repost');
  clean(D.w, 'narrow');
  await D.context.close();

  const A = await narrow(null);
  for (const [path, ready] of [['/login', '.auth-card'], ['/signup', '.auth-card'], ['/public', '.post'], ['/search?q=sam', '.user-row'], [`/t/${encodeURIComponent('无障碍')}`, '.post']]) {
    await A.page.goto(BASE_URL + path);
    await A.page.locator(ready).first().waitFor();
    await check(A.page, 'logged out ' + path);
  }
  await shot(A.page, 'desktop-360-public-logged-out');
  clean(A.w, 'narrow, logged out');
  await A.context.close();
});

test('mobile app at 360 px: the new screens fit and name every control', async () => {
  const uma = await newUser('uma'), vic = await newUser('vic');
  const own = await post(uma, `Mobile #无障碍# post for @${vic.username}`);
  await api('PUT', `/posts/${own.id}/like`, { token: vic.token });
  await follow(vic, uma);
  const M = await phone(browser, uma);
  for (const [hash, ready, name] of [
    ['#/home', `.post[data-id="${own.id}"]`, 'home'],
    ['#/notifications', '.notif', 'notifications'],
    [`#/search`, '#search', 'search-empty'],
    [`#/t/${encodeURIComponent('无障碍')}`, `.post[data-id="${own.id}"]`, 'topic'],
    [`#/p/${own.id}/likes`, '.user-row', 'likes'],
    [`#/p/${own.id}`, '.reply', 'thread'],
  ]) {
    await M.page.goto(`${BASE_URL}/m/${hash}`);
    await M.page.locator(ready).first().waitFor();
    await check(M.page, 'mobile ' + name);
  }
  await M.page.goto(`${BASE_URL}/m/#/search`);
  await M.page.locator('#search').fill(vic.username.slice(0, 3));
  await M.page.locator('.search-results .user-row').first().waitFor();
  await check(M.page, 'mobile search results');
  await M.page.locator('.tabbar [data-tab=me]').tap();
  await M.page.getByRole('button', { name: 'Edit bio' }).tap();
  await check(M.page, 'mobile bio editor');
  await shot(M.page, 'mobile-360-bio-editor');
  clean(M.w, 'mobile');
  await M.context.close();

  // An empty home timeline suggests people, whose long bios must not widen the screen.
  await api('PATCH', '/me', { token: uma.token, body: { bio: 'A bio long enough to be much wider than a phone held upright, on one line.' } });
  await follow(await newUser('wes'), uma);
  const newbie = await newUser('newbie');
  const N = await phone(browser, newbie);
  await N.page.goto(`${BASE_URL}/m/#/home`);
  await N.page.locator('.home-empty .who .user-row').first().waitFor();
  await check(N.page, 'mobile empty home');
  await shot(N.page, 'mobile-360-home-empty');
  clean(N.w, 'newbie');
  await N.context.close();
});

test('the "reposted" badge has at least 4.5:1 contrast, light and dark', async () => {
  const tess = await newUser('tess'), fan = await newUser('fan');
  const p = await post(tess, 'Original, about #contrast.');
  await post(tess, '', p.id);
  await api('PUT', `/posts/${p.id}/like`, { token: tess.token }); // liked by the reader: the count shows in the like colour
  await follow(fan, tess); // an unread notification: the badge shows
  for (const scheme of ['light', 'dark']) {
    const D = await narrow(tess, scheme);
    await D.page.setViewportSize({ width: 1280, height: 800 });
    await D.page.goto(`${BASE_URL}/u/${tess.username}`);
    const badge = D.page.locator('.post-repost .badge');
    await badge.first().waitFor();
    const ratio = await contrast(badge);
    assert.ok(ratio >= 4.5, `desktop, ${scheme}: the badge's contrast is ${ratio.toFixed(2)}:1`);
    for (const [sel, what] of [['.like-count.liked', 'a liked post\'s count'], ['.content .hashtag', 'a topic link'], ['.nav-badge', 'the unread badge']]) {
      await D.page.locator(sel).first().waitFor();
      const r = await contrast(D.page.locator(sel));
      assert.ok(r >= 4.5, `desktop, ${scheme}: ${what} has ${r.toFixed(2)}:1`);
    }
    await D.context.close();

    const M = await phone(browser, tess, { colorScheme: scheme });
    await M.page.goto(`${BASE_URL}/m/#/u/${tess.username}`);
    await M.page.locator('.post-repost .badge').first().waitFor();
    const mratio = await contrast(M.page.locator('.post-repost .badge'));
    assert.ok(mratio >= 4.5, `mobile, ${scheme}: the badge's contrast is ${mratio.toFixed(2)}:1`);
    for (const [sel, what] of [['.like-count.liked', 'a liked post\'s count'], ['.content .hashtag', 'a topic link'], ['.tab-badge', 'the unread badge']]) {
      await M.page.locator(sel).first().waitFor();
      const r = await contrast(M.page.locator(sel));
      assert.ok(r >= 4.5, `mobile, ${scheme}: ${what} has ${r.toFixed(2)}:1`);
    }
    assert.deepEqual(await unnamedControls(M.page), [], `mobile, ${scheme}: links or buttons without an accessible name`);
    await M.context.close();
  }
});
