// lang-core.test.mjs: what web/js/core draws, in Chinese. A reader whose
// browser speaks zh-CN walks the desktop page's main screens (a home
// timeline with a repost, an edited post and a pinned one, the trends,
// the "⋯" menus, an edit history, a report, notifications, a profile, a
// thread, search, messages, Settings and Account) and nothing that core
// drew is left in English: every string comes from the catalogs, and what
// users wrote (names, posts, tags, messages, searches) is marked
// translate="no". Counts are written as Chinese writes them (1.2万), times
// and a confirm() are Chinese, and a server error reaches the reader in
// Chinese from its code.
//
// The desktop page's own words (its frame, headings, composer) are
// web/js's, checked by the desktop's own walk; here they are set aside.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, post, follow, api, desktop, englishLeft, shot, clean, until } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// The roots of what core/*.js draws on the desktop page.
const CORE = ['.post', '.feed', '.notif', '.trends', '.who', '.user-row', '.chat', '.conv', '.account-area',
  '.search-page-results', '.btn-follow', '.btn-message', '.btn-unblock', '.menu-wrap', '.menu', '.states',
  '.profile-note', '.conn', '.toast', '.dialog', '.home-empty', '.show-replies', '.comment-children'].join(', ');

/**
 * coreEnglish is englishLeft(page) for what core drew: everything else is
 * marked translate="no" first, and the labels of the elements that hold
 * core's parts (say the desktop's aside, named "Suggestions") are dropped,
 * as are those the desktop hands core: the names of its lists (Home
 * timeline, Comments) and the live indicator's tooltip.
 */
async function coreEnglish(page) {
  await page.evaluate((sel) => {
    for (const el of document.querySelectorAll('[role=feed][aria-label]')) el.removeAttribute('aria-label');
    for (const el of document.querySelectorAll('.conn[title]')) el.removeAttribute('title');
    const roots = [...document.querySelectorAll(sel)];
    for (const el of document.body.querySelectorAll('*')) {
      if (roots.some((r) => r.contains(el))) continue;
      if (roots.some((r) => el.contains(r))) {
        for (const a of ['aria-label', 'title', 'placeholder']) el.removeAttribute(a);
        for (const n of el.childNodes) if (n.nodeType === Node.TEXT_NODE && n.data.trim()) n.remove();
      } else {
        el.setAttribute('translate', 'no');
      }
    }
    document.title = '';
  }, CORE);
  return englishLeft(page);
}

/** screen opens path and waits for what core draws there. */
async function screen(page, path, ready) {
  await page.goto(BASE_URL + path);
  await page.locator(ready).first().waitFor();
  await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' }).catch(() => {});
}

test('desktop in zh-CN: nothing core draws is English', async () => {
  const alice = await newUser('alice'), bob = await newUser('bob'), carol = await newUser('carol'), dave = await newUser('dave');
  await follow(alice, bob);
  await follow(bob, alice);
  await follow(carol, alice);
  const tag = `咖啡${Date.now() % 100000}`;
  const hers = await post(alice, `My own post about things #${tag}#`);
  await api('PUT', `/posts/${hers.id}/pin`, { token: alice.token });
  await api('PATCH', `/posts/${hers.id}`, { token: alice.token, body: { content: `My own post about things, edited #${tag}#` } });
  const his = await post(bob, `早上好 @${alice.username} #${tag}# hello world`);
  await post(bob, 'Worth a repost', hers.id);
  await api('PUT', `/posts/${hers.id}/like`, { token: bob.token });
  const c = await api('POST', `/posts/${hers.id}/comments`, { token: bob.token, body: { content: 'Nice one' } });
  await api('POST', `/posts/${c.id}/comments`, { token: alice.token, body: { content: 'Thanks!' } });
  await api('PUT', `/posts/${his.id}/bookmark`, { token: alice.token });
  await api('POST', `/conversations/${alice.username}/messages`, { token: bob.token, body: { content: 'Hi there' }, headers: { 'Idempotency-Key': `k${Date.now()}` } });
  await api('PUT', `/users/${carol.username}/block`, { token: alice.token });
  await api('PUT', `/users/${dave.username}/mute`, { token: alice.token });
  await api('PUT', '/me/filters', { token: alice.token, body: { words: ['football'] } });

  const D = await desktop(browser, alice, { locale: 'zh-CN' });
  const { page } = D;
  const left = {};
  const check = async (name) => {
    await shot(page, 'lang-core-' + name);
    left[name] = await coreEnglish(page);
  };

  await screen(page, '/', `.post[data-id="${his.id}"]`);
  await page.locator('.trends .trend').first().waitFor();
  assert.match(await page.locator(`.post[data-id="${his.id}"] time`).textContent(), /现在|秒|分钟/, 'a Chinese relative time');
  await page.locator(`.post[data-id="${his.id}"] .menu-btn`).click();
  await page.locator('.menu:popover-open [role=menuitem]').first().waitFor();
  await check('home-menu');

  await page.keyboard.press('Escape');
  await page.locator(`.post[data-id="${hers.id}"] .edited-mark`).first().click();
  await page.locator('.history-dialog .history-item').first().waitFor();
  await check('history');
  await page.keyboard.press('Escape');

  await page.locator(`.post[data-id="${his.id}"] .menu-btn`).click();
  await page.locator('.menu:popover-open [role=menuitem]').last().click();
  await page.locator('.report-dialog').waitFor();
  await check('report');
  await page.keyboard.press('Escape');

  await screen(page, '/notifications', '.notif');
  await check('notifications');

  await screen(page, `/u/${bob.username}`, `.post[data-author="${bob.username}"]`);
  await page.locator('.profile-actions .menu-btn').click();
  await page.locator('.menu:popover-open [role=menuitem]').first().waitFor();
  await check('profile');
  // Block asks first, in Chinese, in the app's own dialog (cancelled: nothing is blocked).
  await page.locator('.menu:popover-open [role=menuitem]').nth(1).click();
  const asked = page.getByRole('alertdialog');
  await asked.getByText(`要拉黑 ${bob.username} 吗？`).waitFor();
  await asked.getByRole('button', { name: '取消' }).click();
  await asked.waitFor({ state: 'hidden' });

  await screen(page, `/u/${alice.username}`, '.pinned-mark');
  await check('own-profile');

  await screen(page, `/p/${hers.id}`, '.show-replies');
  await page.locator('.show-replies').first().click();
  await page.locator('.comment-children .post').first().waitFor();
  await check('thread');

  await screen(page, `/search?q=${encodeURIComponent('hello')}`, '.search-posts .post');
  await check('search');
  await screen(page, `/search?q=${encodeURIComponent('zzz没有这个词')}`, '.search-posts .empty');
  await check('search-none');

  await screen(page, `/t/${encodeURIComponent(tag)}`, '.post');
  await check('topic');

  await screen(page, '/bookmarks', '.post');
  await check('bookmarks');

  await screen(page, '/messages', '.conv');
  await check('messages');
  await screen(page, `/messages/${bob.username}`, '.msg');
  await check('chat');

  await screen(page, '/settings', '.chip');
  await page.locator('.settings-list .user-row').nth(1).waitFor();
  await check('settings');
  await screen(page, '/account', '.account-area');
  await check('account');

  // Counts as Chinese writes them, and a server error in Chinese from its code.
  const said = await page.evaluate(async () => {
    const { count } = await import('/js/core/i18n.js');
    const { createApi } = await import('/js/core/api.js');
    const refused = await createApi().user('nobody_is_called_this').catch((e) => e.message);
    return { big: count(12345), small: count(1234), refused };
  });
  assert.deepEqual(said, { big: '1.2万', small: '1,234', refused: '没有这个用户。' });

  for (const [name, lines] of Object.entries(left)) {
    if (lines.length) console.log(`${name}:\n  ${lines.join('\n  ')}`);
  }
  assert.deepEqual(Object.entries(left).filter(([, lines]) => lines.length), [], 'English left in what core drew');
  clean(D.w, 'zh-CN');
  await D.context.close();
});
