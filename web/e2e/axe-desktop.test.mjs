// axe-desktop.test.mjs runs axe-core (WCAG 2.1 A and AA, and axe's best
// practices) on the desktop page's main screens, logged out (log in, sign
// up) and in (home with posts, a profile, notifications with an unread
// one, search, settings, messages), in light and dark, in English and in
// Chinese: none may have a violation.
//
// To stay quick, one user and its data serve every run, each combination
// has one browser context (logged out first, then given the session), and
// the screens are reached through the page's own router, so axe is loaded
// once per combination.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, post, follow, api, desktop, axeViolations, clean } from './helpers.mjs';

let browser;
let me;
let fan;
before(async () => {
  browser = await launch();
  [me, fan] = await Promise.all([newUser('axe_me'), newUser('axe_fan')]);
  const mine = await post(me, '今天的 #天气# 真好，出去走走。');
  await post(me, 'Reading about accessibility audits this morning.');
  await post(fan, '周末一起去爬山吧 @' + me.username);
  await follow(me, fan);
  await api('PUT', `/posts/${mine.id}/like`, { token: fan.token });
  await api('POST', `/conversations/${encodeURIComponent(me.username)}/messages`, { token: fan.token, body: { content: '明天见！' } });
  await api('POST', `/conversations/${encodeURIComponent(fan.username)}/messages`, { token: me.token, body: { content: '好的，明天见。' } });
});
after(async () => { await browser?.close(); });

/** show goes to path through the page's router (no reload: axe stays loaded) and waits for what it draws. */
async function show(page, path, ready) {
  await page.evaluate((p) => { history.pushState(null, '', p); dispatchEvent(new PopStateEvent('popstate')); }, path);
  await page.locator(ready).first().waitFor();
  // What loads in the background (counts, avatars, the side column) settles.
  await page.waitForLoadState('networkidle');
}

/** audit collects the violations of the screen on page, labelled with where they were found. */
async function audit(page, where, found) {
  for (const v of await axeViolations(page)) found.push(`${where}: ${v}`);
}

for (const locale of ['en-US', 'zh-CN']) {
  for (const colorScheme of ['light', 'dark']) {
    test(`desktop screens pass axe: ${locale}, ${colorScheme}`, async () => {
      // A notification of its own, unread until the list is shown.
      await api('POST', `/posts/${(await post(me, '新的一天 ' + locale + ' ' + colorScheme)).id}/comments`, { token: fan.token, body: { content: '早上好！' } });
      const D = await desktop(browser, null, { locale, colorScheme });
      const { page } = D;
      const found = [];
      try {
        await page.goto(`${BASE_URL}/login`);
        await page.locator('.auth-form').waitFor();
        await audit(page, '/login', found);
        await show(page, '/signup', '.auth-form #password[autocomplete="new-password"]');
        await audit(page, '/signup', found);

        await D.context.addCookies([{ name: 'auth', value: me.token, url: BASE_URL, httpOnly: true, sameSite: 'Lax' }]);
        await page.goto(`${BASE_URL}/`);
        await page.locator('[role=feed] .post').first().waitFor();
        await page.locator('.nav-badge:not([hidden])').waitFor(); // the unread notification
        await page.waitForLoadState('networkidle');
        await audit(page, '/', found);
        for (const [path, ready] of [
          [`/u/${fan.username}`, '.profile-name'],
          ['/notifications', '.notif.unread'],
          ['/search?q=' + encodeURIComponent('天气'), '#main .post'],
          ['/settings', '.lang-select'],
          ['/messages', '.conv'],
          [`/messages/${fan.username}`, '.msg'],
        ]) {
          await show(page, path, ready);
          await audit(page, path, found);
        }
        assert.deepEqual(found, [], `axe found violations (${locale}, ${colorScheme})`);
        clean(D.w, `${locale} ${colorScheme}`);
      } finally {
        await D.context.close();
      }
    });
  }
}
