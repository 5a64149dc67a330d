// account.test.mjs: the Account area on the desktop page and in the mobile
// app: change the password (a wrong one is refused in words and does not log
// out; the other devices are logged out), log out everywhere, and delete the
// account after a confirmation.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, PASSWORD, launch, newUser, post, api, desktop, phone, shot, clean, fits, unnamedControls } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** status is the HTTP status of GET /me with token. */
async function meStatus(token) {
  const res = await fetch(BASE_URL + '/api/v1/me', { headers: { Authorization: 'Bearer ' + token } });
  return res.status;
}

test('desktop: change password, log out everywhere, delete the account', async () => {
  const u = await newUser('kim');
  await post(u, 'A post that goes with the account.');
  const other = await api('POST', '/sessions', { body: { username: u.username, password: PASSWORD } });
  const D = await desktop(browser, u);
  const { page } = D;

  await page.goto(`${BASE_URL}/u/${u.username}`);
  await page.getByRole('link', { name: 'Account' }).click();
  await page.getByRole('heading', { name: 'Change password' }).waitFor();
  assert.equal(new URL(page.url()).pathname, '/account');
  await shot(page, 'account');

  // A wrong current password is said in words, and the page stays logged in.
  await page.getByLabel('Current password').fill('not my password');
  await page.getByLabel('New password').fill('a brand new password');
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByText('That is not your current password.').waitFor();
  assert.equal(new URL(page.url()).pathname, '/account');

  await page.getByLabel('Current password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.locator('.toast', { hasText: 'Password changed' }).waitFor();
  assert.equal(await meStatus(other.token), 401, 'the other device is logged out');
  assert.equal(await meStatus(u.token), 200, 'this device stays logged in');
  const again = await api('POST', '/sessions', { body: { username: u.username, password: 'a brand new password' } });

  // Log out everywhere: this page too, and the session just opened elsewhere.
  await page.getByRole('button', { name: 'Log out everywhere' }).click();
  await page.locator('.toast', { hasText: 'logged out on every device' }).waitFor();
  await page.getByRole('heading', { name: 'Welcome back' }).waitFor();
  assert.equal(await meStatus(again.token), 401);
  assert.equal(await meStatus(u.token), 401);

  // Log in again and delete the account, confirming first.
  await page.getByLabel('Username').fill(u.username);
  await page.getByLabel('Password').fill('a brand new password');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.locator('#conn[data-state="connected"]').waitFor();
  await page.goto(`${BASE_URL}/account`);
  await page.getByLabel('Password', { exact: true }).fill('a brand new password');
  await page.getByRole('button', { name: 'Delete account…' }).click();
  const really = page.getByRole('button', { name: 'Delete forever' });
  await really.waitFor();
  await shot(page, 'account-delete-confirm');
  await page.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await really.isVisible(), false, 'Cancel hides the confirmation');
  assert.equal((await fetch(`${BASE_URL}/api/v1/users/${u.username}`)).status, 200, 'nothing deleted before confirming');
  await page.getByRole('button', { name: 'Delete account…' }).click();
  await really.click();
  await page.locator('.toast', { hasText: 'Your account was deleted' }).waitFor();
  await page.getByRole('heading', { name: 'Welcome back' }).waitFor();
  assert.equal((await fetch(`${BASE_URL}/api/v1/users/${u.username}`)).status, 404);
  clean(D.w, 'desktop');
  await D.context.close();
});

test('mobile: the Account area in Settings deletes the account', async () => {
  const u = await newUser('lea');
  const M = await phone(browser, u);
  const { page } = M;
  await page.goto(`${BASE_URL}/m/#/settings`);
  await page.getByRole('heading', { name: 'Delete account' }).waitFor();
  assert.ok(await fits(page), 'the settings screen fits 360 px');
  assert.deepEqual(await unnamedControls(page), [], 'every control is named');
  await shot(page, 'mobile-account');

  await page.getByLabel('Password', { exact: true }).fill('wrong password');
  await page.getByRole('button', { name: 'Delete account…' }).tap();
  await page.getByRole('button', { name: 'Delete forever' }).tap();
  await page.getByText('That is not your password. Nothing was deleted.').waitFor();
  assert.equal(await meStatus(u.token), 200, 'a wrong password logs nobody out');

  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Delete account…' }).tap();
  await page.getByRole('button', { name: 'Delete forever' }).tap();
  await page.locator('.toast', { hasText: 'Your account was deleted' }).waitFor();
  await page.getByRole('heading', { name: 'Log in to Microblog' }).waitFor();
  assert.equal(await page.evaluate(() => localStorage.getItem('microblog.token')), null, 'the token is forgotten');
  assert.equal((await fetch(`${BASE_URL}/api/v1/users/${u.username}`)).status, 404);
  clean(M.w, 'mobile');
  await M.context.close();
});
