// tags.test.mjs: following topics (docs/api.md, "Followed topics") in both
// front ends and both languages. On the desktop page at 1280 px alice opens
// a topic's page (which lists a comment carrying the topic, linked to the
// post it answers), follows it with its button ("Follow topic" → "Following",
// aria-pressed), finds a stranger's post about it in her home timeline (not
// the comment), a
// new one arrives there live, the Topics page lists the topic, and she
// unfollows it there. The same in Chinese (关注话题 / 已关注, 关注的话题). In
// the mobile app at 360 px, in English and in Chinese, the topic page's
// button follows the topic, its posts come to Home (a new one live), the #
// on the Me tab's bar opens the followed topics, and nothing is wider than
// the screen. Then masto (the Mastodon client library of Elk and Phanpy)
// follows hashtags, pages its followed tags, reads one, gets a followed
// tag's post on its user stream, and unfollows.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createStreamingAPIClient } from 'masto';
import { BASE_URL, launch, newUser, post, api, desktop, phone, shot, clean, fits, axeViolations, until } from './helpers.mjs';
import { area, events, login } from './mastodon-client.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** topicName is a topic no other test writes about. */
function topicName(prefix) {
  return prefix + Date.now().toString(36) + Math.floor(Math.random() * 1296).toString(36);
}

/** followed are the topics u follows, as the server has them. */
async function followed(u) {
  return (await api('GET', '/me/tags', { token: u.token })).items.map((ft) => ft.name);
}

for (const lang of [
  { locale: 'en-US', follow: 'Follow topic', following: 'Following', nav: 'Topics', title: 'Followed topics' },
  { locale: 'zh-CN', follow: '关注话题', following: '已关注', nav: '话题', title: '关注的话题' },
]) {
  test(`desktop (${lang.locale}): follow a topic, its posts come home (live too), the Topics page lists it`, async () => {
    const alice = await newUser('alice'), carol = await newUser('carol');
    const tag = topicName('tea');
    const before_ = await post(carol, `Before the follow #${tag}`);
    const reply = await api('POST', `/posts/${before_.id}/comments`, { token: carol.token, body: { content: `A reply #${tag}` } });
    const D = await desktop(browser, alice, { locale: lang.locale });
    const { page } = D;
    await page.goto(`${BASE_URL}/t/${encodeURIComponent(tag)}`);
    await page.locator(`.post[data-id="${before_.id}"]`).waitFor();
    // A comment carrying the topic is on its page, linked to what it answers.
    await page.locator(`.post[data-id="${reply.id}"] a.replying[href$="/p/${before_.id}"]`).waitFor();
    const btn = page.locator('.btn-tag-follow');
    await btn.waitFor();
    assert.equal(await btn.textContent(), lang.follow);
    assert.equal(await btn.getAttribute('aria-pressed'), 'false');
    await btn.click();
    await page.locator('.btn-tag-follow[aria-pressed="true"]').waitFor();
    assert.equal(await btn.textContent(), lang.following);
    assert.deepEqual(await followed(alice), [tag]);
    assert.deepEqual(await axeViolations(page), [], 'the topic page with its button passes axe');
    await shot(page, `tags-desktop-topic-${lang.locale}`);

    await page.goto(`${BASE_URL}/`);
    await page.locator(`[role=feed] .post[data-id="${before_.id}"]`).waitFor();
    assert.equal(await page.locator(`.post[data-id="${reply.id}"]`).count(), 0, 'the topic’s comment stays off Home');
    await page.locator('#conn[data-state="connected"]').waitFor();
    const live = await post(carol, `Live now #${tag}`);
    await page.locator(`[role=feed] .post[data-id="${live.id}"]`).waitFor();
    assert.equal(await page.locator(`[role=feed] .post[data-id="${live.id}"]`).count(), 1, 'the live post shows once');
    await shot(page, `tags-desktop-home-${lang.locale}`);

    await page.getByRole('link', { name: lang.nav, exact: true }).click();
    await page.getByRole('heading', { name: lang.title }).waitFor();
    const row = page.locator(`.tag-row[data-tag="${tag}"]`);
    await row.waitFor();
    assert.equal(await row.locator('.topic-name').textContent(), '#' + tag);
    assert.deepEqual(await axeViolations(page), [], 'the Topics page passes axe');
    await shot(page, `tags-desktop-list-${lang.locale}`);
    await row.locator('.btn-tag-follow').click();
    await row.locator('.btn-tag-follow[aria-pressed="false"]').waitFor();
    assert.equal(await row.locator('.btn-tag-follow').textContent(), lang.follow);
    assert.deepEqual(await followed(alice), []);
    clean(D.w);
    await D.context.close();
  });

  test(`mobile 360 px (${lang.locale}): follow on the topic page, posts come home (live too), the Me tab lists the topics`, async () => {
    const gus = await newUser('gus'), hal = await newUser('hal');
    const tag = topicName('雨');
    const before_ = await post(hal, `#${tag}# 下雨了`);
    const M = await phone(browser, gus, { locale: lang.locale });
    const { page } = M;
    await page.goto(`${BASE_URL}/m/#/t/${encodeURIComponent(tag)}`);
    await page.locator(`.post[data-id="${before_.id}"]`).waitFor();
    const btn = page.locator('.btn-tag-follow');
    await btn.waitFor();
    assert.equal(await btn.textContent(), lang.follow);
    await btn.tap();
    await page.locator('.btn-tag-follow[aria-pressed="true"]').waitFor();
    assert.equal(await btn.textContent(), lang.following);
    assert.ok(await fits(page), 'the topic page fits 360 px');
    await shot(page, `tags-mobile-topic-${lang.locale}`);

    await page.goto(`${BASE_URL}/m/#/home`);
    await page.locator(`[role=feed] .post[data-id="${before_.id}"]`).waitFor();
    await page.locator('#conn[data-state="connected"]').waitFor();
    const live = await post(hal, `#${tag}# 还在下`);
    await page.locator(`[role=feed] .post[data-id="${live.id}"]`).waitFor();
    await shot(page, `tags-mobile-home-${lang.locale}`);

    await page.goto(`${BASE_URL}/m/#/u/${encodeURIComponent(gus.username)}`);
    await page.locator('#topics:not([hidden])').tap();
    const row = page.locator(`.tag-row[data-tag="${tag}"]`);
    await row.waitFor();
    assert.equal(await page.locator('#title').textContent(), lang.title);
    assert.ok(await fits(page), 'the followed topics fit 360 px');
    assert.deepEqual(await axeViolations(page), [], 'the followed topics pass axe');
    await shot(page, `tags-mobile-list-${lang.locale}`);
    await row.locator('.btn-tag-follow').tap();
    await row.locator('.btn-tag-follow[aria-pressed="false"]').waitFor();
    assert.deepEqual(await followed(gus), []);
    clean(M.w);
    await M.context.close();
  });
}

test('masto: follow hashtags, page followed_tags, a followed tag\'s post on the user stream, unfollow', area(async () => {
  const u = await newUser('mtags'), writer = await newUser('mwriter');
  const { token, rest } = await login(u.username);
  const tags = [topicName('ma'), topicName('mb'), topicName('mc')];
  for (const name of tags) {
    const tag = await rest.v1.tags.$select(name).follow();
    assert.equal(tag.name, name);
    assert.equal(tag.following, true);
    assert.ok(Array.isArray(tag.history), 'history is a list');
  }
  const listed = [];
  for await (const page of rest.v1.followedTags.list({ limit: 2 })) {
    assert.ok(page.length <= 2, 'a page holds at most limit');
    listed.push(...page.map((t) => t.name));
    if (listed.length > 10) break;
  }
  assert.deepEqual(listed, [...tags].reverse(), 'newest follow first, through the Link header');
  assert.equal((await rest.v1.tags.$select(tags[0]).fetch()).following, true);

  const instance = await rest.v2.instance.fetch();
  const streaming = createStreamingAPIClient({ streamingApiUrl: instance.configuration.urls.streaming, accessToken: token, retry: 3 });
  try {
    const user = events(streaming.user.subscribe());
    // The subscription is in place once a post of the user's own arrives on it.
    await until(async () => {
      const mine = await rest.v1.statuses.create({ status: 'probe ' + topicName('p') });
      return user.next((e) => e.event === 'update' && e.payload.id === mine.id, 'a probe', 1000).then(() => true, (e) => {
        if (e.timeout) return false;
        throw e;
      });
    }, 'the user stream to carry the user\'s own post');
    const p = await post(writer, `about #${tags[1]}`);
    const up = await user.next((e) => e.event === 'update' && e.payload.id === String(p.id), 'the followed tag\'s post');
    assert.equal(up.payload.account.username, writer.username);
  } finally {
    streaming.close();
  }

  const gone = await rest.v1.tags.$select(tags[1]).unfollow();
  assert.equal(gone.following, false);
  assert.equal((await rest.v1.tags.$select(tags[1]).fetch()).following, false);
}));
