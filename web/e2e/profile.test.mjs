// profile.test.mjs: a user sets a Chinese display name (昵称), profile
// fields and a header picture in one front end's Settings, and the other
// front end shows them: the name with the @username beside it on the
// posts of its home timeline, and the whole profile (header, name, fields
// with a nofollow link) on the profile page. Both ways round (mobile at
// 360 px → desktop, desktop → mobile at 360 px), in Chinese and English,
// with axe-core finding nothing.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, post, follow, desktop, phone, clean, fits, png, shot, axeViolations } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const HEADER = png(600, 200, [30, 90, 160], [200, 120, 40]);

/** nick is a display name no other run uses: Chinese, with a number. */
const nick = (base) => base + (Date.now() % 100000);

/** axeClean asserts axe-core finds nothing on page as it is now. */
async function axeClean(page, label) {
  assert.deepEqual(await axeViolations(page), [], `${label}: axe-core violations`);
}

/** fillProfile fills the Profile section of Settings and saves it, then uploads the header. */
async function fillProfile(page, name, fields, saved) {
  const section = page.locator('section[aria-labelledby="settings-profile-title"]');
  await section.locator('#profile-display-name').fill(name);
  for (const [i, [k, v]] of fields.entries()) {
    await section.locator(`#profile-field-name-${i}`).fill(k);
    await section.locator(`#profile-field-value-${i}`).fill(v);
  }
  await section.locator('button[type=submit]').click();
  await page.locator('.toast', { hasText: saved }).first().waitFor();
  await section.locator('.header-change + input[type=file]').setInputFiles({ name: 'header.png', mimeType: 'image/png', buffer: HEADER });
  await section.locator('.profile-header-preview .profile-banner img').waitFor();
  await page.waitForFunction(() => document.querySelector('.profile-header-preview img')?.complete);
}

/** checkPost asserts the post's head shows the display name and the @username. */
async function checkPost(page, id, name, username, label) {
  const head = page.locator(`.post[data-id="${id}"] .post-head`).first();
  await head.waitFor();
  assert.equal(await head.locator('.display-name').textContent(), name, `${label}: the display name on the post`);
  assert.equal(await head.locator('.handle').textContent(), '@' + username, `${label}: the @username beside it`);
  assert.equal(await head.locator('.display-name').getAttribute('translate'), 'no', `${label}: a name is not translated`);
}

/** checkProfile asserts the profile page shows the header, the name, the handle and the fields. */
async function checkProfile(page, name, username, label) {
  await page.locator('.profile-name', { hasText: name }).waitFor();
  assert.equal(await page.locator('.profile-handle').textContent(), '@' + username, `${label}: the @username under the name`);
  await page.waitForFunction(() => { const img = document.querySelector('.profile-banner img'); return img && img.complete && img.naturalWidth > 0; });
  const dts = await page.locator('.profile-fields dt').allTextContents();
  assert.deepEqual(dts, ['网站', '城市'], `${label}: the fields' labels`);
  const link = page.locator('.profile-fields dd a');
  assert.equal(await link.getAttribute('href'), 'https://example.com/lilei', `${label}: the web address is a link`);
  assert.match(await link.getAttribute('rel'), /\bnofollow\b.*\bnoopener\b/, `${label}: the link is nofollow noopener`);
  assert.equal(await page.locator('.profile-fields dd').nth(1).textContent(), '杭州', `${label}: a text field is text`);
}

test('set on the phone in Chinese, shown on the desktop page in English', async () => {
  const lilei = await newUser('lilei'), reader = await newUser('reader');
  await follow(reader, lilei);
  const name = nick('李雷');

  const M = await phone(browser, lilei, { locale: 'zh-CN' });
  await M.page.goto(`${BASE_URL}/m/#/settings`);
  await fillProfile(M.page, name, [['网站', 'https://example.com/lilei'], ['城市', '杭州']], '资料已保存');
  assert.ok(await fits(M.page), 'mobile settings fit 360 px');
  await axeClean(M.page, 'mobile settings (zh)');
  await shot(M.page, 'profile-mobile-settings-zh', { fullPage: true });
  // The phone's own profile shows it at once, header and all, at 360 px.
  await M.page.goto(`${BASE_URL}/m/#/u/${lilei.username}`);
  await checkProfile(M.page, name, lilei.username, 'mobile own profile');
  assert.ok(await fits(M.page), 'the mobile profile fits 360 px');
  await axeClean(M.page, 'mobile profile (zh)');
  await shot(M.page, 'profile-mobile-profile-zh');

  const p = await post(lilei, '你好，世界');
  const D = await desktop(browser, reader);
  await D.page.goto(`${BASE_URL}/`);
  await checkPost(D.page, p.id, name, lilei.username, 'desktop home');
  await D.page.goto(`${BASE_URL}/u/${lilei.username}`);
  await checkProfile(D.page, name, lilei.username, 'desktop profile');
  await axeClean(D.page, 'desktop profile (en)');
  await shot(D.page, 'profile-desktop-profile-en');
  // People search finds the display name's first character.
  await D.page.goto(`${BASE_URL}/search?q=${encodeURIComponent(name.slice(0, 2))}`);
  await D.page.locator(`.user-row[data-user="${lilei.username}"] .display-name`, { hasText: name }).waitFor();
  clean(M.w, 'mobile'); clean(D.w, 'desktop');
  await M.context.close(); await D.context.close();
});

test('set on the desktop page in Chinese, shown on the phone in English at 360 px', async () => {
  const lilei = await newUser('lilei'), reader = await newUser('reader');
  await follow(reader, lilei);
  const name = nick('韩梅梅');

  const D = await desktop(browser, lilei, { locale: 'zh-CN' });
  await D.page.goto(`${BASE_URL}/settings`);
  await fillProfile(D.page, name, [['网站', 'https://example.com/lilei'], ['城市', '杭州']], '资料已保存');
  await axeClean(D.page, 'desktop settings (zh)');
  await shot(D.page, 'profile-desktop-settings-zh');
  // Too long a name is refused in words, and changes nothing.
  await D.page.locator('#profile-display-name').evaluate((el) => { el.removeAttribute('maxlength'); });
  await D.page.locator('#profile-display-name').fill('名'.repeat(31));
  await D.page.locator('section[aria-labelledby="settings-profile-title"] button[type=submit]').click();
  await D.page.locator('.profile-form .form-error', { hasText: '昵称最多 30 个字' }).waitFor();

  const p = await post(lilei, 'hello from the desktop');
  const M = await phone(browser, reader);
  await M.page.goto(`${BASE_URL}/m/`);
  await checkPost(M.page, p.id, name, lilei.username, 'mobile home');
  assert.ok(await fits(M.page), 'the mobile home fits 360 px');
  await axeClean(M.page, 'mobile home (en)');
  await shot(M.page, 'profile-mobile-home-en');
  await M.page.goto(`${BASE_URL}/m/#/u/${lilei.username}`);
  await checkProfile(M.page, name, lilei.username, 'mobile profile');
  assert.ok(await fits(M.page), 'the mobile profile fits 360 px');
  await axeClean(M.page, 'mobile profile (en)');
  await shot(M.page, 'profile-mobile-profile-en');
  clean(M.w, 'mobile'); clean(D.w, 'desktop');
  await M.context.close(); await D.context.close();
});
