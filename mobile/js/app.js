// app.js starts the mobile app: session (bearer token in local storage),
// hash routes (#/home, #/u/alice: they work from file:// and Cordova too),
// the live feed, the unread notifications badge on the Alerts tab and the
// unread messages badge on the Messages tab, pull to refresh, the offline
// banner and the service worker.

import { createApi } from './core/api.js';
import { clear, icon, fill, h, phrase, slots } from './core/dom.js';
import { LiveFeed } from './core/live.js';
import { Feed, PAGE } from './core/feed.js';
import { postCard, avatarChanged, learnAvatar } from './core/render.js';
import { setMediaBase } from './core/media.js';
import { startClock } from './core/time.js';
import { makeToast, deletePost, openView, listen, stopLive, showConnState, trackUnread } from './core/app.js';
import { titled, badgeText } from './core/notify.js';
import { homeEmpty } from './core/views.js';
import * as config from './config.js';
import { ssoOutcome } from './core/sso.js';
import * as views from './views.js';
import * as dm from './messages.js';
import { trackMessages } from './core/messages.js';
import { t, localize, errorText } from './core/i18n.js';
import { applyLook } from './core/look.js';
import { startOutbox, stopOutbox } from './waiting.js';
import { forgot } from './recovery.js';

applyLook(); // this device's theme and text size (core/look.js)
localize(); // the static markup, in the user's language before the first view draws

const main = document.getElementById('main');
const titleEl = document.getElementById('title');
const backBtn = document.getElementById('back');
const settingsLink = document.getElementById('settings');
const bookmarksLink = document.getElementById('bookmarks');
const actionSlot = document.getElementById('action'); // a view's own button (view.action), if any
const listsLink = document.getElementById('lists');
const topicsLink = document.getElementById('topics');
const searchLink = document.getElementById('searchlink');
const tabbar = document.getElementById('tabbar');
const conn = document.getElementById('conn');
const offlineBanner = document.getElementById('offline');
const ptr = document.getElementById('ptr');
const badge = document.getElementById('badge');
const dmBadge = document.getElementById('dm-badge');
const toast = makeToast(document.getElementById('toasts'), { fadeAfter: 3200, removeAfter: 3600 });

const app = {
  user: null,
  live: null,
  homeFeed: null,
  feeds: new Set(),
  view: null,
  repostOf: null,  // the post the compose screen reposts, if any
  unread: null,    // the unread notifications count (core/notify.js)
  inbox: null,     // the conversations with unread messages (core/messages.js)
  title: t('mobile.app.name'),
  searchQuery: '', // what the search screen last looked for
};

let api = makeApi();

function makeApi() {
  setMediaBase(config.server() || '');
  return createApi({ base: config.server() || '', getToken: config.token, onUnauthorized: () => sessionEnded() });
}

const ctx = {
  get api() { return api; },
  me: () => app.user,
  href: (path) => '#' + path,
  // A link for outside the app (Copy link, Share): the post's page on the server, which any browser opens.
  link: (path) => new URL(path, config.server() || location.origin).href,
  go,
  toast,
  app,
  askLogin: () => go('/login'),
  config,
  repost: (post) => { app.repostOf = post; go('/compose'); },
  remove: (post) => deletePost(ctx, post, () => { if (location.hash === '#/p/' + post.id) history.back(); }),
  // A follow changes the home timeline's past too: load it afresh next time it shows.
  followed: () => { app.homeStale = true; },
  // The user's new avatar shows at once wherever they appear, the home timeline kept off screen included.
  avatarChanged: (user) => {
    if (app.user && app.user.id === user.id) { app.user = { ...app.user, avatar_url: user.avatar_url }; config.saveUser(app.user); }
    avatarChanged(user, [document, app.homeFeed && app.homeFeed.el]);
  },
  trackFeed: (f) => { app.feeds.add(f); return f; },
  loggedIn: onLoggedIn,
  logout,
  // The server ended this device's session on purpose (log out everywhere, account deleted).
  signedOut: (message) => {
    app.leaving = false;
    forget(true);
    toast(message);
    go('/login');
  },
  serverChanged: () => { api = makeApi(); },
  posted: (post) => { if (app.homeFeed) app.homeFeed.add(post, { hold: false }); },
};

// ---- routes ----

function go(path, { replace = false } = {}) {
  const hash = '#' + path;
  if (replace) { history.replaceState(null, '', hash); render(); } else if (location.hash === hash) render(); else location.hash = hash;
}
addEventListener('hashchange', render);

const routes = [
  // Logged out, #/home (where the app opens) is the landing: something to read, and the way in.
  [/^\/home$/, () => (app.user ? views.home(ctx) : views.landing(ctx)), 'home'],
  [/^\/public$/, () => views.publicTimeline(ctx), 'public'],
  [/^\/compose$/, () => views.compose(ctx), 'compose'],
  [/^\/u\/([^/]+)$/, (m) => views.profile(ctx, decodeURIComponent(m[1]), 'posts'), 'me'],
  [/^\/u\/([^/]+)\/(followers|following)$/, (m) => views.profile(ctx, decodeURIComponent(m[1]), m[2]), 'me'],
  [/^\/p\/(\d+)$/, (m) => views.thread(ctx, m[1]), null],
  [/^\/p\/(\d+)\/likes$/, (m) => views.likers(ctx, m[1]), null],
  [/^\/t\/([^/]+)$/, (m) => views.topic(ctx, decodeURIComponent(m[1])), null],
  [/^\/search$/, () => views.search(ctx), 'search'],
  [/^\/notifications$/, () => views.notifications(ctx), 'notifications'],
  [/^\/messages$/, () => dm.messages(ctx), 'messages'],
  [/^\/messages\/([^/]+)$/, (m) => dm.conversation(ctx, decodeURIComponent(m[1])), 'messages'],
  [/^\/bookmarks$/, () => views.bookmarks(ctx), null],
  [/^\/lists$/, () => views.lists(ctx), null],
  [/^\/lists\/(\d+)$/, (m) => views.list(ctx, m[1]), null],
  [/^\/topics$/, () => views.topics(ctx), null],
  [/^\/login$/, () => views.auth(ctx, 'login'), null],
  [/^\/signup$/, () => views.auth(ctx, 'signup'), null],
  [/^\/forgot$/, () => forgot(ctx), null],
  [/^\/settings$/, () => views.settings(ctx), null],
  [/^\/requests$/, () => views.requests(ctx), null],
];
const open = new Set(['/home', '/login', '/signup', '/forgot', '/settings', '/public', '/search']);

function render() {
  let path = location.hash.replace(/^#/, '') || '/home';
  if (!config.server() && path !== '/settings') return go('/settings', { replace: true });
  if (!app.user && !open.has(path) && !/^\/[upt]\//.test(path)) return go('/login', { replace: true });
  if (app.user && (path === '/login' || path === '/signup' || path === '/forgot')) return go('/home', { replace: true });
  if (path === '/me') return go('/u/' + encodeURIComponent(app.user.username), { replace: true });

  const { view, route } = openView(app, routes, path, () => views.notFound(ctx));
  let tab = route ? route[2] : null;
  if (tab === 'me' && app.user && path.split('/')[2] !== encodeURIComponent(app.user.username)) tab = null;
  clear(main).append(view.el);
  titleEl.textContent = view.title || t('mobile.app.name');
  // A name or a tag in the title is what a user wrote: not to be translated.
  titleEl.translate = !view.userTitle;
  app.title = view.title ? t('mobile.app.title', { title: view.title }) : t('mobile.app.name');
  showTitle();
  backBtn.hidden = !view.back;
  actionSlot.replaceChildren(...(view.action ? [view.action] : []));
  settingsLink.hidden = !(tab === 'me');
  bookmarksLink.hidden = !(tab === 'me');
  listsLink.hidden = !(tab === 'me');
  topicsLink.hidden = !(tab === 'me');
  searchLink.hidden = !(app.user && (tab === 'home' || path === '/public'));
  tabbar.hidden = !app.user || !!view.noTabs;
  document.body.classList.toggle('has-tabs', !tabbar.hidden);
  for (const a of tabbar.querySelectorAll('.tab')) {
    const on = a.dataset.tab === tab;
    a.classList.toggle('active', on);
    if (on) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  scrollTo(0, 0);
  main.focus({ preventScroll: true });
}

/** showUnread puts the unread count on the Alerts tab and in the title. */
function showUnread(n) {
  showBadge(badge, n);
  showTitle();
}

/** showBadge shows n unread on a tab's badge (the tab's name comes before it). */
function showBadge(el, n) {
  fill(el, n > 0 ? badgeText(n) : '', h('span', { class: 'visually-hidden' }, ' ' + t('mobile.app.unread')));
  el.hidden = n === 0;
}

function showTitle() {
  document.title = titled(app.title, app.user && app.unread ? app.unread.count : 0);
}

backBtn.append(icon('back', 24));
backBtn.addEventListener('click', () => (history.length > 1 ? history.back() : go('/home')));
settingsLink.append(icon('settings', 22));
bookmarksLink.append(icon('bookmark', 22));
listsLink.append(icon('list', 22));
topicsLink.append(icon('hash', 22));
searchLink.append(icon('search', 22));
for (const el of tabbar.querySelectorAll('[data-icon]')) el.prepend(icon(el.dataset.icon, 24));
tabbar.addEventListener('click', (e) => {
  // Tapping the tab you are on scrolls to the top and shows held posts, as phone apps do.
  const a = e.target.closest('.tab.active');
  if (a && app.view && app.view.feed) { e.preventDefault(); app.view.feed.showPending(true); }
});

// ---- pull to refresh ----

let pull = null;
addEventListener('touchstart', (e) => {
  if (scrollY > 0 || !app.view || !app.view.refresh || e.touches.length !== 1) return;
  pull = { y: e.touches[0].clientY, d: 0 };
}, { passive: true });
addEventListener('touchmove', (e) => {
  if (!pull) return;
  pull.d = Math.max(0, e.touches[0].clientY - pull.y);
  const d = Math.min(pull.d * 0.5, 90);
  ptr.style.setProperty('--pull', d + 'px');
  ptr.classList.toggle('ready', d >= 60);
}, { passive: true });
addEventListener('touchend', async () => {
  if (!pull) return;
  const ready = Math.min(pull.d * 0.5, 90) >= 60;
  pull = null;
  if (!ready) { ptr.style.setProperty('--pull', '0px'); ptr.classList.remove('ready'); return; }
  ptr.classList.add('refreshing');
  try {
    const n = await app.view.refresh();
    if (n === 0) toast(t('mobile.app.up_to_date'));
  } catch (err) {
    toast(errorText(err));
  } finally {
    ptr.classList.remove('refreshing', 'ready');
    ptr.style.setProperty('--pull', '0px');
  }
});

// ---- session and live feed ----

async function onLoggedIn(res) {
  config.setToken(res.token);
  config.saveUser(res.user);
  app.user = res.user;
  app.unread.set(res.user.unread_notifications);
  startLive();
  go('/home', { replace: true });
}

// firstHome is the home timeline's first page when the app starts with a
// token: boot asks for it beside /me, a round trip sooner than after it, and
// the home feed takes it for its first load, once.
let firstHome = null;

function startLive() {
  learnAvatar(app.user);
  app.homeFeed = new Feed({
    load: async (page) => {
      const early = !page.cursor && !page.after && page.limit === PAGE ? firstHome : null;
      firstHome = null;
      try {
        const res = await (early || api.home(page));
        if (!page.cursor && !page.after) config.saveHome(res.items);
        return res;
      } catch (err) {
        const saved = config.savedHome();
        if (err.offline && !page.cursor && saved) { showOffline(true); return { items: saved, next_cursor: null }; }
        throw err;
      }
    },
    render: (p) => postCard(p, ctx),
    // "Follow people from Public or Search": links to them.
    empty: () => homeEmpty(ctx, phrase(t('mobile.home.empty', slots('public', 'search')), {
      public: h('a', { href: '#/public' }, t('mobile.home.emptyPublic')),
      search: h('a', { href: '#/search' }, t('mobile.home.emptySearch')),
    })),
    label: t('mobile.home.label'),
  });
  const live = new LiveFeed((after, messagesAfter, seen) => api.wsURL(after, messagesAfter, seen));
  app.live = live;
  live.addEventListener('status', (e) => showConn(e.detail));
  listen(ctx, live, { sessionEnded });
  trackMessages(ctx, live, (n) => showBadge(dmBadge, n));
  startOutbox(ctx);
  // The first page sets where the live feed starts, so nothing falls in between.
  app.homeFeed.reset().then(() => { live.see(app.homeFeed.maxId); live.start(); });
}

function showConn(status) {
  showConnState(conn, status);
  if (status === 'connected') showOffline(false);
  if (status === 'offline') showOffline(true);
}

function showOffline(on) {
  offlineBanner.hidden = !on;
}
addEventListener('offline', () => showOffline(true));
addEventListener('online', () => showOffline(false));

/** forget ends the session on this phone; discard drops what the user wrote that waits to be sent too. */
function forget(discard = false) {
  stopOutbox(app, discard);
  stopLive(app);
  app.user = null;
  app.unread.set(0);
  config.setToken(null);
  config.saveUser(null);
  config.saveHome(null);
}

async function logout() {
  try { await api.logout(); } catch { /* the token is forgotten here either way */ }
  forget(true);
  go('/login');
}

function sessionEnded() {
  if (!app.user || app.leaving) return; // leaving: the Account area ends the session itself
  forget();
  toast(t('mobile.app.session_ended'));
  go('/login');
}

// takeSSOSession takes the session a single sign-on just opened in this
// browser (server/api/handle_oidc.go: the cookie is the browser's, the app
// wants its token), once.
async function takeSSOSession() {
  try {
    config.setToken(null); // the hand-over goes with the cookie, which a bearer token would leave out
    const res = await api.ssoHandover();
    config.setToken(res.token);
    history.replaceState(null, '', '#/home');
  } catch (err) {
    toast(err.offline ? errorText(err) : t('mobile.app.sso_unfinished'));
    history.replaceState(null, '', '#/login');
  }
}

async function boot() {
  startClock();
  trackUnread(app, showUnread);
  if (navigator.onLine === false) showOffline(true);
  if (location.hash === '#/sso') await takeSSOSession();
  if (config.server() && config.token()) {
    firstHome = api.home({ limit: PAGE });
    firstHome.catch(() => { /* the feed sees it when it takes this page */ });
    try {
      app.user = await api.me();
      config.saveUser(app.user);
      app.unread.set(app.user.unread_notifications);
    } catch (err) {
      if (err.offline) {
        app.user = config.savedUser(); // offline: carry on with what we know
        showOffline(true);
      } else if (err.status === 401) {
        config.setToken(null);
      } else {
        toast(errorText(err));
        app.user = config.savedUser();
      }
    }
  }
  if (app.user) startLive();
  else firstHome = null; // a token that no longer works: not a page to show whoever logs in next
  render();
  ssoOutcome(toast);
  // The service worker, which fetches the whole app to keep it, starts once
  // the first view is under way, not beside the requests it needs. Inside
  // Cordova the files are on the phone already: no service worker.
  if ('serviceWorker' in navigator && !window.cordova && /^https?:$/.test(location.protocol)) {
    navigator.serviceWorker.register('sw.js', { scope: './' }).catch(() => { /* the app works without it */ });
  }
}

boot();
