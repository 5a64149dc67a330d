// backoff.test.mjs: a list that cannot load does not hammer the server. A
// profile that does not exist loads no lists at all; a list whose server is
// down or answers 503 tries again after 1 s, 2 s, 4 s … (up to 30 s), says
// so, and loads at once on Retry.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, post, desktop, phone, shot, clean, until } from './helpers.mjs';

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

// tries4s waits for the first retry (about 1 s after the first try; later
// on a slow machine, never sooner), then until 4 s after the first try, and
// checks that there were 2 to 4 tries in that time: a retry storm makes many
// more, a slow machine only fewer, which the wait for the first retry covers.
async function tries4s(page, tries) {
  await until(() => tries.length >= 2, 'a first retry');
  await page.waitForTimeout(Math.max(0, tries[0] + 4000 - Date.now()));
  const n = tries.filter((t) => t - tries[0] < 4000).length;
  assert.ok(n >= 2 && n <= 4, `${n} tries in the 4 s after the first`);
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
    assert.equal(await page.locator('nav.tabs:visible, nav.seg:visible, [role=feed]:visible').count(), 0, `${url}: the tabs and lists of a missing user show`);
    await page.waitForTimeout(3000);
    // The side column's trends (a logged-out visit has them too) are not the profile's.
    const paths = calls.map((c) => c.path).filter((p) => p !== '/api/v1/trends/tags');
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
  await tries4s(page, tries);
  // Tries at 0, 1 and 3 s; the old page made hundreds.
  const gaps = tries.slice(1).map((t, i) => t - tries[i]);
  assert.ok(gaps[0] >= 800, `first retry after ${gaps[0]} ms`);
  // Lower bounds only: a busy machine may stretch a wait, never shorten it.
  if (gaps.length > 1) assert.ok(gaps[1] >= 1800, `the waits do not grow: ${gaps.join(', ')} ms`);
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
  await tries4s(page, tries);
  assert.match(await page.locator('.feed-status').textContent(), /Cannot reach the server.*Retrying in \d+ s/);
  await shot(page, 'mobile-list-retrying');
  await page.unroute('**/api/v1/timelines/public**', down);
  await page.getByRole('button', { name: 'Retry' }).tap();
  await page.locator('.post', { hasText: text }).waitFor();
  clean(M.w, 'mobile');
  await M.context.close();
});
