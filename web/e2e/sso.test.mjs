// sso.test.mjs: single sign-on through a real OpenID Provider (the Go test
// starts zitadel/oidc's example provider and gives the server its address):
// sign in on the provider's own login page from the desktop page and from
// the mobile app at 360 px, link a local account from the Account page, and
// see a forged callback refused in words.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, desktop, phone, shot, clean, fits, unnamedControls } from './helpers.mjs';

const { OIDC_USER, OIDC_PASSWORD, OIDC_LINK_USER, OIDC_LINK_PASSWORD } = process.env;
const BUTTON = 'Sign in with Campus login';

let browser;
before(async () => {
  assert.ok(OIDC_USER && OIDC_PASSWORD && OIDC_LINK_USER && OIDC_LINK_PASSWORD, 'the Go test passes the provider users');
  browser = await launch();
});
after(async () => { await browser?.close(); });

/** atProvider signs in on the provider's login page, which the browser is on or on its way to. */
async function atProvider(page, user, password) {
  await page.getByLabel('Username:').waitFor();
  assert.notEqual(new URL(page.url()).origin, BASE_URL, 'the login page is the provider’s');
  await page.getByLabel('Username:').fill(user);
  await page.getByLabel('Password:').fill(password);
  await page.getByRole('button', { name: 'Login' }).click();
}

/** me is the user the context's cookie signs in. */
async function me(context) {
  const res = await context.request.get(BASE_URL + '/api/v1/me');
  return res.ok() ? res.json() : null;
}

/** freshSignIn signs in as user through the provider in a new desktop context and returns who that is. */
async function freshSignIn(user, password) {
  const D = await desktop(browser);
  await D.page.goto(BASE_URL + '/login');
  await D.page.getByRole('link', { name: BUTTON }).click();
  await atProvider(D.page, user, password);
  await D.page.waitForURL(BASE_URL + '/');
  const who = await me(D.context);
  await D.context.close();
  return who;
}

test('desktop: sign in through the provider, twice reaching one account', async () => {
  const D = await desktop(browser);
  const { page } = D;
  await page.goto(BASE_URL + '/login');
  const button = page.getByRole('link', { name: BUTTON });
  await button.waitFor();
  assert.deepEqual(await unnamedControls(page), []);
  await shot(page, 'sso-login');
  await button.click();
  await atProvider(page, OIDC_USER, OIDC_PASSWORD);
  await page.waitForURL(BASE_URL + '/');
  await page.getByRole('button', { name: 'Log out' }).waitFor();
  const first = await me(D.context);
  assert.ok(first && first.username.toLowerCase().startsWith(OIDC_USER.split('.')[0]), `signed in as ${first && first.username}`);
  await shot(page, 'sso-desktop-home');
  clean(D.w, 'desktop');
  await D.context.close();

  assert.equal((await freshSignIn(OIDC_USER, OIDC_PASSWORD)).id, first.id, 'the second sign-in reaches the same account');
});

test('desktop: a forged callback signs no one in and says so', async () => {
  const D = await desktop(browser);
  await D.page.goto(BASE_URL + '/auth/oidc/callback?state=forged&code=forged');
  await D.page.locator('.toast', { hasText: 'not started in this browser' }).waitFor();
  assert.equal(new URL(D.page.url()).pathname, '/login');
  assert.equal(new URL(D.page.url()).search, '', 'the outcome is taken out of the address');
  assert.equal(await me(D.context), null);
  await shot(D.page, 'sso-refused');
  await D.context.close();
});

test('mobile at 360 px: sign in through the provider; the app gets its token', async () => {
  const P = await phone(browser);
  const { page } = P;
  await page.goto(BASE_URL + '/m/#/login');
  const button = page.getByRole('link', { name: BUTTON });
  await button.waitFor();
  assert.ok(await fits(page), 'the login screen fits 360 px');
  await shot(page, 'sso-mobile-login');
  await button.click();
  await atProvider(page, OIDC_USER, OIDC_PASSWORD);
  await page.waitForURL(/\/m\/#\/home$/);
  await page.locator('.tabbar').waitFor();
  const token = await page.evaluate(() => localStorage.getItem('microblog.token'));
  assert.ok(token, 'the app keeps the session token');
  const res = await fetch(BASE_URL + '/api/v1/me', { headers: { Authorization: 'Bearer ' + token } });
  assert.equal(res.status, 200);
  assert.ok((await res.json()).username.toLowerCase().startsWith(OIDC_USER.split('.')[0]));
  assert.ok(await fits(page), 'the home screen fits 360 px');
  await shot(page, 'sso-mobile-home');
  clean(P.w, 'mobile');
  await P.context.close();
});

test('desktop: link a local account from the Account page, then sign in with it', async () => {
  const u = await newUser('lin');
  const D = await desktop(browser, u);
  const { page } = D;
  await page.goto(BASE_URL + '/account');
  const link = page.getByRole('link', { name: 'Link Campus login' });
  await link.waitFor();
  await shot(page, 'sso-account-unlinked');
  await link.click();
  await atProvider(page, OIDC_LINK_USER, OIDC_LINK_PASSWORD);
  await page.waitForURL(/\/account$/);
  await page.locator('.toast', { hasText: 'Linked' }).waitFor();
  await page.getByText('Campus login: linked').waitFor();
  await shot(page, 'sso-account-linked');
  clean(D.w, 'account');
  await D.context.close();

  assert.equal((await freshSignIn(OIDC_LINK_USER, OIDC_LINK_PASSWORD)).username, u.username, 'the linked identity signs in to the local account');
});
