// ldap.test.mjs: signing in with the campus directory (the Go test starts
// Debian's slapd and gives the server its address): on the desktop page and
// in the mobile app at 360 px, a person picks "Campus directory" on the login
// form and types the directory's password; the first time makes the account,
// the second reaches the same one, and a wrong password is said in words.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, desktop, phone, shot, clean, fits, unnamedControls } from './helpers.mjs';

const { LDAP_USER, LDAP_PASSWORD } = process.env;
const DIRECTORY = 'Campus directory';

let browser;
before(async () => {
  assert.ok(LDAP_USER && LDAP_PASSWORD, 'the Go test passes a directory user');
  browser = await launch();
});
after(async () => { await browser?.close(); });

/** signIn fills the login form on page with the directory chosen. */
async function signIn(page, password) {
  await page.getByLabel('Sign in with').selectOption({ label: DIRECTORY });
  await page.getByLabel('Username').fill(LDAP_USER);
  await page.getByLabel('Password').fill(password);
}

/** me is who the page's session is, asked with its cookie or its token. */
async function me(page) {
  return page.evaluate(async () => {
    const token = localStorage.getItem('microblog.token');
    const res = await fetch('/api/v1/me', { headers: token ? { Authorization: 'Bearer ' + token } : {} });
    return res.ok ? res.json() : null;
  });
}

test('desktop: sign in with the directory; a wrong password is refused in words', async () => {
  const D = await desktop(browser);
  const { page } = D;
  await page.goto(BASE_URL + '/login');
  await page.getByLabel('Sign in with').waitFor();
  assert.deepEqual(await unnamedControls(page), []);

  await signIn(page, 'not the password');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByText('Wrong username or password.').waitFor();
  assert.equal(new URL(page.url()).pathname, '/login');

  await signIn(page, LDAP_PASSWORD);
  await shot(page, 'ldap-login');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('button', { name: 'Log out' }).waitFor();
  await page.locator('#conn[data-state="connected"]').waitFor();
  const first = await me(page);
  assert.ok(first, 'signed in');
  await shot(page, 'ldap-desktop-home');
  clean(D.w, 'desktop');
  await D.context.close();

  // Again, from a new browser: the same account, not a second one.
  const again = await desktop(browser);
  await again.page.goto(BASE_URL + '/login');
  await signIn(again.page, LDAP_PASSWORD);
  await again.page.getByRole('button', { name: 'Log in' }).click();
  await again.page.getByRole('button', { name: 'Log out' }).waitFor();
  assert.equal((await me(again.page)).id, first.id);
  clean(again.w, 'desktop again');
  await again.context.close();
});

test('mobile (360 px): sign in with the directory, the token kept by the app', async () => {
  const M = await phone(browser, null);
  const { page } = M;
  await page.goto(`${BASE_URL}/m/#/login`);
  await page.getByRole('heading', { name: 'Log in to Microblog' }).waitFor();
  await page.getByLabel('Sign in with').waitFor();
  assert.ok(await fits(page), 'the login screen is wider than 360 px');
  await signIn(page, LDAP_PASSWORD);
  await shot(page, 'ldap-mobile-login');
  await page.getByRole('button', { name: 'Log in' }).tap();
  await page.locator('#conn[data-state="connected"]').waitFor();
  assert.ok(await page.evaluate(() => !!localStorage.getItem('microblog.token')), 'token kept in local storage');
  const who = await me(page);
  assert.ok(who, 'signed in');
  await shot(page, 'ldap-mobile-home');
  clean(M.w, 'mobile');
  await M.context.close();
});
