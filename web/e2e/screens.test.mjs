// screens.test.mjs walks through the desktop page as a new user would (sign
// up, post, repost, comment on a comment, delete, log out, log in), and saves
// a screenshot of each main screen in screenshots/ for people to look at.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, PASSWORD, launch, uniqueName, newUser, post, follow, api, desktop, shot, clean } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('desktop: sign up, post, repost, comment threads, delete, log out, log in', async () => {
  const carol = await newUser('carol');
  for (const t of ['Good morning! Coffee first, then code.', 'Redis sorted sets make timelines easy: ZADD, ZREVRANGEBYSCORE, done.', 'Shipping the live feed today.']) await post(carol, t);

  const D = await desktop(browser, null);
  const { page } = D;
  // A visitor meets the landing page (landing.test.mjs has more of it) and logs in from it.
  await page.goto(`${BASE_URL}/`);
  await page.getByRole('heading', { name: 'What’s happening now' }).waitFor();
  await page.locator('#main .landing-actions').getByRole('link', { name: 'Log in' }).click();
  await page.waitForURL(/\/login$/);
  await page.getByRole('heading', { name: 'Welcome back' }).waitFor();
  await shot(page, 'desktop-login');

  // Sign up.
  await page.getByRole('link', { name: 'Create an account' }).click();
  const name = uniqueName('dave');
  await page.getByLabel('Username').fill(name);
  await page.getByLabel('Password').fill(PASSWORD);
  await shot(page, 'desktop-signup');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(`${BASE_URL}/`);
  await page.locator('#conn[data-state="connected"]').waitFor();

  // Follow carol from the public timeline's author link.
  await page.getByRole('link', { name: 'Public', exact: true }).click(); // the empty home's sentence links there too
  await page.locator(`.post[data-author="${carol.username}"]`, { hasText: 'Shipping the live feed today.' }).waitFor();
  await shot(page, 'desktop-public');
  await page.locator(`.post[data-author="${carol.username}"] .name`).first().click();
  await page.locator('#main').getByRole('button', { name: `Follow ${carol.username}` }).click();
  await page.locator('#main').getByRole('button', { name: `Unfollow ${carol.username}` }).waitFor();

  // Home: write a post; the counter turns red past 280 characters.
  await page.getByRole('link', { name: 'Home' }).click();
  const box = page.getByLabel('Write a post');
  await box.fill('x'.repeat(285));
  assert.equal(await page.locator('.counter').getAttribute('data-state'), 'over');
  assert.ok(await page.getByRole('button', { name: 'Post', exact: true }).isDisabled());
  await box.fill('My first post here. 你好, 世界!');
  await box.press('Control+Enter');
  const mine = page.locator('.post', { hasText: 'My first post here.' });
  await mine.waitFor();
  assert.equal(await mine.count(), 1);

  // Repost carol's post with a comment; the repost shows its source.
  await page.locator(`.post[data-author="${carol.username}"]`, { hasText: 'Redis sorted sets' }).getByRole('button', { name: /^Repost/ }).click();
  await page.getByLabel('Your comment').fill('This is the trick.');
  await shot(page, 'desktop-repost-dialog');
  await page.getByRole('dialog').getByRole('button', { name: 'Repost' }).click();
  const repost = page.locator('.post-repost', { hasText: 'This is the trick.' });
  await repost.waitFor();
  assert.match(await repost.locator('.quote').textContent(), /Redis sorted sets/);
  await shot(page, 'desktop-home');

  // Comment on carol's post, then carol replies to the comment, and we answer her reply.
  await page.locator(`.post[data-author="${carol.username}"]`, { hasText: 'Good morning!' }).getByRole('link', { name: /^Comments/ }).click();
  await page.waitForURL(/\/p\/\d+$/);
  await page.getByLabel(`Reply to ${carol.username}`).fill('Same here.');
  await page.getByRole('button', { name: 'Reply', exact: true }).click();
  const comment = page.locator('.comment', { hasText: 'Same here.' });
  await comment.waitFor();
  const commentId = Number(await comment.locator('.post').getAttribute('data-id'));
  await api('POST', `/posts/${commentId}/comments`, { token: carol.token, body: { content: 'Tea for me, actually.' } });
  await page.reload();
  await page.getByRole('button', { name: 'Show 1 reply' }).click();
  await page.locator('.comment-children .post', { hasText: 'Tea for me, actually.' }).waitFor();
  await page.locator('.comment-children .post', { hasText: 'Tea for me' }).getByRole('button', { name: /^Reply/ }).click();
  await page.locator('.comment-children').getByLabel(/^Reply to/).last().fill('Fair enough!');
  await page.locator('.comment-children').getByRole('button', { name: 'Reply', exact: true }).last().click();
  await page.locator('.comment-children .comment-children .post', { hasText: 'Fair enough!' }).waitFor();
  await shot(page, 'desktop-thread', { fullPage: true });

  await page.getByRole('link', { name: 'Home' }).click();
  // Delete our own first post: from its ⋯ menu, asked in the app's dialog.
  await mine.getByRole('button', { name: 'More options for this post' }).click();
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
  await mine.waitFor({ state: 'detached' });

  // Our profile lists who we follow.
  await page.getByRole('link', { name: 'Profile' }).click();
  await page.getByRole('link', { name: /Following/ }).first().click();
  await page.locator('.user-row', { hasText: carol.username }).waitFor();
  await shot(page, 'desktop-following');

  // Log out, then log in again.
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(/\/login$/);
  await page.getByLabel('Password').fill('wrong password');
  await page.getByLabel('Username').fill(name);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('alert').filter({ hasText: 'Wrong username or password' }).waitFor();
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`${BASE_URL}/`);
  await page.locator('.post-repost', { hasText: 'This is the trick.' }).waitFor();
  clean(D.w, 'desktop');
  await D.context.close();
});

test('desktop: dark mode, the followers list, and times in the reader’s language', async () => {
  const erin = await newUser('erin');
  const fans = [await newUser('frank'), await newUser('grace')];
  for (const f of fans) await follow(f, erin);
  await post(erin, 'Dark mode looks good, too.');
  const D = await desktop(browser, fans[0], { colorScheme: 'dark', locale: 'de-DE' });
  await D.page.goto(`${BASE_URL}/u/${erin.username}/followers`);
  await D.page.locator('.user-row', { hasText: fans[1].username }).waitFor();
  await shot(D.page, 'desktop-followers-dark');
  await D.page.goto(`${BASE_URL}/`);
  const card = D.page.locator('.post', { hasText: 'Dark mode' });
  await card.waitFor();
  // Relative times follow navigator.language: German here ("jetzt", "vor 1 Min.").
  assert.match(await card.locator('time').textContent(), /^(jetzt|vor \d+ (Sek|Min)\.)$/);
  await shot(D.page, 'desktop-home-dark');
  clean(D.w, 'dark');
  await D.context.close();
});
