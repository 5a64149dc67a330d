// search.test.mjs: full-text search and trends in both front ends
// (docs/api.md, "Likes, notifications, topics, search, trends"). On the
// desktop page the top bar's box leads to the results: "天气" finds a
// Chinese post (今天天气好) and an English one (Redis 天气), newest first,
// the word marked in each; every word of a two-word query is marked,
// whatever its case; a post written as HTML shows as text, marks and all;
// more than a page of matches pages on with "Load more" without a gap or a
// duplicate; a long query of several words finds its post without asking
// for people (whose names are shorter and have no spaces); a server without
// an archive (503 search_unavailable) is said in words, once; the marks are
// readable in light and dark mode; and a topic that several people post
// about shows in the trends beside the feed, with its counts, linking to
// its topic page. The mobile app at 360 px shows the trends on its search
// screen and finds, marks and pages alike.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, post, api, desktop, phone, shot, clean, fits, until, feedIds, contrast, unnamedControls } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** han is n random Chinese characters: a word that no other post of the run contains. */
function han(n) {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCodePoint(0x4e00 + Math.floor(Math.random() * 0x5000));
  return s;
}

/** searchIds asks the server for every post matching q: their ids, newest first. */
async function searchIds(q) {
  const ids = [];
  let cursor = null;
  do {
    const page = await api('GET', `/search/posts?q=${encodeURIComponent(q)}&limit=100` + (cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''));
    ids.push(...page.items.map((p) => p.id));
    cursor = page.next_cursor;
  } while (cursor);
  return ids;
}

/** searchable waits until the server's search for q finds every one of posts (the index follows within seconds). */
function searchable(q, posts) {
  return until(async () => {
    const ids = await searchIds(q);
    return posts.every((p) => ids.includes(p.id));
  }, `the search for “${q}” to find ${posts.length} posts`);
}

/** trending waits until tag is among the trends and returns it: {tag, posts, people}. */
async function trending(tag) {
  let found = null;
  await until(async () => {
    found = (await api('GET', '/trends/tags')).items.find((t) => t.tag === tag);
    return !!found;
  }, `#${tag} to trend`);
  return found;
}

/** talkAbout has n new people post about tag (the first of them twice): the trend's posts and people. */
async function talkAbout(tag, n, write = (t) => `Everyone is talking about #${t}`) {
  const people = await Promise.all(Array.from({ length: n }, () => newUser('fan')));
  for (const u of people) await post(u, write(tag));
  await post(people[0], write(tag) + ', again');
  return { posts: n + 1, people: n };
}

/** marks lists the marked words of post id's text on page. */
function marks(page, id) {
  return page.locator(`.post[data-id="${id}"] .post-body > .content mark`).allTextContents();
}

/** contents lists the text of every post in the results on page. */
function contents(page) {
  return page.locator('.search-posts [role=feed] > .post .post-body > .content').allTextContents();
}

const RESULTS = '.search-posts [role=feed]';

test('desktop: the top box finds 天气 in Chinese and English posts, marks two words, pages, and shows the trends', async () => {
  const word = han(3);
  const ann = await newUser('ann'), ben = await newUser('ben');
  const zh = await post(ann, `今天天气好 ${word}`);
  const en = await post(ben, `Redis 天气 report ${word}`);
  const html = await post(ben, `<img src=x onerror=alert(1)> <b>天气</b> ${word}`);
  await searchable(word, [zh, en, html]);

  const D = await desktop(browser, ann);
  const { page } = D;
  await page.goto(`${BASE_URL}/`);
  const box = page.getByRole('searchbox', { name: 'Search people and topics' });
  await box.fill('天气');
  await page.getByRole('link', { name: 'Search posts for “天气”' }).waitFor();
  await box.press('Enter');
  await page.getByRole('heading', { name: 'Search' }).waitFor();
  assert.equal(new URL(page.url()).searchParams.get('q'), '天气');
  const results = page.locator(RESULTS);
  for (const p of [zh, en, html]) await results.locator(`.post[data-id="${p.id}"]`).waitFor();
  assert.deepEqual((await feedIds(page, RESULTS)).slice(0, 3), [html.id, en.id, zh.id], 'not newest first');
  for (const text of await contents(page)) assert.ok(text.includes('天气'), `a result without 天气: ${text}`);
  assert.deepEqual(await marks(page, zh.id), ['天气']);
  assert.deepEqual(await marks(page, en.id), ['天气']);
  // A post written as HTML is text, marked like any other.
  const markup = results.locator(`.post[data-id="${html.id}"] .content`);
  assert.equal(await markup.textContent(), html.content);
  assert.equal(await markup.locator('img, b, script').count(), 0, 'the post’s markup became elements');
  assert.deepEqual(await marks(page, html.id), ['天气']);
  await shot(page, 'search-desktop-posts');

  // Two words, in another case and order than the post's: only posts with both, each word marked.
  await searchable('天气 REDIS', [en]);
  const input = page.getByRole('searchbox');
  assert.equal(await input.count(), 1, 'two search boxes on the search page');
  await input.fill('天气 REDIS');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('q') === '天气 REDIS'); // the new list is there
  await results.locator(`.post[data-id="${en.id}"]`).waitFor();
  const ids = await feedIds(page, RESULTS);
  assert.ok(!ids.includes(zh.id) && !ids.includes(html.id), 'a post without “redis” was found');
  for (const text of await contents(page)) assert.ok(text.includes('天气') && /redis/i.test(text), `a result without both words: ${text}`);
  assert.deepEqual(await marks(page, en.id), ['Redis', '天气']);
  await shot(page, 'search-desktop-two-words');

  // More than a page of matches, by one author (more than the hot window keeps): "Load more".
  const token = 'paging' + Date.now().toString(36).replace(/\d/g, (d) => 'abcdefghij'[d]); // no digits: "22" finds one post
  const many = [];
  for (let i = 0; i < 23; i++) many.push(await post(ann, `Paging through ${token}, number ${i}`));
  await searchable(token, many);
  await input.fill(token);
  await results.locator(`.post[data-id="${many.at(-1).id}"]`).waitFor();
  const newest = many.map((p) => p.id).reverse();
  assert.deepEqual(await feedIds(page, RESULTS), newest.slice(0, 20), 'the first page');
  const more = page.getByRole('button', { name: 'Load more' });
  await more.click();
  await results.locator(`.post[data-id="${many[0].id}"]`).waitFor();
  assert.deepEqual(await feedIds(page, RESULTS), newest, 'pages with a gap or a duplicate');
  assert.equal(await more.count(), 0, 'Load more after the last page');
  await page.locator('.search-posts .end', { hasText: 'No more posts match.' }).waitFor();
  assert.ok(await page.evaluate((id) => document.activeElement.closest('.post')?.dataset.id === String(id), many[2].id),
    'the focus did not move to the first post Load more brought');
  assert.deepEqual(await marks(page, many[0].id), [token]);

  // A query too long and too spaced to be a name finds posts, and no error about people.
  const long = `Paging through ${token}, NUMBER 22`;
  await input.fill(long);
  await page.waitForFunction((q) => new URLSearchParams(location.search).get('q') === q, long);
  await results.locator(`.post[data-id="${many[22].id}"]`).waitFor();
  assert.deepEqual(await feedIds(page, RESULTS), [many[22].id]);
  assert.deepEqual(await marks(page, many[22].id), ['Paging', 'through', token + ',', 'number', '22']);
  assert.equal(await page.locator('.search-found .error').count(), 0, 'an error about people or topics');

  // A server that keeps no archive cannot search posts: it says so, and asks once.
  let asked = 0;
  await page.route('**/api/v1/search/posts?*', (route) => {
    asked++;
    return route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: { code: 'search_unavailable', message: 'post search needs the archive' } }) });
  });
  await input.fill('anything at all');
  await page.locator('.search-posts .error', { hasText: 'Searching posts is not available on this server.' }).waitFor();
  await page.waitForTimeout(1500);
  assert.equal(asked, 1, 'a search that cannot work was tried again');
  await page.unroute('**/api/v1/search/posts?*');

  // Several people post about a topic: it trends beside the feed, and leads to its page.
  const tag = 'trend_' + Date.now().toString(36);
  const { posts, people } = await talkAbout(tag, 5);
  assert.deepEqual(await trending(tag), { tag, posts, people });
  await page.goto(`${BASE_URL}/`);
  const trend = page.locator(`.side .trends .trend-link[data-tag="${tag}"]`);
  await trend.waitFor();
  assert.equal(await trend.locator('.trend-counts').textContent(), `${people} people · ${posts} posts`);
  await shot(page, 'search-desktop-trends');
  await trend.click();
  await page.getByRole('heading', { name: '#' + tag }).waitFor();
  assert.equal(new URL(page.url()).pathname, '/t/' + tag);

  // The search page at 360 px (nav icons only, the box on the page), then the marks in the dark.
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto(`${BASE_URL}/search?q=${encodeURIComponent('天气 REDIS')}`);
  await results.locator(`.post[data-id="${en.id}"] mark`).first().waitFor();
  assert.ok(await fits(page), 'the search page is wider than 360 px');
  assert.deepEqual(await unnamedControls(page), [], 'unnamed controls on the search page');
  assert.ok(await contrast(page.locator('.content mark')) >= 4.5, 'a mark is hard to read');
  await shot(page, 'search-desktop-360', { fullPage: true });
  clean(D.w, 'ann');
  await D.context.close();

  const dark = await desktop(browser, ann, { colorScheme: 'dark' });
  await dark.page.goto(`${BASE_URL}/search?q=${encodeURIComponent('天气 REDIS')}`);
  await dark.page.locator(`${RESULTS} .post[data-id="${en.id}"] mark`).first().waitFor();
  for (const sel of ['.content mark', '.content a mark']) {
    if (await dark.page.locator(sel).count()) assert.ok(await contrast(dark.page.locator(sel)) >= 4.5, `${sel} is hard to read in the dark`);
  }
  await shot(dark.page, 'search-desktop-dark');
  clean(dark.w, 'ann, dark');
  await dark.context.close();
});

test('mobile (360 px): the search screen shows the trends, finds and marks 天气, and pages', async () => {
  const word = han(3);
  const tag = '热搜' + han(3);
  const { posts, people } = await talkAbout(tag, 5, (t) => `大家都在说 #${t}# 呢`);
  const cai = await newUser('cai'), dan = await newUser('dan');
  const mine = [await post(dan, `Redis 天气 ${word}`)];
  for (let i = 0; i < 21; i++) mine.push(await post(cai, `第${i + 1}条：今天天气好 ${word}`));
  await searchable(word, mine);
  assert.deepEqual(await trending(tag), { tag, posts, people });

  const M = await phone(browser, cai);
  const { page } = M;
  await page.goto(`${BASE_URL}/m/#/search`);
  const trend = page.locator(`.search-trends .trend-link[data-tag="${tag}"]`);
  await trend.waitFor();
  assert.equal(await trend.locator('.trend-counts').textContent(), `${people} people · ${posts} posts`);
  assert.ok(await fits(page), 'the search screen is wider than 360 px');
  assert.deepEqual(await unnamedControls(page), [], 'unnamed controls on the search screen');
  await shot(page, 'search-mobile-trends');

  await page.getByRole('searchbox', { name: 'Search people and topics' }).fill('天气');
  const results = page.locator(RESULTS);
  await results.locator(`.post[data-id="${mine.at(-1).id}"]`).waitFor();
  const newest = mine.map((p) => p.id).reverse();
  assert.deepEqual(await feedIds(page, RESULTS), newest.slice(0, 20), 'the first page');
  assert.deepEqual(await marks(page, mine.at(-1).id), ['天气']);
  for (const text of await contents(page)) assert.ok(text.includes('天气'), `a result without 天气: ${text}`);
  assert.ok(await fits(page), 'the results are wider than 360 px');
  assert.deepEqual(await unnamedControls(page), [], 'unnamed controls in the results');
  await shot(page, 'search-mobile-posts');
  await page.getByRole('button', { name: 'Load more' }).tap();
  await results.locator(`.post[data-id="${mine[0].id}"]`).waitFor();
  const ids = await feedIds(page, RESULTS);
  assert.deepEqual(ids.slice(0, mine.length), newest, 'pages with a gap');
  assert.equal(new Set(ids).size, ids.length, 'a post shown twice');
  assert.deepEqual(await marks(page, mine[0].id), ['天气']);
  await results.locator(`.post[data-id="${mine[0].id}"]`).scrollIntoViewIfNeeded();
  await shot(page, 'search-mobile-more');

  // An empty box shows the trends again; a trend opens its topic.
  await page.getByRole('searchbox').fill('');
  await trend.tap();
  await page.locator('#title', { hasText: '#' + tag }).waitFor();
  assert.equal(await page.evaluate(() => location.hash), '#/t/' + encodeURIComponent(tag));
  clean(M.w, 'cai');
  await M.context.close();
});
