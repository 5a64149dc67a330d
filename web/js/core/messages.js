// messages.js is about private messages (docs/api.md, section 9) outside a
// conversation itself (core/chat.js): the count of conversations with
// unread messages (the Messages tab's badge), the live feed's message
// events, the list of conversations, the "Message" button of a profile,
// the "Who can message me" setting, and the errors of sending in words.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, icon, own } from './dom.js';
import { t } from './i18n.js';
import { Feed } from './feed.js';
import { avatar } from './render.js';
import { shownName } from './profile.js';
import { remoteMark } from './remote.js';
import { timeElement, waitText } from './time.js';
import { excerpt } from './text.js';
import { badgeText } from './notify.js';
import { settingsSection, errorLine } from './account.js';

/** MAX_MESSAGE is the longest message, in characters (code points, as the server counts). */
export const MAX_MESSAGE = 1000;

/** otherOf is the other person of a message, seen by me: its recipient if I sent it, else its sender. */
export function otherOf(m, me) {
  return m.sender.id === me.id ? m.recipient : m.sender;
}

/** same says whether two usernames are the same person (names are unique whatever their letter case). */
export function same(a, b) {
  return String(a).toLowerCase() === String(b).toLowerCase();
}

/**
 * Inbox knows how many conversations have unread messages (the tab's
 * badge) and, for those it has seen, how many each has. It starts from
 * /me's unread_messages, learns each conversation's unread_count from the
 * list, counts each live message from someone else once (by id, so a
 * replay after a reconnection counts nothing twice), and drops a
 * conversation to none when it is read here or on another device. When a
 * message comes from a conversation it has not seen, it cannot tell whether
 * that one had unread messages already, so it counts it and then asks /me.
 * It fires 'change' {detail: count} when the count changes and 'conversation'
 * {detail: username} when a conversation's count does.
 */
export class Inbox extends EventTarget {
  constructor(api) {
    super();
    this.api = api;
    this.count = 0;
    this.unread = new Map();  // lower-case username → unread messages we know of
    this.counted = new Set(); // ids of the messages counted
    this.reading = null;      // the username whose conversation is open and read as it arrives
    this.syncTimer = null;
  }

  /** set takes the count from the server (/me, log-in). */
  set(n) {
    this._count(Number(n) || 0);
  }

  /** unreadWith is the number of unread messages from name that the inbox knows of. */
  unreadWith(name) {
    return this.unread.get(name.toLowerCase()) || 0;
  }

  /** listed learns a conversation's unread_count from the list. */
  listed(c) {
    this._set(c.with.username, Number(c.unread_count) || 0, false);
  }

  /** received counts a live message from someone else, once; one read as it arrives is not counted. */
  received(m, me) {
    if (!m || m.sender.id === me.id || this.counted.has(m.id)) return;
    this.counted.add(m.id);
    const name = m.sender.username;
    if (this.reading && same(this.reading, name) && !document.hidden) return;
    const key = name.toLowerCase();
    const known = this.unread.has(key);
    this._set(name, this.unreadWith(name) + 1, true);
    if (!known) this.sync();
  }

  /**
   * read says that the conversation with name has nothing unread now. A
   * count read from /me may include it without the inbox knowing which
   * conversation it was (say /me was asked just before the read): the
   * count is then asked again.
   */
  read(name) {
    this._set(name, 0, true);
    const known = [...this.unread.values()].filter((n) => n > 0).length;
    if (this.count > known) this.sync();
  }

  /** sync reads the count from /me soon (once for several calls close together). */
  sync() {
    clearTimeout(this.syncTimer);
    this.syncTimer = setTimeout(async () => {
      try {
        const me = await this.api.me();
        if (typeof me.unread_messages !== 'number') return;
        // None unread: whatever was read elsewhere meanwhile, every conversation is read.
        if (me.unread_messages === 0) for (const [key, n] of this.unread) if (n > 0) this._set(key, 0, false);
        this._count(me.unread_messages);
      } catch { /* the next message or reconnection tries again */ }
    }, 300);
  }

  stop() {
    clearTimeout(this.syncTimer);
  }

  /** markedUnread says that the conversation with name was marked unread, here or on another device: n messages are. */
  markedUnread(name, n) {
    const known = this.unread.has(name.toLowerCase());
    this._set(name, Math.max(1, Number(n) || 1), true);
    // The count from /me may have held it already, unknown by name.
    if (!known) this.sync();
  }

  /** _set sets name's unread messages to n; with counts, the count follows a conversation becoming unread or read. */
  _set(name, n, counts) {
    const key = name.toLowerCase();
    const before = this.unread.get(key) || 0;
    this.unread.set(key, n);
    if (counts && (before > 0) !== (n > 0)) this._count(this.count + (n > 0 ? 1 : -1));
    if (before !== n) this.dispatchEvent(new CustomEvent('conversation', { detail: name }));
  }

  _count(n) {
    n = Math.max(0, n);
    if (n === this.count) return;
    this.count = n;
    this.dispatchEvent(new CustomEvent('change', { detail: n }));
  }
}

/**
 * trackMessages makes app.inbox and wires the live feed's message events to
 * it and to the view (view.onEvent gets 'message', 'message_delete',
 * 'conversation_read', and 'messages_truncated' when a reconnection missed
 * more messages than its replay holds). paint(count) is called now and on each change of
 * the count. After a reconnection the count is read again from /me.
 */
export function trackMessages(ctx, live, paint) {
  const { app } = ctx;
  if (app.inbox) app.inbox.stop();
  const inbox = new Inbox(ctx.api);
  app.inbox = inbox;
  inbox.addEventListener('change', (e) => paint(e.detail));
  inbox.set(app.user.unread_messages);
  paint(inbox.count);
  const tell = (type, data) => { if (app.view && app.view.onEvent) app.view.onEvent(type, data); };
  live.addEventListener('message', (e) => {
    if (!e.detail || !app.user) return;
    inbox.received(e.detail, app.user);
    tell('message', e.detail);
  });
  live.addEventListener('message_delete', (e) => { if (e.detail) tell('message_delete', e.detail); });
  live.addEventListener('conversation_unread', (e) => {
    const d = e.detail;
    if (!d || !d.with) return;
    inbox.markedUnread(typeof d.with === 'string' ? d.with : d.with.username, d.unread_count);
  });
  live.addEventListener('conversation_read', (e) => {
    const d = e.detail;
    if (!d || !d.with) return;
    inbox.read(typeof d.with === 'string' ? d.with : d.with.username);
    tell('conversation_read', d);
  });
  let readies = 0;
  live.addEventListener('ready', (e) => {
    if (readies++ > 0) inbox.sync();
    // More were missed than the replay holds: the view loads afresh.
    if (e.detail && e.detail.messages_truncated) tell('messages_truncated', e.detail);
  });
  return inbox;
}

/**
 * sendError says why a message was not sent, in words: sending too fast
 * (with the wait, if the server gave one), or what api.js says (the other
 * person's setting, a block, no connection).
 */
export function sendError(err) {
  if (err.status === 429) {
    const s = Number(err.retryAfter);
    return s > 0 ? t('messages.too_fast_wait', { wait: waitText(s) }) : t('messages.too_fast');
  }
  return err.message;
}

/** preview is what the list shows of a conversation's last message: "You: …" for one's own. */
function preview(c, me) {
  const m = c.last_message;
  if (!m) return h('span', { class: 'muted' }, t('messages.none'));
  const text = m.content ? own(excerpt(m.content, 90)) : m.media && m.media.length ? t('messages.picture') : '';
  return m.sender.id === me.id ? [h('span', { class: 'conv-you' }, t('chat.you')), text] : text;
}

/**
 * conversationRow is one line of the conversations list, a link to the
 * conversation, in a list item. The link is named by what it shows (the
 * other person, when, the last message, and how many are unread, said in
 * words for those who do not see the badge), so that what a reader sees
 * and what a screen reader says agree (WCAG 2.5.3).
 */
export function conversationRow(c, ctx, unread) {
  const name = c.with.username;
  const me = ctx.me();
  const link = h('a', {
    class: 'conv' + (unread > 0 ? ' unread' : ''), href: ctx.href('/messages/' + encodeURIComponent(name)),
    dataset: { with: name },
  },
  avatar(c.with),
  h('span', { class: 'conv-body' },
    h('span', { class: 'conv-head' },
      own(shownName(c.with), 'span', { class: 'conv-name', attrs: { dir: 'auto' } }),
      remoteMark(c.with),
      c.with.display_name ? own('@' + name, 'span', { class: 'handle', attrs: { dir: 'ltr' } }) : null,
      c.last_message ? h('span', { class: 'conv-time' }, timeElement(c.last_message.created_at)) : null),
    h('span', { class: 'conv-last' }, preview(c, me))),
  unread > 0 ? h('span', { class: 'conv-badge', attrs: { 'aria-hidden': 'true' } }, badgeText(unread)) : null,
  unread > 0 ? h('span', { class: 'visually-hidden' }, t('messages.row_unread', { n: unread })) : null);
  return h('div', { class: 'conv-item', attrs: { role: 'listitem' } }, link);
}

/** convKey orders the list by latest activity: the newest last message first (a conversation with none last). */
function convKey(c) {
  return c.last_message ? Number(c.last_message.id) : -Number(c.with.id);
}

/**
 * conversationsList is the Messages screen's list: the reader's
 * conversations, latest activity first, paged; a live message moves its
 * conversation to the top (or adds it) with the new last message, and the
 * unread counts follow the inbox. It returns {feed, onEvent, destroy}.
 */
export function conversationsList(ctx) {
  const inbox = ctx.app.inbox;
  const byName = new Map(); // lower-case username → the Conversation shown
  const learned = new WeakSet(); // the Conversations whose unread_count the inbox has taken (or that live events made)
  const feed = ctx.trackFeed(new Feed({
    // A conversation that a live message put on top is not listed again
    // from an older page (which the server may have read before it moved).
    load: async (p) => {
      if (!p.cursor) byName.clear();
      const page = await ctx.api.conversations(p);
      return { ...page, items: (page.items || []).filter((c) => !byName.has(c.with.username.toLowerCase())) };
    },
    key: convKey,
    render: (c) => {
      byName.set(c.with.username.toLowerCase(), c);
      if (!learned.has(c)) { inbox.listed(c); learned.add(c); }
      return conversationRow(c, ctx, inbox.unreadWith(c.with.username));
    },
    empty: () => h('p', { class: 'empty' }, t('messages.empty')),
    label: t('messages.label'),
  }));
  feed.el.classList.add('conv-feed');
  // Its rows are links to conversations, not articles a reader moves
  // through as in a feed: a list (with the feed's name) says so.
  feed.list.setAttribute('role', 'list');
  feed.reset();

  /** put shows c at the place its latest activity gives it. */
  function put(c) {
    const old = byName.get(c.with.username.toLowerCase());
    if (old) feed.remove(convKey(old));
    learned.add(c);
    feed.add(c, { hold: false });
  }
  const redraw = (e) => {
    const c = byName.get(e.detail.toLowerCase());
    // Not while the row is being drawn: render tells the inbox of it, and
    // the list adds it itself once render returns. The row is the same
    // conversation, read or unread now: it does not slide in again.
    if (c && feed.nodes.has(convKey(c))) { feed.remove(convKey(c)); feed.add(c, { hold: false, animate: false }); }
  };
  inbox.addEventListener('conversation', redraw);

  return {
    feed,
    onEvent(type, data) {
      const me = ctx.me();
      if (type === 'message') {
        const other = otherOf(data, me);
        const c = byName.get(other.username.toLowerCase());
        if (c && c.last_message && Number(c.last_message.id) >= Number(data.id)) return; // old news (a replay)
        put({ ...(c || { with: other }), last_message: data, updated_at: data.created_at });
      }
      // A deleted last message: the server knows the one before it.
      if (type === 'message_delete' && [...byName.values()].some((c) => c.last_message && c.last_message.id === data.id)) feed.reset();
      if (type === 'messages_truncated') feed.reset();
    },
    destroy() { inbox.removeEventListener('conversation', redraw); },
  };
}

/**
 * unreadButton marks the conversation with name unread (POST …/unread) and
 * goes back to the list, where it shows as unread, as a mail client's
 * "Mark as unread" does; a failure is said in a toast. before runs first:
 * the open conversation's chat.stopRead.
 */
export function unreadButton(ctx, name, { cls = 'btn btn-ghost', iconOnly = false, before = async () => {} } = {}) {
  const label = t('messages.mark_unread');
  const b = h('button', {
    type: 'button', class: cls + ' btn-unread', attrs: iconOnly ? { 'aria-label': label, title: label } : {},
    on: {
      click: async () => {
        b.disabled = true;
        try {
          await before(); // the open conversation's read mark, if one is on its way
          const r = await ctx.api.unreadConversation(name);
          ctx.app.inbox.markedUnread(name, r && r.unread_count);
          ctx.toast(t('messages.marked_unread'));
          ctx.go('/messages');
        } catch (err) {
          ctx.toast(err.message);
          b.disabled = false;
        }
      },
    },
  }, icon('mail', iconOnly ? 20 : 18), iconOnly ? null : h('span', { class: 'btn-label' }, label));
  return b;
}

/**
 * messageButton opens the conversation with user (a profile's "Message");
 * none for oneself, or across a block. Its label names the user: it is
 * marked translate="no", as the follow button.
 */
export function messageButton(user, ctx) {
  const me = ctx.me();
  if (!me || me.id === user.id || user.blocking || user.blocked_by) return null;
  return h('a', {
    class: 'btn btn-message', href: ctx.href('/messages/' + encodeURIComponent(user.username)),
    attrs: { 'aria-label': t('messages.button_name', { name: user.username }), translate: 'no' },
  }, icon('chat', 18), h('span', { class: 'btn-label' }, t('messages.button')));
}

/** messagesSetting is Settings' "Who can message me" (PATCH /me {"messages_from"}), saved at once. */
export function messagesSetting(ctx, sectionClass = '') {
  const me = ctx.me();
  const error = errorLine();
  const current = me.messages_from || 'everyone';
  const choice = (value, label) => h('label', { class: 'radio' },
    h('input', { type: 'radio', name: 'messages-from', value, checked: current === value, on: { change: save } }), label);
  const group = h('fieldset', { class: 'radio-group' },
    h('legend', { class: 'visually-hidden' }, t('messages.setting')),
    choice('everyone', t('messages.from_everyone')),
    choice('following', t('messages.from_following')));
  async function save(e) {
    const value = e.target.value;
    const before = me.messages_from || 'everyone';
    error.hidden = true;
    for (const i of group.querySelectorAll('input')) i.disabled = true;
    try {
      const u = await ctx.api.updateMe({ messages_from: value });
      me.messages_from = u.messages_from || value;
      ctx.toast(value === 'everyone' ? t('messages.everyone_toast') : t('messages.following_toast'));
    } catch (err) {
      group.querySelector(`input[value="${before}"]`).checked = true;
      error.textContent = err.message;
      error.hidden = false;
    } finally {
      for (const i of group.querySelectorAll('input')) i.disabled = false;
    }
  }
  return settingsSection('privacy-messages-title', t('messages.setting'), t('messages.setting_help'), sectionClass, group, error);
}
