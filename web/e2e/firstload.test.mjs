// firstload.test.mjs: a cold first load of each front end, as a reader with
// a home timeline, in English and in Chinese, stays within the request
// budget of issue 42 (about 20 until the first view is quiet): the page
// brings its style sheets, its code is the bundle the server made of the
// modules (server/api/static_bundle.go), not the modules one by one, and
// the only catalogs loaded are those of the language shown, each once. The
// times are measured by web/e2e/bench/firstpaint.mjs (docs/performance.md,
// "First load").

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, desktop, phone, newUser, post, follow, clean, shot } from './helpers.mjs';

// MAX_REQUESTS is the budget: 12 (desktop) and 10 (mobile) when written.
const MAX_REQUESTS = 20;

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

for (const [front, open, path] of [['desktop', desktop, '/'], ['mobile', phone, '/m/#/home']]) {
  for (const [locale, home] of [['en-US', /Home/], ['zh-CN', /首页/]]) {
    test(`${front} in ${locale}: a cold load shows the home timeline within ${MAX_REQUESTS} requests`, async () => {
      const reader = await newUser('fl'), writer = await newUser('flw');
      await follow(reader, writer);
      const text = `First load ${Date.now()}`;
      await post(writer, text);
      const P = await open(browser, reader, { locale });
      const { page } = P;
      const urls = [];
      page.on('request', (r) => urls.push(r.url()));
      await page.goto(BASE_URL + path);
      await page.locator('[role=feed] .post', { hasText: text }).waitFor();
      await page.waitForLoadState('networkidle');
      assert.match(await page.locator(front === 'desktop' ? 'nav' : '#tabbar').innerText(), home, 'the page is not in its language');

      const mine = urls.filter((u) => u.startsWith(BASE_URL)).map((u) => u.slice(BASE_URL.length));
      assert.ok(mine.length <= MAX_REQUESTS, `${mine.length} requests:\n  ${mine.join('\n  ')}`);
      const code = mine.filter((u) => u.endsWith('.js') || u.includes('.js?'));
      assert.deepEqual(code.filter((u) => !/\/js\/bundle\//.test(u) && !/cordova\.js/.test(u)), [], 'modules loaded one by one');
      assert.deepEqual(code.filter((u, i) => code.indexOf(u) !== i), [], 'code loaded twice');
      assert.deepEqual(mine.filter((u) => /\.css(\?|$)/.test(u)), [], 'style sheets fetched: the page holds them');
      // The catalogs: the three of the language shown, preloaded by the page.
      // The bundle's source maps say which modules each file holds.
      const lang = locale === 'zh-CN' ? 'zh-CN' : 'en';
      const catalogs = await catalogsOf(code);
      assert.deepEqual(catalogs, [`${lang}/core`, `${lang}/desktop`, `${lang}/mobile`]);
      const preloaded = await page.$$eval('link[rel=modulepreload]', (ls) => ls.map((l) => new URL(l.href).pathname));
      assert.equal(preloaded.filter((p) => code.some((u) => u.startsWith(p))).length, preloaded.length, `preloaded and not loaded: ${preloaded}`);
      assert.ok(preloaded.length >= 4, `preloads: ${preloaded}`); // a shared chunk and the three catalogs
      await shot(page, `firstload-${front}-${locale}`);
      clean(P.w, `${front} ${locale}`);
      await P.context.close();
    });
  }
}

/** catalogsOf lists the catalogs ("zh-CN/core", …) that the bundle's files at paths hold, from their source maps. */
async function catalogsOf(paths) {
  const found = [];
  for (const p of paths.filter((u) => u.includes('/bundle/'))) {
    const map = await (await fetch(BASE_URL + p.replace(/\?.*/, '') + '.map')).json();
    for (const src of map.sources) {
      const m = src.match(/\/locales\/([^/]+)\/(\w+)\.js$/);
      if (m) found.push(`${m[1]}/${m[2]}`);
    }
  }
  return found.sort();
}

test('a language chosen in Settings is the one the page preloads the catalogs of, whatever the browser’s', async () => {
  const P = await desktop(browser, null, { locale: 'en-US' });
  const { page, context } = P;
  await page.goto(BASE_URL + '/login');
  await page.getByLabel('Language').selectOption('zh-CN');
  await page.getByRole('button', { name: '登录' }).waitFor();
  const cookie = (await context.cookies(BASE_URL)).find((c) => c.name === 'microblog.lang');
  assert.equal(cookie && cookie.value, 'zh-CN', 'the choice is not in the language cookie');
  const preloads = async () => {
    const html = await (await context.request.get(BASE_URL + '/login', { headers: { 'Accept-Language': 'en-US,en;q=0.9' } })).text();
    return [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]);
  };
  assert.deepEqual(await catalogsOf(await preloads()), ['zh-CN/core', 'zh-CN/desktop', 'zh-CN/mobile']);
  // Back to English: the page preloads English again.
  await page.getByLabel('语言').selectOption('en');
  await page.getByRole('button', { name: 'Log in' }).waitFor();
  assert.deepEqual(await catalogsOf(await preloads()), ['en/core', 'en/desktop', 'en/mobile']);
  clean(P.w, 'language cookie');
  await P.context.close();
});
