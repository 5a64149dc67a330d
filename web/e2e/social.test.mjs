// social.test.mjs: likes, live counters, notifications, mentions, topics and
// search, against the real server, on the desktop page and in the mobile app
// at 360 px: bob likes alice's post and alice's open page shows the count
// and a notification badge within two seconds; opening the notifications
// marks them read; a #话题# link opens the topic page, which picks up new
// posts by itself; searching "ali" finds alice, with no request for an empty
// box and one per pause in typing.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, post, follow, api, desktop, phone, shot, clean, fits, until, axeViolations } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** unread asks the server how many notifications u has not read. */
async function unread(u) {
  return (await api('GET', '/me', { token: u.token })).unread_notifications;
}

/** searches records the page's requests to /search/…: [{path, q}]. */
function searches(page) {
  const calls = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/api/v1/search/')) calls.push({ path: u.pathname, q: u.searchParams.get('q') });
  });
  return calls;
}

test('desktop: bob likes alice’s post; her open page counts it and badges the notification within 2 s', async () => {
  const alice = await newUser('alice'), bob = await newUser('bob'), carol = await newUser('carol');
  await follow(bob, alice); // a "follow" notification
  const p = await post(alice, `Something worth liking ${Date.now()}`);
  const m = await post(carol, `Hi @${alice.username}, have you seen this?`); // a "mention"
  assert.equal(await unread(alice), 2);

  const A = await desktop(browser, alice), B = await desktop(browser, bob);
  await A.page.goto(`${BASE_URL}/`);
  await A.page.locator('#conn[data-state="connected"]').waitFor();
  const badge = A.page.locator('#nav .nav-badge');
  await badge.filter({ hasText: '2' }).waitFor();
  assert.equal(await A.page.title(), '(2) Home · Microblog');
  await A.page.evaluate(() => { window.__noReload = true; });

  await B.page.goto(`${BASE_URL}/`);
  await B.page.locator('#conn[data-state="connected"]').waitFor();
  const bobCard = B.page.locator(`.post[data-id="${p.id}"]`);
  // Optimistic: the button turns before the server answers. The like's
  // request is held until the button has turned, so no clock is needed.
  let release;
  const held = new Promise((r) => { release = r; });
  const hold = async (route) => { await held; await route.continue(); };
  await B.page.route('**/api/v1/posts/*/like', hold);
  await bobCard.getByRole('button', { name: 'Like (0)' }).click();
  await bobCard.getByRole('button', { name: 'Unlike (1)' }).waitFor();
  assert.equal(await bobCard.locator('.like').getAttribute('aria-pressed'), 'true');
  const answered = B.page.waitForResponse((r) => r.url().endsWith(`/posts/${p.id}/like`) && r.request().method() === 'PUT');
  release();
  await answered;
  await B.page.unroute('**/api/v1/posts/*/like', hold);

  const count = A.page.locator(`.post[data-id="${p.id}"] .actions .like-count`);
  await count.filter({ hasText: '1' }).waitFor();
  await badge.filter({ hasText: '3' }).waitFor();
  assert.equal(await A.page.title(), '(3) Home · Microblog');
  assert.equal(await A.page.getByRole('link', { name: 'Notifications (3 unread)' }).count(), 1);
  assert.equal(await A.page.evaluate(() => window.__noReload), true, 'the page was reloaded');
  await shot(A.page, 'desktop-liked-live');

  // The count opens who liked it.
  await count.click();
  await A.page.getByRole('heading', { name: 'Liked by' }).waitFor();
  await A.page.locator(`#main .user-row[data-user="${bob.username}"]`).waitFor(); // not the side column's suggestions
  await shot(A.page, 'desktop-likers');

  // Opening the notifications lists them, marks them read and clears the badge.
  await A.page.getByRole('link', { name: /^Notifications/ }).click();
  const rows = A.page.locator('.notif');
  await rows.first().waitFor();
  assert.deepEqual((await rows.locator('.notif-text').allTextContents()).map((t) => t.replace(/^New: /, '').replace(/ · .*$/, '')), [
    `${bob.username} liked your post`,
    `${carol.username} mentioned you`,
    `${bob.username} followed you`,
  ]);
  assert.equal(await rows.first().locator('.notif-post').getAttribute('href'), `/p/${p.id}`);
  await badge.waitFor({ state: 'hidden' });
  assert.equal(await A.page.title(), 'Notifications · Microblog');
  await until(async () => (await unread(alice)) === 0, 'the server to count the notifications read');
  await shot(A.page, 'desktop-notifications');

  // Bob takes his like back: its notification leaves alice's open list.
  await bobCard.getByRole('button', { name: 'Unlike (1)' }).click();
  await bobCard.getByRole('button', { name: 'Like (0)' }).waitFor();
  await rows.filter({ hasText: 'liked your post' }).waitFor({ state: 'detached' });
  assert.equal(await badge.isHidden(), true);

  // A notification's excerpt opens its post.
  await rows.filter({ hasText: 'mentioned you' }).locator('.notif-post').click();
  await A.page.locator(`.post-detail[data-id="${m.id}"]`).waitFor();
  // The mention in it is a link to alice's profile.
  assert.equal(await A.page.locator(`.post-detail .content a.mention`).getAttribute('href'), `/u/${encodeURIComponent(alice.username)}`);
  clean(A.w, 'alice'); clean(B.w, 'bob');
  await A.context.close(); await B.context.close();
});

test('desktop: a #话题# link opens the topic page, which shows new posts about it by itself', async () => {
  const carol = await newUser('carol'), dan = await newUser('dan');
  const p = await post(carol, `早上好 #话题# and #golang, ${Date.now()}`);
  assert.deepEqual(p.tags, ['话题', 'golang']);
  const D = await desktop(browser, dan);
  await D.page.goto(`${BASE_URL}/public`);
  const card = D.page.locator(`.post[data-id="${p.id}"]`);
  await card.waitFor();
  assert.deepEqual(await card.locator('.content a').allTextContents(), ['#话题#', '#golang']);
  await card.getByRole('link', { name: '#话题#' }).click();
  await D.page.getByRole('heading', { name: '#话题' }).waitFor();
  assert.equal(new URL(D.page.url()).pathname, '/t/' + encodeURIComponent('话题'));
  await D.page.locator(`[role=feed] .post[data-id="${p.id}"]`).waitFor();
  assert.equal(await D.page.title(), '#话题 · Microblog');
  await D.page.evaluate(() => { window.__noReload = true; });

  // A new post about the topic shows up while the page is open (it asks every few seconds).
  const q = await post(carol, `#话题# again ${Date.now()}`);
  await D.page.locator(`[role=feed] .post[data-id="${q.id}"]`).waitFor();
  assert.equal(await D.page.evaluate(() => window.__noReload), true, 'the page was reloaded');
  assert.equal(await D.page.locator('[role=feed] .post').first().getAttribute('data-id'), String(q.id));
  await shot(D.page, 'desktop-topic');

  // The topic's address works on its own, and a Twitter-style tag links too.
  await D.page.goto(`${BASE_URL}/t/golang`);
  await D.page.locator(`[role=feed] .post[data-id="${p.id}"]`).waitFor();
  clean(D.w, 'dan');
  await D.context.close();
});

test('desktop: searching "ali" finds alice, debounced, never for an empty box', async () => {
  const alice = await newUser('alice'), sam = await newUser('sam');
  const tag = `golang_${Date.now().toString(36)}`;
  await post(alice, `Searchable #${tag}`);
  const S = await desktop(browser, sam);
  const calls = searches(S.page);
  await S.page.goto(`${BASE_URL}/`);
  const box = S.page.getByRole('searchbox', { name: 'Search people and topics' });
  await box.click();
  await box.pressSequentially('ali', { delay: 60 });
  const panel = S.page.locator('.search-panel');
  await panel.locator('.user-row').first().waitFor();
  // A pause in typing makes one search (people and topics) for what is
  // typed so far: on a busy machine the keys may come slowly enough for an
  // earlier pause, but never a search for an empty box, and the last is for
  // the whole word.
  await until(() => calls.some((c) => c.q === 'ali' && c.path === '/api/v1/search/tags'));
  for (const c of calls) assert.ok(c.q !== '' && 'ali'.startsWith(c.q), `a search for ${JSON.stringify(c.q)}`);
  assert.deepEqual(calls.slice(-2), [{ path: '/api/v1/search/users', q: 'ali' }, { path: '/api/v1/search/tags', q: 'ali' }]);
  for (const name of await panel.locator('.user-row .name').allTextContents()) assert.match(name, /^ali/i);

  await box.pressSequentially(alice.username.slice(3), { delay: 30 });
  const row = panel.locator(`.user-row[data-user="${alice.username}"]`);
  await row.waitFor();
  await row.getByRole('button', { name: `Follow ${alice.username}` }).click();
  await row.getByRole('button', { name: `Unfollow ${alice.username}` }).waitFor();
  assert.equal((await api('GET', `/users/${alice.username}`, { token: sam.token })).following, true);
  await shot(S.page, 'desktop-search-box');

  // Emptying the box closes the results and asks nothing.
  const before = calls.length;
  await box.fill('');
  await panel.waitFor({ state: 'hidden' });
  await S.page.waitForTimeout(400);
  assert.equal(calls.length, before, 'searched for an empty box');
  assert.ok(calls.every((c) => c.q && c.q.trim()), 'a request with an empty query');

  // Topics, and Enter opens the search page.
  await box.fill('#' + tag.slice(0, 9));
  await panel.locator(`.topic-row[data-tag="${tag}"]`).waitFor();
  assert.equal(calls.at(-1).path, '/api/v1/search/tags');
  await box.fill('ali');
  await box.press('Enter');
  await S.page.getByRole('heading', { name: 'Search' }).waitFor();
  assert.equal(new URL(S.page.url()).search, '?q=ali');
  await S.page.locator('.search-page-results .user-row').first().waitFor();
  await shot(S.page, 'desktop-search');
  assert.equal(await S.page.getByRole('searchbox').count(), 1, 'two search boxes on the search page');
  await S.page.getByRole('searchbox').fill(`#${tag}`);
  await S.page.locator(`.search-page-results .topic-row[data-tag="${tag}"]`).click();
  await S.page.getByRole('heading', { name: '#' + tag }).waitFor();
  clean(S.w, 'sam');
  await S.context.close();
});

test('desktop: an empty home timeline suggests people to follow', async () => {
  const star = await newUser('star'), fan = await newUser('fan'), newbie = await newUser('newbie');
  await follow(fan, star); // star is popular now
  await post(star, 'Follow me for posts.');
  const N = await desktop(browser, newbie);
  await N.page.goto(`${BASE_URL}/`);
  const box = N.page.locator('.home-empty .who');
  await box.locator('.user-row').first().waitFor();
  // The side column's suggestions (1280 px) load on their own, maybe a
  // moment after the home's, and stay out of sight while the home suggests
  // people: "Who to follow" shows once.
  await N.page.locator('.side .who .user-row').first().waitFor({ state: 'attached' });
  await N.page.waitForLoadState('networkidle');
  assert.equal(await N.page.locator('.who:visible').count(), 1, 'who to follow shows once');
  await box.locator('.user-row').first().getByRole('button', { name: /^Follow / }).click();
  await N.page.getByRole('button', { name: 'Show their posts' }).click();
  await N.page.locator('[role=feed] .post').first().waitFor();
  // The home has posts now: the side column suggests people again.
  await N.page.locator('.side .who .user-row').first().waitFor();
  await shot(N.page, 'desktop-home-suggestions');
  clean(N.w, 'newbie');
  await N.context.close();
});

test('mobile (360 px): like, badge, notifications, topic, search, bio, reply counter', async () => {
  const alice = await newUser('alice'), bob = await newUser('bob');
  await follow(bob, alice);
  const p = await post(alice, `Phones have topics too #话题# ${Date.now()}`);
  const A = await phone(browser, alice), B = await phone(browser, bob);
  await A.page.goto(`${BASE_URL}/m/`);
  await A.page.locator(`.post[data-id="${p.id}"]`).waitFor();
  await A.page.locator('#conn[data-state="connected"]').waitFor();
  const alerts = A.page.locator('.tabbar [data-tab=notifications]');
  await alerts.locator('.tab-badge').filter({ hasText: '1' }).waitFor(); // bob's follow
  await B.page.goto(`${BASE_URL}/m/`);
  await B.page.locator('#conn[data-state="connected"]').waitFor();
  await B.page.locator(`.post[data-id="${p.id}"]`).getByRole('button', { name: 'Like (0)' }).tap();
  await A.page.locator(`.post[data-id="${p.id}"] .like-count`).filter({ hasText: '1' }).waitFor();
  await alerts.locator('.tab-badge').filter({ hasText: '2' }).waitFor();
  assert.equal(await A.page.title(), '(2) Home · Microblog');
  assert.ok(await fits(A.page), 'home wider than 360 px');
  await shot(A.page, 'mobile-liked-live');

  await alerts.tap();
  await A.page.locator('.notif', { hasText: `${bob.username} liked your post` }).waitFor();
  await A.page.locator('.notif', { hasText: `${bob.username} followed you` }).waitFor();
  await alerts.locator('.tab-badge').waitFor({ state: 'hidden' });
  assert.equal(await A.page.title(), 'Notifications · Microblog');
  assert.ok(await fits(A.page), 'notifications wider than 360 px');
  await shot(A.page, 'mobile-notifications');

  // The topic link.
  await A.page.locator('.tabbar [data-tab=home]').tap();
  await A.page.locator(`.post[data-id="${p.id}"]`).getByRole('link', { name: '#话题#' }).tap();
  await A.page.locator('#title', { hasText: '#话题' }).waitFor();
  assert.equal(await A.page.evaluate(() => location.hash), '#/t/' + encodeURIComponent('话题'));
  await A.page.locator(`[role=feed] .post[data-id="${p.id}"]`).waitFor();
  assert.ok(await fits(A.page), 'topic wider than 360 px');
  await shot(A.page, 'mobile-topic');

  // Bob searches "ali" and finds alice.
  const calls = searches(B.page);
  await B.page.getByRole('link', { name: 'Search', exact: true }).tap(); // on Home's bar (five tabs, no Search among them)
  const box = B.page.getByRole('searchbox', { name: 'Search people and topics' });
  await box.pressSequentially('ali', { delay: 60 });
  await B.page.locator('.search-results .user-row').first().waitFor();
  await until(() => calls.some((c) => c.q === 'ali' && c.path.endsWith('/users')));
  for (const c of calls) assert.ok(c.q !== '' && 'ali'.startsWith(c.q), `a search for ${JSON.stringify(c.q)}`);
  await box.pressSequentially(alice.username.slice(3), { delay: 30 });
  await B.page.locator(`.search-results .user-row[data-user="${alice.username}"]`).getByRole('button', { name: `Unfollow ${alice.username}` }).waitFor();
  assert.ok(await fits(B.page), 'search wider than 360 px');
  await shot(B.page, 'mobile-search');

  // Alice edits her bio.
  await A.page.locator('.tabbar [data-tab=me]').tap();
  await A.page.getByRole('button', { name: 'Edit bio' }).tap();
  const bio = `Writing from my phone ${Date.now()}`;
  await A.page.getByLabel('Bio').fill(bio);
  assert.equal(await A.page.locator('.bio-form .counter').getAttribute('aria-label'), `${160 - bio.length} characters left`);
  await shot(A.page, 'mobile-bio');
  await A.page.getByRole('button', { name: 'Save' }).tap();
  await A.page.locator('.profile .bio', { hasText: bio }).waitFor();
  assert.equal((await api('GET', '/me', { token: alice.token })).bio, bio);

  // The reply box counts characters like the composer (code points: an emoji is one).
  await A.page.goto(`${BASE_URL}/m/#/p/${p.id}`);
  const reply = A.page.getByLabel(`Reply to ${alice.username}`).first();
  await reply.fill('😀'.repeat(270));
  assert.equal(await A.page.locator('.reply .counter').first().getAttribute('aria-label'), '10 characters left');
  await reply.fill('x'.repeat(281));
  assert.equal(await A.page.locator('.reply .counter').first().getAttribute('aria-label'), '1 characters over the limit');
  assert.equal(await A.page.getByRole('button', { name: 'Reply', exact: true }).first().isDisabled(), true);
  assert.ok(await fits(A.page), 'thread wider than 360 px');
  clean(A.w, 'alice'); clean(B.w, 'bob');
  await A.context.close(); await B.context.close();
});

test('mentions and topics become links only where the server found them, as text', async () => {
  const D = await desktop(browser, null);
  await D.page.goto(`${BASE_URL}/public`);
  const got = await D.page.evaluate(async () => {
    const { richText } = await import('/js/core/text.js');
    const href = (p) => p;
    const show = (content, post) => richText(content, post, href).map((n) => (typeof n === 'string' ? n : `[${n.textContent}→${decodeURIComponent(n.getAttribute('href'))}]`)).join('');
    return [
      show('hi @bob and bob@example.com', { mentions: [{ id: 1, username: 'bob' }], tags: [] }),
      show('@Bob @bobby @nobody', { mentions: [{ id: 1, username: 'bob' }], tags: [] }),
      show('谢谢@小明', { mentions: [{ id: 2, username: '小明' }], tags: [] }),
      show('#话题# #Go and #go and a#go', { mentions: [], tags: ['话题', 'Go'] }),
      show('#a b# #a #b', { mentions: [], tags: ['a', 'b'] }),
      show('#not listed#', { mentions: [], tags: [] }),
      show('<b>@bob</b>', { mentions: [{ id: 1, username: 'bob' }], tags: [] }),
    ];
  });
  assert.deepEqual(got, [
    'hi [@bob→/u/bob] and bob@example.com',
    '[@Bob→/u/bob] @bobby @nobody',
    '谢谢[@小明→/u/小明]',
    '[#话题#→/t/话题] [#Go→/t/Go] and [#go→/t/Go] and a#go',
    '[#a→/t/a] b# [#a→/t/a] [#b→/t/b]',
    '#not listed#',
    '<b>[@bob→/u/bob]</b>',
  ]);
  clean(D.w, 'anonymous');
  await D.context.close();
});

/** like makes u like the post id. */
const like = (u, id) => api('PUT', `/posts/${id}/like`, { token: u.token });

/** tabRows are the notification rows' sentences, without the "New:" mark and the time. */
async function tabRows(page) {
  return (await page.locator('.notif-feed .notif-text').allTextContents()).map((t) => t.replace(/^(New: |新通知：)/, '').replace(/ · .*$/, ''));
}

test('notifications: tabs by kind and grouped likes, on the desktop (en, 1280 px) and the phone (zh, 360 px), a live like joining its group', async () => {
  const alice = await newUser('alice'), bob = await newUser('bob'), carol = await newUser('carol'), dan = await newUser('dan'), erin = await newUser('erin');
  const p = await post(alice, `Worth a like ${Date.now()}`);
  await api('POST', `/posts/${p.id}/comments`, { token: bob.token, body: { content: 'nice one' } });
  await post(carol, `@${alice.username} look`);
  for (const u of [bob, carol, dan]) await like(u, p.id);

  const A = await desktop(browser, alice);
  await A.page.goto(`${BASE_URL}/notifications`);
  await A.page.locator('#conn[data-state="connected"]').waitFor();
  const group = A.page.locator('.notif-group');
  await group.waitFor();
  assert.deepEqual(await tabRows(A.page), [
    `${dan.username} and 2 others liked your post`,
    `${carol.username} mentioned you`,
    `${bob.username} commented on your post`,
  ]);
  assert.equal(await group.locator('.notif-avatars a').count(), 3);
  assert.equal(await group.locator('.notif-post').getAttribute('href'), `/p/${p.id}`);
  assert.deepEqual(await axeViolations(A.page), []);
  await shot(A.page, 'desktop-notifications-grouped');

  // A live like joins its group, which stays one row.
  await like(erin, p.id);
  await group.filter({ hasText: `${erin.username} and 3 others liked your post` }).waitFor();
  assert.equal(await A.page.locator('.notif-feed .notif').count(), 3);

  // Each tab asks the server for its kinds.
  const tabs = A.page.getByRole('tablist', { name: 'Notification types' });
  const pick = async (name, want) => {
    await tabs.getByRole('tab', { name }).click();
    await until(async () => JSON.stringify(await tabRows(A.page)) === JSON.stringify(want), `the ${name} tab to show ${want}`);
  };
  await pick('Mentions', [`${carol.username} mentioned you`]);
  await pick('Comments', [`${bob.username} commented on your post`]);
  await pick('Likes', [`${erin.username} and 3 others liked your post`]);
  assert.equal(await tabs.getByRole('tab', { name: 'Likes' }).getAttribute('aria-selected'), 'true');
  await shot(A.page, 'desktop-notifications-likes-tab');
  await pick('All', [`${erin.username} and 3 others liked your post`, `${carol.username} mentioned you`, `${bob.username} commented on your post`]);
  clean(A.w, 'alice desktop');
  await A.context.close();

  const M = await phone(browser, alice, { locale: 'zh-CN' });
  await M.page.goto(`${BASE_URL}/m/#/notifications`);
  await M.page.locator('.notif-group', { hasText: `${erin.username} 等 4 人赞了你的微博` }).waitFor();
  assert.ok(await fits(M.page), 'notifications wider than 360 px');
  assert.deepEqual(await axeViolations(M.page), []);
  await shot(M.page, 'mobile-notifications-grouped-zh');
  await M.page.getByRole('tab', { name: '@我的' }).tap();
  await until(async () => JSON.stringify(await tabRows(M.page)) === JSON.stringify([`${carol.username} 提到了你`]), 'the @我的 tab');
  assert.ok(await fits(M.page), 'the tabs wider than 360 px');
  await shot(M.page, 'mobile-notifications-mentions-zh');
  clean(M.w, 'alice phone');
  await M.context.close();
});
