// notify.js is about notifications: the count of unread ones (shown as a
// badge and in the page's title), the sentence each kind makes, and the
// notifications list, which marks what it shows as read.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, icon, plain } from './dom.js';
import { Feed } from './feed.js';
import { avatar, userLink, followButton } from './render.js';
import { timeElement } from './time.js';
import { excerpt } from './text.js';

/**
 * Unread counts the notifications not read yet. It starts from /me's
 * unread_notifications, counts each live `notification` up and each
 * `notification_removed` of an unread one down, and drops to what is left
 * when the list marks them read. It fires 'change' whenever count changes.
 */
export class Unread extends EventTarget {
  constructor() {
    super();
    this.count = 0;
    this.ids = new Set();  // unread notifications we know of (live, or listed)
    this.readUpTo = 0;     // the newest id we marked read
    this.viewing = false;  // the list is on screen: new ones are read at once
  }

  /** set takes the count from the server (/me, log-in). */
  set(n) {
    this._count(Number(n) || 0);
  }

  /** added counts a live notification (not when the list shows it). */
  added(n) {
    if (!n || n.read || this.viewing || n.id <= this.readUpTo || this.ids.has(n.id)) return;
    this.ids.add(n.id);
    this._count(this.count + 1);
  }

  /** listed notes an unread notification the list loaded, so that its removal counts. */
  listed(n) {
    if (!n.read && n.id > this.readUpTo) this.ids.add(n.id);
  }

  /** removed takes back a notification the server withdrew (an undone like or follow). */
  removed(id) {
    if (this.ids.delete(id)) this._count(this.count - 1);
  }

  /**
   * markRead tells the server that everything up to upTo is read, and
   * counts only what is newer. A failure puts the count back.
   */
  async markRead(api, upTo) {
    upTo = Number(upTo);
    if (!upTo || (this.count === 0 && ![...this.ids].some((id) => id <= upTo))) return; // nothing to mark
    const before = { count: this.count, readUpTo: this.readUpTo, ids: new Set(this.ids) };
    this.readUpTo = Math.max(this.readUpTo, upTo);
    for (const id of this.ids) if (id <= upTo) this.ids.delete(id);
    this._count(this.ids.size);
    try {
      await api.readNotifications(upTo);
    } catch (err) {
      Object.assign(this, { readUpTo: before.readUpTo, ids: before.ids });
      this._count(before.count);
      throw err;
    }
  }

  _count(n) {
    n = Math.max(0, n);
    if (n === this.count) return;
    this.count = n;
    this.dispatchEvent(new CustomEvent('change', { detail: n }));
  }
}

/** titled puts the unread count in front of a page title: "(3) Home · Microblog" (a topic's may hold what its users wrote). */
export function titled(title, unread) {
  return plain(unread > 0 ? `(${unread > 99 ? '99+' : unread}) ${title}` : title);
}

/** badgeText is what a badge shows for n unread. */
export function badgeText(n) {
  return n > 99 ? '99+' : String(n);
}

const KIND_ICON = { like: 'heart', comment: 'comment', reply: 'comment', repost: 'repost', follow: 'userPlus', follow_request: 'lock', mention: 'at' };

/** what says what the actor did, after their name: "liked your post". */
export function what(n) {
  const onComment = n.post && n.post.kind === 'comment';
  switch (n.kind) {
    case 'like': return onComment ? 'liked your comment' : 'liked your post';
    case 'comment': return 'commented on your post';
    case 'reply': return 'replied to your comment';
    case 'repost': return 'reposted your post';
    case 'follow': return 'followed you';
    case 'follow_request': return 'asked to follow you';
    case 'mention': return onComment ? 'mentioned you in a comment' : 'mentioned you';
    default: return 'sent you a notification';
  }
}

/** sentence is the whole notification in words, for a toast: "alice liked your post". */
export function sentence(n) {
  return `${n.actor ? n.actor.username : 'Someone'} ${what(n)}`;
}

/** postText is what a notification quotes of its post (a bare repost quotes the original). */
function postText(p) {
  if (!p) return '';
  if (p.content) return p.content;
  if (p.repost_of && !p.repost_of.deleted) return p.repost_of.content || '';
  return '';
}

/** notificationRow is one line of the notifications list. */
export function notificationRow(n, ctx) {
  const actor = n.actor || { username: 'someone' };
  const text = postText(n.post);
  const me = ctx.me();
  return h('article', { class: 'notif' + (n.read ? '' : ' unread'), dataset: { id: String(n.id), kind: n.kind } },
    h('span', { class: 'notif-icon notif-' + n.kind, attrs: { 'aria-hidden': 'true' } }, icon(KIND_ICON[n.kind] || 'bell', 18)),
    h('div', { class: 'notif-body' },
      h('div', { class: 'notif-head' },
        h('a', { href: ctx.href('/u/' + encodeURIComponent(actor.username)), tabIndex: -1, attrs: { 'aria-hidden': 'true' } }, avatar(actor, 'sm')),
        h('p', { class: 'notif-text' },
          n.read ? null : h('span', { class: 'visually-hidden' }, 'New: '),
          userLink(ctx, actor.username), ' ', what(n),
          h('span', { class: 'dot', attrs: { 'aria-hidden': 'true' } }, ' · '),
          h('span', { class: 'time' }, timeElement(n.created_at)))),
      n.post && text ? h('a', { class: 'notif-post', href: ctx.href('/p/' + n.post.id) }, excerpt(text, 140)) : null,
      n.kind === 'follow' && n.actor && me && n.actor.following === false ? followButton(n.actor, ctx) : null,
      n.kind === 'follow_request' ? h('a', { class: 'notif-link', href: ctx.href('/requests') }, 'Review follow requests') : null));
}

/**
 * notificationsList is the notifications screen's list: paged, newest
 * first, taking live ones at the top. Whatever it shows is marked read (up to
 * the newest id) and the badge cleared; the rows keep their "new" look
 * while the list is open. It returns {feed, onEvent, destroy}.
 */
export function notificationsList(ctx, unread) {
  unread.viewing = true;
  const markRead = (upTo) => unread.markRead(ctx.api, upTo).catch((err) => ctx.toast(err.message));
  const feed = ctx.trackFeed(new Feed({
    load: (p) => ctx.api.notifications(p),
    render: (n) => { unread.listed(n); return notificationRow(n, ctx); },
    empty: 'No notifications yet. When someone likes, reposts or answers your posts, mentions you, follows you or asks to, it shows here.',
    label: 'Notifications',
    canRefresh: false,
    onPage: (page, first) => { if (first && page.items.length) markRead(Math.max(...page.items.map((n) => n.id))); },
  }));
  feed.el.classList.add('notif-feed');
  feed.reset();
  return {
    feed,
    onEvent(type, data) {
      if (type === 'notification') { feed.add(data); markRead(data.id); }
      if (type === 'notification_removed') feed.remove(data.id);
    },
    destroy() { unread.viewing = false; },
  };
}
