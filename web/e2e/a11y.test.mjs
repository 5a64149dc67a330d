// a11y.test.mjs: the desktop page on a phone-width screen fits without
// sideways scrolling and names every control, including those that show
// only an icon there, on every main screen (notifications, search, topics
// and who liked a post too), and so does the mobile app; the "reposted"
// badge, a liked post's count, topic links and the unread badge are
// readable (WCAG AA, 4.5:1) in light and dark mode, on the desktop page and
// in the mobile app. Pictures too: the composer holding four images (one
// refused, its reason in red) and a post with four images fit 360 px, name
// their controls, and the error text is readable, light and dark.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, DEADLINE, launch, newUser, post, follow, api, phone, shot, clean, watch, fits, unnamedControls, contrast, png, upload } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** narrow opens the desktop page on a 360×740 screen, logged in as u (or anonymous). */
async function narrow(u, colorScheme = 'light') {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, colorScheme, locale: 'en-US' });
  if (u) await context.addCookies([{ name: 'auth', value: u.token, url: BASE_URL, httpOnly: true, sameSite: 'Lax' }]);
  context.setDefaultTimeout(DEADLINE);
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

test('pictures at 360 px: the composer with four images and a post with four fit, every control named, errors readable', async () => {
  const ida = await newUser('ida');
  const colours = [[255, 120, 40], [20, 120, 200], [30, 160, 70], [240, 210, 140]];
  const media = [];
  for (const [i, c] of colours.entries()) media.push(await upload(ida, png(400 + i * 40, 300, c, [20, 20, 60]), i === 1 ? '' : `Picture ${i + 1}, a rather long description that goes on and on`));
  const p = await api('POST', '/posts', { token: ida.token, body: { content: 'Four pictures', media_ids: media.map((m) => m.id) } });
  const files = colours.slice(0, 3).map((c, i) => ({ name: `p${i}.png`, mimeType: 'image/png', buffer: png(300, 200, c, [0, 0, 0]) }))
    .concat([{ name: 'notes.jpg', mimeType: 'image/jpeg', buffer: Buffer.from('not a picture') }]);

  for (const scheme of ['light', 'dark']) {
    const D = await narrow(ida, scheme);
    await D.page.goto(`${BASE_URL}/`);
    await D.page.locator(`.post[data-id="${p.id}"] .media-grid.media-4`).waitFor();
    await D.page.locator('.composer-card input[type=file]').setInputFiles(files);
    await D.page.locator('.attach[data-state="error"]').waitFor();
    await D.page.locator('.attach[data-state="done"]').nth(2).waitFor();
    await check(D.page, `desktop composer with images (${scheme})`);
    const r = await contrast(D.page.locator('.attach-error'));
    assert.ok(r >= 4.5, `desktop, ${scheme}: an upload's error has ${r.toFixed(2)}:1`);
    await shot(D.page, `desktop-360-composer-images-${scheme}`, { fullPage: true });
    await D.page.locator(`.post[data-id="${p.id}"]`).getByRole('button', { name: /^Open image 1 of 4/ }).click();
    await D.page.getByRole('dialog', { name: 'Image viewer' }).waitFor();
    await check(D.page, `desktop viewer (${scheme})`);
    const alt = await contrast(D.page.locator('.viewer-alt'));
    assert.ok(alt >= 4.5, `desktop, ${scheme}: the viewer's description has ${alt.toFixed(2)}:1`);
    await D.page.keyboard.press('Escape');
    clean(D.w, 'narrow pictures');
    await D.context.close();

    const M = await phone(browser, ida, { colorScheme: scheme });
    await M.page.goto(`${BASE_URL}/m/#/home`);
    await M.page.locator(`.post[data-id="${p.id}"] .media-grid.media-4`).waitFor();
    await check(M.page, `mobile post with four images (${scheme})`);
    await M.page.goto(`${BASE_URL}/m/#/compose`);
    await M.page.locator('.compose input[type=file]').setInputFiles(files);
    await M.page.locator('.attach[data-state="error"]').waitFor();
    await M.page.locator('.attach[data-state="done"]').nth(2).waitFor();
    await check(M.page, `mobile composer with images (${scheme})`);
    const mr = await contrast(M.page.locator('.attach-error'));
    assert.ok(mr >= 4.5, `mobile, ${scheme}: an upload's error has ${mr.toFixed(2)}:1`);
    await shot(M.page, `mobile-360-composer-images-${scheme}`, { fullPage: true });
    clean(M.w, 'mobile pictures');
    await M.context.close();
  }
});
