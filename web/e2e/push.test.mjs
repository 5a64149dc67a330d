// push.test.mjs: notifications on the phone (Web Push). Headless Chromium
// has no push service, so the test does for real what can be done without
// one: the mobile app's service worker is handed a push through the
// DevTools protocol (ServiceWorker.deliverPushMessage), as the browser
// would hand it one from the push service, and shows it in the phone's
// language; Settings' "Notify me on this phone" asks for permission,
// subscribes with the server's VAPID key and gives the subscription to the
// server. Where Chromium would need the push service (pushManager.subscribe
// itself) the page's PushManager is given a stand-in that makes a real
// P-256 key pair, so the server's checks apply. The server side of pushes
// (encryption, VAPID, delivery) is tested in server/push_test.go.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, api, phone, shot, clean, until } from './helpers.mjs';

let browser;
// The whole browser: Chromium's headless build has no notifications or push messaging.
before(async () => { browser = await launch({ full: true }); });
after(async () => { await browser?.close(); });

/** openApp opens the app as u with its service worker on, notifications allowed, and waits for the worker. */
async function openApp(u, locale) {
  const M = await phone(browser, u, { serviceWorkers: 'allow', locale });
  await M.context.grantPermissions(['notifications'], { origin: BASE_URL });
  await M.page.goto(`${BASE_URL}/m/#/home`);
  await M.page.evaluate(() => navigator.serviceWorker.ready);
  return M;
}

/** deliver hands the app's service worker a push with data, as the push service would, through DevTools. */
async function deliver(page, data) {
  const cdp = await page.context().newCDPSession(page);
  const scope = `${BASE_URL}/m/`;
  const reg = new Promise((resolve) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const r = registrations.find((x) => x.scopeURL === scope && !x.isDeleted);
      if (r) resolve(r.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  const registrationId = await reg;
  await cdp.send('ServiceWorker.deliverPushMessage', { origin: BASE_URL, registrationId, data: JSON.stringify(data) });
}

/** shown are the notifications the app's service worker shows. */
function shown(page) {
  return page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready;
    return (await reg.getNotifications()).map((n) => ({ title: n.title, body: n.body, lang: n.lang, tag: n.tag, icon: n.icon, url: n.data && n.data.url }));
  });
}

for (const [locale, fallbackTitle, fallbackBody] of [['en-US', 'Microblog', 'You have a new notification.'], ['zh-CN', '微博客', '你有一条新通知。']]) {
  test(`mobile (${locale}): the service worker shows a push and opens the app on it`, async () => {
    const u = await newUser('pushsw');
    const M = await openApp(u, locale);
    const { page } = M;
    const zh = locale === 'zh-CN';
    // A push as the server writes it, in the language the app subscribed in.
    await deliver(page, {
      notification_id: '42', notification_type: 'favourite', preferred_locale: zh ? 'zh' : 'en',
      icon: `${BASE_URL}/m/icons/icon-192.png`, title: zh ? '@ada 赞了你的帖子' : '@ada liked your post', body: 'hello',
    });
    await until(async () => (await shown(page)).length === 1, 'the push shown');
    let [n] = await shown(page);
    assert.equal(n.title, zh ? '@ada 赞了你的帖子' : '@ada liked your post');
    assert.equal(n.body, 'hello');
    assert.equal(n.tag, 'n-42');
    assert.equal(n.lang, zh ? 'zh-CN' : 'en');
    assert.equal(n.url, `${BASE_URL}/m/#/notifications`);
    // A message's push opens its conversation; one with no text of its own
    // says so in the phone's language.
    await deliver(page, { notification_id: 'dm-7', notification_type: 'mention', conversation: 'ada' });
    await until(async () => (await shown(page)).length === 2, 'the second push shown');
    n = (await shown(page)).find((x) => x.tag === 'n-dm-7');
    assert.equal(n.title, fallbackTitle);
    assert.equal(n.body, fallbackBody);
    assert.equal(n.url, `${BASE_URL}/m/#/messages/ada`);
    clean(M.w, locale);
    await M.context.close();
  });
}

/**
 * fakePushManager stands in for the push service Chromium lacks: subscribe
 * records the key asked with and answers a subscription with a real P-256
 * key pair and auth secret, which getSubscription gives back, across
 * reloads (kept in local storage, as the browser keeps a real one).
 */
function fakePushManager() {
  const b64 = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const unb64 = (s) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  const KEY = 'test.push';
  const asSubscription = (saved) => saved && {
    endpoint: saved.endpoint, options: { applicationServerKey: unb64(saved.key).buffer, userVisibleOnly: true },
    toJSON: () => ({ endpoint: saved.endpoint, expirationTime: null, keys: { p256dh: saved.p256dh, auth: saved.auth } }),
    unsubscribe: async () => { localStorage.removeItem(KEY); return true; },
  };
  PushManager.prototype.getSubscription = async function () { return asSubscription(JSON.parse(localStorage.getItem(KEY))); };
  PushManager.prototype.subscribe = async function (opts) {
    const key = b64(opts.applicationServerKey);
    localStorage.setItem('test.push.asked', JSON.stringify([...JSON.parse(localStorage.getItem('test.push.asked') || '[]'), key]));
    const pair = await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits']);
    const p256dh = b64(await crypto.subtle.exportKey('raw', pair.publicKey));
    const auth = b64(crypto.getRandomValues(new Uint8Array(16)));
    const saved = { endpoint: 'https://push.example.invalid/' + auth, key, p256dh, auth };
    localStorage.setItem(KEY, JSON.stringify(saved));
    return asSubscription(saved);
  };
}

for (const [locale, label, onToast, offToast, lang] of [
  ['en-US', 'Notify me on this phone', 'This phone will be notified.', 'This phone will not be notified.', 'en'],
  ['zh-CN', '在这台手机上通知我', '这台手机将收到通知。', '这台手机将不再收到通知。', 'zh'],
]) {
  test(`mobile (${locale}): Settings' "${label}" subscribes this phone with the server's key, and unsubscribes it`, async () => {
    const u = await newUser('pushset');
    const M = await phone(browser, u, { serviceWorkers: 'allow', locale });
    await M.context.grantPermissions(['notifications'], { origin: BASE_URL });
    await M.context.addInitScript(fakePushManager);
    const { page } = M;
    await page.goto(`${BASE_URL}/m/#/settings`);
    const sw = page.getByRole('switch', { name: label });
    await sw.waitFor();
    await until(async () => !(await sw.isDisabled()), 'the switch ready');
    assert.equal(await sw.isChecked(), false);
    await shot(page, `push-settings-${lang}`);
    await sw.tap();
    await page.locator('.toast', { hasText: onToast }).waitFor();
    assert.equal(await sw.isChecked(), true);
    const state = await api('GET', '/me/push', { token: u.token });
    const asked = await page.evaluate(() => JSON.parse(localStorage.getItem('test.push.asked')));
    assert.deepEqual(asked, [state.vapid_public_key], 'subscribed with the server\'s VAPID key');
    assert.ok(state.subscription && state.subscription.endpoint.startsWith('https://push.example.invalid/'), 'the server has the subscription');
    assert.equal(state.subscription.lang, lang);
    // Shown again, the switch is on; off, the server forgets the phone.
    await page.reload();
    await until(async () => !(await sw.isDisabled()) && await sw.isChecked(), 'the switch shown on');
    await sw.tap();
    await page.locator('.toast', { hasText: offToast }).waitFor();
    assert.equal((await api('GET', '/me/push', { token: u.token })).subscription, null);
    clean(M.w, locale);
    await M.context.close();
  });
}

test('mobile: notifications blocked in the browser leave the switch off and say why', async () => {
  const u = await newUser('pushno');
  const M = await phone(browser, u, { serviceWorkers: 'allow' });
  await M.context.addInitScript(() => { Notification.requestPermission = async () => 'denied'; });
  const { page } = M;
  await page.goto(`${BASE_URL}/m/#/settings`);
  const sw = page.getByRole('switch', { name: 'Notify me on this phone' });
  await until(async () => !(await sw.isDisabled()), 'the switch ready');
  await sw.tap();
  await page.getByRole('alert').filter({ hasText: 'Notifications are blocked for this app' }).waitFor();
  assert.equal(await sw.isChecked(), false);
  assert.equal((await api('GET', '/me/push', { token: u.token })).subscription, null);
  await M.context.close();
});

test('mobile: without its service worker (a browser that refuses one) Settings offers no push', async () => {
  const u = await newUser('pushnosw');
  const M = await phone(browser, u); // service workers blocked
  const { page } = M;
  await page.goto(`${BASE_URL}/m/#/settings`);
  await page.getByRole('switch', { name: 'Protect my posts' }).waitFor();
  await page.waitForTimeout(3500); // the app waits 3 s for a worker
  assert.equal(await page.locator('.push-area').isHidden(), true);
  assert.equal(await page.getByRole('switch', { name: 'Notify me on this phone' }).count(), 0);
  clean(M.w);
  await M.context.close();
});
