// lang-desktop.test.mjs opens the desktop page in a browser whose language
// is Chinese (zh-CN) and walks its main screens, logged out and in, with
// posts, a like, comments, notifications, a message and a bookmark on
// them: no English may be left on any (englishLeft: text, and the names
// that labels, titles and placeholders give). What users wrote is in
// Chinese, or marked translate="no" by the page; only the users' names,
// which are Latin letters by rule, may show in the page's title and in
// the names of controls. It also switches the language in Settings and on
// the log-in screen, and has the server refuse something, to see its
// reason in Chinese. Screenshots: screenshots/lang-desktop-*.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, post, follow, api, desktop, shot, englishLeft, clean } from './helpers.mjs';

const LOCALE = 'zh-CN';

let browser;
let li;     // the reader
let wang;   // someone li follows, who follows, likes, comments and writes to li
let bookmarked;
let mine;
before(async () => {
  browser = await launch();
  [li, wang] = await Promise.all([newUser('li'), newUser('wang')]);
  await api('PATCH', '/me', { token: wang.token, body: { bio: '喜欢爬山和摄影的程序员。' } });
  bookmarked = await post(wang, '周末去西湖划船，#杭州# 的秋天真美。');
  mine = await post(li, '今天终于写完了 #天气# 预报的代码。');
  await follow(li, wang);
  await follow(wang, li);
  await api('PUT', `/posts/${mine.id}/like`, { token: wang.token });
  await api('POST', `/posts/${mine.id}/comments`, { token: wang.token, body: { content: '写得真好！' } });
  await api('PUT', `/posts/${bookmarked.id}/bookmark`, { token: li.token });
  await api('POST', `/conversations/${encodeURIComponent(li.username)}/messages`, { token: wang.token, body: { content: '晚上一起吃饭吗？' } });
});
after(async () => { await browser?.close(); });

/**
 * leftover is the English that englishLeft found on page, less the users'
 * names (Latin by rule, and shown in the title and in controls' names,
 * where no translate="no" can mark them).
 */
async function leftover(page, names) {
  const found = await englishLeft(page);
  return found.filter((line) => {
    let text = line.replace(/^[a-z0-9]+(\[[a-z-]+\])?: /, '').replace(/^title: /, '');
    for (const name of names) text = text.split(name).join('');
    return /[A-Za-z]{2,}/.test(text);
  });
}

/** walk opens each [path, what shows when it is drawn, screenshot name] on page and checks it for English. */
async function walk(page, names, screens) {
  const found = [];
  for (const [path, ready, name] of screens) {
    await page.goto(BASE_URL + path);
    await page.locator(ready).first().waitFor();
    await page.waitForLoadState('networkidle');
    assert.equal(await page.evaluate(() => document.documentElement.lang), LOCALE, `${path}: <html lang>`);
    for (const line of await leftover(page, names)) found.push(`${path}: ${line}`);
    await shot(page, 'lang-desktop-' + name);
  }
  assert.deepEqual(found, [], 'English left on the desktop page in zh-CN');
}

test('desktop in Chinese, logged out: log in, sign up, the public timeline', async () => {
  const D = await desktop(browser, null, { locale: LOCALE });
  await walk(D.page, [li.username, wang.username], [
    ['/login', '.auth-form', 'login'],
    ['/signup', '.auth-form', 'signup'],
    ['/public', '#main .post', 'public-out'],
    [`/p/${mine.id}`, '.comment .post', 'post-out'],
  ]);
  clean(D.w, 'logged out');
  await D.context.close();
});

test('desktop in Chinese, logged in: the main screens', async () => {
  const D = await desktop(browser, li, { locale: LOCALE });
  await walk(D.page, [li.username, wang.username], [
    ['/', '[role=feed] .post', 'home'],
    ['/public', '#main .post', 'public'],
    [`/u/${wang.username}`, '#main .post', 'profile'],
    [`/u/${li.username}/followers`, '.user-row', 'followers'],
    ['/notifications', '.notif', 'notifications'],
    ['/search?q=' + encodeURIComponent('西湖'), '#main .post', 'search'],
    [`/p/${mine.id}`, '.comment .post', 'post'],
    ['/settings', '.lang-select', 'settings'],
    ['/messages', '.conv', 'messages'],
    [`/messages/${wang.username}`, '.msg', 'conversation'],
    ['/bookmarks', '#main .post', 'bookmarks'],
    ['/account', '.account-section:not([hidden])', 'account'],
  ]);
  clean(D.w, 'logged in');
  await D.context.close();
});

/** choose picks lang in the language switch on page and waits for the page to show itself again in it. */
async function choose(page, lang) {
  await Promise.all([page.waitForEvent('load'), page.locator('.lang-select').selectOption(lang)]);
  await page.locator('.lang-select').waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), lang);
}

test('the language chosen in Settings, or on the log-in screen, is remembered', async () => {
  const D = await desktop(browser, li, { locale: LOCALE });
  const { page } = D;
  await page.goto(`${BASE_URL}/settings`);
  const heading = page.locator('#main h1');
  assert.equal(await heading.textContent(), '设置');
  // Each language is named in itself, whatever the page's language.
  assert.deepEqual(await page.locator('.lang-select option').allTextContents(), ['English', '简体中文']);
  assert.equal(await page.getByRole('combobox', { name: '语言' }).inputValue(), 'zh-CN');
  await shot(page, 'lang-desktop-switch');

  await choose(page, 'en');
  assert.equal(await heading.textContent(), 'Settings');
  assert.equal(await page.getByRole('combobox', { name: 'Language' }).inputValue(), 'en');
  await page.reload();
  await page.locator('.lang-select').waitFor();
  assert.equal(await heading.textContent(), 'Settings', 'the choice of English is forgotten on reload');
  assert.equal(await page.title(), 'Settings · Microblog');

  await choose(page, 'zh-CN');
  assert.equal(await heading.textContent(), '设置');
  await page.reload();
  await page.locator('.lang-select').waitFor();
  assert.equal(await heading.textContent(), '设置', 'the choice of Chinese is forgotten on reload');
  assert.equal(await page.title(), '设置 · 微博客');
  clean(D.w, 'settings');
  await D.context.close();

  // A visitor switches on the log-in screen, before signing in.
  const V = await desktop(browser, null, { locale: LOCALE });
  await V.page.goto(`${BASE_URL}/login`);
  await V.page.getByRole('heading', { name: '欢迎回来' }).waitFor();
  await choose(V.page, 'en');
  await V.page.getByRole('heading', { name: 'Welcome back' }).waitFor();
  await V.page.reload();
  await V.page.getByRole('heading', { name: 'Welcome back' }).waitFor();
  assert.equal(await V.page.getByRole('combobox', { name: 'Language' }).inputValue(), 'en');
  clean(V.w, 'log-in screen');
  await V.context.close();
});

/** chinese asserts that text is a sentence in Chinese, without English. */
function chinese(text, what) {
  assert.match(text, /\p{Script=Han}/u, `${what} is not in Chinese: ${text}`);
  assert.doesNotMatch(text, /[A-Za-z]{2,}/, `${what} has English in it: ${text}`);
}

test('what the server refuses is said in Chinese', async () => {
  const zhao = await newUser('zhao');
  const hers = await post(zhao, '新开的咖啡店，拿铁很好喝。');
  const D = await desktop(browser, li, { locale: LOCALE });
  const profile = D.page;
  const thread = await D.context.newPage();
  await profile.goto(`${BASE_URL}/u/${zhao.username}`);
  await thread.goto(`${BASE_URL}/p/${hers.id}`);
  const box = thread.locator('.thread-reply textarea');
  await box.waitFor();
  const follow = profile.locator(`.profile-card .btn-follow[data-user="${zhao.username}"]`);
  await follow.waitFor();

  // She blocks li while his pages are open: his follow is refused (403 blocked), and his reply too (404: her post is hidden from him now).
  await api('PUT', `/users/${encodeURIComponent(li.username)}/block`, { token: zhao.token });
  await follow.click();
  const toast = profile.locator('.toast').last();
  await toast.waitFor();
  chinese(await toast.textContent(), 'the refused follow’s toast');
  await box.fill('我也想去试试！');
  await thread.locator('.thread-reply button[type=submit]').click();
  const error = thread.locator('.thread-reply .form-error');
  await error.waitFor();
  chinese(await error.textContent(), 'the refused reply’s error');
  await shot(thread, 'lang-desktop-error');
  assert.deepEqual(D.w.errors, []);
  await D.context.close();
});
