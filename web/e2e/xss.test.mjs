// xss.test.mjs: text that users write is shown as text and never runs, in
// posts, reposts and comments, loaded with the page or arriving live, on the
// desktop page and in the mobile app.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, post, follow, api, desktop, phone, shot, clean } from './helpers.mjs';

const IMG = '<img src=x onerror=alert(1)>';
const SCRIPT = '<script>alert(2)</script>';
const PWN = '<img src=x onerror="window.__pwned=1"><svg onload="window.__pwned=2"></svg>';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** checkText asserts the page shows each payload verbatim as text and ran nothing. */
async function checkText(page, w, payloads, label) {
  for (const p of payloads) {
    const exact = new RegExp('^' + p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$');
    const el = page.locator('.content', { hasText: exact }).first();
    await el.waitFor();
    assert.equal(await el.textContent(), p, `${label}: shown as text`);
  }
  // The pictures and avatars the app itself shows (other files' tests post
  // them to the public timeline) are not markup from users; any other image is.
  const own = ':not(.media-img, .avatar-img)';
  assert.equal(await page.locator(`.post img${own}, .post script, .post svg:not(.icon), .quote img${own}`).count(), 0, `${label}: markup from users became elements`);
  assert.equal(await page.evaluate(() => window.__pwned), undefined, `${label}: injected script ran`);
  clean(w, label);
}

test('posts with markup show as text and run nothing', async () => {
  const mallory = await newUser('mallory'), bob = await newUser('bob');
  await follow(bob, mallory);
  const p1 = await post(mallory, IMG);
  await post(mallory, SCRIPT);
  await post(mallory, PWN);
  await post(mallory, `${SCRIPT} reposted`, p1.id);
  await api('POST', `/posts/${p1.id}/comments`, { token: mallory.token, body: { content: `<b onmouseover=alert(3)>${IMG}</b>` } });
  await api('PATCH', '/me', { token: mallory.token, body: { bio: `<i>${IMG}</i>` } });

  const D = await desktop(browser, bob);
  await D.page.goto(`${BASE_URL}/`);
  await D.page.locator('#conn[data-state="connected"]').waitFor();
  // One more arrives live, while the page is open.
  const live = `${IMG} live ${Date.now()}`;
  await post(mallory, live);
  await checkText(D.page, D.w, [IMG, SCRIPT, PWN, `${SCRIPT} reposted`, live], 'desktop home');
  // The quoted source of the repost is text too.
  assert.equal(await D.page.locator('.quote .content', { hasText: IMG }).first().textContent(), IMG);
  await shot(D.page, 'desktop-xss-as-text');

  await D.page.goto(`${BASE_URL}/p/${p1.id}`);
  await checkText(D.page, D.w, [IMG, `<b onmouseover=alert(3)>${IMG}</b>`], 'desktop thread');
  await D.page.goto(`${BASE_URL}/u/${mallory.username}`);
  await D.page.locator('.bio', { hasText: `<i>${IMG}</i>` }).waitFor();
  assert.equal(await D.page.locator('.profile-card img, .profile-card i').count(), 0);
  await D.page.goto(`${BASE_URL}/public`);
  await checkText(D.page, D.w, [IMG, SCRIPT, PWN], 'desktop public');

  const M = await phone(browser, bob);
  await M.page.goto(`${BASE_URL}/m/`);
  await checkText(M.page, M.w, [IMG, SCRIPT, PWN, live], 'mobile home');
  await M.page.goto(`${BASE_URL}/m/#/p/${p1.id}`);
  await checkText(M.page, M.w, [`<b onmouseover=alert(3)>${IMG}</b>`], 'mobile thread');

  await D.context.close(); await M.context.close();
});
