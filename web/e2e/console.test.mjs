// console.test.mjs: visiting logged out logs no error in the browser's
// console. The page cannot see its session cookie (HttpOnly); the server
// marks the page when the request for it carried one, and only then does the
// page ask /api/v1/me, whose 401 the browser would log as an error.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, PASSWORD, launch, newUser, post, api, desktop, phone, clean } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** meCalls counts the page's requests to /api/v1/me. */
function meCalls(page) {
  const n = { count: 0 };
  page.on('request', (r) => { if (new URL(r.url()).pathname === '/api/v1/me') n.count++; });
  return n;
}

test('logged-out visits log no console errors and do not ask /me', async () => {
  const wes = await newUser('wes');
  const p = await post(wes, 'Hello, anonymous readers.');
  await api('POST', `/posts/${p.id}/comments`, { token: wes.token, body: { content: 'A comment.' } });

  const D = await desktop(browser, null);
  const me = meCalls(D.page);
  for (const [path, ready] of [
    ['/', 'h1'], ['/signup', 'h1'], ['/public', '.post'], [`/u/${wes.username}`, '.post'],
    [`/u/${wes.username}/followers`, '.feed-status .empty'], [`/p/${p.id}`, '.comment'], ['/no/such/page', 'h1'],
  ]) {
    await D.page.goto(BASE_URL + path);
    await D.page.locator(ready).first().waitFor();
    await D.page.waitForLoadState('networkidle');
  }
  assert.equal(me.count, 0, 'a logged-out page asked /api/v1/me');
  assert.deepEqual(D.w.console, [], 'desktop: console errors');
  clean(D.w, 'desktop');
  await D.context.close();

  const M = await phone(browser, null);
  for (const [path, ready] of [['/m/', 'h2'], ['/m/#/public', '.post'], [`/m/#/u/${wes.username}`, '.post'], [`/m/#/p/${p.id}`, '.comment']]) {
    await M.page.goto(BASE_URL + path);
    await M.page.locator(ready).first().waitFor();
    await M.page.waitForLoadState('networkidle');
  }
  assert.deepEqual(M.w.console, [], 'mobile: console errors');
  clean(M.w, 'mobile');
  await M.context.close();
});

test('desktop: the session cookie alone is enough to be recognised, and logging out forgets it', async () => {
  const xena = await newUser('xena');
  // A fresh browser with the cookie and nothing in local storage.
  const D = await desktop(browser, xena);
  const { page } = D;
  const me = meCalls(page);
  await page.goto(`${BASE_URL}/`);
  await page.getByRole('heading', { name: 'Home' }).waitFor();
  await page.locator('#conn[data-state="connected"]').waitFor();
  assert.equal(me.count, 1);

  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(/\/login$/);
  await page.reload();
  await page.getByRole('heading', { name: 'Welcome back' }).waitFor();
  await page.waitForLoadState('networkidle');
  assert.equal(me.count, 1, 'asked /me after logging out');

  // Logging in again and reloading finds the new session.
  await page.getByLabel('Username').fill(xena.username);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Home' }).waitFor();
  await page.reload();
  await page.getByRole('heading', { name: 'Home' }).waitFor();
  assert.equal(me.count, 2);
  assert.deepEqual(D.w.console, [], 'console errors');
  clean(D.w, 'desktop');
  await D.context.close();
});
