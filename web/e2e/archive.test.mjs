// archive.test.mjs: a profile pages on past the hot window into the archive,
// in both front ends. The server runs with MICROBLOG_HOT_WINDOW=20 (see
// server/browser_test.go), so of 50 posts the oldest 30 leave Redis once
// archived, and the reader scrolls through the seam without a gap or a
// duplicate; the oldest post and its comment open from the archive.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, DEADLINE, launch, newUser, post, api, desktop, phone, shot, feedIds, clean } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** archived waits until the archive queue is empty and n messages have left Redis. */
async function archived(n) {
  for (const end = Date.now() + DEADLINE; Date.now() < end;) {
    const text = await (await fetch(BASE_URL + '/metrics')).text();
    const queue = Number(/^microblog_archive_queue_length (\d+)/m.exec(text)?.[1] ?? -1);
    const evicted = Number(/^microblog_archive_evicted_total (\d+)/m.exec(text)?.[1] ?? 0);
    if (queue === 0 && evicted >= n) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`the archive did not take ${n} messages out of Redis`);
}

/** scrollAll scrolls a feed to its end and returns the ids it shows. */
async function scrollAll(page, want) {
  for (const end = Date.now() + DEADLINE; Date.now() < end;) {
    const ids = await feedIds(page);
    if (ids.length >= want) return ids;
    await page.mouse.wheel(0, 20000);
    await page.waitForTimeout(150);
  }
  return feedIds(page);
}

test('a profile scrolls past the hot window into the archive, desktop and mobile', async () => {
  const ann = await newUser('ann');
  const ids = [];
  for (let i = 0; i < 50; i++) ids.push((await post(ann, `Archived post number ${i}`)).id);
  await api('POST', `/posts/${ids[0]}/comments`, { token: ann.token, body: { content: 'A comment on the oldest.' } });
  await archived(30);
  const want = [...ids].reverse();

  const D = await desktop(browser, ann);
  await D.page.goto(`${BASE_URL}/u/${ann.username}`);
  await D.page.locator('.post').first().waitFor();
  assert.deepEqual(await scrollAll(D.page, 50), want, 'desktop: the profile in order, across the seam');
  await shot(D.page, 'archive-desktop-profile-end');
  await D.page.goto(`${BASE_URL}/p/${ids[0]}`);
  await D.page.getByText('A comment on the oldest.').waitFor();
  await D.page.getByText('Archived post number 0', { exact: true }).first().waitFor();
  clean(D.w, 'desktop');
  await D.context.close();

  const M = await phone(browser, ann);
  await M.page.goto(`${BASE_URL}/m/#/u/${ann.username}`);
  await M.page.locator('.post').first().waitFor();
  assert.deepEqual(await scrollAll(M.page, 50), want, 'mobile: the profile in order, across the seam');
  await M.page.goto(`${BASE_URL}/m/#/p/${ids[0]}`);
  await M.page.getByText('A comment on the oldest.').waitFor();
  await shot(M.page, 'archive-mobile-oldest-post');
  clean(M.w, 'mobile');
  await M.context.close();
});
