// notify.js is about notifications: the count of unread ones (shown as a
// badge and in the page's title), the sentence each kind makes, and the
// notifications list, which marks what it shows as read.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, icon, plain, own, phrase, slots } from './dom.js';
import { t } from './i18n.js';
import { Feed } from './feed.js';
import { avatar, followButton } from './render.js';
import { nameLink, shownName } from './profile.js';
import { timeElement } from './time.js';
import { excerpt } from './text.js';
import { TABS, sig, group, groupRun, groupRow, tabBar } from './notify_groups.js';

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

const KIND_ICON = { like: 'heart', comment: 'comment', reply: 'comment', repost: 'repost', follow: 'userPlus', follow_request: 'lock', follow_request_accepted: 'userPlus', mention: 'at' };

const NAME = slots('name');

/** what says what the actor did, with a {{name}} slot for them: "{{name}} liked your post". */
function what(n) {
  const onComment = n.post && n.post.kind === 'comment';
  switch (n.kind) {
    case 'like': return onComment ? t('notify.like_comment', NAME) : t('notify.like_post', NAME);
    case 'comment': return t('notify.comment', NAME);
    case 'reply': return t('notify.reply', NAME);
    case 'repost': return t('notify.repost', NAME);
    case 'follow': return t('notify.follow', NAME);
    case 'follow_request': return t('notify.follow_request', NAME);
    case 'follow_request_accepted': return t('notify.follow_accepted', NAME);
    case 'mention': return onComment ? t('notify.mention_comment', NAME) : t('notify.mention', NAME);
    default: return t('notify.other', NAME);
  }
}

/** sentence is the notification in words, for a toast: "alice liked your post" (as phrase() returns it). */
export function sentence(n) {
  return phrase(what(n), { name: n.actor ? own(shownName(n.actor)) : t('notify.someone') });
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
  const actor = n.actor;
  const text = postText(n.post);
  const me = ctx.me();
  return h('article', { class: 'notif' + (n.read ? '' : ' unread'), dataset: { id: String(n.id), kind: n.kind } },
    h('span', { class: 'notif-icon notif-' + n.kind, attrs: { 'aria-hidden': 'true' } }, icon(KIND_ICON[n.kind] || 'bell', 18)),
    h('div', { class: 'notif-body' },
      h('div', { class: 'notif-head' },
        actor ? h('a', { href: ctx.href('/u/' + encodeURIComponent(actor.username)), tabIndex: -1, attrs: { 'aria-hidden': 'true' } }, avatar(actor, 'sm')) : avatar('?', 'sm'),
        h('p', { class: 'notif-text' },
          n.read ? null : h('span', { class: 'visually-hidden' }, t('notify.new')),
          phrase(what(n), { name: actor ? h('span', { class: 'notif-name' }, nameLink(ctx, actor)) : t('notify.someone') }),
          h('span', { class: 'dot', attrs: { 'aria-hidden': 'true' } }, ' · '),
          h('span', { class: 'time' }, timeElement(n.created_at)))),
      n.post && text ? own(excerpt(text, 140), 'a', { class: 'notif-post', href: ctx.href('/p/' + n.post.id) }) : null,
      n.kind === 'follow' && actor && me && actor.following === false ? followButton(actor, ctx) : null,
      n.kind === 'follow_request' ? h('a', { class: 'notif-link', href: ctx.href('/requests') }, t('notify.review_requests')) : null));
}

/**
 * notificationsList is the notifications screen's list: tabs by kind,
 * paged, newest first, grouped (notify_groups.js), taking live ones at the
 * top. Whatever it shows is marked read (up to the newest id) and the badge
 * cleared; the rows keep their "new" look while the list is open. It
 * returns {el, feed, onEvent, destroy}.
 */
export function notificationsList(ctx, unread) {
  unread.viewing = true;
  const markRead = (upTo) => unread.markRead(ctx.api, upTo).catch((err) => ctx.toast(err.message));
  let tab = TABS[0];
  let gen = 0; // a page asked for before the tab changed is dropped
  let tail = null; // the last group shown: the next page's first may go on with it
  const feed = ctx.trackFeed(new Feed({
    load: async (p) => {
      const mine = gen;
      const page = await ctx.api.notifications(tab.types ? { ...p, types: tab.types.join(',') } : p);
      if (mine !== gen) return { items: [], next_cursor: null };
      const groups = groupRun(page.items || []);
      if (p.cursor && tail && groups.length && sig(groups[0].items[0]) && sig(groups[0].items[0]) === sig(tail.items[0]) && feed.items.get(tail.id) === tail) {
        tail.items.push(...groups.shift().items);
        feed.redraw(tail.id);
      }
      if (groups.length) tail = groups[groups.length - 1];
      return { ...page, items: groups };
    },
    render: (g) => { for (const n of g.items) unread.listed(n); return groupRow(g, ctx, (n) => notificationRow(n, ctx)); },
    empty: t('notify.empty'),
    label: t('notify.label'),
    canRefresh: false,
    onPage: (page, first) => { if (first && page.items.length) markRead(Math.max(...page.items.map((g) => g.id))); },
  }));
  feed.el.classList.add('notif-feed');
  feed.el.setAttribute('role', 'tabpanel');
  const bar = tabBar(tab.id, async (picked) => {
    if (picked === tab) return;
    tab = picked;
    gen++;
    tail = null;
    feed.emptyText = tab.types ? t('feed.empty') : t('notify.empty');
    while (feed.loading) await new Promise((r) => setTimeout(r, 20));
    if (tab === picked) feed.reset();
  });
  feed.reset();
  /** groupOf finds the shown group holding the notification id, or of the same kind and post. */
  const groupOf = (test) => [...feed.items.values()].find((g) => g.items.some(test));
  return {
    el: h('div', { class: 'notif-list' }, bar, feed.el),
    feed,
    onEvent(type, data) {
      if (type === 'notification') {
        markRead(data.id);
        if (tab.types && !tab.types.includes(data.kind)) return;
        const g = sig(data) && groupOf((n) => sig(n) === sig(data));
        if (g) {
          feed.remove(g.id);
          feed.add(group([data, ...g.items]));
        } else {
          feed.add(group([data]));
        }
      }
      if (type === 'notification_removed') {
        const g = groupOf((n) => n.id === data.id);
        if (!g) return;
        const rest = g.items.filter((n) => n.id !== data.id);
        feed.remove(g.id);
        if (rest.length) feed.add(group(rest), { hold: false });
      }
    },
    destroy() { unread.viewing = false; },
  };
}
