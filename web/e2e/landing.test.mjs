// landing.test.mjs: the desktop page's first visit and its frame. A
// logged-out visitor at / meets the landing page (no redirect to the log-in
// form): the newest public posts, what is trending, and the way in (sign
// up, log in), at 1280 px and 360 px, in English and in Chinese, with no
// axe violation. At 1280 px a logged-in reader has a labelled left rail
// (icon and name for each page, the unread badge, the reports for an
// operator), whose columns use the width; its New post button brings the
// composer with the focus; the account and a quiet connection indicator sit
// at its foot. At 360 px the bar of icons stays. A new user's empty home
// links to the public timeline and suggests people once. The mobile app,
// logged out, opens on the same: posts, trends, sign up and log in.
// Screenshots: screenshots/landing-*.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, DEADLINE, launch, newUser, register, post, follow, api, watch, phone, shot, clean, fits, axeViolations, PASSWORD, until } from './helpers.mjs';

const TAG = 'landing_' + Date.now().toString(36);

let browser;
let authors;
before(async () => {
  browser = await launch();
  // Three people write about the same topic: it trends.
  authors = await Promise.all(['lan_a', 'lan_b', 'lan_c'].map((p) => newUser(p)));
  for (const [i, u] of authors.entries()) await post(u, `Notes number ${i} about #${TAG}`);
  await post(authors[0], 'Hello from the landing page test.');
});
after(async () => { await browser?.close(); });

/** open makes a page width px wide in locale, logged in as u or anonymous. */
async function open(width, locale, u = null, colorScheme = 'light') {
  const context = await browser.newContext({ viewport: { width, height: width > 800 ? 800 : 740 }, locale, colorScheme });
  if (u) await context.addCookies([{ name: 'auth', value: u.token, url: BASE_URL, httpOnly: true, sameSite: 'Lax' }]);
  context.setDefaultTimeout(DEADLINE);
  const page = await context.newPage();
  return { context, page, w: watch(page) };
}

/** box is the bounding box of the first element matching selector. */
function box(page, selector) {
  return page.locator(selector).first().boundingBox();
}

/**
 * showsTheNewest asserts that the page shows the server's newest public
 * posts (posts in scope) and its trends (trend links in trends). The other
 * browser files post publicly and write topics meanwhile, so this test's
 * own post and topic may be off the first page and out of the top ten: what
 * counts is that the page shows what the server has now.
 */
async function showsTheNewest(page, scope, trends) {
  const first = page.locator(`${scope} .post`).first();
  await first.waitFor();
  const shownPost = await first.getAttribute('data-id');
  const newest = (await api('GET', '/timelines/public?limit=40')).items.map((p) => String(p.id));
  assert.ok(newest.includes(shownPost), `the first post shown (${shownPost}) is not among the server's newest public posts`);
  const links = page.locator(`${trends} .trend-link`);
  await links.first().waitFor();
  const shownTags = await links.evaluateAll((as) => as.map((a) => a.dataset.tag));
  // The list is worked out again at most every 5 s: a topic just gone from it may still show.
  await until(async () => {
    const top = (await api('GET', '/trends/tags')).items.map((x) => x.tag);
    return shownTags.filter((t) => top.includes(t)).length >= shownTags.length - 1;
  }, `the trends shown (${shownTags}) to be the server's`);
}

const TEXT = {
  'en-US': { signup: 'Sign up', login: 'Log in', trending: 'Trending', title: 'What’s happening now', post: 'New post', logout: 'Log out',
    nav: ['Home', 'Public', 'Notifications', 'Messages', 'Bookmarks', 'Lists', 'Topics', 'Profile'], public: 'public timeline' },
  'zh-CN': { signup: '注册', login: '登录', trending: '热搜', title: '看看大家正在聊什么', post: '写微博', logout: '退出登录',
    nav: ['首页', '广场', '通知', '私信', '收藏', '分组', '话题', '我的主页'], public: '广场' },
};

for (const locale of ['en-US', 'zh-CN']) {
  test(`a logged-out visitor at / sees posts, trends and sign-up (${locale}, 1280 and 360 px)`, async () => {
    const words = TEXT[locale];
    for (const width of [1280, 360]) {
      const V = await open(width, locale);
      const { page } = V;
      await page.goto(`${BASE_URL}/`);
      await page.getByRole('heading', { name: words.title, level: 1 }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/', 'the visitor stays at /');
      // The trends: beside the posts when the side column shows, over them when not.
      const trends = width > 1260 ? '#side .trends' : '#main .trends-inline';
      await showsTheNewest(page, '#main', trends);
      assert.equal(await page.locator(`${trends} .trends-title`).textContent(), words.trending);
      assert.equal(await page.locator('.trends:visible').count(), 1, `${width} px: the trends show once`);
      // The way in.
      const signup = page.locator('#main .landing-actions').getByRole('link', { name: words.signup, exact: true });
      const login = page.locator('#main .landing-actions').getByRole('link', { name: words.login, exact: true });
      assert.ok(await signup.isVisible() && await login.isVisible(), 'sign up and log in show');
      const hero = await box(page, '.landing-hero');
      assert.ok(hero.y < 200, `${width} px: the landing starts at ${hero.y} px`);
      assert.ok((await signup.boundingBox()).y + 44 < (width > 800 ? 800 : 740), 'sign-up is on the first screen');
      assert.ok(await fits(page), `${width} px: wider than the screen`);
      for (const v of await axeViolations(page)) assert.fail(`axe (${locale}, ${width} px): ${v}`);
      await shot(page, `landing-${width}-${locale}`);
      if (width === 360) {
        await shot(page, `landing-${width}-${locale}-full`, { fullPage: true });
        await signup.click();
        await page.waitForURL(/\/signup$/);
        await page.locator('.auth-form #password[autocomplete="new-password"]').waitFor();
      }
      clean(V.w, `${locale} ${width}`);
      await V.context.close();
    }
  });
}

test('the rail at 1280 px: labelled, using the width, New post brings the composer (en light, zh-CN dark)', async () => {
  const reader = await newUser('rail');
  await follow(reader, authors[0]);
  await follow(authors[1], reader); // an unread notification: the badge
  for (const locale of ['en-US', 'zh-CN']) {
    const words = TEXT[locale];
    const D = await open(1280, locale, reader, locale === 'zh-CN' ? 'dark' : 'light'); // the Chinese run in the dark
    const { page } = D;
    await page.goto(`${BASE_URL}/`);
    await page.locator('#main [role=feed] .post').first().waitFor();
    await page.locator('#conn[data-state="connected"]').waitFor();
    const nav = page.locator('#nav');
    // Each page of the nav is an icon and its name, shown.
    for (const name of words.nav) {
      const link = nav.getByRole('link', { name: new RegExp('^' + name) });
      const label = link.locator('.nav-label');
      assert.equal((await label.textContent()).trim(), name);
      const b = await label.boundingBox();
      assert.ok(b && b.width > 20, `${name}: its name is hidden (${JSON.stringify(b)})`);
      assert.equal(await link.locator('svg.icon').count(), 1, `${name}: an icon`);
    }
    await nav.locator('.nav-notifications .nav-badge', { hasText: '1' }).waitFor();
    // The links stack in a column on the left.
    const home = await box(page, '#nav .nav-link');
    const last = await page.locator('#nav .nav-link').last().boundingBox();
    assert.ok(home.x < 60 && Math.abs(last.x - home.x) < 1 && last.y > home.y + 300, `the nav is not a column on the left: ${JSON.stringify([home, last])}`);
    // The three columns use the width: the rail at the left edge, the page, the side column to the right edge.
    const rail = await box(page, '.topbar');
    const main = await box(page, '#main');
    const side = await box(page, '#side');
    assert.ok(rail.x < 40, `the rail starts at x=${rail.x}`);
    assert.ok(main.x >= rail.x + rail.width && main.x < 320, `the page column starts at x=${main.x}`);
    assert.ok(main.width >= 600, `the page column is ${main.width} px wide`);
    assert.ok(side.x >= main.x + main.width && side.x + side.width > 1240, `the side column spans ${side.x}–${side.x + side.width}`);
    assert.ok(rail.height >= 780, `the rail is ${rail.height} px high`);
    // The account and the connection, quiet, at the rail's foot; no top bar over the page.
    const logout = page.getByRole('button', { name: words.logout });
    const foot = await logout.boundingBox();
    assert.ok(foot.y > 600 && foot.x < 60, `Log out is at ${JSON.stringify(foot)}`);
    const conn = await box(page, '#conn');
    assert.ok(conn.y > last.y && conn.x < 60, `the connection indicator is at ${JSON.stringify(conn)}`);
    assert.equal(await page.locator('#conn').evaluate((el) => getComputedStyle(el).backgroundColor), 'rgba(0, 0, 0, 0)', 'the indicator is no pill');
    assert.ok(main.y < 30, `the page starts ${main.y} px down`);
    for (const v of await axeViolations(page)) assert.fail(`axe (${locale}, rail): ${v}`);
    await shot(page, `landing-rail-${locale}`);
    // The search box's results drop down over the page; the rail stays put.
    const brand = await box(page, '.brand');
    await page.locator('#topsearch input').fill(authors[0].username.slice(0, 6));
    await page.locator('.search-panel .user-row').first().waitFor();
    assert.deepEqual(await box(page, '.brand'), brand, 'the rail moved under the search results');
    const panel = await box(page, '.search-panel');
    assert.ok(panel.x + panel.width > rail.x + rail.width + 50, `the results stay in the rail: ${JSON.stringify(panel)}`);
    await shot(page, `landing-rail-search-${locale}`);
    await page.keyboard.press('Escape');

    // New post, from another page: home, the focus in the composer.
    await nav.getByRole('link', { name: words.nav[1], exact: true }).click();
    await page.waitForURL(/\/public$/);
    await page.locator('#main .post').first().waitFor();
    const newPost = page.getByRole('button', { name: words.post, exact: true });
    assert.ok((await newPost.boundingBox()).width >= 200, 'New post is a big button');
    await newPost.click();
    await page.waitForURL(`${BASE_URL}/`);
    await page.waitForFunction(() => document.activeElement && document.activeElement.matches('#main .composer textarea'));
    // And from home, scrolled down: the composer comes back into view.
    await page.evaluate(() => { document.activeElement.blur(); scrollTo(0, 2000); });
    await newPost.click();
    await page.waitForFunction(() => document.activeElement && document.activeElement.matches('#main .composer textarea'));
    const composer = await box(page, '#main .composer textarea');
    assert.ok(composer.y >= 0 && composer.y < 800, `the composer is at y=${composer.y}`);
    await page.keyboard.type(`Written from the rail (${locale}).`);
    await page.keyboard.press('Control+Enter');
    await page.locator('#main [role=feed] .post', { hasText: `Written from the rail (${locale}).` }).waitFor();
    clean(D.w, `rail ${locale}`);
    await D.context.close();
  }
});

test('the operator’s rail has Reports; at 360 px the bar of icons stays', async () => {
  const op = await register(process.env.ADMIN_USER).catch(async () => {
    const res = await api('POST', '/sessions', { body: { username: process.env.ADMIN_USER, password: PASSWORD } });
    return { username: process.env.ADMIN_USER, token: res.token, user: res.user };
  });
  const D = await open(1280, 'en-US', op);
  await D.page.goto(`${BASE_URL}/`);
  const reports = D.page.locator('#nav').getByRole('link', { name: 'Reports', exact: true });
  await reports.waitFor();
  assert.ok((await reports.locator('.nav-label').boundingBox()).width > 20, 'Reports is named in the rail');
  clean(D.w, 'operator');
  await D.context.close();

  // Between the rail's width and the side column's: the rail and the page, nothing wider than the window.
  const W = await open(1120, 'en-US', op);
  await W.page.goto(`${BASE_URL}/`);
  await W.page.locator('#conn[data-state="connected"]').waitFor();
  assert.ok((await W.page.locator('#nav .nav-label').first().boundingBox()).width > 20, 'the rail is labelled at 1120 px');
  assert.equal(await W.page.locator('#side').isVisible(), false, 'the side column shows at 1120 px');
  assert.ok(await fits(W.page), 'wider than 1120 px');
  await shot(W.page, 'landing-rail-1120');
  clean(W.w, 'operator 1120');
  await W.context.close();

  const N = await open(360, 'en-US', op);
  await N.page.goto(`${BASE_URL}/`);
  await N.page.locator('#conn[data-state="connected"]').waitFor();
  const bar = await box(N.page, '.topbar');
  assert.ok(bar.height <= 61 && bar.width === 360, `the bar is ${JSON.stringify(bar)}`);
  assert.equal(await N.page.locator('.rail-post').isVisible(), false, 'New post shows in the bar');
  assert.ok(await fits(N.page), 'the bar is wider than 360 px');
  await shot(N.page, 'landing-bar-360');
  clean(N.w, 'operator 360');
  await N.context.close();
});

test('a new user’s empty home links to the public timeline and suggests people once', async () => {
  for (const locale of ['en-US', 'zh-CN']) {
    const newbie = await newUser('newbie');
    const D = await open(1280, locale, newbie);
    const { page } = D;
    await page.goto(`${BASE_URL}/`);
    const link = page.locator('.home-empty .empty').getByRole('link', { name: TEXT[locale].public, exact: true });
    await link.waitFor();
    await page.locator('.home-empty .who .user-row').first().waitFor();
    await page.waitForLoadState('networkidle');
    assert.equal(await page.locator('.who:visible').count(), 1, 'who to follow shows once');
    await shot(page, `landing-empty-home-${locale}`);
    await link.click();
    await page.waitForURL(/\/public$/);
    clean(D.w, `empty home ${locale}`);
    await D.context.close();
  }
});

test('the mobile app, logged out, opens on posts, trends and sign-up (360 px, en and zh-CN)', async () => {
  const words = { 'en-US': ['Sign up', 'Log in', 'Trending'], 'zh-CN': ['注册', '登录', '热搜'] };
  for (const locale of ['en-US', 'zh-CN']) {
    const [signupName, loginName, trending] = words[locale];
    const M = await phone(browser, null, { locale });
    const { page } = M;
    await page.goto(`${BASE_URL}/m/`);
    await showsTheNewest(page, '', '.landing-trends');
    assert.equal(new URL(page.url()).hash || '#/home', '#/home', 'the app stays on its first screen');
    assert.equal(await page.locator('.landing-trends .trends-title').textContent(), trending);
    const signup = page.locator('.landing-actions').getByRole('link', { name: signupName, exact: true });
    assert.ok(await signup.isVisible(), 'sign up shows');
    assert.ok((await signup.boundingBox()).y + 44 < 740, 'sign up is on the first screen');
    assert.ok(await fits(page), 'wider than 360 px');
    for (const v of await axeViolations(page)) assert.fail(`axe (mobile, ${locale}): ${v}`);
    await shot(page, `landing-mobile-${locale}`);
    await page.locator('.landing-actions').getByRole('link', { name: loginName, exact: true }).tap();
    await page.locator('.auth-form #password[autocomplete="current-password"]').waitFor();
    clean(M.w, `mobile ${locale}`);
    await M.context.close();
  }
  // A new user's empty home in the app links to Public and Search.
  const N = await phone(browser, await newUser('newbie'));
  await N.page.goto(`${BASE_URL}/m/#/home`);
  const empty = N.page.locator('.home-empty .empty');
  await empty.getByRole('link', { name: 'Public', exact: true }).waitFor();
  await empty.getByRole('link', { name: 'Search', exact: true }).tap();
  await N.page.locator('#search').waitFor();
  clean(N.w, 'mobile newbie');
  await N.context.close();
});
