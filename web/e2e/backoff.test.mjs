// backoff.test.mjs: a list that cannot load does not hammer the server. A
// profile that does not exist loads no lists at all; a list whose server is
// down or answers 503 tries again after 1 s, 2 s, 4 s … (up to 30 s), says
// so, and loads at once on Retry.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, post, desktop, phone, shot, clean } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** apiCalls records when page asks the API for anything, as [{t, path}]. */
function apiCalls(page) {
  const calls = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/api/')) calls.push({ t: Date.now(), path: u.pathname });
  });
  return calls;
}

test('a user who does not exist: one request, not a thousand (desktop and mobile)', async () => {
  const D = await desktop(browser, null), M = await phone(browser, null);
  for (const [page, url, heading] of [
    [D.page, `${BASE_URL}/u/nobodyhere`, 'No such user'],
    [M.page, `${BASE_URL}/m/#/u/nobodyhere`, 'No such user'],
  ]) {
    const calls = apiCalls(page);
    await page.goto(url);
    await page.getByRole('heading', { name: heading }).waitFor();
    await page.waitForTimeout(3000);
    const paths = calls.map((c) => c.path);
    assert.ok(paths.length <= 2, `${url}: ${paths.length} API requests in 3 s: ${paths.slice(0, 8).join(' ')}`);
    assert.ok(!paths.some((p) => /\/(posts|followers|following)$/.test(p)), `${url}: the lists of a missing user were asked for: ${paths.join(' ')}`);
  }
  await shot(M.page, 'mobile-no-such-user');
  clean(D.w, 'desktop'); clean(M.w, 'mobile');
  await D.context.close(); await M.context.close();
});

test('desktop: a list answered with 503 backs off, says so, and loads on Retry', async () => {
  const u = await newUser('uma');
  const text = `Shown once the server answers ${Date.now()}`;
  await post(u, text);
  const D = await desktop(browser, null);
  const { page } = D;
  const tries = [];
  const unavailable = (route) => {
    tries.push(Date.now());
    return route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: { code: 'unavailable', message: 'The service is unavailable.' } }) });
  };
  await page.route('**/api/v1/timelines/public**', unavailable);
  await page.goto(`${BASE_URL}/public`);
  await page.waitForTimeout(4000);
  // Tries at 0, 1 and 3 s; the old page made hundreds.
  assert.ok(tries.length >= 2 && tries.length <= 4, `${tries.length} tries in about 4 s`);
  const gaps = tries.slice(1).map((t, i) => t - tries[i]);
  assert.ok(gaps[0] >= 800, `first retry after ${gaps[0]} ms`);
  if (gaps.length > 1) assert.ok(gaps[1] >= gaps[0] * 1.5, `the waits do not grow: ${gaps.join(', ')} ms`);
  assert.match(await page.locator('.feed-status').textContent(), /Couldn’t load this\. The service is unavailable\.\s*Retrying in \d+ s/);
  await shot(page, 'desktop-list-retrying');

  await page.unroute('**/api/v1/timelines/public**', unavailable);
  await page.getByRole('button', { name: 'Retry' }).click();
  await page.locator('.post', { hasText: text }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Retry' }).count(), 0);
  clean(D.w, 'desktop');
  await D.context.close();
});

test('mobile: with the server unreachable the public tab backs off too', async () => {
  const u = await newUser('vera');
  const text = `Back online ${Date.now()}`;
  await post(u, text);
  const M = await phone(browser, null);
  const { page } = M;
  const tries = [];
  const down = (route) => { tries.push(Date.now()); return route.abort('connectionrefused'); };
  await page.route('**/api/v1/timelines/public**', down);
  await page.goto(`${BASE_URL}/m/#/public`);
  await page.waitForTimeout(4000);
  assert.ok(tries.length >= 2 && tries.length <= 4, `${tries.length} tries in about 4 s`);
  assert.match(await page.locator('.feed-status').textContent(), /Cannot reach the server.*Retrying in \d+ s/);
  await shot(page, 'mobile-list-retrying');
  await page.unroute('**/api/v1/timelines/public**', down);
  await page.getByRole('button', { name: 'Retry' }).tap();
  await page.locator('.post', { hasText: text }).waitFor();
  clean(M.w, 'mobile');
  await M.context.close();
});
