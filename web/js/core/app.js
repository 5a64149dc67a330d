// app.js holds what both front ends' app.js do alike around their views:
// toasts, deleting a post, taking a deleted one off the page, switching
// views, and wiring the live feed's events. The frame around them (nav bar
// or tab bar, history or hash URLs, the connection indicator's place) stays
// in each front end.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.
//
// app, the state each front end keeps: {
//   user: the logged-in User or null,
//   live: the LiveFeed while logged in,
//   homeFeed: the home timeline's Feed, kept across views,
//   feeds: Set of the other Feeds on screen,
//   view: the current view ({el, destroy?, onEvent?, ...}),
//   unread: the Unread count of notifications (core/notify.js),
// }
// and ctx is the one the app passes to core/render.js, with ctx.app its app.

import { h, own, phrase, slots } from './dom.js';
import { t } from './i18n.js';
import { ask } from './ask.js';
import { applyCounts, bumpLater } from './social.js';
import { Unread, sentence } from './notify.js';
import { acceptedFollow } from './notify_groups.js';
import { applyUpdate } from './edit.js';
import { applyPoll } from './polls.js';

/**
 * makeToast returns toast(msg), which shows a short message in container
 * (msg is text, or what phrase() returns: text with what users wrote in
 * own() elements, never markup), starts fading it out after fadeAfter ms
 * and removes it after removeAfter ms.
 */
export function makeToast(container, { fadeAfter, removeAfter }) {
  return function toast(msg) {
    const el = h('div', { class: 'toast', attrs: { role: 'status' } }, msg);
    container.append(el);
    setTimeout(() => el.classList.add('toast-out'), fadeAfter);
    setTimeout(() => el.remove(), removeAfter);
  };
}

/** onScreen lists the feeds a deleted post must leave: the home timeline and those on screen. */
export function onScreen(app) {
  return [app.homeFeed, ...app.feeds];
}

/** removeEverywhere takes a deleted message off feeds and every list and quote on the page. */
export function removeEverywhere(id, feeds) {
  for (const f of feeds) if (f) f.remove(id);
  for (const el of document.querySelectorAll(`.post[data-id="${Number(id)}"]`)) el.remove();
  for (const q of document.querySelectorAll(`.quote[data-quote-of="${Number(id)}"]`)) {
    q.replaceWith(h('div', { class: 'quote quote-deleted' }, t('post.original_deleted')));
  }
}

/**
 * deletePost asks before deleting post, then takes it off the page, says so,
 * and calls then(), where the app may leave the post's own page; a failure
 * is toasted.
 */
export async function deletePost(ctx, post, then) {
  if (!await ask(post.kind === 'comment' ? t('post.confirm_delete_comment') : t('post.confirm_delete'), t('post.delete'))) return;
  try {
    await ctx.api.deletePost(post.id);
    removeEverywhere(post.id, onScreen(ctx.app));
    ctx.toast(t('post.deleted'));
    then();
  } catch (err) {
    ctx.toast(err.message);
  }
}

/**
 * openView destroys the current view and the feeds it tracked, and makes the
 * view of the first route whose pattern matches path. routes are
 * [pattern, make(match), ...anything the app keeps with it]. It returns
 * {view, route}, with view from notFound() and route null when none matches;
 * app.view is the new view.
 */
export function openView(app, routes, path, notFound) {
  if (app.view && app.view.destroy) app.view.destroy();
  for (const f of app.feeds) f.destroy();
  app.feeds.clear();
  let view = null, route = null;
  for (const r of routes) {
    const m = path.match(r[0]);
    if (m) { view = r[1](m); route = r; break; }
  }
  if (!view) view = notFound();
  app.view = view;
  return { view, route };
}

/** tell passes a live event to the current view, if it listens. */
export function tell(app, type, data) {
  if (app.view && app.view.onEvent) app.view.onEvent(type, data);
}

/**
 * listen wires live's events to the app: posts go to the home timeline and
 * the view; deletes leave the page; edits (`post_update`) show in every copy
 * of the post on the page; comments by others and new followers are
 * toasted and told to the view; `counts` set the counters of every copy of
 * the post on the page; notifications count on the unread badge (and those
 * that no other event has toasted are toasted); a session the server ended,
 * or one that a repeatedly dropped connection turns out to have lost, calls
 * sessionEnded. With countComments, a live comment also counts on its post
 * wherever it is on screen (unless a `counts` event does it). After a
 * reconnection the unread count is read again from /me, as notifications
 * are not replayed.
 */
export function listen(ctx, live, { sessionEnded, countComments = false }) {
  const { app, toast } = ctx;
  live.addEventListener('post', (e) => {
    app.homeFeed.add(e.detail);
    tell(app, 'post', e.detail);
  });
  // A post of an exclusive list's member is for that list's page, not home.
  live.addEventListener('list_post', (e) => tell(app, 'list_post', e.detail));
  live.addEventListener('delete', (e) => removeEverywhere(e.detail.id, onScreen(app)));
  live.addEventListener('post_update', (e) => applyUpdate(ctx, e.detail));
  live.addEventListener('comment', (e) => {
    const c = e.detail;
    if (app.user && c.author.id === app.user.id) return; // our own reply, already shown
    toast(phrase(t('live.replied', slots('name', 'text')), { name: own(c.author.username), text: own(c.content) }));
    if (countComments) bumpLater(c.parent_id, 'comments', 1);
    tell(app, 'comment', c);
  });
  live.addEventListener('follow', (e) => {
    toast(phrase(t('live.followed', slots('name')), { name: own(e.detail.user.username) }));
    tell(app, 'follow', e.detail.user);
  });
  live.addEventListener('counts', (e) => applyCounts(e.detail));
  live.addEventListener('poll', (e) => applyPoll(e.detail));
  live.addEventListener('notification', (e) => {
    const n = e.detail;
    if (!n) return;
    app.unread.added(n);
    if (n.kind === 'follow_request_accepted') acceptedFollow(n);
    // Comments, replies and follows have their own events, toasted above.
    if (!['comment', 'reply', 'follow'].includes(n.kind)) toast(phrase(t('live.notification', slots('what')), { what: sentence(n) }));
    tell(app, 'notification', n);
  });
  live.addEventListener('notification_removed', (e) => {
    if (!e.detail) return;
    app.unread.removed(e.detail.id);
    tell(app, 'notification_removed', e.detail);
  });
  let readies = 0;
  live.addEventListener('ready', async () => {
    if (readies++ === 0) return;
    try {
      const me = await ctx.api.me();
      if (typeof me.unread_notifications === 'number') app.unread.set(me.unread_notifications);
    } catch { /* the next reconnection tries again */ }
  });
  live.addEventListener('loggedout', () => sessionEnded());
  live.addEventListener('dropped', async (e) => {
    if (e.detail < 2) return;
    try { await ctx.api.me(); } catch (err) { if (err.status === 401) sessionEnded(); }
  });
}

/**
 * trackUnread makes app.unread and keeps it current: it starts from the
 * user's unread_notifications and calls paint(count) now and on each change.
 */
export function trackUnread(app, paint) {
  app.unread = new Unread();
  app.unread.addEventListener('change', (e) => paint(e.detail));
  paint(0);
  return app.unread;
}

/** stopLive closes the live feed and drops the home timeline. */
export function stopLive(app) {
  if (app.live) app.live.stop();
  app.live = null;
  if (app.homeFeed) app.homeFeed.destroy();
  app.homeFeed = null;
}

/** showConnState shows status on the connection indicator conn (its .conn-label says it in words). */
export function showConnState(conn, status) {
  conn.hidden = status === 'stopped';
  conn.dataset.state = status;
  conn.querySelector('.conn-label').textContent = {
    connecting: t('conn.connecting'), connected: t('conn.connected'), reconnecting: t('conn.reconnecting'), offline: t('conn.offline'),
  }[status] || '';
}
