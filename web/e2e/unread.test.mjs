// unread.test.mjs: marking a read conversation unread, as a mail client
// does, in both front ends and both languages: the button in the
// conversation (the desktop page's header, the mobile app bar), then the
// list shows the row unread and the Messages badge counts it, on this
// device and, live, on the user's other one.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, api, desktop, phone, shot, clean, fits } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** send writes a message from a to b through the API. */
function send(a, b, content) {
  return api('POST', `/conversations/${encodeURIComponent(b.username)}/messages`, { token: a.token, body: { content } });
}

/** unreadMessages is u's unread_messages, as the server has it. */
async function unreadMessages(u) {
  return (await api('GET', '/me', { token: u.token })).unread_messages;
}

for (const lang of [
  { locale: 'en-US', button: 'Mark as unread', toast: 'Marked as unread', unread: '1 unread' },
  { locale: 'zh-CN', button: '标为未读', toast: '已标为未读', unread: '1 条未读' },
]) {
  test(`desktop (${lang.locale}): a conversation marked unread shows unread here and, live, on the phone`, async () => {
    const alice = await newUser('alice'), bob = await newUser('bob');
    await send(alice, bob, 'are you there?');
    const D = await desktop(browser, bob, { locale: lang.locale });
    const M = await phone(browser, bob, { locale: lang.locale });
    await M.page.goto(`${BASE_URL}/m/#/messages`);
    await M.page.locator('#conn[data-state="connected"]').waitFor();

    await D.page.goto(`${BASE_URL}/messages/${alice.username}`);
    await D.page.locator('.msg', { hasText: 'are you there?' }).waitFor();
    // Opening it reads it, on both devices.
    await M.page.locator('#dm-badge').waitFor({ state: 'hidden' });
    assert.equal(await unreadMessages(bob), 0);

    await shot(D.page, `unread-desktop-conversation-${lang.locale}`);
    await D.page.getByRole('button', { name: lang.button }).click();
    await D.page.waitForURL(`${BASE_URL}/messages`);
    await D.page.locator('.toast', { hasText: lang.toast }).waitFor();
    const row = D.page.locator(`.conv[data-with="${alice.username}"]`);
    await row.locator('.conv-badge', { hasText: '1' }).waitFor();
    await D.page.locator('.nav-messages .nav-badge-messages', { hasText: '1' }).waitFor();
    assert.equal(await unreadMessages(bob), 1);
    // The phone hears of it live: its Messages tab counts it.
    await M.page.locator('#dm-badge', { hasText: '1' }).waitFor();
    await M.page.locator(`.conv[data-with="${alice.username}"] .conv-badge`, { hasText: '1' }).waitFor();
    await shot(D.page, `unread-desktop-list-${lang.locale}`);
    clean(D.w, 'desktop');
    clean(M.w, 'phone');
    await D.context.close();
    await M.context.close();
  });

  test(`mobile 360 px (${lang.locale}): the app bar's button marks the conversation unread`, async () => {
    const alice = await newUser('alice'), bob = await newUser('bob');
    await send(alice, bob, '在吗？');
    const M = await phone(browser, bob, { locale: lang.locale });
    await M.page.goto(`${BASE_URL}/m/#/messages/${alice.username}`);
    await M.page.locator('.msg', { hasText: '在吗？' }).waitFor();
    // Tapped at once, before or while opening the conversation marks it
    // read: the read mark on its way must not read it again after.
    const button = M.page.getByRole('button', { name: lang.button });
    const box = await button.boundingBox();
    assert.ok(box.width >= 44 && box.height >= 44, `the button is a 44 px target: ${JSON.stringify(box)}`);
    assert.ok(await fits(M.page), 'the conversation is wider than 360 px');
    await shot(M.page, `unread-mobile-conversation-${lang.locale}`);
    await button.tap();
    await M.page.waitForURL(/#\/messages$/);
    await M.page.locator(`.conv[data-with="${alice.username}"] .conv-badge`, { hasText: '1' }).waitFor();
    await M.page.locator('#dm-badge', { hasText: '1' }).waitFor();
    assert.match(await M.page.locator(`.conv[data-with="${alice.username}"]`).textContent(), new RegExp(lang.unread));
    // The action belongs to the conversation: the list has none.
    assert.equal(await M.page.getByRole('button', { name: lang.button }).count(), 0);
    await new Promise((r) => { setTimeout(r, 1000); }); // a stray read mark would have come by now
    assert.equal(await unreadMessages(bob), 1, 'the conversation stays unread');
    await M.page.locator('#dm-badge', { hasText: '1' }).waitFor();
    await shot(M.page, `unread-mobile-list-${lang.locale}`);
    clean(M.w, 'phone');
    await M.context.close();
  });
}
