// app.js starts the desktop page: the session, the router (history URLs
// like /u/alice), the frame (a labelled left rail on wide screens, a bar of
// icons on narrow ones: the nav with its unread badges, the search box, the
// New post button, the connection indicator, the account), the live feed,
// the side column (trends, "who to follow"), and the actions shared by
// every view (repost, delete, toasts).

import { createApi } from './core/api.js';
import { h, clear, icon, own, phrase, slots } from './core/dom.js';
import { LiveFeed } from './core/live.js';
import { Feed } from './core/feed.js';
import { postCard, avatar, avatarChanged, learnAvatar } from './core/render.js';
import { startClock } from './core/time.js';
import { makeToast, deletePost, openView, listen, stopLive, showConnState, trackUnread } from './core/app.js';
import { titled, badgeText } from './core/notify.js';
import { whoToFollow } from './core/search.js';
import { trendsBox } from './core/trends.js';
import { homeEmpty } from './core/views.js';
import * as views from './views.js';
import { topSearch } from './search.js';
import { repostDialog } from './compose.js';
import { providersOf, ssoOutcome } from './core/sso.js';
import { forgot } from './recovery.js';
import { trackMessages } from './core/messages.js';
import * as dm from './messages.js';
import { t, localize, errorText } from './core/i18n.js';
import { applyLook } from './core/look.js';

// This device's theme and text size, and the page's own markup in the reader's
// language, before any view draws.
applyLook();
localize();

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const account = document.getElementById('account');
const conn = document.getElementById('conn');
const side = document.getElementById('side');
const railPost = document.getElementById('railpost');

/** toast shows a short message; msg is always text. */
const toast = makeToast(document.getElementById('toasts'), { fadeAfter: 3600, removeAfter: 4000 });

/** app is the state every view shares. */
const app = {
  user: null,          // the logged-in User, or null
  live: null,          // LiveFeed while logged in
  homeFeed: null,      // the home timeline, kept across navigation so live posts are never lost
  feeds: new Set(),    // feeds on screen, for deletes
  view: null,          // the current view's {destroy, onEvent}
  unread: null,        // the unread notifications count (core/notify.js)
  inbox: null,         // the conversations with unread messages (core/messages.js)
  title: t('desktop.brand'), // the page's title, before the unread count
};

const api = createApi({ onUnauthorized: () => sessionEnded() });

/** ctx is what core/render.js needs from the app. */
const ctx = {
  api,
  me: () => app.user,
  href: (path) => path,
  go,
  toast,
  askLogin: () => go('/login?next=' + encodeURIComponent(location.pathname + location.search)),
  repost: (post) => repostDialog(post, ctx, (created) => {
    app.homeFeed && app.homeFeed.add(created, { hold: false });
    toast(t('desktop.toast.reposted'));
  }),
  remove: (post) => deletePost(ctx, post, () => {
    if (location.pathname === '/p/' + post.id) go(post.parent_id ? '/p/' + post.parent_id : '/');
  }),
  // A follow changes the home timeline's past too: load it afresh next time it shows.
  followed: () => { app.homeStale = true; },
  // The user's new avatar shows at once wherever they appear, the home timeline kept off screen included.
  avatarChanged: (user) => {
    if (app.user && app.user.id === user.id) app.user = { ...app.user, avatar_url: user.avatar_url };
    avatarChanged(user, [document, app.homeFeed && app.homeFeed.el]);
  },
  trackFeed: (feed) => { app.feeds.add(feed); return feed; },
  // The server ended this device's session on purpose (log out everywhere, account deleted).
  signedOut: (message) => {
    app.leaving = false;
    stopLive(app);
    app.user = null;
    app.unread.set(0);
    showSide();
    toast(message);
    go('/login');
  },
  app,
};

// ---- navigation ----

/** go shows path, adding it to the history unless replace. */
export function go(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path); else history.pushState(null, '', path);
  render();
}

document.addEventListener('click', (e) => {
  const a = e.target.closest('a[href]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || a.target) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith('/api/') || url.pathname.startsWith('/auth/') || url.pathname.startsWith('/m/')) return;
  e.preventDefault();
  if (url.pathname + url.search !== location.pathname + location.search) go(url.pathname + url.search);
});
addEventListener('popstate', render);

const routes = [
  [/^\/$/, () => (app.user ? views.home(ctx) : views.landing(ctx))],
  [/^\/login$/, () => views.auth(ctx, 'login', onLoggedIn)],
  [/^\/signup$/, () => views.auth(ctx, 'signup', onLoggedIn)],
  [/^\/forgot$/, () => forgot(ctx)],
  [/^\/public$/, () => views.publicTimeline(ctx)],
  [/^\/u\/([^/]+)$/, (m) => views.profile(ctx, decodeURIComponent(m[1]), 'posts')],
  [/^\/u\/([^/]+)\/(followers|following)$/, (m) => views.profile(ctx, decodeURIComponent(m[1]), m[2])],
  [/^\/p\/(\d+)$/, (m) => views.thread(ctx, m[1])],
  [/^\/p\/(\d+)\/likes$/, (m) => views.likers(ctx, m[1])],
  [/^\/t\/([^/]+)$/, (m) => views.topic(ctx, decodeURIComponent(m[1]))],
  [/^\/search$/, () => views.search(ctx, new URLSearchParams(location.search).get('q') || '')],
  [/^\/notifications$/, () => views.notifications(ctx)],
  [/^\/messages$/, () => dm.messages(ctx)],
  [/^\/messages\/([^/]+)$/, (m) => dm.conversation(ctx, decodeURIComponent(m[1]))],
  [/^\/bookmarks$/, () => views.bookmarks(ctx)],
  [/^\/lists$/, () => views.lists(ctx)],
  [/^\/lists\/(\d+)$/, (m) => views.list(ctx, m[1])],
  [/^\/topics$/, () => views.topics(ctx)],
  [/^\/account$/, () => views.account(ctx)],
  [/^\/settings$/, () => views.settings(ctx)],
  [/^\/requests$/, () => views.requests(ctx)],
  [/^\/admin$/, () => (app.user.admin && admin ? admin(ctx) : views.notFound(ctx))],
];
const private_ = new Set(['/notifications', '/bookmarks', '/lists', '/topics', '/account', '/settings', '/requests', '/admin']); // pages that need a session

/** rendered tells whether render has drawn a view yet. */
let rendered = false;

function render() {
  const path = location.pathname;
  if (!app.user && (private_.has(path) || path.startsWith('/messages') || path.startsWith('/lists/'))) return go('/login?next=' + encodeURIComponent(path), { replace: true });
  if (app.user && (path === '/login' || path === '/signup' || path === '/forgot')) return go('/', { replace: true });
  const { view } = openView(app, routes, path, () => views.notFound(ctx));
  clear(main).append(view.el);
  app.title = view.title ? t('desktop.title', { page: view.title }) : t('desktop.brand');
  showTitle();
  // A reader who began a search in the top bar before the first view came
  // (a slow connection) keeps the box and what it shows.
  const searching = !rendered && path !== '/search' && document.getElementById('topsearch').contains(document.activeElement);
  rendered = true;
  if (!searching) search.close(path === '/search'); // the search page has its own box
  renderNav();
  scrollTo(0, 0);
  if (!view.keepFocus && !searching) main.focus({ preventScroll: true });
}

function renderNav() {
  const path = location.pathname;
  // Wide screens show the nav as a rail of icons and names; narrow ones
  // show only the icons: the names stay, visually hidden, so each link is
  // named by what it says when it is shown (no aria-label that could
  // differ from it), the unread count after it.
  const link = (href, label, ic, active, cls = '') => h('a', {
    href, class: 'nav-link' + (active ? ' active' : '') + (cls ? ' ' + cls : ''), attrs: { 'aria-current': active ? 'page' : null },
  }, icon(ic), h('span', { class: 'nav-label' }, label));
  clear(nav);
  clear(account);
  clear(railPost);
  if (app.user) {
    const mine = '/u/' + encodeURIComponent(app.user.username);
    const bell = link('/notifications', t('desktop.nav.notifications'), 'bell', path === '/notifications', 'nav-notifications');
    bell.append(h('span', { class: 'nav-unread visually-hidden' }), h('span', { class: 'nav-badge', attrs: { 'aria-hidden': 'true' } }));
    const chats = link('/messages', t('desktop.nav.messages'), 'chat', path.startsWith('/messages'), 'nav-messages');
    // Its own class: .nav-badge is the notifications'.
    chats.append(h('span', { class: 'nav-unread visually-hidden' }), h('span', { class: 'nav-badge-messages', attrs: { 'aria-hidden': 'true' } }));
    nav.append(
      link('/', t('desktop.nav.home'), 'home', path === '/'),
      link('/public', t('desktop.nav.public'), 'globe', path === '/public'),
      link('/search', t('desktop.nav.search'), 'search', path === '/search', 'nav-search'),
      bell,
      chats,
      link('/bookmarks', t('desktop.nav.bookmarks'), 'bookmark', path === '/bookmarks', 'nav-bookmarks'),
      link('/lists', t('desktop.nav.lists'), 'list', path.startsWith('/lists'), 'nav-lists'),
      link('/topics', t('desktop.nav.topics'), 'hash', path === '/topics', 'nav-topics'),
      link(mine, t('desktop.nav.profile'), 'user', path.startsWith(mine)));
    // Operators (MICROBLOG_ADMINS) have the reports page.
    if (app.user.admin) nav.append(link('/admin', t('desktop.nav.reports'), 'shield', path === '/admin'));
    // The rail's New post button (wide screens) brings the home composer.
    railPost.append(h('button', { type: 'button', class: 'btn btn-primary btn-new-post', on: { click: newPost } },
      icon('edit', 20), h('span', {}, t('desktop.nav.newPost'))));
    account.append(
      h('a', { class: 'account-name', href: mine, title: t('desktop.account.profile') },
        avatar(app.user, 'sm'), own('@' + app.user.username, 'span', { class: 'account-handle' })),
      h('button', { type: 'button', class: 'btn btn-ghost btn-small btn-logout', attrs: { 'aria-label': t('desktop.account.logout') }, on: { click: logout } },
        icon('logout', 18), h('span', { class: 'btn-label' }, t('desktop.account.logout'))));
    showUnread(app.unread ? app.unread.count : 0);
    showMessages(app.inbox ? app.inbox.count : 0);
  } else {
    nav.append(
      link('/', t('desktop.nav.home'), 'home', path === '/'),
      link('/public', t('desktop.nav.public'), 'globe', path === '/public'),
      link('/search', t('desktop.nav.search'), 'search', path === '/search', 'nav-search'));
    const signupLink = h('a', { class: 'btn btn-primary btn-small', href: '/signup' }, t('desktop.account.signup'));
    account.append(h('a', { class: 'btn btn-ghost btn-small', href: '/login' }, t('desktop.account.login')), signupLink);
    providersOf(ctx).then((list) => { signupLink.hidden = !list.local_signup; });
  }
}

/**
 * newPost brings the composer: the home page's, with the focus in it (the
 * home page is drawn first when another one shows).
 */
function newPost() {
  if (!app.view || !app.view.compose) go('/');
  if (app.view && app.view.compose) app.view.compose();
}

/** showUnread puts the unread count on the nav's Notifications link and in the title. */
function showUnread(n) {
  showBadge('nav-notifications', 'nav-badge', n);
  showTitle();
}

/** showMessages puts the number of conversations with unread messages on the nav's Messages link. */
function showMessages(n) {
  showBadge('nav-messages', 'nav-badge-messages', n);
}

/**
 * showBadge shows n unread on the badge (of class badgeCls) of the nav link
 * of class cls, and says it after the link's name: "Notifications (3 unread)".
 */
function showBadge(cls, badgeCls, n) {
  const a = nav.querySelector('.' + cls);
  if (!a) return;
  const badge = a.querySelector('.' + badgeCls);
  badge.textContent = n > 0 ? badgeText(n) : '';
  badge.hidden = n === 0;
  a.querySelector('.nav-unread').textContent = n > 0 ? ' ' + t('desktop.nav.unread', { count: n }) : '';
}

function showTitle() {
  document.title = titled(app.title, app.user && app.unread ? app.unread.count : 0);
}

const search = topSearch(ctx, document.getElementById('topsearch'));

/**
 * showSide fills the side column (wide screens only) with the trends, and
 * for a logged-in reader the people to follow. Where the side column does
 * not show, the landing and public pages have the trends in their column.
 */
function showSide() {
  clear(side);
  side.hidden = false;
  side.append(trendsBox(ctx, { cls: 'card', hideEmpty: true }));
  if (app.user) side.append(whoToFollow(ctx, { limit: 4, cls: 'card' }));
}

// ---- session and live feed ----

// admin is the operators' page (admin.js), loaded only for them, once
// signed in: no one else downloads it.
let admin = null;
async function operatorCode() {
  if (app.user && app.user.admin && !admin) ({ admin } = await import('./admin.js'));
}

async function onLoggedIn(user) {
  app.user = user;
  app.unread.set(user.unread_notifications);
  await Promise.all([startLive(), operatorCode()]);
  const next = new URLSearchParams(location.search).get('next');
  go(next && next.startsWith('/') && !next.startsWith('//') ? next : '/', { replace: true });
}

async function startLive() {
  learnAvatar(app.user);
  app.homeFeed = new Feed({
    load: (page) => api.home(page),
    render: (p) => postCard(p, ctx),
    // "Follow people from the public timeline": a link to it.
    empty: () => homeEmpty(ctx, phrase(t('desktop.home.empty', slots('public')),
      { public: h('a', { href: '/public' }, t('desktop.home.emptyPublic')) })),
    label: t('desktop.home.label'),
  });
  await app.homeFeed.reset();
  const live = new LiveFeed((after, messagesAfter, seen) => api.wsURL(after, messagesAfter, seen));
  live.see(app.homeFeed.maxId);
  live.addEventListener('status', (e) => showConn(e.detail));
  listen(ctx, live, { sessionEnded, countComments: true });
  trackMessages(ctx, live, showMessages);
  app.live = live;
  live.start();
  showSide();
}

function showConn(status) {
  showConnState(conn, status);
  conn.title = {
    connected: t('desktop.conn.connectedTitle'),
    reconnecting: t('desktop.conn.reconnectingTitle'),
    offline: t('desktop.conn.offlineTitle'),
  }[status] || '';
}

async function logout() {
  try { await api.logout(); } catch { /* the cookie is cleared by the server; go on either way */ }
  stopLive(app);
  app.user = null;
  app.unread.set(0);
  showSide();
  go('/login');
}

function sessionEnded() {
  if (!app.user || app.leaving) return; // leaving: the Account area ends the session itself
  stopLive(app);
  app.user = null;
  app.unread.set(0);
  showSide();
  toast(t('desktop.toast.sessionEnded'));
  go('/login?next=' + encodeURIComponent(location.pathname));
}

async function boot() {
  startClock();
  trackUnread(app, showUnread);
  // The session cookie is HttpOnly, so the server says in <html data-session>
  // whether the request for this page carried one (server/api/static.go). Without
  // it /me could only answer 401, which the browser logs as an error, so a
  // logged-out visit does not ask.
  if (document.documentElement.dataset.session === 'cookie') {
    try {
      app.user = await api.me();
      app.unread.set(app.user.unread_notifications);
    } catch (err) {
      if (err.status !== 401) toast(errorText(err)); // 401: the cookie is stale, we are logged out
    }
  }
  if (app.user) await Promise.all([startLive(), operatorCode()]);
  else showSide();
  render();
  ssoOutcome(toast);
}

boot();
