// cordova.test.mjs: the mobile app as Apache Cordova builds it (make app:
// `cordova build browser`), served from its own origin as a packaged app is,
// against the running server: its files are the ones the server serves at
// /m/ with Cordova's own cordova.js, and it logs in with the real form
// (server address, then username and password: a bearer token from then
// on), shows a post of someone it follows live, and sends a private
// message the other person receives.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { access, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE_URL, APP_ORIGIN, PASSWORD, launch, newUser, post, follow, api, phone, serveApp, shot, clean, until } from './helpers.mjs';

// MOBILE is the app's folder in the repository; WWW is the built app:
// CORDOVA_WWW, else where make app leaves it.
const MOBILE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'mobile');
const WWW = process.env.CORDOVA_WWW || join(MOBILE, 'cordova', 'build', 'platforms', 'browser', 'www');

let browser;
before(async () => {
  try {
    await access(join(WWW, 'index.html'));
  } catch {
    assert.fail(`the Cordova build of the mobile app is missing (no ${join(WWW, 'index.html')}): run \`make app\` (make test does) first`);
  }
  browser = await launch();
});
after(async () => { await browser?.close(); });

/** shell lists the app's files as its service worker does ('./' is the page): SHELL and MODULES. */
async function shell() {
  const sw = await readFile(join(WWW, 'sw.js'), 'utf8');
  const names = [];
  for (const list of ['SHELL', 'MODULES']) {
    const m = sw.match(new RegExp(`const ${list} = \\[([^\\]]*)\\]`));
    assert.ok(m, `sw.js has no ${list} list`);
    names.push(...[...m[1].matchAll(/'([^']+)'/g)].map((x) => (x[1] === './' ? 'index.html' : x[1])));
  }
  return names;
}

/**
 * asBuilt undoes what the server does to the app's files as it serves them
 * (server/api/static.go): the ?v=<version> on references between files.
 * The page and sw.js it serves are made for a browser on the network: the
 * page has its style sheets in it and loads the bundle of its modules
 * (js/bundle/app-<hash>.js, static_bundle.go), and sw.js lists the bundle's
 * files; the packaged app, whose files are on the phone, has both as written
 * in mobile/ and loads the modules themselves. Those two are compared with
 * mobile/ (null: not the server's).
 */
function asBuilt(name, served) {
  if (name === 'index.html' || name === 'sw.js') return null;
  if (!/\.(css|js)$/.test(name)) return served;
  return Buffer.from(served.toString('utf8').replace(/\?v=[0-9a-f]+/g, ''));
}

test('cordova: the build holds what the server serves at /m/, with Cordova’s own cordova.js', async () => {
  const files = [...await shell(), 'sw.js']; // config.xml: the build writes its own
  assert.ok(files.length > 30, `only ${files.length} files listed`);
  for (const name of files) {
    if (name === 'cordova.js') continue; // the build's own, below
    const built = await readFile(join(WWW, name)).catch(() => null);
    assert.ok(built, `the build lacks ${name}`);
    const res = await fetch(`${BASE_URL}/m/${name === 'index.html' ? '' : name}`);
    assert.equal(res.status, 200, `/m/${name}`);
    // Byte for byte the same, once what the server adds is undone.
    const plain = asBuilt(name, Buffer.from(await res.arrayBuffer())) ?? await readFile(join(MOBILE, name));
    assert.ok(plain.equals(built), `the build's ${name} is not what the server serves at /m/${name} (or mobile/ has): run \`make app\` again`);
  }
  const cordova = await readFile(join(WWW, 'cordova.js'), 'utf8');
  assert.match(cordova, /PLATFORM_VERSION_BUILD_LABEL/, 'www/cordova.js is not Cordova’s: did the build replace the stub?');
  const stub = await (await fetch(`${BASE_URL}/m/cordova.js`)).text();
  assert.doesNotMatch(stub, /PLATFORM_VERSION_BUILD_LABEL/, 'the server serves Cordova’s cordova.js at /m/');
});

test('cordova: the built app logs in, shows a post live and sends a message', async () => {
  const mia = await newUser('mia'), noor = await newUser('noor');
  await follow(mia, noor);
  const M = await phone(browser, null);
  const { page } = M;
  await serveApp(M.context, { www: WWW });
  await M.context.addInitScript(() => document.addEventListener('deviceready', () => { window.deviceWasReady = true; }));
  await page.goto(`${APP_ORIGIN}/index.html`);

  // Cordova is there and ready; the app is not bothered by it.
  await until(() => page.evaluate(() => window.deviceWasReady === true), 'Cordova’s deviceready');
  assert.equal(await page.evaluate(() => window.cordova && window.cordova.platformId), 'browser');

  // First start: the app asks for the server, then for the account.
  await page.getByLabel('Server address').fill(BASE_URL);
  await page.getByRole('button', { name: 'Save' }).tap();
  await page.getByLabel('Username').fill(mia.username);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).tap();
  await page.locator('#conn[data-state="connected"]').waitFor();
  const token = await page.evaluate(() => localStorage.getItem('microblog.token'));
  assert.equal((await api('GET', '/me', { token })).username, mia.username, 'the app keeps a bearer token of its own');

  // A post of someone she follows arrives live.
  const text = `Live into the packaged app ${Date.now()}`;
  const p = await post(noor, text);
  await page.locator(`.post[data-id="${p.id}"]`, { hasText: text }).waitFor();
  await shot(page, 'cordova-home');

  // She writes to Noor, who has it.
  await page.goto(`${APP_ORIGIN}/index.html#/messages/${noor.username}`);
  const hello = `Hello from Cordova ${Date.now()}`;
  await page.getByLabel(`Message ${noor.username}`).fill(hello);
  await page.getByRole('button', { name: 'Send' }).tap();
  await page.locator('.msg-mine[data-id]', { hasText: hello }).waitFor();
  await until(async () => {
    const res = await api('GET', `/conversations/${mia.username}/messages`, { token: noor.token });
    return res.items.some((m) => m.content === hello && m.sender.username === mia.username);
  }, 'the message in Noor’s conversation');
  await shot(page, 'cordova-message');
  assert.equal((await M.context.cookies(BASE_URL)).length, 0, 'the app must not depend on the cookie');
  clean(M.w, 'cordova');
  await M.context.close();
});
