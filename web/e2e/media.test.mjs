// media.test.mjs: pictures, against the real server, with PNG files this
// test draws itself (a tiny encoder over node:zlib). alice attaches four
// images on the desktop page, each previewed with its upload progress and a
// description, posts them with no text, and the post shows four thumbnails
// that load, with her descriptions as their alt text; the viewer opens,
// goes between them with the arrow keys and closes with Escape. The same in
// the mobile app at 360 px, with its buttons. A text file named .jpg is
// refused with the reason in words and nothing is posted. alice changes her
// picture on her profile and her posts show it at once, on both.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, DEADLINE, launch, newUser, api, desktop, phone, shot, clean, fits, unnamedControls, png, upload } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const FOUR = [
  { name: 'sunrise.png', mimeType: 'image/png', buffer: png(640, 480, [255, 120, 40], [90, 30, 160]), alt: 'An orange sunrise over hills' },
  { name: 'sea.png', mimeType: 'image/png', buffer: png(480, 640, [20, 120, 200], [10, 40, 80]), alt: 'Blue sea, <b>not bold</b>' },
  { name: 'forest.png', mimeType: 'image/png', buffer: png(800, 400, [30, 160, 70], [10, 60, 30]), alt: '' },
  { name: 'sand.png', mimeType: 'image/png', buffer: png(500, 500, [240, 210, 140], [160, 110, 60]), alt: 'Sand' },
];

/** loaded waits until every image matched has decoded (naturalWidth > 0) and returns their naturalWidths. */
async function loaded(locator, n) {
  await locator.nth(n - 1).waitFor();
  for (const end = Date.now() + DEADLINE; Date.now() < end;) {
    const ws = await locator.evaluateAll((els) => els.map((e) => (e.complete ? e.naturalWidth : 0)));
    if (ws.length === n && ws.every((x) => x > 0)) return ws;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('images did not load: ' + JSON.stringify(await locator.evaluateAll((els) => els.map((e) => [e.src, e.naturalWidth]))));
}

/** attachFour picks the four pictures, types their descriptions and waits for the uploads. */
async function attachFour(page) {
  await page.locator('.attach-area').locator('..').locator('input[type=file]').setInputFiles(FOUR.map(({ name, mimeType, buffer }) => ({ name, mimeType, buffer })));
  const items = page.locator('.attach');
  await items.nth(3).waitFor();
  assert.equal(await items.count(), 4);
  // Each shows its own preview at once, from the file itself.
  assert.deepEqual(await page.locator('.attach-preview').evaluateAll((els) => els.map((e) => e.src.startsWith('blob:'))), [true, true, true, true]);
  for (let i = 0; i < 4; i++) {
    if (FOUR[i].alt) await page.getByLabel(`Description of image ${i + 1} (alt text)`).fill(FOUR[i].alt);
  }
  await page.locator('.attach[data-state="done"]').nth(3).waitFor();
  assert.equal(await page.locator('.attach-progress:visible').count(), 0);
}

async function checkPost(page, p, label) {
  const card = page.locator(`.post[data-id="${p.id}"]`);
  await card.waitFor();
  const imgs = card.locator('.media-grid.media-4 .media-img');
  const widths = await loaded(imgs, 4);
  assert.ok(widths.every((w) => w > 0), `${label}: images load`);
  assert.deepEqual(await imgs.evaluateAll((els) => els.map((e) => e.alt)), FOUR.map((f) => f.alt), `${label}: alt text`);
  assert.deepEqual(await imgs.evaluateAll((els) => els.map((e) => e.loading)), ['lazy', 'lazy', 'lazy', 'lazy']);
  assert.deepEqual(await imgs.evaluateAll((els) => els.map((e) => [e.getAttribute('width'), e.getAttribute('height')])),
    p.media.map((m) => [String(m.width), String(m.height)]), `${label}: width and height set`);
  // The description stayed text: no <b> came of it.
  assert.equal(await card.locator('b').count(), 0);
  return card;
}

test('desktop: alice posts four pictures with descriptions; they show, load, and open in the viewer', async () => {
  const alice = await newUser('alice');
  const D = await desktop(browser, alice);
  const { page } = D;
  await page.goto(`${BASE_URL}/`);
  await page.locator('#conn[data-state="connected"]').waitFor();
  const submit = page.locator('.composer-card').getByRole('button', { name: 'Post' });
  assert.equal(await submit.isDisabled(), true);
  await attachFour(page);
  assert.equal(await page.getByRole('button', { name: 'Add images' }).isDisabled(), false, 'a fifth image may be added (up to nine: compose.test.mjs)');
  assert.equal(await submit.isDisabled(), false, 'Post works with images and no text');
  await shot(page, 'desktop-composer-images');

  const created = page.waitForResponse((r) => r.url().endsWith('/api/v1/posts') && r.request().method() === 'POST');
  await submit.click();
  const p = await (await created).json();
  assert.equal(p.content, '');
  assert.equal(p.media.length, 4);
  assert.deepEqual(p.media.map((m) => m.alt), FOUR.map((f) => f.alt), 'descriptions reached the server');
  await page.locator('.attach').first().waitFor({ state: 'detached' });

  const card = await checkPost(page, p, 'desktop');
  await shot(page, 'desktop-post-4-images');

  // The viewer: the full picture, the arrows go round, Escape closes it and gives the focus back.
  await card.getByRole('button', { name: /^Open image 2 of 4/ }).click();
  const viewer = page.getByRole('dialog', { name: 'Image viewer' });
  await viewer.waitFor();
  const big = viewer.locator('.viewer-img');
  await page.waitForFunction(() => { const i = document.querySelector('.viewer-img'); return i && i.complete && i.naturalWidth > 0; });
  assert.equal(await big.getAttribute('src'), p.media[1].url);
  assert.equal(await big.evaluate((e) => e.naturalWidth), p.media[1].width);
  assert.equal(await viewer.locator('.viewer-alt').textContent(), FOUR[1].alt);
  await shot(page, 'desktop-viewer');
  await page.keyboard.press('ArrowRight');
  assert.equal(await big.getAttribute('src'), p.media[2].url);
  assert.equal(await viewer.locator('.viewer-count').textContent(), 'Image 3 of 4');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await big.getAttribute('src'), p.media[0].url);
  await page.keyboard.press('Escape');
  await viewer.waitFor({ state: 'detached' });
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Open image 2 of 4: ' + FOUR[1].alt);
  // And the close button.
  await card.getByRole('button', { name: /^Open image 4 of 4/ }).click();
  await viewer.getByRole('button', { name: 'Close' }).click();
  await viewer.waitFor({ state: 'detached' });

  // After a reload, from the server.
  await page.reload();
  await checkPost(page, p, 'desktop, reloaded');
  clean(D.w, 'alice');
  await D.context.close();
});

test('desktop: a text file named .jpg is refused in words and nothing is posted', async () => {
  const bob = await newUser('bob');
  const D = await desktop(browser, bob);
  const { page } = D;
  await page.goto(`${BASE_URL}/`);
  await page.locator('.composer-card textarea').fill('Look at this');
  await page.locator('.composer-card input[type=file]').setInputFiles([
    { name: 'holiday.jpg', mimeType: 'image/jpeg', buffer: Buffer.from('This is only text, not a picture.\n') },
  ]);
  const item = page.locator('.attach[data-state="error"]');
  await item.waitFor();
  assert.match(await item.locator('.attach-error').textContent(), /not a picture the server takes/);
  assert.equal(await item.locator('[role=alert]').count(), 1);
  const submit = page.locator('.composer-card').getByRole('button', { name: 'Post' });
  assert.equal(await submit.isDisabled(), true, 'Post waits until the bad file is removed');
  await shot(page, 'desktop-composer-refused');
  assert.equal((await api('GET', `/users/${bob.username}/posts`, { token: bob.token })).items.length, 0);
  // Removing it lets the text go alone.
  await page.getByRole('button', { name: 'Remove image 1' }).click();
  await item.waitFor({ state: 'detached' });
  await submit.click();
  await page.locator('.post .content', { hasText: 'Look at this' }).waitFor();
  const posts = (await api('GET', `/users/${bob.username}/posts`, { token: bob.token })).items;
  assert.equal(posts.length, 1);
  assert.deepEqual(posts[0].media || [], []);
  clean(D.w, 'bob');
  await D.context.close();
});

test('mobile at 360 px: four pictures from the picker, the grid fits, the viewer goes by buttons', async () => {
  const alice = await newUser('alice');
  const M = await phone(browser, alice);
  const { page } = M;
  await page.goto(`${BASE_URL}/m/#/compose`);
  const input = page.locator('.compose input[type=file]');
  assert.equal(await input.getAttribute('accept'), 'image/*', 'phones offer the camera and the gallery');
  await page.locator('#compose').fill('Four from my phone');
  await attachFour(page);
  assert.ok(await fits(page), 'the composer with four images fits 360 px');
  assert.deepEqual(await unnamedControls(page), []);
  await shot(page, 'mobile-composer-images');
  const created = page.waitForResponse((r) => r.url().endsWith('/api/v1/posts') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Post', exact: true }).tap();
  const p = await (await created).json();
  assert.equal(p.media.length, 4);
  await page.waitForURL(/#\/home$/);
  const card = await checkPost(page, p, 'mobile');
  assert.ok(await fits(page), 'the post fits 360 px');
  await shot(page, 'mobile-post-4-images');

  await card.getByRole('button', { name: /^Open image 1 of 4/ }).tap();
  const viewer = page.getByRole('dialog', { name: 'Image viewer' });
  await viewer.waitFor();
  const big = viewer.locator('.viewer-img');
  await page.waitForFunction(() => { const i = document.querySelector('.viewer-img'); return i && i.complete && i.naturalWidth > 0; });
  await shot(page, 'mobile-viewer');
  await viewer.getByRole('button', { name: 'Next image' }).tap();
  assert.equal(await big.getAttribute('src'), BASE_URL + p.media[1].url);
  await viewer.getByRole('button', { name: 'Previous image' }).tap();
  await viewer.getByRole('button', { name: 'Previous image' }).tap();
  assert.equal(await big.getAttribute('src'), BASE_URL + p.media[3].url);
  assert.ok(await fits(page), 'the viewer fits 360 px');
  await viewer.getByRole('button', { name: 'Close' }).tap();
  await viewer.waitFor({ state: 'detached' });
  clean(M.w, 'alice, mobile');
  await M.context.close();
});

test('alice changes her picture; her posts show it at once, on desktop and mobile', async () => {
  const alice = await newUser('alice');
  const p = await api('POST', '/posts', { token: alice.token, body: { content: 'Before the new picture' } });
  const D = await desktop(browser, alice);
  const { page } = D;
  await page.goto(`${BASE_URL}/u/${alice.username}`);
  const card = page.locator(`.post[data-id="${p.id}"]`);
  await card.waitFor();
  assert.equal(await card.locator('.post-avatar img').count(), 0, 'a letter before');
  await page.getByRole('button', { name: 'Change picture' }).waitFor();
  const saved = page.waitForResponse((r) => r.url().endsWith('/api/v1/me/avatar'));
  await page.locator('.avatar-picker input[type=file]').setInputFiles([{ name: 'me.png', mimeType: 'image/png', buffer: png(300, 200, [200, 60, 90], [40, 20, 120]) }]);
  const user = await (await saved).json();
  assert.match(user.avatar_url, /^\/media\//);
  await loaded(card.locator('.post-avatar img'), 1);
  assert.equal(await card.locator('.post-avatar img').getAttribute('src'), user.avatar_url);
  await loaded(page.locator('.profile-top .avatar img'), 1);
  // The home timeline (kept while away) and the composer show it too.
  await page.getByRole('link', { name: 'Home' }).click();
  await loaded(page.locator(`.post[data-id="${p.id}"] .post-avatar img`), 1);
  await loaded(page.locator('.composer-avatar img'), 1);
  await shot(page, 'desktop-avatar');
  // A new page load gets it from the server.
  await page.goto(`${BASE_URL}/public`);
  await loaded(page.locator(`.post[data-id="${p.id}"] .post-avatar img`), 1);
  clean(D.w, 'alice');
  await D.context.close();

  const M = await phone(browser, alice);
  await M.page.goto(`${BASE_URL}/m/#/home`);
  await loaded(M.page.locator(`.post[data-id="${p.id}"] .post-avatar img`), 1);
  await M.page.locator('.tabbar [data-tab=me]').tap();
  await M.page.getByRole('button', { name: 'Change picture' }).waitFor();
  assert.equal(await M.page.locator('.avatar-picker input[type=file]').getAttribute('accept'), 'image/*');
  assert.ok(await fits(M.page), 'the profile with Change picture fits 360 px');
  const saved2 = M.page.waitForResponse((r) => r.url().endsWith('/api/v1/me/avatar'));
  await M.page.locator('.avatar-picker input[type=file]').setInputFiles([{ name: 'me2.png', mimeType: 'image/png', buffer: png(256, 256, [20, 180, 120], [0, 60, 90]) }]);
  const user2 = await (await saved2).json();
  await M.page.waitForFunction((u) => [...document.querySelectorAll('.post-avatar img')].some((i) => i.src.endsWith(u) && i.naturalWidth > 0), user2.avatar_url);
  await shot(M.page, 'mobile-avatar');
  clean(M.w, 'alice, mobile');
  await M.context.close();
});
