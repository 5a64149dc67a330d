// compose.test.mjs: what CONTRACT §15 adds to writing and reading posts,
// in both front ends. On the desktop page (1280 px, English) alice writes
// a post behind a content warning with nine pictures; bob, who follows
// her, sees it arrive live folded under its warning, opens it ("Show
// more", aria-expanded) and finds the nine in a 3×3 grid, each drawn
// first from its blurhash; he reposts it, the button says "Reposted"
// (aria-pressed), and a second click takes the repost back. In the mobile
// app (360 px, Chinese) carol does the same for dave, with "展开" and
// "已转发". An edit of the warning reaches bob's page live. axe finds
// nothing on the pages, which fit their width.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, follow, api, desktop, phone, shot, clean, fits, png, until, axeViolations } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** NINE are nine small pictures, each a blend of its own colours. */
const NINE = Array.from({ length: 9 }, (_, i) => ({
  name: `p${i}.png`, mimeType: 'image/png',
  buffer: png(60 + 8 * i, 48, [30 * i, 200 - 20 * i, 90], [220, 40 + 15 * i, 30 * (8 - i)]),
}));

/** write fills a composer (form) with a warning, text and the nine pictures, and posts: the Post created. */
async function write(page, form, { cwToggle, warning, text, submit }) {
  await form.getByRole('button', { name: cwToggle }).click();
  assert.equal(await form.getByRole('button', { name: cwToggle }).getAttribute('aria-pressed'), 'true');
  await form.locator('.cw-input').fill(warning);
  await form.locator('textarea.compose-input').fill(text);
  await form.locator('input[type=file]').setInputFiles(NINE);
  await form.locator('.attach[data-state="done"]').nth(8).waitFor();
  assert.equal(await form.locator('.attach').count(), 9, 'nine pictures attached');
  const created = page.waitForResponse((r) => r.url().endsWith('/api/v1/posts') && r.request().method() === 'POST');
  await form.getByRole('button', { name: submit, exact: true }).click();
  const res = await created;
  assert.equal(res.status(), 201, 'the post is made');
  return res.json();
}

/** opened checks the folded card of post p, opens it with its toggle and checks the grid under it. */
async function opened(page, card, p, { more, less }) {
  assert.equal(await card.locator('.spoiler-text').first().textContent(), p.spoiler, 'the warning shows');
  assert.equal(await card.locator(':scope > .post-body > .content').isVisible(), false, 'the text is folded');
  assert.equal(await card.locator('.media-grid').isVisible(), false, 'the pictures are folded');
  const toggle = card.getByRole('button', { name: more, exact: true });
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  await toggle.click();
  const open = card.getByRole('button', { name: less, exact: true });
  assert.equal(await open.getAttribute('aria-expanded'), 'true');
  assert.equal(await card.locator(':scope > .post-body > .content').textContent(), p.content);
  const grid = card.locator('.media-grid');
  assert.equal(await grid.getAttribute('class'), 'media-grid media-many', 'five to nine pictures are a grid of three columns');
  assert.equal(await grid.evaluate((g) => getComputedStyle(g).gridTemplateColumns.split(' ').length), 3, '3 columns');
  assert.equal(await grid.locator('.media-item').count(), 9);
  // Each shows its blurhash (a canvas painted with it) until its picture is in.
  const blurs = await grid.locator('canvas.media-blur').evaluateAll((cs) => cs.map((c) => {
    const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    return px[3] === 255 && px.some((v, i) => i % 4 !== 3 && v !== px[i % 4]); // opaque and not one flat colour
  }));
  assert.deepEqual(blurs, Array(9).fill(true), 'a painted placeholder under each picture');
  await until(() => grid.locator('.media-img').evaluateAll((els) => els.every((e) => e.complete && e.naturalWidth > 0 && e.classList.contains('media-loaded'))), 'the pictures to load over their placeholders');
  assert.deepEqual(await grid.locator('.media-img').evaluateAll((els) => els.map((e) => e.alt)), Array(9).fill(''), 'alt from descriptions (none here)');
}

/** repostAndUndo reposts p from card's Repost button through the app's own flow (go), then takes it back with a second tap. */
async function repostAndUndo(page, u, card, p, { reposted, go }) {
  const btn = () => card.locator(`.repost-btn[data-repost-of="${p.id}"]`).first();
  assert.equal(await btn().getAttribute('aria-pressed'), 'false');
  await btn().click();
  await go();
  await until(async () => (await btn().getAttribute('aria-pressed')) === 'true', 'the Repost button to be pressed');
  assert.equal(await btn().locator('xpath=following-sibling::*[1]').textContent(), reposted, 'it says so in words');
  assert.equal((await api('GET', `/posts/${p.id}`, { token: u.token })).reposted, true, 'the server has the repost');
  await until(async () => (await btn().locator('.n').textContent()) === '1', 'the count to say 1');
  assert.deepEqual(await axeViolations(page), [], 'axe, the post open and reposted');
  await shot(page, `compose-${u.username.slice(0, 4)}-reposted`);
  await btn().click();
  await until(async () => (await btn().getAttribute('aria-pressed')) === 'false', 'the repost to be undone');
  // The button turns at the tap; the server's answer comes after.
  let after;
  await until(async () => (after = await api('GET', `/posts/${p.id}`, { token: u.token })).reposted === false, 'the server to take the repost back');
  assert.equal(after.reposts_count, 0);
  await until(async () => (await btn().locator('.n').textContent()) === '', 'the count to go back to none');
  assert.equal(await btn().locator('xpath=following-sibling::*[1]').textContent(), '');
}

test('desktop, 1280 px, English: a warning and nine pictures, opened live by a fan; repost and undo', async () => {
  const alice = await newUser('alice'), bob = await newUser('bob');
  await follow(bob, alice);
  const A = await desktop(browser, alice), B = await desktop(browser, bob);
  await B.page.goto(`${BASE_URL}/`);
  await B.page.locator('#conn[data-state="connected"]').waitFor();
  await A.page.goto(`${BASE_URL}/`);
  await A.page.locator('#conn[data-state="connected"]').waitFor();
  const form = A.page.locator('.composer-card form');
  const p = await write(A.page, form, { cwToggle: 'Add a CW (content warning)', warning: 'Ending of the film', text: `Rosebud is the sled ${Date.now()}`, submit: 'Post' });
  assert.equal(p.spoiler, 'Ending of the film');
  assert.equal(p.media.length, 9);
  assert.ok(p.media.every((m) => m.blurhash), 'each picture has its blurhash');
  assert.equal(await form.locator('.cw-field').isHidden(), true, 'the warning field closes once posted');
  await shot(A.page, 'compose-desktop-own-folded');

  const card = B.page.locator(`.post[data-id="${p.id}"]`);
  await card.waitFor(); // it arrived live
  await opened(B.page, card, p, { more: 'Show more', less: 'Show less' });
  await shot(B.page, 'compose-desktop-opened');
  await repostAndUndo(B.page, bob, card, p, {
    reposted: 'Reposted',
    go: async () => {
      const dialog = B.page.getByRole('dialog', { name: 'Repost' });
      await dialog.locator('button[type=submit]').click();
      await dialog.waitFor({ state: 'detached' });
    },
  });
  // An edit of the warning (section 11) reaches bob's open page live.
  await api('PATCH', `/posts/${p.id}`, { token: alice.token, body: { content: p.content, spoiler: 'Citizen Kane' } });
  await card.locator(':scope > .post-body > .spoiler .spoiler-text', { hasText: 'Citizen Kane' }).waitFor();
  clean(A.w, 'alice');
  clean(B.w, 'bob');
  await A.context.close();
  await B.context.close();
});

test('mobile app, 360 px, Chinese: a warning and nine pictures, 展开 by a fan; 已转发 and undo', async () => {
  const carol = await newUser('carol'), dave = await newUser('dave');
  await follow(dave, carol);
  const C = await phone(browser, carol, { locale: 'zh-CN' }), D = await phone(browser, dave, { locale: 'zh-CN' });
  await C.page.goto(`${BASE_URL}/m/#/compose`);
  const form = C.page.locator('form.compose');
  await form.waitFor();
  const p = await write(C.page, form, { cwToggle: '添加内容警告', warning: '剧透：结局', text: `玫瑰花蕾是雪橇 ${Date.now()}`, submit: '发布' });
  assert.equal(p.spoiler, '剧透：结局');
  assert.equal(p.media.length, 9);

  await D.page.goto(`${BASE_URL}/m/#/home`);
  const card = D.page.locator(`.post[data-id="${p.id}"]`);
  await card.waitFor();
  assert.ok(await fits(D.page), 'the folded post fits 360 px');
  await shot(D.page, 'compose-mobile-folded');
  await opened(D.page, card, p, { more: '展开', less: '收起' });
  assert.ok(await fits(D.page), 'the open post and its grid fit 360 px');
  await shot(D.page, 'compose-mobile-opened');
  await repostAndUndo(D.page, dave, card, p, {
    reposted: '已转发',
    go: async () => {
      const submit = D.page.locator('form.compose button[type=submit]');
      await submit.click();
      await D.page.waitForURL(/#\/home$/);
      await D.page.locator(`.post[data-id="${p.id}"]`).waitFor();
    },
  });
  assert.ok(await fits(D.page), 'the reposted state fits 360 px');
  clean(C.w, 'carol');
  clean(D.w, 'dave');
  await C.context.close();
  await D.context.close();
});
