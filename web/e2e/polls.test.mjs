// polls.test.mjs: polls (docs/api.md, "Polls") in both front ends and both
// languages. In English, alice writes a poll in the desktop composer at
// 1280 px (Add a poll, three options, how long), votes in it and sees the
// results as bars; bob opens it in the mobile app at 360 px, votes for
// another option, and alice's page shows the new shares live (50% each),
// without a reload. In Chinese the other way round: gus writes the poll in
// the mobile compose screen at 360 px (发起投票), hal votes on the desktop
// page, and gus's phone shows the count change live. Both composers and
// both polls pass axe, and nothing is wider than the phone's screen.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, api, post, desktop, phone, shot, clean, fits, axeViolations, englishLeft, until } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** newestPost is u's newest post, as the server has it. */
async function newestPost(u) {
  return (await api('GET', `/users/${encodeURIComponent(u.username)}/posts?limit=1`, { token: u.token })).items[0];
}

/** shares are the percentages a poll shows, top to bottom. */
function shares(poll) {
  return poll.locator('.poll-pct').allTextContents();
}

test('en: a poll written on the desktop, voted in the mobile app at 360 px, its counts change live for its author', async () => {
  const alice = await newUser('alice'), bob = await newUser('bob');
  await post(alice, 'Hello'); // a home with a post (an empty one's suggestions are another matter)
  const D = await desktop(browser, alice, { locale: 'en-US' });
  const { page } = D;
  await page.goto(`${BASE_URL}/`);
  await page.locator('#conn[data-state="connected"]').waitFor();
  const box = page.locator('.composer-card');
  await box.locator('textarea').fill('Tea or coffee?');
  await box.getByRole('button', { name: 'Add a poll' }).click();
  await box.getByRole('textbox', { name: 'Option 1' }).fill('Tea');
  await box.getByRole('textbox', { name: 'Option 2' }).fill('Coffee');
  await box.getByRole('button', { name: 'Add an option' }).click();
  await box.getByRole('textbox', { name: 'Option 3' }).fill('Water');
  await box.getByLabel('Open for').selectOption('3600');
  assert.deepEqual(await axeViolations(page), [], 'the composer with a poll passes axe');
  await shot(page, 'polls-desktop-composer-en');
  await box.getByRole('button', { name: 'Post', exact: true }).click();
  await until(async () => (await newestPost(alice))?.poll, 'the post with its poll');
  const made = await newestPost(alice);
  assert.deepEqual(made.poll.options.map((o) => o.title), ['Tea', 'Coffee', 'Water']);
  assert.equal(made.poll.multiple, false);
  // The server has the post a moment before the composer hears back from it.
  await box.locator('.poll-composer').waitFor({ state: 'hidden' });

  const poll = page.locator(`[role=feed] .post[data-id="${made.id}"] .poll`);
  await poll.getByRole('radio', { name: 'Tea' }).check();
  await poll.getByRole('button', { name: 'Vote' }).click();
  await poll.locator('.poll-results').waitFor();
  assert.deepEqual(await shares(poll), ['100%', '0%', '0%']);
  assert.match(await poll.locator('.poll-foot').textContent(), /1 person voted · Closes in (60 minutes|1 hour)/);

  const M = await phone(browser, bob, { locale: 'en-US' });
  const m = M.page;
  await m.goto(`${BASE_URL}/m/#/p/${made.id}`);
  const theirs = m.locator(`.post[data-id="${made.id}"] .poll`);
  await theirs.getByRole('radio', { name: 'Coffee' }).waitFor();
  assert.ok(await fits(m), 'the poll fits 360 px');
  assert.deepEqual(await axeViolations(m), [], 'the poll to vote on passes axe');
  await shot(m, 'polls-mobile-vote-en');
  await theirs.getByRole('radio', { name: 'Coffee' }).tap();
  await theirs.getByRole('button', { name: 'Vote' }).tap();
  await theirs.locator('.poll-results').waitFor();
  assert.deepEqual(await shares(theirs), ['50%', '50%', '0%']);
  assert.equal(await theirs.locator('.poll-own .poll-title').textContent(), 'Coffee');
  assert.deepEqual(await axeViolations(m), [], 'the results pass axe');
  await shot(m, 'polls-mobile-results-en');

  // alice's page, never reloaded, shows bob's vote: the live poll event.
  await until(async () => (await shares(poll)).join() === '50%,50%,0%', 'alice\'s page to show the new shares live');
  assert.match(await poll.locator('.poll-foot').textContent(), /2 people voted/);
  await shot(page, 'polls-desktop-live-en');
  clean(D.w);
  clean(M.w, 'phone');
  await M.context.close();
  await D.context.close();
});

test('zh-CN: a poll written in the mobile app at 360 px, voted on the desktop, its count changes live on the phone', async () => {
  const gus = await newUser('gus'), hal = await newUser('hal');
  const M = await phone(browser, gus, { locale: 'zh-CN' });
  const m = M.page;
  await m.goto(`${BASE_URL}/m/#/compose`);
  await m.locator('#compose').fill('周末去哪儿？');
  await m.getByRole('button', { name: '发起投票' }).tap();
  await m.getByRole('textbox', { name: '选项 1' }).fill('西湖');
  await m.getByRole('textbox', { name: '选项 2' }).fill('灵隐寺');
  await m.getByLabel('允许多选').check();
  assert.ok(await fits(m), 'the compose screen with a poll fits 360 px');
  assert.deepEqual(await axeViolations(m), [], 'the mobile composer with a poll passes axe');
  assert.deepEqual(await englishLeft(m), [], 'the composer\'s poll is all in Chinese');
  await shot(m, 'polls-mobile-composer-zh');
  await m.getByRole('button', { name: '发布', exact: true }).tap();
  await until(async () => (await newestPost(gus))?.poll, 'the post with its poll');
  const made = await newestPost(gus);
  assert.equal(made.poll.multiple, true);
  const mine = m.locator(`[role=feed] .post[data-id="${made.id}"] .poll`);
  await mine.waitFor();
  await m.locator('#conn[data-state="connected"]').waitFor();
  assert.match(await mine.locator('.poll-foot').textContent(), /0 人参与/);

  const D = await desktop(browser, hal, { locale: 'zh-CN' });
  const { page } = D;
  await page.goto(`${BASE_URL}/p/${made.id}`);
  const theirs = page.locator(`.post[data-id="${made.id}"] .poll`);
  await theirs.getByRole('checkbox', { name: '西湖' }).check();
  await theirs.getByRole('checkbox', { name: '灵隐寺' }).check();
  await theirs.getByRole('button', { name: '投票' }).click();
  await theirs.locator('.poll-results').waitFor();
  assert.deepEqual(await shares(theirs), ['100%', '100%'], 'a multiple-choice poll shares by voters');
  assert.deepEqual(await axeViolations(page), [], 'the desktop results pass axe');
  assert.deepEqual(await englishLeft(page), [], 'the poll\'s results are all in Chinese');
  await shot(page, 'polls-desktop-results-zh');

  await until(async () => /1 人参与/.test(await mine.locator('.poll-foot').textContent()), 'the phone to show the vote live');
  assert.ok(await fits(m), 'the poll fits 360 px');
  assert.deepEqual(await englishLeft(m), [], 'the poll to vote on is all in Chinese');
  await shot(m, 'polls-mobile-live-zh');
  clean(M.w, 'phone');
  clean(D.w);
  await D.context.close();
  await M.context.close();
});
