// lang-mobile.test.mjs: the mobile app on a phone set to Simplified Chinese
// speaks Chinese everywhere, logged out (log in, public posts, a profile,
// settings) and logged in (home with posts, a post with a like and a
// comment, who liked it, notifications, messages, a profile, compose,
// search, settings): no English is left on any screen but what users wrote.
// A server error that reaches the user (a wrong password, a post that does
// not exist) is said in Chinese too. Switching to English in Settings, and
// back, is remembered across reloads. Screenshots: screenshots/lang-mobile-*.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, PASSWORD, launch, newUser, post, follow, api, phone, shot, clean, englishLeft } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/**
 * english is what englishLeft finds on page, less the page's title where
 * its only Latin letters are the names of users (a conversation's or a
 * profile's title is the name; document.title cannot carry translate="no").
 */
async function english(page, names) {
  const latin = /[A-Za-z]{2,}/;
  return (await englishLeft(page)).filter((line) => {
    if (!line.startsWith('title: ')) return true;
    let rest = line.slice('title: '.length);
    for (const n of names) rest = rest.split(n).join('');
    return latin.test(rest);
  });
}

/**
 * look adds to found the English left on page, as screen name, and takes a
 * screenshot; the test asserts at the end, so one run lists every screen's.
 */
async function look(page, name, names, found) {
  for (const line of await english(page, names)) found.push(`${name}: ${line}`);
  await shot(page, `lang-mobile-${name}`, { fullPage: true });
}

/** screen opens hash in the app, waits for ready, and looks for English there. */
async function screen(page, hash, ready, name, names, found) {
  await page.evaluate((h) => { location.hash = h; }, hash);
  await page.locator(ready).first().waitFor();
  await look(page, name, names, found);
}

const han = /[\u4e00-\u9fff]/;

test('mobile app in zh-CN: no English left, logged out and in; errors in Chinese', async () => {
  const ada = await newUser('ada'), bo = await newUser('bo');
  const names = [ada.username, bo.username];
  await follow(ada, bo);
  await follow(bo, ada);
  await api('PATCH', '/me', { token: ada.token, body: { bio: 'Writes about accessible apps.' } });
  await post(bo, 'Good morning from the phone.');
  const own = await post(ada, `A post in two languages, about #i18n_${Date.now().toString(36)}. 两种语言的微博。`);
  await api('PUT', `/posts/${own.id}/like`, { token: bo.token });
  await api('POST', `/posts/${own.id}/comments`, { token: bo.token, body: { content: 'Nice one!' } });
  await api('POST', `/conversations/${ada.username}/messages`, { token: bo.token, body: { content: 'Hello there!' } });

  const found = [];
  const M = await phone(browser, null, { locale: 'zh-CN' });
  const { page } = M;
  await page.goto(`${BASE_URL}/m/#/login`);
  await page.locator('#username').waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
  await look(page, 'login', names, found);
  await screen(page, '#/public', `.post[data-id="${own.id}"]`, 'public-logged-out', names, found);
  await screen(page, `#/u/${ada.username}`, `.post[data-id="${own.id}"]`, 'profile-logged-out', names, found);
  await screen(page, '#/settings', '#language', 'settings-logged-out', names, found);

  // A wrong password: the server's refusal, in Chinese.
  await page.evaluate(() => { location.hash = '#/login'; });
  await page.locator('#username').fill(ada.username);
  await page.locator('#password').fill('not the password');
  await page.locator('.auth-form button[type=submit]').tap();
  const error = page.locator('.form-error:not([hidden])');
  await error.waitFor();
  assert.match(await error.textContent(), han);
  await look(page, 'login-error', names, found);

  await page.locator('#password').fill(PASSWORD);
  await page.locator('.auth-form button[type=submit]').tap();
  await page.locator('#conn[data-state="connected"]').waitFor();
  for (const [hash, ready, name] of [
    ['#/home', `.post[data-id="${own.id}"]`, 'home'],
    [`#/p/${own.id}`, '.comment', 'thread'],
    [`#/p/${own.id}/likes`, '.user-row', 'likes'],
    ['#/notifications', '.notif', 'notifications'],
    ['#/messages', '.conv', 'messages'],
    [`#/messages/${bo.username}`, '.chat-list > *', 'conversation'],
    [`#/u/${bo.username}`, '.profile-name', 'profile'],
    ['#/me', `.post[data-id="${own.id}"]`, 'me'],
    ['#/compose', '#compose', 'compose'],
    ['#/search', '#search', 'search'],
    ['#/settings', '#language', 'settings'],
  ]) await screen(page, hash, ready, name, names, found);

  // A post that does not exist: the server's 404, in Chinese.
  await page.evaluate(() => { location.hash = '#/p/999999999'; });
  await page.locator('.thread h2').waitFor();
  assert.match(await page.locator('.thread').textContent(), han);
  await look(page, 'not-found', names, found);
  assert.deepEqual(found, [], 'English left on the screens:\n' + found.join('\n'));
  clean(M.w, 'zh-CN');
  await M.context.close();
});

test('mobile app: the language chosen in Settings is remembered, and so is going back', async () => {
  const u = await newUser('lin');
  const M = await phone(browser, u, { locale: 'zh-CN' });
  const { page } = M;
  await page.goto(`${BASE_URL}/m/#/settings`);
  await page.locator('#title', { hasText: '设置' }).waitFor();
  assert.equal(await page.getByLabel('语言').inputValue(), 'zh-CN');

  await page.getByLabel('语言').selectOption('en');
  await page.locator('#title', { hasText: 'Settings' }).waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
  await page.reload();
  await page.locator('#title', { hasText: 'Settings' }).waitFor();
  assert.equal(await page.getByLabel('Language').inputValue(), 'en');
  await page.locator('.tabbar [data-tab=home]', { hasText: 'Home' }).waitFor();

  await page.getByLabel('Language').selectOption('zh-CN');
  await page.locator('#title', { hasText: '设置' }).waitFor();
  await page.reload();
  await page.locator('#title', { hasText: '设置' }).waitFor();
  await page.locator('.tabbar [data-tab=home]', { hasText: '首页' }).waitFor();
  clean(M.w, 'switch');
  await M.context.close();

  // Logged out, the log-in screen offers the choice too.
  const L = await phone(browser, null, { locale: 'en-US' });
  await L.page.goto(`${BASE_URL}/m/#/login`);
  await L.page.getByLabel('Language').selectOption('zh-CN');
  await L.page.getByRole('heading', { name: '登录微博客' }).waitFor();
  await L.page.reload();
  await L.page.getByRole('heading', { name: '登录微博客' }).waitFor();
  clean(L.w, 'logged out');
  await L.context.close();
});
