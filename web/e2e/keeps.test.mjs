// keeps.test.mjs: editing, pinning and bookmarks (docs/api.md section 11) in
// both front ends. On the desktop page alice edits a post from its ⋯ menu:
// it says "edited", which opens the history, and bob's open page (he
// follows her, and carol who reposted it) shows the new text in the post
// and in the repost without a reload; the eleventh edit is refused in
// words; a comment is edited in its thread. dana pins a post and sees it
// first on her profile, marked Pinned, and still in its place; a sixth pin
// is refused in words; she unpins it. erin bookmarks a post, finds it on
// the Bookmarks page and unbookmarks it there. In the mobile app at 360 px,
// run from its own origin as Cordova runs it, gus edits a post and
// bookmarks one, and nothing is wider than the screen.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, APP_ORIGIN, launch, newUser, post, follow, api, desktop, phone, serveApp, shot, clean, fits, unnamedControls } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** edit changes u's post id through the API, as another device of theirs would. */
function edit(u, id, content) {
  return api('PATCH', `/posts/${id}`, { token: u.token, body: { content } });
}

/** menuItems opens the ⋯ menu of the post card and returns its items' names. */
async function menuItems(page, card) {
  await card.getByRole('button', { name: 'More options for this post' }).first().click();
  await page.getByRole('menuitem').first().waitFor();
  return page.getByRole('menuitem').allTextContents();
}

test('desktop: edit from the ⋯ menu, "edited" opens the history, a fan’s page follows live', async () => {
  const alice = await newUser('alice'), bob = await newUser('bob'), carol = await newUser('carol');
  await follow(bob, alice);
  await follow(bob, carol);
  const stamp = Date.now();
  const first = `Helo wrold ${stamp}`, second = `Hello world ${stamp}`;
  const p = await post(alice, first);
  const repost = await post(carol, 'Look at this', p.id);

  const A = await desktop(browser, alice), B = await desktop(browser, bob);
  await B.page.goto(`${BASE_URL}/`);
  await B.page.locator(`.post[data-id="${p.id}"]`).waitFor();
  await B.page.locator(`.post[data-id="${repost.id}"] .quote[data-quote-of="${p.id}"]`).waitFor();
  await B.page.locator('#conn[data-state="connected"]').waitFor();
  await B.page.evaluate(() => { window.__noReload = true; });

  await A.page.goto(`${BASE_URL}/`);
  const card = A.page.locator(`.post[data-id="${p.id}"]`);
  await card.waitFor();
  assert.equal(await card.locator('.edited-mark').count(), 0, 'a post never edited says nothing');
  assert.deepEqual(await menuItems(A.page, card), ['Edit', 'Pin to profile', 'Copy link', 'Share…', 'Delete']);
  await shot(A.page, 'keeps-desktop-own-menu');
  await A.page.getByRole('menuitem', { name: 'Edit' }).click();
  const box = card.getByLabel('Edit your post');
  await box.waitFor();
  assert.equal(await box.inputValue(), first);
  assert.ok(await box.evaluate((el) => el === document.activeElement), 'the box takes the focus');
  await box.fill('x'.repeat(281));
  assert.equal(await card.locator('.edit-form .counter').getAttribute('aria-label'), '1 characters over the limit');
  assert.equal(await card.getByRole('button', { name: 'Save' }).isDisabled(), true);
  await box.fill(second);
  assert.equal(await card.locator('.edit-form .counter').getAttribute('aria-label'), `${280 - second.length} characters left`);
  await shot(A.page, 'keeps-desktop-editing');
  await card.getByRole('button', { name: 'Save' }).click();
  await card.locator(':scope > .post-body > .content', { hasText: second }).waitFor();
  assert.equal(await card.locator('.edit-form').count(), 0);
  const got = await api('GET', `/posts/${p.id}`, { token: alice.token });
  assert.equal(got.content, second);
  assert.ok(got.edited_at, 'the server says when it was edited');

  // "edited" opens the versions, newest first, with their times.
  await card.getByRole('button', { name: 'Edited: show the earlier versions' }).click();
  const dialog = A.page.getByRole('dialog', { name: 'Edit history' });
  await dialog.locator('.history-item').nth(1).waitFor();
  assert.deepEqual(await dialog.locator('.history-item .content').allTextContents(), [second, first]);
  assert.deepEqual(await dialog.locator('.history-head strong').allTextContents(), ['Current version', 'Original']);
  assert.equal(await dialog.locator('time').count(), 2);
  await shot(A.page, 'keeps-desktop-history');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await dialog.waitFor({ state: 'detached' });

  // Bob's open page shows the edit in the post and in carol's repost of it, without a reload.
  await B.page.locator(`.post[data-id="${p.id}"] > .post-body > .content`, { hasText: second }).waitFor();
  await B.page.locator(`.quote[data-quote-of="${p.id}"] .content`, { hasText: second }).waitFor();
  await B.page.locator(`.post[data-id="${p.id}"] .edited-mark`).waitFor();
  assert.equal(await B.page.evaluate(() => window.__noReload), true, 'bob’s page was reloaded');
  await shot(B.page, 'keeps-desktop-fan-live');

  // Ten edits are all a post gets: the eleventh is refused in words, and the text stays.
  // The last arrives live as text, markup and all.
  const last = `${second} (10) <img src=x onerror=alert(1)>`;
  for (let i = 2; i <= 10; i++) await edit(alice, p.id, i < 10 ? `${second} (${i})` : last);
  await B.page.locator(`.quote[data-quote-of="${p.id}"] .content`, { hasText: last }).waitFor();
  assert.equal(await B.page.locator('.post .content img').count(), 0, 'the edit’s markup became an element');
  await A.page.reload();
  await menuItems(A.page, card);
  await A.page.getByRole('menuitem', { name: 'Edit' }).click();
  assert.equal(await card.getByLabel('Edit your post').inputValue(), last);
  await card.getByLabel('Edit your post').fill('One edit too many');
  await card.getByRole('button', { name: 'Save' }).click();
  await card.locator('.edit-form .form-error', { hasText: 'edited 10 times' }).waitFor();
  await shot(A.page, 'keeps-desktop-edit-limit');
  await card.getByRole('button', { name: 'Cancel' }).click();
  await card.locator(':scope > .post-body > .content', { hasText: last }).waitFor();
  assert.equal((await api('GET', `/posts/${p.id}`, { token: alice.token })).content, last);

  // A comment is edited in its thread the same way; it has no Pin.
  const c = await api('POST', `/posts/${p.id}/comments`, { token: alice.token, body: { content: 'A comment with a typo: teh' } });
  await A.page.goto(`${BASE_URL}/p/${p.id}`);
  const comment = A.page.locator(`.comment .post[data-id="${c.id}"]`);
  await comment.waitFor();
  assert.deepEqual(await menuItems(A.page, comment), ['Edit', 'Copy link', 'Share…', 'Delete']);
  await A.page.getByRole('menuitem', { name: 'Edit' }).click();
  await comment.getByLabel('Edit your comment').fill('A comment with a typo: the');
  await comment.getByLabel('Edit your comment').press('Control+Enter');
  await comment.locator('.content', { hasText: 'typo: the' }).waitFor();
  await comment.locator('.edited-mark').waitFor();
  clean(A.w, 'alice'); clean(B.w, 'bob');
  await A.context.close(); await B.context.close();
});

test('desktop: a pinned post shows first on the profile, marked, and still in its place', async () => {
  const dana = await newUser('dana');
  const older = await post(dana, 'The post worth pinning');
  for (let i = 1; i <= 3; i++) await post(dana, `Later post ${i}`);
  const D = await desktop(browser, dana);
  const { page } = D;
  await page.goto(`${BASE_URL}/u/${dana.username}`);
  const inList = page.locator(`.feed:not(.pinned-feed) .post[data-id="${older.id}"]`);
  await inList.waitFor();
  assert.deepEqual(await menuItems(page, inList), ['Edit', 'Pin to profile', 'Copy link', 'Share…', 'Delete']);
  await page.getByRole('menuitem', { name: 'Pin to profile' }).click();
  await page.locator('.toast', { hasText: 'Pinned to your profile.' }).waitFor();
  const pinned = page.locator(`.pinned-feed .post[data-id="${older.id}"]`);
  await pinned.locator('.pinned-mark', { hasText: 'Pinned' }).waitFor();
  const firstCard = page.locator('.post').first();
  assert.equal(await firstCard.getAttribute('data-id'), String(older.id), 'the pinned post comes first');
  assert.equal(await inList.locator('.pinned-mark').count(), 0, 'the post in its own place is not marked');
  assert.equal((await api('GET', `/users/${dana.username}/pinned`)).items[0].id, older.id);
  await shot(page, 'keeps-desktop-pinned');

  // Anyone sees it first too, after a reload; the own menu now offers Unpin.
  await page.reload();
  await pinned.locator('.pinned-mark').waitFor();
  assert.equal(await page.locator('.post').first().getAttribute('data-id'), String(older.id));
  assert.deepEqual(await menuItems(page, pinned), ['Edit', 'Unpin', 'Copy link', 'Share…', 'Delete']);
  await page.keyboard.press('Escape');

  // Five pins are all a profile has: a sixth is refused in words.
  const more = [];
  for (let i = 1; i <= 5; i++) more.push(await post(dana, `Another ${i}`));
  for (const m of more.slice(0, 4)) await api('PUT', `/posts/${m.id}/pin`, { token: dana.token });
  await page.reload();
  await page.locator('.pinned-feed .post').nth(4).waitFor();
  const sixth = page.locator(`.feed:not(.pinned-feed) .post[data-id="${more[4].id}"]`);
  await menuItems(page, sixth);
  await page.getByRole('menuitem', { name: 'Pin to profile' }).click();
  await page.locator('.toast', { hasText: 'You can pin at most 5 posts' }).waitFor();

  // Unpinning from the pinned copy takes it off the top.
  await menuItems(page, pinned);
  await page.getByRole('menuitem', { name: 'Unpin' }).click();
  await pinned.waitFor({ state: 'detached' });
  await inList.waitFor();
  assert.ok(!(await api('GET', `/users/${dana.username}/pinned`)).items.some((x) => x.id === older.id));
  clean(D.w, 'dana');
  await D.context.close();
});

test('desktop: bookmark a post, find it on the Bookmarks page, unbookmark it there', async () => {
  const erin = await newUser('erin'), fred = await newUser('fred');
  const p = await post(fred, `Worth reading later ${Date.now()}`);
  const E = await desktop(browser, erin);
  const { page } = E;
  await page.goto(`${BASE_URL}/u/${fred.username}`);
  const mark = page.locator(`.post[data-id="${p.id}"]`).getByRole('button', { name: 'Bookmark' });
  assert.equal(await mark.getAttribute('aria-pressed'), 'false');
  await mark.click();
  await page.locator('.toast', { hasText: 'Added to your bookmarks.' }).waitFor();
  assert.equal(await mark.getAttribute('aria-pressed'), 'true');
  assert.equal((await api('GET', `/posts/${p.id}`, { token: erin.token })).bookmarked, true);

  await page.getByRole('link', { name: 'Bookmarks' }).click();
  await page.getByRole('heading', { name: 'Bookmarks' }).waitFor();
  const saved = page.locator(`[role=feed][aria-label="Bookmarks"] .post[data-id="${p.id}"]`);
  await saved.waitFor();
  await shot(page, 'keeps-desktop-bookmarks');
  const again = saved.getByRole('button', { name: 'Bookmark' });
  assert.equal(await again.getAttribute('aria-pressed'), 'true');
  await again.click();
  await saved.waitFor({ state: 'detached' });
  await page.locator('.empty', { hasText: 'No bookmarks yet' }).waitFor();
  assert.deepEqual((await api('GET', '/me/bookmarks', { token: erin.token })).items, []);
  clean(E.w, 'erin');
  await E.context.close();
});

test('mobile (360 px, own origin): edit a post and bookmark one; nothing is wider than the screen', async () => {
  const gus = await newUser('gus'), hal = await newUser('hal');
  await follow(gus, hal);
  const theirs = await post(hal, `Hal’s post to keep ${Date.now()}`);
  const mine = await post(gus, 'Gus wrote this quikcly');
  const M = await phone(browser, gus);
  const { page } = M;
  await serveApp(M.context);
  await M.context.addInitScript(([server]) => localStorage.setItem('microblog.server', server), [BASE_URL]);
  await page.goto(`${APP_ORIGIN}/index.html#/home`);
  const card = page.locator(`.post[data-id="${mine.id}"]`);
  await card.waitFor();
  await page.locator('#conn[data-state="connected"]').waitFor();

  await card.getByRole('button', { name: 'More options for this post' }).tap();
  await page.getByRole('menuitem', { name: 'Edit' }).tap();
  const box = card.getByLabel('Edit your post');
  await box.fill('Gus wrote this quickly');
  assert.ok(await fits(page), 'the edit form fits 360 px');
  await shot(page, 'keeps-mobile-editing');
  await card.getByRole('button', { name: 'Save' }).tap();
  await card.locator('.content', { hasText: 'Gus wrote this quickly' }).waitFor();
  await card.getByRole('button', { name: 'Edited: show the earlier versions' }).tap();
  const dialog = page.getByRole('dialog', { name: 'Edit history' });
  await dialog.locator('.history-item').nth(1).waitFor();
  assert.ok(await fits(page), 'the history fits 360 px');
  await shot(page, 'keeps-mobile-history');
  await dialog.getByRole('button', { name: 'Close' }).tap();

  const mark = page.locator(`.post[data-id="${theirs.id}"]`).getByRole('button', { name: 'Bookmark' });
  await mark.tap();
  await page.locator('.toast', { hasText: 'Added to your bookmarks.' }).waitFor();
  assert.equal(await mark.getAttribute('aria-pressed'), 'true');
  assert.ok(await fits(page), 'home with bookmarks fits 360 px');
  await shot(page, 'keeps-mobile-home');

  // The Me tab's bar leads to the bookmarks.
  await page.locator('.tabbar [data-tab=me]').tap();
  await page.getByRole('link', { name: 'Bookmarks' }).tap();
  await page.locator('#title', { hasText: 'Bookmarks' }).waitFor();
  const saved = page.locator(`[role=feed][aria-label="Bookmarks"] .post[data-id="${theirs.id}"]`);
  await saved.waitFor();
  assert.ok(await fits(page), 'the bookmarks fit 360 px');
  assert.deepEqual(await unnamedControls(page), [], 'every control of the bookmarks is named');
  await shot(page, 'keeps-mobile-bookmarks');
  await saved.getByRole('button', { name: 'Bookmark' }).tap();
  await saved.waitFor({ state: 'detached' });
  assert.deepEqual((await api('GET', '/me/bookmarks', { token: gus.token })).items, []);
  clean(M.w, 'gus');
  await M.context.close();
});
