// push.js is "Notify me on this phone" in Settings: the phone's browser
// subscribes to Web Push with the server's VAPID key
// (pushManager.subscribe), and the app hands the subscription to the
// server (PUT /api/v1/me/push), which pushes mentions, comments, likes,
// reposts, follows and messages to it while the app is closed. sw.js shows
// them. The subscription belongs to this session: logging out ends it.

import { h } from './core/dom.js';
import { t, lang, errorText } from './core/i18n.js';

/** supported tells whether this browser can be pushed to (not inside Cordova, which has no service worker). */
export function pushSupported() {
  return 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window && !window.cordova;
}

/** keyBytes is a base64url VAPID key as pushManager.subscribe takes it. */
function keyBytes(b64) {
  const s = atob(b64.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

/** registration is the app's service worker registration once it is active; null when there is none within 3 s (refused, or blocked). */
async function registration() {
  const reg = await navigator.serviceWorker.getRegistration('./');
  const none = new Promise((resolve) => setTimeout(() => resolve(null), reg ? 30_000 : 3_000));
  return Promise.race([navigator.serviceWorker.ready, none]);
}

/** pushArea is the Settings section; null where the browser cannot be pushed to. */
export function pushArea(ctx) {
  if (!pushSupported()) return null;
  const box = h('input', { id: 'push-on', type: 'checkbox', disabled: true, attrs: { role: 'switch', 'aria-describedby': 'push-help' } });
  const msg = h('p', { class: 'form-error', attrs: { role: 'alert' }, hidden: true });
  const say = (text) => { msg.textContent = text || ''; msg.hidden = !text; };

  const subscribe = async () => {
    if (await Notification.requestPermission() !== 'granted') throw Object.assign(new Error('denied'), { denied: true });
    const reg = await registration();
    if (!reg) throw new Error('no service worker');
    const { vapid_public_key: key } = await ctx.api.push();
    let sub = await reg.pushManager.getSubscription();
    if (sub && sub.options && sub.options.applicationServerKey) {
      const had = new Uint8Array(sub.options.applicationServerKey);
      if (had.join() !== keyBytes(key).join()) { await sub.unsubscribe(); sub = null; }
    }
    sub = sub || await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
    const json = sub.toJSON();
    await ctx.api.setPush({ endpoint: json.endpoint, keys: json.keys, lang: lang() });
  };
  const unsubscribe = async () => {
    await ctx.api.deletePush();
    const reg = await registration();
    const sub = reg && await reg.pushManager.getSubscription();
    if (sub) await sub.unsubscribe();
  };

  box.addEventListener('change', async () => {
    const on = box.checked;
    box.disabled = true;
    say('');
    try {
      await (on ? subscribe() : unsubscribe());
      ctx.toast(t(on ? 'mobile.push.on' : 'mobile.push.off'));
    } catch (err) {
      box.checked = !on;
      say(err.denied ? t('mobile.push.denied') : err.status ? errorText(err) : t('mobile.push.failed'));
    } finally {
      box.disabled = false;
    }
  });

  const el = h('div', { class: 'push-area', hidden: true },
    h('h2', { class: 'settings-title' }, t('mobile.push.title')),
    h('label', { class: 'switch', htmlFor: 'push-on' }, box,
      h('span', { class: 'switch-track', attrs: { 'aria-hidden': 'true' } }), h('span', { class: 'switch-label' }, t('mobile.push.label'))),
    h('p', { class: 'help', id: 'push-help' }, t('mobile.push.help')), msg);

  // Shown once the app's service worker is there (a browser may refuse
  // one, as in private windows), with whether this phone is subscribed
  // now: the browser's subscription and the server's for this session must
  // be the same one. One made in another language is made again in this one.
  (async () => {
    const reg = await registration().catch(() => null);
    if (!reg) return;
    el.hidden = false;
    try {
      const server = await ctx.api.push();
      const sub = await reg.pushManager.getSubscription();
      const mine = server.subscription;
      box.checked = !!(sub && mine && mine.endpoint === sub.endpoint && Notification.permission === 'granted');
      if (box.checked && mine.lang !== (lang().startsWith('zh') ? 'zh' : 'en')) {
        const json = sub.toJSON();
        await ctx.api.setPush({ endpoint: json.endpoint, keys: json.keys, lang: lang() });
      }
    } catch { /* shown off */ }
    box.disabled = false;
  })();

  return { el };
}
