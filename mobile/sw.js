// sw.js is the mobile app's service worker. It keeps a copy of the app
// shell (the files of this folder, and core.css and js/core/ that the server
// takes from web/, the language catalogs in js/core/locales/ included) so
// the app opens offline, in either language, and can say so.
// Shell files are fetched from the network first, so a new version shows as
// soon as there is a connection, and from the cache when there is none.
// The server adds ?v=<content hash> to the URLs the files refer to each other
// by; the cache keeps each file once, at its plain URL, whatever version the
// page asked for, and answers any version of it when offline.
// The API and the live feed are never cached: they are not in the shell.
// It also shows the server's Web Push notifications (a mention, a comment,
// a like, a repost, a follow, a message) while the app is closed, and
// opens the app on the one tapped (see js/push.js and docs/frontends.md).

const CACHE = 'microblog-shell-v2'; // v2: one entry per file, without ?v=
// The page itself is cached as './' (the server redirects index.html there).
const SHELL = [
  './',
  'core.css',
  'style.css',
  'manifest.webmanifest',
  'cordova.js',
  'icons/icon.svg',
  'icons/icon-180.png',
  'icons/icon-192.png',
  'icons/icon-512.png',
  'icons/maskable-512.png',
];
// MODULES are the app's code: its modules as written, for a server that serves
// them so (MICROBLOG_BUNDLE=off) and for the Cordova app. The server, which
// bundles them by default, writes the bundle's files here in their place
// (server/api/static_bundle.go): a new bundle is a new sw.js, so the browser
// installs it again and this list is what the page loads.
const MODULES = [
  'js/app.js',
  'js/views.js',
  'js/config.js',
  'js/messages.js',
  'js/waiting.js',
  'js/push.js',
  'js/recovery.js',
  'js/core/account.js',
  'js/core/api.js',
  'js/core/assist.js',
  'js/core/blurhash.js',
  'js/core/app.js',
  'js/core/chat.js',
  'js/core/dmnew.js',
  'js/core/dom.js',
  'js/core/edit.js',
  'js/core/editor.js',
  'js/core/emoji-data.js',
  'js/core/feed.js',
  'js/core/highlight.js',
  'js/core/i18n.js',
  'js/core/keeps.js',
  'js/core/lists.js',
  'js/core/look.js',
  'js/core/live.js',
  'js/core/media.js',
  'js/core/menu.js',
  'js/core/messages.js',
  'js/core/notify.js',
  'js/core/notify_groups.js',
  'js/core/polls.js',
  'js/outbox.js',
  'js/core/postsearch.js',
  'js/core/privacy.js',
  'js/core/profile.js',
  'js/core/recovery.js',
  'js/core/remote.js',
  'js/core/reposts.js',
  'js/core/render.js',
  'js/core/ask.js',
  'js/core/filtered.js',
  'js/core/avatar.js',
  'js/core/safety.js',
  'js/core/search.js',
  'js/core/share.js',
  'js/core/social.js',
  'js/core/spoiler.js',
  'js/core/tags.js',
  'js/core/sso.js',
  'js/core/text.js',
  'js/core/time.js',
  'js/core/trends.js',
  'js/core/views.js',
  'js/core/vendor/i18next.js',
  'js/core/locales/en/core.js',
  'js/core/locales/en/desktop.js',
  'js/core/locales/en/mobile.js',
  'js/core/locales/zh-CN/core.js',
  'js/core/locales/zh-CN/desktop.js',
  'js/core/locales/zh-CN/mobile.js',
];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll([...SHELL, ...MODULES])).then(() => self.skipWaiting()));
});

// activate drops the other caches, and from this one what the app no longer
// loads: the files of an older bundle (their names change with their content).
self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    const keys = await caches.keys();
    await Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k)));
    const keep = new Set([...SHELL, ...MODULES].map((p) => new URL(p, self.registration.scope).href));
    const cache = await caches.open(CACHE);
    for (const req of await cache.keys()) if (!keep.has(req.url)) await cache.delete(req);
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const scope = self.registration.scope;
  if (req.method !== 'GET' || !req.url.startsWith(scope)) return; // the API, /ws, other sites: untouched
  const url = new URL(req.url);
  url.search = '';
  url.hash = '';
  const shellURL = req.mode === 'navigate' ? scope : url.toString();
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const res = await fetch(req);
      if (res.ok && res.type === 'basic' && !res.redirected) cache.put(shellURL, res.clone());
      return res;
    } catch (err) {
      const hit = await cache.match(shellURL);
      if (hit) return hit;
      throw err;
    }
  })());
});

// PUSH_TEXT is what a push without a title or body of its own says, in the
// phone's language: the server writes each push in the language the app
// subscribed in (preferred_locale), so this is seldom shown.
const PUSH_TEXT = {
  en: { title: 'Microblog', body: 'You have a new notification.' },
  zh: { title: '微博客', body: '你有一条新通知。' },
};

/** pushLang is the language of a push: the one it names, else the phone's. */
function pushLang(data) {
  return String(data.preferred_locale || self.navigator.language || 'en').toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

/** pushTarget is the screen of the app a push opens: the conversation of a message, else the notifications. */
function pushTarget(data) {
  return data.conversation ? './#/messages/' + encodeURIComponent(data.conversation) : './#/notifications';
}

self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = (event.data && event.data.json()) || {};
  } catch {
    data = { body: event.data ? event.data.text() : '' };
  }
  const lang = pushLang(data);
  const title = data.title || PUSH_TEXT[lang].title;
  event.waitUntil(self.registration.showNotification(title, {
    body: data.body || PUSH_TEXT[lang].body,
    icon: data.icon || 'icons/icon-192.png',
    lang: lang === 'zh' ? 'zh-CN' : 'en',
    tag: data.notification_id ? 'n-' + data.notification_id : undefined,
    data: { url: new URL(pushTarget(data), self.registration.scope).href },
  }));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || self.registration.scope;
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const open = windows.find((w) => w.url.startsWith(self.registration.scope));
    if (open) {
      await open.focus();
      if ('navigate' in open) await open.navigate(url);
      return;
    }
    await self.clients.openWindow(url);
  })());
});
