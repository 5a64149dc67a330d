// axe-mobile.test.mjs: axe-core (WCAG 2.1 A and AA, and its best
// practices) finds nothing wrong on the mobile app's main screens: the
// log-in screen logged out; home with posts, a profile, notifications,
// compose, settings, the messages list and a conversation logged in; in
// light and dark, in English and in Chinese. One phone per combination
// walks the screens by their hash routes, so the whole run stays short.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, post, follow, api, phone, axeViolations, clean } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/**
 * settled waits for the animations that end (a list row fading in, say) to
 * end: axe would measure the contrast of text half faded in.
 */
function settled(page) {
  return page.evaluate(() => Promise.all(document.getAnimations()
    .filter((a) => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
    .map((a) => a.finished.catch(() => {}))));
}

test('mobile app: no axe violations on the main screens, light and dark, English and Chinese', async () => {
  const ada = await newUser('ada'), bo = await newUser('bo');
  await follow(ada, bo);
  await follow(bo, ada);
  const own = await post(ada, 'Accessible in two languages. 两种语言都无障碍。');
  await post(bo, `A post for the timeline, about #a11y_${Date.now().toString(36)}`);
  await api('PUT', `/posts/${own.id}/like`, { token: bo.token });
  await api('POST', `/posts/${own.id}/comments`, { token: bo.token, body: { content: 'Nice one. 不错。' } });
  await api('POST', `/conversations/${ada.username}/messages`, { token: bo.token, body: { content: 'Hello! 你好！' } });

  const screens = [
    ['#/home', `.post[data-id="${own.id}"]`, 'home'],
    [`#/u/${bo.username}`, '.profile-name', 'profile'],
    ['#/notifications', '.notif', 'notifications'],
    ['#/compose', '#compose', 'compose'],
    ['#/settings', '#language', 'settings'],
    ['#/messages', '.conv', 'messages'],
    [`#/messages/${bo.username}`, '.chat-list > *', 'conversation'],
  ];
  const found = [];
  for (const locale of ['en-US', 'zh-CN']) {
    for (const colorScheme of ['light', 'dark']) {
      const label = `${locale} ${colorScheme}`;
      const M = await phone(browser, null, { colorScheme, locale });
      const { page } = M;
      await page.goto(`${BASE_URL}/m/#/login`);
      await page.locator('#username').waitFor();
      await settled(page);
      for (const v of await axeViolations(page)) found.push(`${label} login: ${v}`);

      await page.evaluate((token) => localStorage.setItem('microblog.token', token), ada.token);
      await page.reload();
      for (const [hash, ready, name] of screens) {
        await page.evaluate((h) => { location.hash = h; }, hash);
        await page.locator(ready).first().waitFor();
        await settled(page);
        for (const v of await axeViolations(page)) found.push(`${label} ${name}: ${v}`);
      }
      clean(M.w, label);
      await M.context.close();
    }
  }
  assert.deepEqual(found, [], 'axe violations:\n' + found.join('\n'));
});
