// messages.test.mjs: private messages (docs/api.md, section 9) in both
// front ends. Two desktop browsers talk: alice starts from bob's profile,
// her message shows "Sending…" until the server answers (the answer held
// back until the live event has come, which must not show it twice), bob's
// Messages badge and list update live, opening the conversation reads it,
// Enter sends and Shift+Enter breaks the line, a delete leaves both pages,
// and markup stays text; at 360 px the desktop page's messages screens fit
// and name their controls. One side reconnects in the middle (the server
// restarts while bob is offline) and the messages sent meanwhile show once,
// in order. In the mobile app at 360 px with touch, the same both ways,
// with the tab bar fitting and the bubbles readable in light and dark
// mode, and a read on the phone clears the badges of
// the same person's desktop page. A conversation longer than a page pages back
// to its first message without a gap or a duplicate, on both. "Who can
// message me" in Settings refuses a stranger's message, in words. "New
// message" finds a person by name and opens the conversation; a picture
// with its description goes to the other side live (on the phone in
// Chinese, a picture alone); the desktop page shows two panes at 1280 px
// and one at 360 px; the time shows once per run of messages and the bin
// on hover, tap or focus; axe finds nothing, in English and Chinese.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, follow, api, desktop, phone, shot, clean, control, fits, unnamedControls, until, contrast, axeViolations, png } from './helpers.mjs';

const IMG = '<img src=x onerror=alert(1)>';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** send writes a message from a to b through the API: the Message. */
function send(a, b, content) {
  return api('POST', `/conversations/${encodeURIComponent(b.username)}/messages`, { token: a.token, body: { content } });
}

/** shownIds lists the ids of the messages a conversation on page shows, top to bottom. */
function shownIds(page) {
  return page.$$eval('.chat-list:not(.chat-sending) > .msg', (els) => els.map((e) => Number(e.dataset.id)));
}

/** unreadMessages is u's unread_messages, as the server has it. */
async function unreadMessages(u) {
  return (await api('GET', '/me', { token: u.token })).unread_messages;
}

/** liveMessages collects the ids of the `message` events page's sockets receive. */
function liveMessages(page) {
  const ids = [];
  page.on('websocket', (ws) => ws.on('framereceived', (f) => {
    try {
      const frame = JSON.parse(f.payload);
      if (frame.event === 'message') ids.push(frame.data.id);
    } catch { /* not a frame of ours */ }
  }));
  return ids;
}

/** noDuplicates asserts that ids has each id once. */
function noDuplicates(ids, label) {
  assert.equal(new Set(ids).size, ids.length, `${label}: a message shows twice: ${ids}`);
}

test('desktop: two people talk; sending…, the live badge and list, read, delete, markup as text', async () => {
  const alice = await newUser('alice'), bob = await newUser('bob');
  const A = await desktop(browser, alice), B = await desktop(browser, bob);
  const aliceLive = liveMessages(A.page);

  // Bob waits on his (empty) Messages page.
  await B.page.goto(`${BASE_URL}/messages`);
  await B.page.locator('#conn[data-state="connected"]').waitFor();
  await B.page.locator('.conv-feed .empty').waitFor();
  await B.page.evaluate(() => { window.__noReload = true; });

  // Alice starts from his profile.
  await A.page.goto(`${BASE_URL}/u/${bob.username}`);
  await A.page.getByRole('link', { name: `Message ${bob.username}` }).click();
  await A.page.waitForURL(`${BASE_URL}/messages/${bob.username}`);
  await A.page.locator('.chat-start', { hasText: `Say hello to ${bob.username}` }).waitFor();
  await A.page.locator('#conn[data-state="connected"]').waitFor();
  await shot(A.page, 'messages-desktop-empty-conversation');

  // The server's answer to her send is held back until its live event has
  // reached her page: meanwhile the message says "Sending…", and it never
  // shows twice.
  let release;
  const held = new Promise((r) => { release = r; });
  const keys = [];
  await A.page.route('**/api/v1/conversations/*/messages', async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    keys.push(route.request().headers()['idempotency-key']);
    const res = await route.fetch();
    await held;
    await route.fulfill({ response: res });
  }, { times: 1 });
  const box = A.page.getByLabel(`Message ${bob.username}`);
  const hello = `Hello bob ${Date.now()}`;
  await box.fill(hello);
  await box.press('Enter');
  const pending = A.page.locator('.msg-pending', { hasText: hello });
  await pending.locator('.msg-status', { hasText: 'Sending…' }).waitFor();
  assert.equal(await box.inputValue(), '', 'the box empties when the message goes');
  await shot(A.page, 'messages-desktop-sending');

  // Bob's page hears of it: the nav badge, the list with the row on top and its own badge.
  const row = B.page.locator(`.conv[data-with="${alice.username}"]`);
  await row.waitFor();
  await B.page.locator('.nav-messages .nav-badge-messages', { hasText: '1' }).waitFor();
  assert.equal(await B.page.getByRole('link', { name: 'Messages (1 unread)' }).count(), 1);
  assert.equal(await row.locator('.conv-badge').textContent(), '1');
  assert.equal(await row.locator('.conv-last').textContent(), hello);
  assert.match(await row.evaluate((a) => a.textContent), new RegExp(`${alice.username}.*1 unread$`), 'the row says who, and how many are unread, in words');
  await shot(B.page, 'messages-desktop-list-unread');

  // Her own socket brings it before the answer: it still shows once, as sending.
  const first = (await api('GET', `/conversations/${bob.username}/messages`, { token: alice.token })).items[0];
  assert.equal(first.content, hello);
  await until(() => aliceLive.includes(first.id), 'her socket to bring her message');
  await A.page.waitForTimeout(200);
  assert.equal(await A.page.locator('.msg', { hasText: hello }).count(), 1, 'shown twice before the answer');
  assert.equal(await pending.count(), 1, 'no longer “Sending…” before the answer');
  release();
  const mine = A.page.locator(`.msg[data-id="${first.id}"]`);
  await mine.waitFor();
  await pending.waitFor({ state: 'detached' });
  assert.equal(await A.page.locator('.msg', { hasText: hello }).count(), 1, 'shown twice after the answer');
  assert.match(keys[0] || '', /^[0-9a-f-]{16,}$/, 'sent without an Idempotency-Key');

  // Bob opens the conversation: the message is there and read, the badge gone.
  await row.click();
  await B.page.waitForURL(`${BASE_URL}/messages/${alice.username}`);
  await B.page.locator(`.msg-theirs[data-id="${first.id}"]`, { hasText: hello }).waitFor();
  await B.page.locator('.nav-messages .nav-badge-messages').waitFor({ state: 'hidden' });
  await until(async () => await unreadMessages(bob) === 0, 'the server to count the conversation read once opened');

  // He answers in two lines: Shift+Enter breaks the line, Enter sends.
  const reply = B.page.getByLabel(`Message ${alice.username}`);
  await reply.click();
  await reply.pressSequentially('Hi alice,');
  await reply.press('Shift+Enter');
  await reply.pressSequentially(`two lines ${IMG}`);
  await reply.press('Enter');
  const text = `Hi alice,\ntwo lines ${IMG}`;
  const answer = A.page.locator('.msg-theirs .msg-text', { hasText: 'two lines' });
  await answer.waitFor();
  assert.equal(await answer.textContent(), text, 'alice sees his two lines, as text');
  await B.page.locator('.msg-mine[data-id]', { hasText: 'two lines' }).waitFor();
  assert.equal(await B.page.locator('.msg', { hasText: 'two lines' }).count(), 1);

  // Markup from a message, live or loaded, stays text, here and in the list.
  await A.page.reload();
  await A.page.locator('.msg-theirs .msg-text', { hasText: 'two lines' }).waitFor();
  for (const p of [A.page, B.page]) {
    assert.equal(await p.locator('.msg img, .msg script, .conv img:not(.avatar-img)').count(), 0, 'markup became elements');
  }
  await shot(A.page, 'messages-desktop-conversation');

  // Alice deletes her message: gone on both pages, and for the server.
  await A.page.locator(`.msg[data-id="${first.id}"]`).hover();
  await A.page.locator(`.msg[data-id="${first.id}"]`).getByRole('button', { name: 'Delete message' }).click();
  const asked = A.page.getByRole('alertdialog');
  assert.match(await asked.textContent(), /deleted for both of you/, 'deleting asks first, in the app\'s dialog');
  await asked.getByRole('button', { name: 'Delete message' }).click();
  await A.page.locator(`.msg[data-id="${first.id}"]`).waitFor({ state: 'detached' });
  await B.page.locator(`.msg[data-id="${first.id}"]`).waitFor({ state: 'detached' });
  const left = (await api('GET', `/conversations/${alice.username}/messages`, { token: bob.token })).items;
  assert.ok(!left.some((m) => m.id === first.id), 'the server still has the deleted message');

  // His list beside the conversation (two panes at 1280 px) shows his answer, nothing unread.
  await row.waitFor();
  assert.equal(await row.getAttribute('aria-current'), 'page', 'the open conversation is marked in the list');
  assert.equal(await row.locator('.conv-badge').count(), 0);
  await until(async () => /^You: Hi alice,/.test(await row.locator('.conv-last').textContent()), 'his answer in the list');
  assert.equal(await B.page.evaluate(() => window.__noReload), true, 'bob’s page was reloaded');

  // The desktop page on a phone-wide screen: both screens fit and name every control.
  const N = await desktop(browser, bob);
  await N.page.setViewportSize({ width: 360, height: 740 });
  for (const path of ['/messages', `/messages/${alice.username}`]) {
    await N.page.goto(BASE_URL + path);
    await N.page.locator('.conv:visible, .msg:visible').first().waitFor();
    // One pane at a time on a narrow screen.
    assert.equal(await N.page.locator('.dm-list-pane').isVisible(), path === '/messages', `${path}: the list pane`);
    assert.equal(await N.page.locator('.dm-chat-pane').isVisible(), path !== '/messages', `${path}: the conversation pane`);
    assert.ok(await fits(N.page), `${path} is wider than 360 px`);
    assert.deepEqual(await unnamedControls(N.page), [], `${path}: unnamed controls`);
  }
  await shot(N.page, 'messages-desktop-360-conversation');
  clean(A.w, 'alice'); clean(B.w, 'bob'); clean(N.w, 'bob at 360 px');
  await A.context.close(); await B.context.close(); await N.context.close();
});

test('desktop: messages sent while one side reconnects arrive once, in order', async () => {
  const alice = await newUser('alice'), bob = await newUser('bob');
  const before = await send(alice, bob, 'Before the restart');
  const A = await desktop(browser, alice), B = await desktop(browser, bob);
  const sockets = [];
  B.page.on('websocket', (ws) => sockets.push(ws.url()));
  await A.page.goto(`${BASE_URL}/messages/${bob.username}`);
  await B.page.goto(`${BASE_URL}/messages/${alice.username}`);
  for (const p of [A.page, B.page]) {
    await p.locator('#conn[data-state="connected"]').waitFor();
    await p.locator(`.msg[data-id="${before.id}"]`).waitFor();
    await p.evaluate(() => { window.__noReload = true; });
  }
  // One live message first, so bob's page has seen an id over the socket.
  const live = await send(alice, bob, 'Live before the restart');
  await B.page.locator(`.msg[data-id="${live.id}"]`).waitFor();

  // The server goes away; bob stays offline while it comes back and alice writes.
  await control('stop');
  for (const p of [A.page, B.page]) await p.locator('#conn[data-state="reconnecting"]').waitFor();
  await B.context.setOffline(true);
  await B.page.locator('#conn[data-state="offline"]').waitFor();
  await control('start');
  await A.page.locator('#conn[data-state="connected"]').waitFor();
  const box = A.page.getByLabel(`Message ${bob.username}`);
  const missed = [];
  for (const t of ['Missed one', 'Missed two', 'Missed three']) {
    await box.fill(t);
    await box.press('Enter');
    const m = A.page.locator('.msg-mine[data-id]', { hasText: t });
    await m.waitFor();
    missed.push(Number(await m.getAttribute('data-id')));
  }
  const seen = sockets.length;
  await B.context.setOffline(false);

  await B.page.locator('#conn[data-state="connected"]').waitFor();
  for (const id of missed) await B.page.locator(`.msg[data-id="${id}"]`).waitFor();
  const url = sockets.slice(seen).at(-1) || '';
  assert.match(url, new RegExp(`[?&]messages_after=${live.id}(&|$)`), `bob reconnected without ?messages_after=: ${url}`);

  // Once more live on the new connection, then nothing shows twice, in order.
  const later = await send(alice, bob, 'After the restart');
  await B.page.locator(`.msg[data-id="${later.id}"]`).waitFor();
  await A.page.locator(`.msg[data-id="${later.id}"]`).waitFor();
  await B.page.waitForTimeout(300); // a duplicate would have arrived by now
  const want = [before.id, live.id, ...missed, later.id];
  for (const [name, p] of [['alice', A.page], ['bob', B.page]]) {
    const ids = await shownIds(p);
    noDuplicates(ids, name);
    assert.deepEqual(ids, want, `${name}: the conversation`);
    assert.equal(await p.evaluate(() => window.__noReload), true, `${name}: the page was reloaded`);
  }
  // He is reading it: nothing is unread, for the server and on his badge.
  await B.page.locator('.nav-messages .nav-badge-messages').waitFor({ state: 'hidden' });
  await until(async () => await unreadMessages(bob) === 0, 'the conversation to be read on the server');
  await shot(B.page, 'messages-desktop-after-reconnect');
  clean(A.w, 'alice'); clean(B.w, 'bob');
  await A.context.close(); await B.context.close();
});

test('mobile (360 px, touch): the Messages tab, its badge, a conversation both ways', async () => {
  const alice = await newUser('alice'), bob = await newUser('bob');
  const A = await phone(browser, alice, { colorScheme: 'dark' }), B = await phone(browser, bob);
  const desk = await desktop(browser, bob); // bob's other device
  await desk.page.goto(`${BASE_URL}/messages`);
  await desk.page.locator('#conn[data-state="connected"]').waitFor();
  await B.page.goto(`${BASE_URL}/m/#/home`);
  await B.page.locator('#conn[data-state="connected"]').waitFor();

  // The tab bar has room for Messages: every tab 44 px and more, no label cut.
  const tabs = await B.page.$$eval('.tabbar .tab', (els) => els.map((e) => {
    const r = e.getBoundingClientRect();
    const label = e.lastElementChild;
    return { tab: e.dataset.tab, w: r.width, h: r.height, cut: label.scrollWidth > label.clientWidth + 1 || label.getBoundingClientRect().width > r.width };
  }));
  assert.ok(tabs.some((t) => t.tab === 'messages'), 'no Messages tab');
  for (const t of tabs) assert.ok(t.w >= 44 && t.h >= 44 && !t.cut, `tab ${t.tab}: ${JSON.stringify(t)}`);
  assert.ok(await fits(B.page), 'home wider than 360 px');

  // Alice starts from his profile, with taps.
  await A.page.goto(`${BASE_URL}/m/#/u/${bob.username}`);
  await A.page.getByRole('link', { name: `Message ${bob.username}` }).tap();
  // (His profile's title is his name too: wait for the conversation itself.)
  await A.page.locator('.chat-view').waitFor();
  await A.page.locator('#title', { hasText: bob.username }).waitFor();
  assert.ok(await A.page.locator('#tabbar').isHidden(), 'a conversation hides the tab bar');
  const box = A.page.getByLabel(`Message ${bob.username}`);
  await box.tap();
  const hello = `From my phone ${Date.now()} ${IMG}`;
  await box.fill(hello);
  await A.page.getByRole('button', { name: 'Send' }).tap();
  await A.page.locator('.msg-mine[data-id]', { hasText: 'From my phone' }).waitFor();

  // Bob's Messages tab shows the badge live (and so does his desktop); the list, then the conversation.
  await B.page.locator('#dm-badge:not([hidden])', { hasText: '1' }).waitFor();
  await desk.page.locator('.nav-messages .nav-badge-messages', { hasText: '1' }).waitFor();
  await shot(B.page, 'messages-mobile-tab-badge');
  await B.page.locator('.tabbar [data-tab=messages]').tap();
  const row = B.page.locator(`.conv[data-with="${alice.username}"]`);
  await row.locator('.conv-badge', { hasText: '1' }).waitFor();
  assert.ok(await fits(B.page), 'the list wider than 360 px');
  assert.deepEqual(await unnamedControls(B.page), [], 'the list: unnamed controls');
  assert.ok(await contrast(row.locator('.conv-badge')) >= 4.5, 'the unread badge is hard to read');
  await shot(B.page, 'messages-mobile-list');
  await row.tap();
  const got = B.page.locator('.msg-theirs .msg-text', { hasText: 'From my phone' });
  await got.waitFor();
  assert.equal(await got.textContent(), hello, 'shown as text');
  await B.page.locator('#dm-badge').waitFor({ state: 'hidden' });
  // Read on the phone, read on the desktop too (conversation_read on all his sockets).
  await desk.page.locator('.nav-messages .nav-badge-messages').waitFor({ state: 'hidden' });
  assert.equal(await desk.page.locator(`.conv[data-with="${alice.username}"] .conv-badge`).count(), 0, 'the desktop list still says unread');

  // He answers with the keyboard's Enter; she sees it live.
  const reply = B.page.getByLabel(`Message ${alice.username}`);
  await reply.tap();
  await reply.fill('Got it on my phone');
  await reply.press('Enter');
  await A.page.locator('.msg-theirs', { hasText: 'Got it on my phone' }).waitFor();
  await B.page.locator('.msg-mine[data-id]', { hasText: 'Got it on my phone' }).waitFor();
  for (const [name, p] of [['alice', A.page], ['bob', B.page]]) {
    assert.ok(await fits(p), `${name}: the conversation wider than 360 px`);
    assert.deepEqual(await unnamedControls(p), [], `${name}: the conversation has unnamed controls`);
    noDuplicates(await shownIds(p), name);
    assert.equal(await p.locator('.msg img, .msg script').count(), 0, `${name}: markup became elements`);
  }
  // Both bubbles are readable, light (bob) and dark (alice).
  for (const [name, p] of [['alice', A.page], ['bob', B.page]]) {
    for (const sel of ['.msg-mine .msg-text', '.msg-theirs .msg-text', '.msg-meta time']) {
      const c = await contrast(p.locator(sel));
      assert.ok(c >= 4.5, `${name}: ${sel} has contrast ${c.toFixed(2)}`);
    }
  }
  // The delete button shows when the bubble is tapped (no hover on a phone), big enough.
  const del = B.page.locator('.msg-mine[data-id]').getByRole('button', { name: 'Delete message' });
  assert.equal(await del.evaluate((e) => getComputedStyle(e).opacity), '0', 'a bin on every bubble');
  await B.page.locator('.msg-mine[data-id] .msg-text').tap();
  await until(async () => await del.evaluate((e) => getComputedStyle(e).opacity) === '1', 'the bin after a tap');
  const r = await del.boundingBox();
  assert.ok(r && r.width >= 40 && r.height >= 40, `delete button ${JSON.stringify(r)}`);
  await shot(B.page, 'messages-mobile-conversation');
  await shot(A.page, 'messages-mobile-conversation-alice');
  clean(A.w, 'alice'); clean(B.w, 'bob'); clean(desk.w, 'bob’s desktop');
  await A.context.close(); await B.context.close(); await desk.context.close();
});

test('a conversation longer than a page pages back to its first message, once each', async () => {
  const alice = await newUser('alice'), bob = await newUser('bob');
  // 75 messages (a page is 30; the test server's hot window is 20), within each one's rate limit.
  const all = [];
  for (let i = 1; i <= 75; i++) all.push((await send(i % 2 ? alice : bob, i % 2 ? bob : alice, `Message number ${i}`)).id);

  const D = await desktop(browser, bob), M = await phone(browser, alice);
  await D.page.goto(`${BASE_URL}/messages/${alice.username}`);
  await M.page.goto(`${BASE_URL}/m/#/messages/${bob.username}`);
  for (const [name, p] of [['desktop', D.page], ['mobile', M.page]]) {
    await p.locator(`.msg[data-id="${all.at(-1)}"]`).waitFor();
    const firstPage = await shownIds(p);
    assert.ok(firstPage.length < all.length, `${name}: the whole conversation came at once`);
    assert.deepEqual(firstPage, all.slice(-firstPage.length), `${name}: the newest page`);
    // Scrolled to the newest at first.
    assert.ok(await p.locator('.chat-scroll').evaluate((e) => e.scrollHeight - e.scrollTop - e.clientHeight < 80), `${name}: not at the bottom`);
    if (name === 'desktop') {
      // The button, at the top of the scrolled list: clicked where it is,
      // for scrolling it into view would load the older page by itself
      // (and replace the button while the click waits on it).
      await p.getByRole('button', { name: 'Load older messages' }).dispatchEvent('click');
      await p.waitForFunction((n) => document.querySelectorAll('.chat-list > .msg').length > n, firstPage.length);
    }
    // Scrolling up loads the rest.
    const start = p.locator('.chat-start', { hasText: 'This is the beginning of your conversation' });
    // As a reader would: scroll to the top again after each page arrives,
    // for as long as it takes (a busy machine loads a page slowly).
    await until(async () => {
      if (await start.isVisible()) return true;
      await p.locator('.chat-scroll').evaluate((e) => { e.scrollTop = 0; });
      await p.waitForTimeout(150);
      return false;
    }, `${name}: the beginning of the conversation, scrolling up`);
    const ids = await shownIds(p);
    noDuplicates(ids, name);
    assert.deepEqual(ids, all, `${name}: every message, oldest first`);
    assert.equal(await p.locator('.msg-text').first().textContent(), 'Message number 1');
  }
  await shot(D.page, 'messages-desktop-paged-back');
  await shot(M.page, 'messages-mobile-paged-back');
  clean(D.w, 'desktop'); clean(M.w, 'mobile');
  await D.context.close(); await M.context.close();
});

test('desktop: “Who can message me” refuses strangers, in words', async () => {
  const carol = await newUser('carol'), dave = await newUser('dave');
  const C = await desktop(browser, carol);
  await C.page.goto(`${BASE_URL}/settings`);
  await C.page.getByRole('heading', { name: 'Who can message me' }).waitFor();
  assert.equal(await C.page.getByLabel('Everyone').isChecked(), true);
  await C.page.getByLabel('Only people I follow').check();
  await C.page.locator('.toast', { hasText: 'Only people you follow can message you now.' }).waitFor();
  assert.equal((await api('GET', '/me', { token: carol.token })).messages_from, 'following');

  const D = await desktop(browser, dave);
  await D.page.goto(`${BASE_URL}/messages/${carol.username}`);
  const box = D.page.getByLabel(`Message ${carol.username}`);
  await box.fill('Hi, a stranger here');
  await box.press('Enter');
  const failed = D.page.locator('.msg-failed');
  await failed.locator('.msg-error', { hasText: 'takes messages only from people they follow' }).waitFor();
  assert.equal(await failed.getByRole('button', { name: 'Retry' }).count(), 0, 'a refusal offers no Retry');
  await shot(D.page, 'messages-desktop-refused');
  await failed.getByRole('button', { name: 'Discard' }).click();
  await failed.waitFor({ state: 'detached' });
  assert.equal((await api('GET', `/conversations/${carol.username}/messages`, { token: dave.token })).items.length, 0);

  // Once she follows him, he can write.
  await follow(carol, dave);
  await box.fill('Now it works');
  await box.press('Enter');
  await D.page.locator('.msg-mine[data-id]', { hasText: 'Now it works' }).waitFor();
  clean(C.w, 'carol'); clean(D.w, 'dave');
  await C.context.close(); await D.context.close();
});

/** boxOf is the bounding box of the first element locator finds. */
const boxOf = (locator) => locator.first().boundingBox();

/** visuallyShown says whether the element takes room on screen (not clipped to a pixel). */
const visuallyShown = (locator) => locator.evaluate((e) => { const r = e.getBoundingClientRect(); return r.width > 2 && r.height > 2; });

test('desktop (1280 px, en): New message picks a person, a picture with alt text arrives live, two panes, quiet bubbles, axe', async () => {
  const erin = await newUser('erin'), fay = await newUser('fay');
  const E = await desktop(browser, erin), F = await desktop(browser, fay);

  // Two panes: the (empty) list on the left, a word to choose on the right; the empty list sends to the button, not to a profile.
  await E.page.goto(`${BASE_URL}/messages`);
  await E.page.locator('.conv-feed .empty').waitFor();
  const empty = await E.page.locator('.conv-feed .empty').textContent();
  assert.match(empty, /New message/);
  assert.doesNotMatch(empty, /profile/);
  const [l, r] = [await boxOf(E.page.locator('.dm-list-pane')), await boxOf(E.page.locator('.dm-chat-none'))];
  assert.ok(l && r && l.x + l.width <= r.x && r.width > 400, `two panes side by side: ${JSON.stringify([l, r])}`);
  assert.deepEqual(await axeViolations(E.page), [], 'the empty Messages page passes axe');
  await shot(E.page, 'messages-desktop-two-panes-empty');

  // Fay has the conversation open (not started yet) to see it arrive.
  await F.page.goto(`${BASE_URL}/messages/${erin.username}`);
  await F.page.locator('#conn[data-state="connected"]').waitFor();
  await F.page.locator('.chat-start', { hasText: `Say hello to ${erin.username}` }).waitFor();

  // New message: type part of her name, choose her, land in the conversation.
  await E.page.getByRole('button', { name: 'New message' }).click();
  const dialog = E.page.getByRole('dialog', { name: 'New message' });
  await dialog.getByLabel('To').fill(fay.username.slice(0, -1));
  await dialog.locator(`.dm-pick-user[data-user="${fay.username}"]`).waitFor();
  assert.deepEqual(await axeViolations(E.page), [], 'the picker passes axe');
  await shot(E.page, 'messages-desktop-new-message-picker');
  await dialog.locator(`.dm-pick-user[data-user="${fay.username}"]`).click();
  await E.page.waitForURL(`${BASE_URL}/messages/${fay.username}`);
  await E.page.locator('.chat-start', { hasText: `Say hello to ${fay.username}` }).waitFor();
  assert.equal(await dialog.count(), 0, 'the picker closes');

  // A picture with a description, and words; Enter sends once it is uploaded.
  await E.page.locator('.chat input[type=file]').setInputFiles({ name: 'kite.png', mimeType: 'image/png', buffer: png(320, 240, [220, 40, 40], [250, 200, 60]) });
  await E.page.getByLabel('Description of image 1 (alt text)').fill('A red kite over a field');
  const box = E.page.getByLabel(`Message ${fay.username}`);
  await box.fill('Look what I saw');
  await box.press('Enter');
  const sent = E.page.locator('.msg-mine[data-id]', { hasText: 'Look what I saw' });
  await sent.locator('img[alt="A red kite over a field"]').waitFor();
  assert.equal(await E.page.locator('.chat .attach').count(), 0, 'the attachment stays after sending');

  // Fay sees it live, picture and words, and the list beside it.
  const got = F.page.locator('.msg-theirs[data-id]', { hasText: 'Look what I saw' });
  await got.waitFor();
  const thumb = got.getByRole('button', { name: 'Open image: A red kite over a field' });
  assert.equal(await thumb.locator('img').getAttribute('alt'), 'A red kite over a field');
  await F.page.locator(`.dm-list-pane .conv[data-with="${erin.username}"]`).waitFor();
  await thumb.click();
  const viewer = F.page.getByRole('dialog', { name: 'Image viewer' });
  await viewer.locator('.viewer-img[alt="A red kite over a field"]').waitFor();
  assert.match(await viewer.locator('.viewer-img').getAttribute('src'), /\/media\//);
  await F.page.keyboard.press('Escape');
  await viewer.waitFor({ state: 'detached' });

  // Two more, at once: one time for the run, under its last message; the bin only on hover or focus.
  for (const text of ['Second one', 'Third one']) { await box.fill(text); await box.press('Enter'); await E.page.locator('.msg-mine[data-id]', { hasText: text }).waitFor(); }
  const mine = E.page.locator('.msg-mine[data-id]');
  assert.deepEqual(await Promise.all([0, 1, 2].map((i) => visuallyShown(mine.nth(i).locator('.msg-meta')))), [false, false, true], 'one time for a run of messages');
  const bin = mine.nth(0).getByRole('button', { name: 'Delete message' });
  await E.page.mouse.move(0, 0);
  assert.equal(await bin.evaluate((e) => getComputedStyle(e).opacity), '0', 'a bin on every bubble');
  await bin.focus();
  assert.equal(await bin.evaluate((e) => getComputedStyle(e).opacity), '1', 'the bin is not shown with the keyboard focus');
  assert.ok(await visuallyShown(mine.nth(0).locator('.msg-meta')), 'the time is not shown with the focus in the message');
  await F.page.locator('.msg-theirs[data-id]', { hasText: 'Third one' }).waitFor();

  // Two panes with a conversation open: the list, then the chat, side by side.
  for (const [name, p] of [['erin', E.page], ['fay', F.page]]) {
    const [a, b] = [await boxOf(p.locator('.dm-list-pane')), await boxOf(p.locator('.dm-chat-pane'))];
    assert.ok(a && b && a.x + a.width <= b.x, `${name}: two panes side by side: ${JSON.stringify([a, b])}`);
    assert.deepEqual(await axeViolations(p), [], `${name}: the conversation passes axe`);
  }
  await shot(E.page, 'messages-desktop-two-panes-picture');
  await shot(F.page, 'messages-desktop-two-panes-received');
  clean(E.w, 'erin'); clean(F.w, 'fay');
  await E.context.close(); await F.context.close();
});

test('zh-CN: 写私信 on the phone (360 px), a picture alone, live on the desktop’s two panes', async () => {
  const gil = await newUser('gil'), hana = await newUser('hana');
  const M = await phone(browser, gil, { locale: 'zh-CN' }), D = await desktop(browser, hana, { locale: 'zh-CN' });
  await D.page.goto(`${BASE_URL}/messages`);
  await D.page.locator('#conn[data-state="connected"]').waitFor();
  await D.page.locator('.conv-feed .empty', { hasText: '写私信' }).waitFor();

  await M.page.goto(`${BASE_URL}/m/#/messages`);
  await M.page.locator('.conv-feed .empty', { hasText: '写私信' }).waitFor();
  await M.page.getByRole('button', { name: '写私信' }).tap();
  const dialog = M.page.getByRole('dialog', { name: '写私信' });
  await dialog.getByLabel('发给').fill(hana.username);
  const pick = dialog.locator(`.dm-pick-user[data-user="${hana.username}"]`);
  await pick.waitFor();
  assert.ok(await fits(M.page), 'the picker is wider than 360 px');
  assert.deepEqual(await axeViolations(M.page), [], 'the picker passes axe (zh)');
  await shot(M.page, 'messages-mobile-new-message-picker-zh');
  await pick.tap();
  await M.page.locator('.chat-view').waitFor();
  assert.ok(await M.page.locator('#tabbar').isHidden(), 'a conversation hides the tab bar');

  // A picture without words, described.
  await M.page.locator('.chat input[type=file]').setInputFiles({ name: 'cat.png', mimeType: 'image/png', buffer: png(240, 320, [90, 90, 90], [200, 200, 200]) });
  await M.page.getByLabel('第 1 张图片的描述（替代文字）').fill('一只灰猫');
  await M.page.getByRole('button', { name: '发送' }).tap();
  await M.page.locator('.msg-mine[data-id] img[alt="一只灰猫"]').waitFor();
  assert.ok(await fits(M.page), 'the conversation is wider than 360 px');
  assert.deepEqual(await axeViolations(M.page), [], 'the conversation passes axe (zh)');
  await shot(M.page, 'messages-mobile-picture-zh');

  // Hana's desktop: the row arrives live ("[图片]"), she opens it beside the list.
  const row = D.page.locator(`.conv[data-with="${gil.username}"]`);
  await row.locator('.conv-last', { hasText: '[图片]' }).waitFor();
  await row.click();
  await D.page.locator('.msg-theirs[data-id] img[alt="一只灰猫"]').waitFor();
  const [a, b] = [await boxOf(D.page.locator('.dm-list-pane')), await boxOf(D.page.locator('.dm-chat-pane'))];
  assert.ok(a && b && a.x + a.width <= b.x, `two panes side by side: ${JSON.stringify([a, b])}`);
  assert.deepEqual(await axeViolations(D.page), [], 'the desktop conversation passes axe (zh)');
  await shot(D.page, 'messages-desktop-two-panes-zh');
  clean(M.w, 'gil'); clean(D.w, 'hana');
  await M.context.close(); await D.context.close();
});
