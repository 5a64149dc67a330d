// app.js starts the desktop page: the session, the router (history URLs
// like /u/alice), the live feed and its connection indicator, and the
// actions shared by every view (repost, delete, toasts).

import { createApi } from './core/api.js';
import { h, clear, icon } from './core/dom.js';
import { LiveFeed } from './core/live.js';
import { Feed } from './core/feed.js';
import { postCard } from './core/render.js';
import { startClock } from './core/time.js';
import * as views from './views.js';
import { repostDialog } from './compose.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const account = document.getElementById('account');
const conn = document.getElementById('conn');
const toasts = document.getElementById('toasts');

/** app is the state every view shares. */
const app = {
  user: null,          // the logged-in User, or null
  live: null,          // LiveFeed while logged in
  homeFeed: null,      // the home timeline, kept across navigation so live posts are never lost
  feeds: new Set(),    // feeds on screen, for deletes
  view: null,          // the current view's {destroy, onEvent}
};

const api = createApi({ onUnauthorized: () => sessionEnded() });

/** ctx is what core/render.js needs from the app. */
const ctx = {
  api,
  me: () => app.user,
  href: (path) => path,
  go,
  toast,
  repost: (post) => repostDialog(post, ctx, (created) => {
    app.homeFeed && app.homeFeed.add(created, { hold: false });
    toast('Reposted.');
  }),
  remove: async (post) => {
    if (!confirm(post.kind === 'comment' ? 'Delete this comment?' : 'Delete this post?')) return;
    try {
      await api.deletePost(post.id);
      removeEverywhere(post.id);
      toast('Deleted.');
      if (location.pathname === '/p/' + post.id) go(post.parent_id ? '/p/' + post.parent_id : '/');
    } catch (err) {
      toast(err.message);
    }
  },
  // A follow changes the home timeline's past too: load it afresh next time it shows.
  followed: () => { app.homeStale = true; },
  trackFeed: (feed) => { app.feeds.add(feed); return feed; },
  app,
};

/** toast shows a short message; msg is always text. */
function toast(msg) {
  const t = h('div', { class: 'toast', attrs: { role: 'status' } }, msg);
  toasts.append(t);
  setTimeout(() => t.classList.add('toast-out'), 3600);
  setTimeout(() => t.remove(), 4000);
}

/** removeEverywhere takes a deleted message off every list and quote on screen. */
function removeEverywhere(id) {
  for (const f of [app.homeFeed, ...app.feeds]) if (f) f.remove(id);
  for (const el of document.querySelectorAll(`.post[data-id="${Number(id)}"]`)) el.remove();
  for (const q of document.querySelectorAll(`.quote[data-quote-of="${Number(id)}"]`)) {
    q.replaceWith(h('div', { class: 'quote quote-deleted' }, 'The original post was deleted.'));
  }
}

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
  if (url.origin !== location.origin || url.pathname.startsWith('/api/') || url.pathname.startsWith('/m/')) return;
  e.preventDefault();
  if (url.pathname + url.search !== location.pathname + location.search) go(url.pathname + url.search);
});
addEventListener('popstate', render);

const routes = [
  [/^\/$/, () => views.home(ctx)],
  [/^\/login$/, () => views.auth(ctx, 'login', onLoggedIn)],
  [/^\/signup$/, () => views.auth(ctx, 'signup', onLoggedIn)],
  [/^\/public$/, () => views.publicTimeline(ctx)],
  [/^\/u\/([^/]+)$/, (m) => views.profile(ctx, decodeURIComponent(m[1]), 'posts')],
  [/^\/u\/([^/]+)\/(followers|following)$/, (m) => views.profile(ctx, decodeURIComponent(m[1]), m[2])],
  [/^\/p\/(\d+)$/, (m) => views.thread(ctx, m[1])],
];

function render() {
  const path = location.pathname;
  if (!app.user && path === '/') return go('/login', { replace: true });
  if (app.user && (path === '/login' || path === '/signup')) return go('/', { replace: true });
  if (app.view && app.view.destroy) app.view.destroy();
  for (const f of app.feeds) f.destroy();
  app.feeds.clear();
  let view = null;
  for (const [re, make] of routes) {
    const m = path.match(re);
    if (m) { view = make(m); break; }
  }
  if (!view) view = views.notFound(ctx);
  app.view = view;
  clear(main).append(view.el);
  document.title = view.title ? view.title + ' · Microblog' : 'Microblog';
  renderNav();
  scrollTo(0, 0);
  if (!view.keepFocus) main.focus({ preventScroll: true });
}

function renderNav() {
  const path = location.pathname;
  const link = (href, label, ic, active) => h('a', {
    href, class: 'nav-link' + (active ? ' active' : ''), attrs: active ? { 'aria-current': 'page' } : {},
  }, icon(ic), h('span', {}, label));
  clear(nav);
  clear(account);
  if (app.user) {
    const mine = '/u/' + encodeURIComponent(app.user.username);
    nav.append(
      link('/', 'Home', 'home', path === '/'),
      link('/public', 'Public', 'globe', path === '/public'),
      link(mine, 'Profile', 'user', path.startsWith(mine)));
    account.append(
      h('a', { class: 'account-name', href: mine, title: 'Your profile' }, '@' + app.user.username),
      h('button', { type: 'button', class: 'btn btn-ghost btn-small', on: { click: logout } }, icon('logout', 18), 'Log out'));
  } else {
    nav.append(link('/public', 'Public', 'globe', path === '/public'));
    account.append(
      h('a', { class: 'btn btn-ghost btn-small', href: '/login' }, 'Log in'),
      h('a', { class: 'btn btn-primary btn-small', href: '/signup' }, 'Sign up'));
  }
}

// ---- session and live feed ----

async function onLoggedIn(user) {
  app.user = user;
  await startLive();
  const next = new URLSearchParams(location.search).get('next');
  go(next && next.startsWith('/') && !next.startsWith('//') ? next : '/', { replace: true });
}

async function startLive() {
  app.homeFeed = new Feed({
    load: (page) => api.home(page),
    render: (p) => postCard(p, ctx),
    empty: 'Your home timeline is empty. Follow people from the public timeline, or write your first post.',
    label: 'Home timeline',
  });
  await app.homeFeed.reset();
  const live = new LiveFeed((after) => api.wsURL(after));
  live.see(app.homeFeed.maxId);
  live.addEventListener('status', (e) => showConn(e.detail));
  live.addEventListener('post', (e) => {
    app.homeFeed.add(e.detail);
    app.view && app.view.onEvent && app.view.onEvent('post', e.detail);
  });
  live.addEventListener('delete', (e) => removeEverywhere(e.detail.id));
  live.addEventListener('comment', (e) => {
    const c = e.detail;
    if (app.user && c.author.id === app.user.id) return; // our own reply, already shown
    toast(`${c.author.username} replied: ${c.content}`);
    for (const n of document.querySelectorAll(`.post[data-id="${Number(c.parent_id)}"] [data-count="comments"]`)) {
      n.textContent = String((Number(n.textContent) || 0) + 1);
    }
    app.view && app.view.onEvent && app.view.onEvent('comment', c);
  });
  live.addEventListener('follow', (e) => {
    toast(`${e.detail.user.username} followed you.`);
    app.view && app.view.onEvent && app.view.onEvent('follow', e.detail.user);
  });
  live.addEventListener('loggedout', () => sessionEnded());
  live.addEventListener('dropped', async (e) => {
    if (e.detail < 2) return;
    try { await api.me(); } catch (err) { if (err.status === 401) sessionEnded(); }
  });
  app.live = live;
  live.start();
}

function showConn(status) {
  conn.hidden = status === 'stopped';
  conn.dataset.state = status;
  conn.querySelector('.conn-label').textContent = {
    connecting: 'Connecting…', connected: 'Live', reconnecting: 'Reconnecting…', offline: 'Offline',
  }[status] || '';
  conn.title = {
    connected: 'New posts appear as they are written.',
    reconnecting: 'The live connection dropped; trying again. Nothing will be missed.',
    offline: 'You are offline. The page catches up when the connection is back.',
  }[status] || '';
}

function stopLive() {
  if (app.live) app.live.stop();
  app.live = null;
  if (app.homeFeed) app.homeFeed.destroy();
  app.homeFeed = null;
}

async function logout() {
  try { await api.logout(); } catch { /* the cookie is cleared by the server; go on either way */ }
  stopLive();
  app.user = null;
  go('/login');
}

function sessionEnded() {
  if (!app.user) return;
  stopLive();
  app.user = null;
  toast('Your session has ended. Please log in again.');
  go('/login?next=' + encodeURIComponent(location.pathname));
}

async function boot() {
  startClock();
  try {
    app.user = await api.me();
  } catch (err) {
    if (err.status !== 401) toast(err.message);
  }
  if (app.user) await startLive();
  render();
}

boot();
