// chrome.test.mjs: the small states of issue 42 items 6–7, in both front
// ends and both languages, each page axe-clean: no browser dialog anywhere
// (the sources call no confirm(), alert() or prompt(); deleting asks in the
// app's dialog); Copy link and Share in every post's ⋯ menu, with Delete
// there instead of a bin in the action row; a post's own page gives its full
// date, and every relative time has it as a tooltip; profile buttons never
// over the coloured band (1280 and 360 px); an unknown user's page without
// the profile's tabs; the theme and text size of this device in Settings;
// the mobile app's five tabs, with Public and Search on Me; its login's
// logo apart from the heading, no Server link at /m/, sign-up's username rule.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE_URL, launch, newUser, post, follow, desktop, phone, shot, clean, fits, axeViolations } from './helpers.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const EN = {
  locale: 'en-US', more: 'More options for this post', copy: 'Copy link', share: 'Share…', del: 'Delete', copied: 'Link copied.',
  noUser: 'No such user', theme: 'Theme', text: 'Text size', dark: 'Dark', large: 'Large', public: 'Public', search: 'Search',
  login: 'Log in to Microblog', rule: '2–30 letters, digits or _.', server: 'Server',
  tabs: ['Home', 'Alerts', 'Post', 'Messages', 'Me'],
};
const ZH = {
  locale: 'zh-CN', more: '这条微博的更多操作', copy: '复制链接', share: '分享…', del: '删除', copied: '链接已复制。',
  noUser: '用户不存在', theme: '主题', text: '字号', dark: '深色', large: '大', public: '广场', search: '搜索',
  login: '登录微博客', rule: '2–30 个字母、数字或下划线（_）。', server: '服务器',
  tabs: ['首页', '通知', '发布', '私信', '我'],
};

/** sources lists the front ends' own script files (the vendored ones aside). */
async function sources(dir) {
  const out = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) { if (e.name !== 'vendor' && e.name !== 'e2e' && e.name !== 'node_modules' && e.name !== 'cordova') out.push(...await sources(p)); } else if (e.name.endsWith('.js')) out.push(p);
  }
  return out;
}

test('no front end calls the browser’s confirm(), alert() or prompt()', async () => {
  const files = [...await sources(join(ROOT, 'web', 'js')), ...await sources(join(ROOT, 'mobile', 'js'))];
  assert.ok(files.length > 30, 'found too few script files');
  const calls = [];
  for (const f of files) {
    // Comments may name them (ask.js says what it replaces): code only.
    const src = (await readFile(f, 'utf8')).replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
    for (const m of src.matchAll(/(?<![\w.])(?:window\.)?(confirm|alert|prompt)\s*\(/g)) calls.push(`${f.slice(ROOT.length + 1)}: ${m[0]}`);
  }
  assert.deepEqual(calls, []);
});

/** bandClear says whether every profile button starts below the coloured band (80 px desktop, 70 px in the app). */
function bandClear(page, band) {
  return page.evaluate((band) => {
    const top = document.querySelector('.profile-top').getBoundingClientRect().top;
    return [...document.querySelectorAll('.profile-actions .btn, .profile-actions .menu-btn')]
      .map((b) => b.getBoundingClientRect().top - top).every((y) => y >= band);
  }, band);
}

/** menuOf opens card's ⋯ menu and returns its items' names. */
async function menuOf(page, card, L) {
  await card.getByRole('button', { name: L.more }).click();
  await page.getByRole('menuitem').first().waitFor();
  return page.getByRole('menuitem').allTextContents();
}

for (const [L, width] of [[EN, 1280], [ZH, 360]]) {
  test(`desktop page (${width} px, ${L.locale}): post menu, delete in the app's dialog, date, profile buttons, unknown user, theme`, async () => {
    const me = await newUser('dana'), other = await newUser('omar');
    await follow(me, other);
    const mine = await post(me, `Mine to share ${Date.now()}`);
    const theirs = await post(other, `Theirs to copy ${Date.now()}`);
    const D = await desktop(browser, me, { locale: L.locale });
    const { page } = D;
    await page.setViewportSize({ width, height: 800 });
    await D.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL });

    // Their post: Copy link puts its page's address on the clipboard.
    await page.goto(`${BASE_URL}/p/${theirs.id}`);
    const card = page.locator(`.post-detail[data-id="${theirs.id}"]`);
    await card.waitFor();
    const items = await menuOf(page, card, L);
    assert.deepEqual(items.slice(0, 2), [L.copy, L.share]);
    await page.getByRole('menuitem', { name: L.copy }).click();
    await page.locator('.toast', { hasText: L.copied }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${BASE_URL}/p/${theirs.id}`);
    // Its own page says when in full; the relative time carries it as a tooltip.
    const full = await card.locator('.post-date time').textContent();
    assert.match(full, /\d{4}/, 'the post’s page gives no full date');
    assert.equal(await card.locator('.post-head time').getAttribute('title'), full);
    assert.deepEqual(await axeViolations(page), []);
    await shot(page, `chrome-desktop-${width}-${L.locale}-post`);

    // My post: no bin in the action row; Delete is in the menu and asks in the app's dialog.
    await page.goto(`${BASE_URL}/u/${me.username}`);
    const own = page.locator(`.post[data-id="${mine.id}"]`);
    await own.waitFor();
    assert.equal(await own.getByRole('button', { name: L.del }).count(), 0, 'a bin is still in the action row');
    assert.deepEqual((await menuOf(page, own, L)).slice(-3), [L.copy, L.share, L.del]);
    await shot(page, `chrome-desktop-${width}-${L.locale}-own-menu`);
    await page.getByRole('menuitem', { name: L.del }).click();
    const asked = page.getByRole('alertdialog');
    await asked.waitFor();
    assert.deepEqual(await axeViolations(page), []);
    await asked.getByRole('button', { name: L.del }).click();
    await own.waitFor({ state: 'detached' });
    // My own profile's buttons (four, in English) stay under the band.
    assert.ok(await bandClear(page, 80), 'my profile’s buttons climb over the band');

    // Someone else's profile: Following, Message, Lists and ⋯ below the band, the page no wider than the window.
    await page.goto(`${BASE_URL}/u/${other.username}`);
    await page.locator('.profile-actions .btn-lists').waitFor();
    assert.ok(await bandClear(page, 80), 'the profile’s buttons climb over the band');
    assert.ok(await fits(page), 'the profile is wider than the window');
    assert.deepEqual(await axeViolations(page), []);
    await shot(page, `chrome-desktop-${width}-${L.locale}-profile`);

    // No such user: no tabs, no lists.
    await page.goto(`${BASE_URL}/u/nobody_${Date.now().toString(36)}`);
    await page.getByRole('heading', { name: L.noUser }).waitFor();
    assert.equal(await page.locator('.tabs:visible, [role=feed]:visible').count(), 0, 'an unknown user’s page shows tabs or a list');

    // Settings: dark and large text, at once and after a reload (this device only).
    await page.goto(`${BASE_URL}/settings`);
    await page.getByLabel(L.theme, { exact: true }).selectOption({ label: L.dark });
    await page.getByLabel(L.text, { exact: true }).selectOption({ label: L.large });
    const look = () => page.evaluate(() => [document.documentElement.dataset.theme, getComputedStyle(document.documentElement).fontSize, getComputedStyle(document.body).backgroundColor]);
    assert.deepEqual(await look(), ['dark', '18px', 'rgb(14, 16, 22)']);
    await page.reload();
    await page.getByLabel(L.theme, { exact: true }).waitFor();
    assert.deepEqual(await look(), ['dark', '18px', 'rgb(14, 16, 22)']);
    await page.getByLabel(L.theme, { exact: true }).scrollIntoViewIfNeeded();
    assert.deepEqual(await axeViolations(page), []);
    await shot(page, `chrome-desktop-${width}-${L.locale}-settings-dark`);
    clean(D.w, 'desktop');
    await D.context.close();
  });
}

for (const L of [EN, ZH]) {
  test(`mobile app (360 px, ${L.locale}): login, sign-up rule, five tabs, Me's links, post menu and share, delete, profile, theme`, async () => {
    const me = await newUser('mia'), other = await newUser('otto');
    await follow(me, other);
    const mine = await post(me, `From my phone ${Date.now()}`);

    // Logged out: the logo apart from the heading, no Server link at /m/, the username rule on sign-up.
    const N = await phone(browser, null, { locale: L.locale });
    await N.page.goto(`${BASE_URL}/m/#/login`);
    await N.page.getByRole('heading', { name: L.login }).waitFor();
    assert.equal(await N.page.getByRole('link', { name: L.server, exact: true }).count(), 0, 'a Server link outside Cordova');
    const gap = await N.page.evaluate(() => document.querySelector('.auth h2').getBoundingClientRect().top - document.querySelector('.auth-brand img').getBoundingClientRect().bottom);
    assert.ok(gap >= 12, `the logo is ${gap} px from the heading`);
    await N.page.goto(`${BASE_URL}/m/#/signup`);
    await N.page.getByText(L.rule).waitFor();
    assert.deepEqual(await axeViolations(N.page), []);
    await shot(N.page, `chrome-mobile-${L.locale}-signup`);
    clean(N.w, 'mobile logged out');
    await N.context.close();

    const M = await phone(browser, me, { locale: L.locale });
    const { page } = M;
    // The Web Share API, as a phone has it: what the app hands the system's sheet.
    await M.context.addInitScript(() => { navigator.share = async (data) => { window.shared = data; }; });
    await page.goto(`${BASE_URL}/m/#/home`);
    const card = page.locator(`.post[data-id="${mine.id}"]`);
    await card.waitFor();
    assert.deepEqual(await page.locator('.tabbar .tab').allInnerTexts(), L.tabs);
    assert.equal(await card.locator('.action-danger').count(), 0, 'a bin is still in the action row');
    assert.deepEqual((await menuOf(page, card, L)).slice(-3), [L.copy, L.share, L.del]);
    await page.getByRole('menuitem', { name: L.share }).tap();
    await page.waitForFunction(() => window.shared);
    assert.equal((await page.evaluate(() => window.shared)).url, `${BASE_URL}/p/${mine.id}`);

    // Its own page gives the full date.
    await page.goto(`${BASE_URL}/m/#/p/${mine.id}`);
    assert.match(await page.locator('.post-date time').textContent(), /\d{4}/);
    assert.deepEqual(await axeViolations(page), []);
    await shot(page, `chrome-mobile-${L.locale}-post`);

    // Delete from the menu, asked in the app's dialog.
    await page.goto(`${BASE_URL}/m/#/home`);
    await menuOf(page, card, L);
    await page.getByRole('menuitem', { name: L.del }).tap();
    await page.getByRole('alertdialog').getByRole('button', { name: L.del }).tap();
    await card.waitFor({ state: 'detached' });

    // Me: Public and Search, which have no tab.
    await page.locator('.tabbar [data-tab=me]').tap();
    const links = page.locator('.me-links');
    await links.getByRole('link', { name: L.public }).waitFor();
    await links.getByRole('link', { name: L.search }).tap();
    await page.getByRole('searchbox').waitFor();

    // Someone else's profile: one row of buttons, under the band.
    await page.goto(`${BASE_URL}/m/#/u/${other.username}`);
    await page.locator('.profile-actions .btn-lists').waitFor();
    assert.ok(await bandClear(page, 70), 'the profile’s buttons climb over the band');
    const rows = await page.$$eval('.profile-actions > *', (els) => new Set(els.map((e) => Math.round(e.getBoundingClientRect().top))).size);
    assert.equal(rows, 1, 'the profile’s buttons take more than one row');
    assert.ok(await fits(page), 'the profile is wider than 360 px');
    assert.deepEqual(await axeViolations(page), []);
    await shot(page, `chrome-mobile-${L.locale}-profile`);

    // No such user: no tabs.
    await page.goto(`${BASE_URL}/m/#/u/nobody_${Date.now().toString(36)}`);
    await page.getByRole('heading', { name: L.noUser }).waitFor();
    assert.equal(await page.locator('.seg:visible').count(), 0, 'an unknown user’s page shows tabs');

    // Settings: dark and large text, kept after a reload.
    await page.goto(`${BASE_URL}/m/#/settings`);
    await page.getByLabel(L.theme, { exact: true }).selectOption({ label: L.dark });
    await page.getByLabel(L.text, { exact: true }).selectOption({ label: L.large });
    await page.reload();
    await page.getByLabel(L.theme, { exact: true }).waitFor();
    assert.deepEqual(await page.evaluate(() => [document.documentElement.dataset.theme, getComputedStyle(document.documentElement).fontSize]), ['dark', '18px']);
    assert.deepEqual(await axeViolations(page), []);
    await shot(page, `chrome-mobile-${L.locale}-settings-dark`);
    clean(M.w, 'mobile');
    await M.context.close();
  });
}
