// lists.test.mjs: lists (关注分组) in both front ends and both languages.
// On the desktop page (1280 px, English) ann makes a list on the Lists
// page, opens it, adds bob by name, reads only his posts there (not cat's,
// whom she follows too; his new post joins the open page live, hers not), puts cat in from cat's profile with the Lists
// picker, renames the list and deletes it. In Chinese the same pages say
// 分组 / 关注分组 and hold no English. In the mobile app at 360 px, run from
// its own origin as Cordova runs it, the Me tab's bar leads to the lists,
// in English and in Chinese, and a list's page shows its members' posts;
// nothing is wider than the screen. Each step leaves a screenshot, and
// axe-core finds no violation on the main screens.
// An exclusive list ("Hide these posts from Home", 不在首页显示): made so on
// the Lists page, its member's new post stays off the open Home page while
// another's arrives live, and joins the open list page live; unticked on
// the list's page, the member's posts are home again. In Chinese and at
// 360 px the list's page carries the box, ticked as the list is.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, APP_ORIGIN, launch, newUser, post, follow, api, desktop, phone, serveApp, shot, clean, fits, englishLeft, axeViolations } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** people makes a reader who follows two writers, each with a post. */
async function people(prefix) {
  const [reader, one, two] = await Promise.all([newUser(prefix + 'r'), newUser(prefix + 'a'), newUser(prefix + 'b')]);
  await follow(reader, one);
  await follow(reader, two);
  const onePost = await post(one, `One writes ${Date.now()}`);
  const twoPost = await post(two, `Two writes ${Date.now()}`);
  return { reader, one, two, onePost, twoPost };
}

/** feedPosts are the ids of the posts the list page's feed shows. */
function feedPosts(page) {
  return page.$$eval('.list-page [role=feed] .post', (els) => els.map((e) => Number(e.dataset.id)));
}

test('desktop (1280 px, English): make a list, add by name, read it, add from a profile, rename, delete', async () => {
  const { reader, one, two, onePost, twoPost } = await people('dl');
  const D = await desktop(browser, reader);
  const { page, w } = D;
  await page.goto(`${BASE_URL}/`);
  await page.getByRole('link', { name: 'Lists' }).click();
  await page.getByRole('heading', { name: 'Lists' }).waitFor();
  await page.getByText('You have no lists yet.').waitFor();
  await page.getByLabel('List name').fill('Friends');
  await page.getByRole('button', { name: 'Create list' }).click();
  await page.locator('.toast', { hasText: 'List created.' }).waitFor();
  const row = page.locator('.list-row', { hasText: 'Friends' });
  await row.waitFor();
  assert.match(await row.textContent(), /0 people/);
  await shot(page, 'lists-desktop-lists');
  assert.deepEqual(await axeViolations(page), [], 'axe: the Lists page');

  await row.getByRole('link', { name: 'Friends' }).click();
  await page.getByRole('heading', { name: 'Friends' }).waitFor();
  await page.getByText('No posts from the people in this list yet.').waitFor();
  await page.locator('.list-members summary').click();
  await page.getByLabel('Add someone you follow by name').fill('nobody_' + Date.now().toString(36));
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.locator('.toast').first().waitFor();
  await page.getByLabel('Add someone you follow by name').fill(one.username);
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.locator('.toast', { hasText: 'Added to the list.' }).waitFor();
  await page.locator(`.list-page .post[data-id="${onePost.id}"]`).waitFor();
  await page.locator('.list-members .user-row', { hasText: one.username }).waitFor();
  assert.deepEqual(await feedPosts(page), [onePost.id], 'only the member’s posts');
  // Live: the member's new post joins the open page; the other's does not.
  await page.locator('#conn[data-state="connected"]').waitFor();
  const other = await post(two, `Not for the list ${Date.now()}`);
  const fresh = await post(one, `Fresh from a member ${Date.now()}`);
  await page.locator(`.list-page .post[data-id="${fresh.id}"]`).waitFor();
  assert.equal(await page.locator(`.list-page .post[data-id="${other.id}"]`).count(), 0, 'a non-member’s live post stays out');
  await shot(page, 'lists-desktop-list');
  assert.deepEqual(await axeViolations(page), [], 'axe: a list’s page');

  // From cat's profile: the Lists picker puts her in.
  await page.goto(`${BASE_URL}/u/${two.username}`);
  await page.getByRole('button', { name: 'Lists' }).click();
  const box = page.getByRole('checkbox', { name: 'Friends' });
  await box.waitFor();
  assert.equal(await box.isChecked(), false);
  await box.check();
  await page.locator('.toast', { hasText: 'Added to the list.' }).waitFor();
  await shot(page, 'lists-desktop-profile-picker');
  assert.deepEqual(await axeViolations(page), [], 'axe: the profile with the Lists picker open');
  const lists = await api('GET', `/users/${two.username}/lists`, { token: reader.token });
  assert.deepEqual(lists.items.map((l) => l.title), ['Friends']);

  await page.goto(`${BASE_URL}/lists/${lists.items[0].id}`);
  await page.locator(`.list-page .post[data-id="${twoPost.id}"]`).waitFor();
  await page.locator(`.list-page .post[data-id="${onePost.id}"]`).waitFor();
  const shown = await feedPosts(page);
  assert.ok(shown.indexOf(twoPost.id) < shown.indexOf(onePost.id) && shown.includes(twoPost.id), 'both members, newest first');

  await page.goto(`${BASE_URL}/lists`);
  await page.locator('.list-row', { hasText: 'Friends' }).getByRole('button', { name: 'Rename' }).click();
  await page.getByLabel('List name').nth(1).fill('Close friends');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('.toast', { hasText: 'List renamed.' }).waitFor();
  await page.locator('.list-row', { hasText: 'Close friends' }).waitFor();
  await page.locator('.list-row', { hasText: 'Close friends' }).getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click(); // asked in the app's dialog
  await page.locator('.toast', { hasText: 'List deleted.' }).waitFor();
  await page.getByText('You have no lists yet.').waitFor();
  clean(w, 'desktop');
  await D.context.close();
});

test('desktop (1280 px, English): an exclusive list keeps its member off Home, live, and on the list', async () => {
  const { reader, one, two } = await people('dx');
  const D = await desktop(browser, reader);
  const { page, w } = D;
  await page.goto(`${BASE_URL}/lists`);
  await page.getByLabel('List name').fill('Quiet');
  await page.getByLabel('Hide these posts from Home').check();
  await page.getByRole('button', { name: 'Create list' }).click();
  await page.locator('.list-row', { hasText: 'Quiet' }).locator('.list-exclusive-badge', { hasText: 'Not on Home' }).waitFor();
  assert.equal(await page.getByLabel('Hide these posts from Home').isChecked(), false, 'the box is cleared for the next list');
  const [l] = (await api('GET', '/me/lists', { token: reader.token })).items;
  assert.equal(l.exclusive, true, 'made exclusive');
  await api('PUT', `/me/lists/${l.id}/members/${one.username}`, { token: reader.token });

  // Home, live: the member's post does not come; the other's does.
  await page.getByRole('link', { name: 'Home' }).click();
  await page.locator('#conn[data-state="connected"]').waitFor();
  const quiet = await post(one, `Only for the list ${Date.now()}`);
  const loud = await post(two, `For home ${Date.now()}`);
  await page.locator(`[role=feed] .post[data-id="${loud.id}"]`).waitFor();
  assert.equal(await page.locator(`.post[data-id="${quiet.id}"]`).count(), 0, 'the member’s live post stays off Home');
  await page.reload();
  await page.locator(`[role=feed] .post[data-id="${loud.id}"]`).waitFor();
  assert.equal(await page.locator(`.post[data-id="${quiet.id}"]`).count(), 0, 'and off Home as read again');
  await shot(page, 'lists-desktop-exclusive-home');

  // The list's page: the box is ticked, the member's posts are there, a new one live.
  await page.goto(`${BASE_URL}/lists/${l.id}`);
  await page.locator(`.list-page .post[data-id="${quiet.id}"]`).waitFor();
  assert.equal(await page.getByLabel('Hide these posts from Home').isChecked(), true);
  await page.locator('#conn[data-state="connected"]').waitFor();
  const live = await post(one, `Live on the list ${Date.now()}`);
  await page.locator(`.list-page .post[data-id="${live.id}"]`).waitFor();
  await shot(page, 'lists-desktop-exclusive-list');
  assert.deepEqual(await axeViolations(page), [], 'axe: an exclusive list’s page');

  await page.getByLabel('Hide these posts from Home').uncheck();
  await page.locator('.toast', { hasText: 'Posts of this list show on Home again.' }).waitFor();
  await page.getByRole('link', { name: 'Home' }).click();
  await page.locator(`[role=feed] .post[data-id="${live.id}"]`).waitFor();
  clean(w, 'desktop exclusive');
  await D.context.close();
});

test('desktop (1280 px, 中文): 分组 in the nav, 关注分组 pages without English', async () => {
  const { reader, one, onePost } = await people('dz');
  const l = await api('POST', '/me/lists', { token: reader.token, body: { title: '同学' } });
  await api('PUT', `/me/lists/${l.id}/members/${one.username}`, { token: reader.token });
  const D = await desktop(browser, reader, { locale: 'zh-CN' });
  const { page, w } = D;
  await page.goto(`${BASE_URL}/`);
  await page.getByRole('link', { name: '分组' }).click();
  await page.getByRole('heading', { name: '关注分组' }).waitFor();
  await page.locator('.list-row', { hasText: '同学' }).waitFor();
  assert.match(await page.locator('.list-row').textContent(), /1 人/);
  await page.getByLabel('分组名称').fill('家人');
  await page.getByRole('button', { name: '新建分组' }).click();
  await page.locator('.toast', { hasText: '分组已创建。' }).waitFor();
  await page.locator('.list-row', { hasText: '家人' }).waitFor();
  await page.waitForLoadState('networkidle');
  const names = [reader.username, one.username];
  const english = (await englishLeft(page)).filter((line) => !names.some((n) => line.includes(n)) && /[A-Za-z]{2,}/.test(line.replace(/^[a-z0-9]+(\[[a-z-]+\])?: /, '')));
  assert.deepEqual(english, [], 'English left on the lists page');
  await shot(page, 'lists-desktop-zh-lists');

  await page.locator('.list-row', { hasText: '同学' }).getByRole('link').click();
  await page.locator(`.list-page .post[data-id="${onePost.id}"]`).waitFor();
  await page.getByText('组内成员的微博，最新的在前。', { exact: false }).waitFor();
  await page.getByLabel('不在首页显示').check();
  await page.locator('.toast', { hasText: '这个分组的微博现在只在分组里显示' }).waitFor();
  await page.locator('.list-members summary', { hasText: '组内成员' }).click();
  await page.locator('.list-members .user-row', { hasText: one.username }).waitFor();
  await page.getByRole('button', { name: '移出' }).click();
  await page.locator('.toast', { hasText: '已移出分组。' }).waitFor();
  await page.getByText('组内的人还没有发微博。').waitFor();
  await shot(page, 'lists-desktop-zh-list');
  clean(w, 'desktop zh');
  await D.context.close();
});

/** mobileApp opens the mobile app at 360 px from its own origin as u. */
async function mobileApp(u, locale) {
  const M = await phone(browser, u, { locale });
  await serveApp(M.context);
  await M.context.addInitScript(([server]) => localStorage.setItem('microblog.server', server), [BASE_URL]);
  return M;
}

test('mobile (360 px, English): the Me tab leads to Lists; make one, add from a profile, read it', async () => {
  const { reader, one, onePost, twoPost } = await people('ml');
  const M = await mobileApp(reader, 'en-US');
  const { page, w } = M;
  await page.goto(`${APP_ORIGIN}/index.html#/home`);
  await page.locator('.tabbar [data-tab=me]').tap();
  await page.getByRole('link', { name: 'Lists' }).tap();
  await page.locator('#title', { hasText: 'Lists' }).waitFor();
  await page.getByLabel('List name').fill('Runners');
  await page.getByRole('button', { name: 'Create list' }).tap();
  await page.locator('.list-row', { hasText: 'Runners' }).waitFor();
  assert.ok(await fits(page), 'the lists fit 360 px');
  await shot(page, 'lists-mobile-lists');

  await page.goto(`${APP_ORIGIN}/index.html#/u/${one.username}`);
  await page.getByRole('button', { name: 'Lists' }).tap();
  await page.getByRole('checkbox', { name: 'Runners' }).check();
  await page.locator('.toast', { hasText: 'Added to the list.' }).waitFor();
  assert.ok(await fits(page), 'the profile with the picker fits 360 px');
  await shot(page, 'lists-mobile-picker');

  await page.goto(`${APP_ORIGIN}/index.html#/lists`);
  await page.locator('.list-row', { hasText: 'Runners' }).getByRole('link').tap();
  await page.locator('#title', { hasText: 'Runners' }).waitFor();
  await page.locator(`.list-page .post[data-id="${onePost.id}"]`).waitFor();
  await page.getByLabel('Hide these posts from Home').check();
  await page.locator('.toast', { hasText: 'Posts of this list now show here only, not on Home.' }).waitFor();
  assert.equal(await page.locator(`.list-page .post[data-id="${twoPost.id}"]`).count(), 0, 'a non-member’s post stays out');
  assert.ok(await fits(page), 'the list fits 360 px');
  await shot(page, 'lists-mobile-list');
  assert.deepEqual(await axeViolations(page), [], 'axe: a list’s page on the phone');
  clean(w, 'mobile');
  await M.context.close();
});

test('mobile (360 px, 中文): 关注分组 and a list’s posts', async () => {
  const { reader, one, onePost } = await people('mz');
  const l = await api('POST', '/me/lists', { token: reader.token, body: { title: '跑步', exclusive: true } });
  await api('PUT', `/me/lists/${l.id}/members/${one.username}`, { token: reader.token });
  const M = await mobileApp(reader, 'zh-CN');
  const { page, w } = M;
  await page.goto(`${APP_ORIGIN}/index.html#/home`);
  await page.locator('.tabbar [data-tab=me]').tap();
  await page.getByRole('link', { name: '分组' }).tap();
  await page.locator('#title', { hasText: '关注分组' }).waitFor();
  await page.locator('.list-row', { hasText: '跑步' }).locator('.list-exclusive-badge', { hasText: '不在首页' }).waitFor();
  await page.getByLabel('不在首页显示').waitFor();
  assert.ok(await fits(page), 'the lists fit 360 px');
  await shot(page, 'lists-mobile-zh-lists');
  await page.locator('.list-row', { hasText: '跑步' }).getByRole('link').tap();
  await page.locator(`.list-page .post[data-id="${onePost.id}"]`).waitFor();
  await page.locator('.list-members summary', { hasText: '组内成员' }).waitFor();
  assert.equal(await page.getByLabel('不在首页显示').last().isChecked(), true, 'the list’s page says it is exclusive');
  assert.ok(await fits(page), 'the list fits 360 px');
  await shot(page, 'lists-mobile-zh-list');
  clean(w, 'mobile zh');
  await M.context.close();
});
