// federation.test.mjs: accounts on other servers in both front ends
// (CONTRACT.md §16, docs/frontends.md). The server runs with federation on
// (server/browser_test.go), beside a Fedify partner (a real, independent
// ActivityPub server: server/federation/fedifytest), whose control API is
// PARTNER_URL: the test makes users there, has them post and accept
// follow requests.
//
// On the desktop page at 1280 px, in English and in Chinese, a reader types
// the partner user's name@domain into the top bar's search box, finds it
// (the server resolves it through WebFinger), follows it from the results,
// and the partner's next post arrives live in her home timeline, marked
// with the globe of its server and @name@domain, its "⋯" menu's Open
// original opening the post on its server; the composer's @
// suggests it, and the post mentioning it links to its profile and goes
// to the partner; its profile page (/u/name@domain, loaded afresh too)
// says which server it is on and links to its page there; it fits the
// desktop page at 360 px. A locked account's Follow says "Requested"
// until it accepts, then "Following" at once. From a remote profile a
// reader messages, mutes and blocks it. In the mobile app at 360 px, in both languages, the Search
// screen finds @name@domain, the row's Follow follows it, its post
// arrives live on Home (its menu opens its original), and its profile fits the screen. The operator
// blocks the partner's domain on the Reports page, after which its
// accounts are not found (said in words), and unblocks it. Every screen
// passes axe and is saved as a screenshot.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, PASSWORD, launch, newUser, register, api, desktop, phone, shot, clean, fits, axeViolations, until } from './helpers.mjs';

const PARTNER_URL = (process.env.PARTNER_URL || '').replace(/\/$/, '');

let browser;
before(async () => {
  assert.ok(PARTNER_URL, 'PARTNER_URL is not set: run through server/browser_test.go, which starts the Fedify partner');
  browser = await launch();
});
after(async () => { await browser?.close(); });

/** partnerCall calls the partner's control API (JSON) and answers its JSON. */
async function partnerCall(method, path, body) {
  const res = await fetch(PARTNER_URL + '/_control/' + path, {
    method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`partner ${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

let names = 0;
/** remoteUser makes a user on the partner: {name, id (actor URL), handle (name@host)}. */
async function remoteUser(opts = {}) {
  const name = `fw${Date.now().toString(36).slice(-5)}${(names++).toString(36)}`;
  const u = await partnerCall('POST', 'users', { name, ...opts });
  return { name, ...u };
}

/** actorOf is the ActivityPub id of a local user. */
const actorOf = (u) => `${BASE_URL}/ap/users/${u.user.id}`;

/** followersOf are the actor URLs that follow the partner user r. */
async function followersOf(r) {
  return (await partnerCall('GET', 'user?user=' + encodeURIComponent(r.name))).followers;
}

/** inboxSeq is the partner's last inbox entry; received waits for one after it that match accepts. */
async function inboxSeq() {
  const { activities } = await partnerCall('GET', 'inbox?since=0');
  return activities.reduce((m, a) => Math.max(m, a.seq), 0);
}
async function received(since, what, match) {
  let found = null;
  await until(async () => {
    const { activities } = await partnerCall('GET', 'inbox?since=' + since);
    found = activities.find(match);
    return !!found;
  }, what);
  return found;
}

/** postAs makes the partner user r post html publicly (to its followers). */
function postAs(r, html) {
  return partnerCall('POST', 'post', { user: r.name, content: html });
}

const profilePath = (handle) => '/u/' + encodeURIComponent(handle);

for (const lang of [
  { locale: 'en-US', following: 'Following', requested: 'Requested', onServer: 'On another server', original: 'Original profile', accountOn: 'An account on', menu: 'More options for this post', openOriginal: 'Open original' },
  { locale: 'zh-CN', following: '已关注', requested: '已申请', onServer: '来自其他服务器', original: '查看原主页', accountOn: '上的账号', menu: '这条微博的更多操作', openOriginal: '查看原文' },
]) {
  test(`desktop 1280 px (${lang.locale}): find name@domain, follow it, its post arrives live; its profile`, async () => {
    const alice = await newUser('fedalice');
    const fedi = await remoteUser({ displayName: 'Fedi Friend', summary: '<p>Posting from <b>Fedify</b></p>' });
    const D = await desktop(browser, alice, { locale: lang.locale });
    const { page } = D;
    await page.goto(`${BASE_URL}/`);
    await page.locator('#conn[data-state="connected"]').waitFor();

    // The top bar's box finds the account by @name@domain (WebFinger, the first time).
    const box = page.getByRole('searchbox').first();
    await box.fill('@' + fedi.handle);
    const row = page.locator(`.search-panel .user-row[data-user="${fedi.handle}"]`);
    await row.waitFor();
    assert.equal(await row.locator('.display-name').textContent(), 'Fedi Friend');
    assert.equal(await row.locator('.handle').textContent(), '@' + fedi.handle);
    const mark = row.locator('.remote-mark');
    assert.ok((await mark.getAttribute('aria-label')).startsWith(lang.onServer), 'the globe names the server');
    assert.ok((await mark.getAttribute('aria-label')).endsWith(fedi.handle.split('@')[1]));
    assert.deepEqual(await axeViolations(page), [], 'the search results with a remote account pass axe');
    await shot(page, `federation-desktop-search-${lang.locale}`);

    // Follow from the results: the partner has the follower.
    await row.locator('.btn-follow').click();
    await row.locator('.btn-follow[aria-pressed="true"]').waitFor();
    assert.equal(await row.locator('.btn-follow').textContent(), lang.following);
    await until(async () => (await followersOf(fedi)).includes(actorOf(alice)), 'the partner to have alice as a follower');
    await box.press('Escape');

    // The partner posts: it arrives on the open home timeline, without a reload.
    const text = `Hello from Fedify ${Date.now().toString(36)}`;
    const marker = await page.evaluate(() => { window.__notReloaded = true; return true; });
    const posted = await postAs(fedi, `<p>${text}</p><p>a <b>second</b> paragraph</p>`);
    const card = page.locator(`[role=feed] .post[data-author="${fedi.handle}"]`, { hasText: text });
    await card.waitFor();
    assert.ok(marker && await page.evaluate(() => window.__notReloaded === true), 'the page was reloaded');
    assert.equal(await card.count(), 1, 'the remote post shows once');
    assert.ok((await card.locator('.content').textContent()).includes('second paragraph'));
    assert.equal(await card.locator('.content b').count(), 0, 'remote HTML became elements');
    assert.equal(await card.locator('.post-head .handle').textContent(), '@' + fedi.handle);
    await card.locator('.post-head .remote-mark').waitFor();
    assert.deepEqual(await axeViolations(page), [], 'home with a remote post passes axe');
    await shot(page, `federation-desktop-home-${lang.locale}`);

    // The post carries its original's address (its url): the "⋯" menu's
    // Open original opens it in a new tab, as it arrived live and after a
    // reload.
    assert.equal((await api('GET', `/posts/${await card.getAttribute('data-id')}`, { token: alice.token })).url, posted.id);
    for (const reload of [false, true]) {
      if (reload) {
        await page.reload();
        await card.waitFor();
      }
      await card.getByRole('button', { name: lang.menu }).click();
      const item = page.getByRole('menuitem', { name: lang.openOriginal });
      await item.waitFor();
      if (!reload) await shot(page, `federation-desktop-open-original-${lang.locale}`);
      const [tab] = await Promise.all([D.context.waitForEvent('page'), item.click()]);
      assert.equal(tab.url(), posted.id, 'Open original opens the post on its server');
      await tab.close();
    }
    await page.locator('#conn[data-state="connected"]').waitFor();

    // The composer's @ suggests the remote account (known here now); the
    // post mentioning it links to its profile here, and reaches the partner.
    const since = await inboxSeq();
    const composer = page.locator('.composer-card textarea');
    await composer.click();
    await page.keyboard.type('Hi @' + fedi.name);
    const option = page.locator('[role=listbox]:visible [role=option]', { hasText: fedi.handle });
    await option.waitFor();
    await page.keyboard.press('Enter');
    assert.equal(await composer.inputValue(), `Hi @${fedi.handle} `);
    await page.keyboard.type('from the desktop');
    await page.keyboard.press('Control+Enter');
    const mine = page.locator(`[role=feed] .post[data-author="${alice.username}"]`, { hasText: 'from the desktop' });
    await mine.waitFor();
    const mention = await api('GET', `/posts/${await mine.getAttribute('data-id')}`, { token: alice.token });
    assert.deepEqual(mention.mentions.map((m) => m.username), [fedi.handle]);
    assert.equal(await mine.locator('a.mention').getAttribute('href'), profilePath(fedi.handle));
    assert.equal(await mine.locator('a.mention').textContent(), '@' + fedi.handle);
    const create = await received(since, 'the mention at the partner', (a) => a.type === 'Create' && a.actor === actorOf(alice));
    assert.ok(create.tags.some((tg) => tg.type === 'Mention' && tg.href === fedi.id), 'the Create tags the partner user');

    // Its profile: from the post's name, then loaded afresh at /u/name@domain.
    await card.locator('.post-head a.display-name').click();
    await page.waitForURL(`${BASE_URL}${profilePath(fedi.handle)}`);
    for (const reload of [false, true]) {
      if (reload) await page.reload();
      await page.locator('.profile-card .profile-name', { hasText: 'Fedi Friend' }).waitFor();
      assert.equal(await page.locator('.profile-card .profile-handle').textContent(), '@' + fedi.handle);
      const note = page.locator('.profile-card .profile-remote');
      assert.ok((await note.textContent()).includes(lang.accountOn));
      assert.equal(await note.locator('strong').textContent(), fedi.handle.split('@')[1]);
      const out = note.getByRole('link', { name: lang.original });
      assert.equal(await out.getAttribute('href'), `${PARTNER_URL}/@${fedi.name}`);
      assert.equal(await out.getAttribute('rel'), 'nofollow noopener noreferrer');
      assert.ok((await page.locator('.profile-card .bio').textContent()).includes('Posting from Fedify'));
      assert.equal(await page.locator('.profile-card .btn-follow').textContent(), lang.following);
      await page.locator(`[role=feed] .post[data-author="${fedi.handle}"]`, { hasText: text }).waitFor();
    }
    assert.ok(await page.locator('.profile-card .btn-message').count() === 1, 'a remote profile has Message');
    assert.deepEqual(await axeViolations(page), [], 'the remote profile passes axe');
    await shot(page, `federation-desktop-profile-${lang.locale}`);

    // The desktop page at 360 px: the profile and home fit, and pass axe.
    await page.setViewportSize({ width: 360, height: 740 });
    await page.locator('.profile-card .profile-remote').waitFor();
    assert.ok(await fits(page), 'the remote profile fits 360 px');
    assert.deepEqual(await axeViolations(page), [], 'the remote profile at 360 px passes axe');
    await shot(page, `federation-desktop360-profile-${lang.locale}`);
    await page.goto(`${BASE_URL}/`);
    await page.locator(`[role=feed] .post[data-author="${fedi.handle}"]`, { hasText: text }).waitFor();
    assert.ok(await fits(page), 'home with a remote post fits 360 px');
    assert.deepEqual(await axeViolations(page), [], 'home at 360 px passes axe');
    await shot(page, `federation-desktop360-home-${lang.locale}`);
    clean(D.w);
    await D.context.close();
  });
}

test('desktop: a locked remote account says Requested until it accepts', async () => {
  const bea = await newUser('fedbea');
  // Its name and bio are markup, which must stay text.
  const locked = await remoteUser({ displayName: 'Locked <img src=x onerror=alert(1)>', summary: '<p><script>alert(2)</script>Locked <img src=y onerror=alert(3)></p>', locked: true });
  const D = await desktop(browser, bea);
  const { page } = D;
  await page.goto(`${BASE_URL}${profilePath(locked.handle)}`);
  const btn = page.locator('.profile-card .btn-follow');
  await btn.waitFor();
  assert.equal(await page.locator('.profile-card .profile-name img, .profile-card .bio img, .profile-card script').count(), 0, 'remote markup became elements');
  assert.ok((await page.locator('.profile-card .profile-name').textContent()).startsWith('Locked'));
  await btn.click();
  await page.locator('.profile-card .btn-follow', { hasText: 'Requested' }).waitFor();
  assert.equal(await btn.getAttribute('aria-pressed'), 'true');
  await until(async () => (await partnerCall('GET', 'user?user=' + locked.name)).pending.includes(actorOf(bea)), 'the request at the partner');
  await page.reload();
  await page.locator('.profile-card .btn-follow', { hasText: 'Requested' }).waitFor();
  // Its Accept turns the open page's button to Following at once (the
  // live follow_request_accepted), as a local approval does.
  await page.locator('#conn[data-state="connected"]').waitFor();
  await partnerCall('POST', 'accept', { user: locked.name, follower: actorOf(bea) });
  await page.locator('.profile-card .btn-follow', { hasText: 'Following' }).waitFor();
  assert.equal((await api('GET', `/users/${encodeURIComponent(locked.handle)}`, { token: bea.token })).following, true);
  clean(D.w);
  await D.context.close();
});

for (const lang of [
  { locale: 'en-US', following: 'Following', accountOn: 'An account on', openOriginal: 'Open original' },
  { locale: 'zh-CN', following: '已关注', accountOn: '上的账号', openOriginal: '查看原文' },
]) {
  test(`mobile 360 px (${lang.locale}): the Search screen finds @name@domain, follow, its post arrives live; its profile fits`, async () => {
    const gus = await newUser('fedgus');
    const fedi = await remoteUser({ displayName: 'Fedi Phone', summary: '<p>Hi phones</p>' });
    const M = await phone(browser, gus, { locale: lang.locale });
    const { page } = M;
    await page.goto(`${BASE_URL}/m/#/search`);
    await page.getByRole('searchbox').fill('@' + fedi.handle);
    const row = page.locator(`.user-row[data-user="${fedi.handle}"]`);
    await row.waitFor();
    await row.locator('.remote-mark').waitFor();
    assert.ok(await fits(page), 'the search screen fits 360 px');
    assert.deepEqual(await axeViolations(page), [], 'the Search screen with a remote account passes axe');
    await shot(page, `federation-mobile-search-${lang.locale}`);
    await row.locator('.btn-follow').tap();
    await row.locator('.btn-follow[aria-pressed="true"]').waitFor();
    assert.equal(await row.locator('.btn-follow').textContent(), lang.following);
    await until(async () => (await followersOf(fedi)).includes(actorOf(gus)), 'the partner to have gus as a follower');

    await page.locator('.tab[data-tab="home"]').tap();
    await page.locator('#conn[data-state="connected"]').waitFor();
    const text = `Fedify to the phone ${Date.now().toString(36)}`;
    const posted = await postAs(fedi, `<p>${text}</p>`);
    const card = page.locator(`[role=feed] .post[data-author="${fedi.handle}"]`, { hasText: text });
    await card.waitFor();
    await card.locator('.remote-mark').waitFor();
    // Its "⋯" menu opens the original on its server.
    await card.locator('.menu-btn').tap();
    const item = page.getByRole('menuitem', { name: lang.openOriginal });
    await item.waitFor();
    const [tab] = await Promise.all([M.context.waitForEvent('page'), item.tap()]);
    assert.equal(tab.url(), posted.id, 'Open original opens the post on its server');
    await tab.close();
    assert.ok(await fits(page), 'home with a remote post fits 360 px');
    assert.deepEqual(await axeViolations(page), [], 'home with a remote post passes axe');
    await shot(page, `federation-mobile-home-${lang.locale}`);

    await card.locator('.post-head a.display-name').tap();
    await page.waitForURL(`**/m/#${profilePath(fedi.handle)}`);
    const note = page.locator('.profile .profile-remote');
    await note.waitFor();
    assert.ok((await note.textContent()).includes(lang.accountOn));
    assert.equal(await page.locator('.profile .btn-follow').textContent(), lang.following);
    await page.locator(`[role=feed] .post[data-author="${fedi.handle}"]`, { hasText: text }).waitFor();
    assert.ok(await fits(page), 'the remote profile fits 360 px');
    assert.deepEqual(await axeViolations(page), [], 'the remote profile passes axe');
    await shot(page, `federation-mobile-profile-${lang.locale}`);
    clean(M.w);
    await M.context.close();
  });
}

test('desktop: message, mute and block a remote account from its profile', async () => {
  const cai = await newUser('fedcai');
  const fedi = await remoteUser({ displayName: 'Fedi Pen Pal' });
  const D = await desktop(browser, cai);
  const { page } = D;
  await page.goto(`${BASE_URL}${profilePath(fedi.handle)}`);
  await page.locator('.profile-card .profile-remote').waitFor();

  // Message: the conversation opens at /messages/name@domain, and the note reaches the partner.
  const since = await inboxSeq();
  await page.locator('.profile-card .btn-message').click();
  await page.waitForURL(`${BASE_URL}/messages/${encodeURIComponent(fedi.handle)}`);
  const box = page.getByLabel(`Message ${fedi.handle}`);
  const hello = `Hello across servers ${Date.now().toString(36)}`;
  await box.fill(hello);
  await box.press('Enter');
  await page.locator('.msg-mine[data-id]', { hasText: hello }).waitFor();
  const note = await received(since, 'the private message at the partner', (a) => a.type === 'Create' && a.actor === actorOf(cai));
  assert.ok(note.content.includes(hello), `the note: ${note.content}`);
  assert.ok(!(note.to || []).concat(note.cc || []).some((u) => u.endsWith('#Public') || u === 'as:Public'), 'the message went out public');
  await page.locator(`.conv[data-with="${fedi.handle}"] .remote-mark`).waitFor();
  assert.deepEqual(await axeViolations(page), [], 'the conversation with a remote account passes axe');
  await shot(page, 'federation-desktop-message');

  // Mute and block from the profile's menu.
  await page.goto(`${BASE_URL}${profilePath(fedi.handle)}`);
  await page.locator('.profile-card .menu-btn').click();
  await page.getByRole('menuitem', { name: `Mute ${fedi.handle}` }).click();
  await page.locator('.state-chip', { hasText: 'Muted' }).waitFor();
  const blockSince = await inboxSeq();
  await page.locator('.profile-card .menu-btn').click();
  await page.getByRole('menuitem', { name: `Block ${fedi.handle}` }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: `Block ${fedi.handle}` }).click();
  await page.locator('.state-chip', { hasText: 'Blocked' }).waitFor();
  await page.getByRole('button', { name: `Unblock ${fedi.handle}` }).waitFor();
  await received(blockSince, 'the Block at the partner', (a) => a.type === 'Block' && a.actor === actorOf(cai));
  const u = await api('GET', `/users/${encodeURIComponent(fedi.handle)}`, { token: cai.token });
  assert.equal(u.blocking, true);
  assert.equal(u.muting, true);
  assert.deepEqual(await axeViolations(page), [], 'the blocked remote profile passes axe');
  clean(D.w);
  await D.context.close();
});

test('desktop: the operator blocks and unblocks a domain on the Reports page', async () => {
  const ADMIN_USER = process.env.ADMIN_USER;
  assert.ok(ADMIN_USER, 'the Go test names the operator in ADMIN_USER');
  const op = await register(ADMIN_USER).catch(async () => {
    const res = await api('POST', '/sessions', { body: { username: ADMIN_USER, password: PASSWORD } });
    return { username: ADMIN_USER, token: res.token, user: res.user };
  });
  const host = new URL(PARTNER_URL).host;
  const D = await desktop(browser, op);
  const { page } = D;
  try {
    await page.goto(`${BASE_URL}/admin`);
    const box = page.locator('.domain-blocks');
    await box.getByRole('heading', { name: 'Blocked domains' }).waitFor();
    const input = box.getByLabel('Domain to block');
    await input.fill('not a domain!');
    await box.getByRole('button', { name: 'Block domain' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Block domain' }).click();
    await box.locator('.form-error', { hasText: 'That is not a domain name' }).waitFor();

    await input.fill(host);
    await box.getByRole('button', { name: 'Block domain' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Block domain' }).click();
    await box.locator(`.domain-row[data-domain="${host}"]`).waitFor();
    assert.deepEqual((await api('GET', '/admin/domain_blocks', { token: op.token })).domains, [host]);
    assert.deepEqual(await axeViolations(page), [], 'the Reports page with its blocked domains passes axe');
    await shot(page, 'federation-desktop-domain-blocks');

    // An account there is no longer found, and the search says why.
    const fedi = await remoteUser();
    const search = page.getByRole('searchbox').first();
    await search.fill('@' + fedi.handle);
    await page.locator('.search-panel', { hasText: 'This server does not federate with that domain.' }).waitFor();
    await search.fill('');

    await box.getByRole('button', { name: `Unblock ${host}` }).click();
    await box.locator('.domain-row').waitFor({ state: 'detached' });
    await box.getByText('No domain is blocked.').waitFor();
    await search.fill('@' + fedi.handle);
    await page.locator(`.search-panel .user-row[data-user="${fedi.handle}"]`).waitFor();
    clean(D.w);
  } finally {
    await api('DELETE', '/admin/domain_blocks/' + encodeURIComponent(host), { token: op.token }).catch(() => {});
    await D.context.close();
  }
});
