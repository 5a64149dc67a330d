// offline.test.mjs: writing in the mobile app without a connection. A post,
// a comment or a private message written offline is kept on the phone
// (IndexedDB), shown as waiting, and sent when the connection returns,
// exactly once: after the app was closed and opened again, and when an
// attempt reached the server but its answer was lost (the Idempotency-Key
// is made when the item is written, so every attempt carries the same).
// One the server refuses when it goes (the other person blocked the writer
// meanwhile) is dropped, and the user is told why.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, post, api, phone, shot, clean, until } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** postsWith lists u's posts whose content is text, as the server has them. */
async function postsWith(u, text) {
  const res = await api('GET', `/users/${u.username}/posts?limit=50`, { token: u.token });
  return res.items.filter((p) => p.content === text);
}

/** write writes a post from the compose screen. */
async function write(page, text) {
  await page.locator('.tabbar [data-tab=compose]').tap();
  await page.getByLabel('Write a post').fill(text);
  await page.getByRole('button', { name: 'Post', exact: true }).tap();
}

test('offline: a post written offline waits, survives closing the app, and is posted once', async () => {
  const olga = await newUser('olga');
  const M = await phone(browser, olga);
  const { context, page } = M;
  await page.goto(`${BASE_URL}/m/#/home`);
  await page.locator('#conn[data-state="connected"]').waitFor();

  await context.setOffline(true);
  await page.locator('#offline:not([hidden])').waitFor();
  const text = `Written in a lift ${Date.now()}`;
  await write(page, text);
  const waiting = page.locator('.post-waiting', { hasText: text });
  await waiting.waitFor();
  assert.match(await waiting.locator('.waiting-mark').textContent(), /Waiting to send/);
  await page.locator('.toast', { hasText: 'kept on this phone' }).waitFor();
  await shot(page, 'offline-post-waiting');
  assert.deepEqual(await postsWith(olga, text), [], 'sent while offline');
  clean(M.w, 'offline');

  // The app is closed, then opened again with a connection: it sends what waited.
  await page.close();
  await context.setOffline(false);
  const again = await context.newPage();
  await again.goto(`${BASE_URL}/m/#/home`);
  await again.locator('.post[data-id]', { hasText: text }).waitFor();
  await again.locator('.post-waiting').waitFor({ state: 'detached' });
  await until(async () => (await postsWith(olga, text)).length > 0, 'the post on the server');
  assert.equal((await postsWith(olga, text)).length, 1, 'posted more than once');
  assert.equal(await again.locator('.post', { hasText: text }).count(), 1, 'shown more than once');
  // Nothing is left to send: a reload sends nothing more.
  await again.reload();
  await again.locator('.post[data-id]', { hasText: text }).waitFor();
  await again.locator('#conn[data-state="connected"]').waitFor();
  assert.equal((await postsWith(olga, text)).length, 1, 'posted again after a reload');
  assert.equal(await again.locator('.post-waiting').count(), 0);
  await M.context.close();
});

test('offline: an answer lost on the way back is sent again with the same key, and posted once', async () => {
  const pavel = await newUser('pavel');
  const M = await phone(browser, pavel);
  const { context, page } = M;
  // Every POST /posts reaches the server, but while lose is set its answer never reaches the app.
  let lose = true;
  const keys = [];
  await context.route(`${BASE_URL}/api/v1/posts`, async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    keys.push(route.request().headers()['idempotency-key']);
    const res = await route.fetch();
    if (lose) return route.abort('connectionreset');
    return route.fulfill({ response: res });
  });
  await page.goto(`${BASE_URL}/m/#/home`);
  await page.locator('#conn[data-state="connected"]').waitFor();

  const text = `Answer lost ${Date.now()}`;
  await write(page, text);
  await page.locator('.post-waiting', { hasText: text }).waitFor();
  await until(async () => (await postsWith(pavel, text)).length > 0, 'the first attempt on the server');
  await shot(page, 'offline-answer-lost');

  // The connection heals: the outbox's next attempt gets the server's first answer.
  const tries = keys.length;
  lose = false;
  await page.locator('.post-waiting').waitFor({ state: 'detached' });
  assert.ok(keys.length > tries, 'no attempt after the connection healed');
  assert.ok(keys.length >= 2 && keys.every((k) => k && k === keys[0]), `attempts with other keys: ${keys.join(', ')}`);
  assert.equal((await postsWith(pavel, text)).length, 1, 'posted more than once');
  await page.locator('.post[data-id]', { hasText: text }).waitFor();
  assert.equal(await page.locator('.post', { hasText: text }).count(), 1, 'shown more than once');
  clean(M.w, 'answer lost');
  await M.context.close();
});

test('offline: a comment and a message written offline are delivered once when back online', async () => {
  const rosa = await newUser('rosa'), sam = await newUser('sam');
  const p = await post(sam, 'Answer me when you can.');
  const M = await phone(browser, rosa);
  const { context, page } = M;
  await page.goto(`${BASE_URL}/m/#/p/${p.id}`);
  await page.getByLabel(`Reply to ${sam.username}`).first().waitFor();
  await page.locator('#conn[data-state="connected"]').waitFor();

  await context.setOffline(true);
  const comment = `A comment from the underground ${Date.now()}`;
  await page.getByLabel(`Reply to ${sam.username}`).first().fill(comment);
  await page.getByRole('button', { name: 'Reply', exact: true }).first().tap();
  await page.locator('.post-waiting', { hasText: comment }).waitFor();
  await shot(page, 'offline-comment-waiting');

  await page.goto(`${BASE_URL}/m/#/messages/${sam.username}`);
  const message = `A message from the underground ${Date.now()}`;
  await page.getByLabel(`Message ${sam.username}`).fill(message);
  await page.getByRole('button', { name: 'Send' }).tap();
  const bubble = page.locator('.msg-pending', { hasText: message });
  await bubble.locator('.msg-waiting', { hasText: 'Waiting to send' }).waitFor();
  await shot(page, 'offline-message-waiting');

  // Back online, both go, once.
  await context.setOffline(false);
  await page.locator('.msg-mine[data-id]', { hasText: message }).waitFor();
  assert.equal(await page.locator('.msg-pending').count(), 0, 'still marked waiting');
  const messages = async () => (await api('GET', `/conversations/${rosa.username}/messages`, { token: sam.token })).items
    .filter((m) => m.content === message);
  const comments = async () => (await api('GET', `/posts/${p.id}/comments`, { token: sam.token })).items
    .filter((c) => c.content === comment);
  await until(async () => (await messages()).length > 0 && (await comments()).length > 0, 'the message and the comment on the server');
  assert.equal((await messages()).length, 1, 'the message was sent more than once');
  assert.equal((await comments()).length, 1, 'the comment was sent more than once');

  // The thread shows the comment in its place, not waiting.
  await page.goto(`${BASE_URL}/m/#/p/${p.id}`);
  await page.locator('.comment .post[data-id]', { hasText: comment }).waitFor();
  assert.equal(await page.locator('.post-waiting').count(), 0);
  assert.equal(await page.locator('.post', { hasText: comment }).count(), 1);
  clean(M.w, 'offline comment and message');
  await M.context.close();
});

test('offline: a write the server refuses when it is sent is dropped, and the user is told why', async () => {
  const tess = await newUser('tess'), uma = await newUser('uma');
  const p = await post(uma, 'Comments welcome, for now.');
  const M = await phone(browser, tess);
  const { context, page } = M;
  await page.goto(`${BASE_URL}/m/#/p/${p.id}`);
  await page.getByLabel(`Reply to ${uma.username}`).first().waitFor();
  await page.locator('#conn[data-state="connected"]').waitFor();

  await context.setOffline(true);
  const comment = `Written before the block ${Date.now()}`;
  await page.getByLabel(`Reply to ${uma.username}`).first().fill(comment);
  await page.getByRole('button', { name: 'Reply', exact: true }).first().tap();
  await page.locator('.post-waiting', { hasText: comment }).waitFor();

  // Meanwhile Uma blocks Tess: her post is hidden from Tess now, so the
  // comment is refused as on a post that is not there (404) when it goes.
  await api('PUT', `/users/${tess.username}/block`, { token: uma.token });
  await context.setOffline(false);
  const refused = page.locator('.toast', { hasText: 'That post doesn’t exist' }).first();
  await refused.waitFor();
  assert.match(await refused.textContent(), /Written before the block/);
  await page.locator('.post-waiting').waitFor({ state: 'detached' });
  await page.reload();
  await page.locator('#conn[data-state="connected"]').waitFor();
  assert.equal(await page.locator('.post-waiting').count(), 0, 'the refused comment waits again after a reload');
  const comments = await api('GET', `/posts/${p.id}/comments`, { token: uma.token });
  assert.equal(comments.items.length, 0, 'the comment was written');
  clean(M.w, 'refused');
  await M.context.close();
});
