// notify_groups.js gives the notifications list its tabs (All, Mentions,
// Comments, Likes: each asks the server for those kinds, so a tab's pages
// are full) and its grouping: notifications of one kind on one post in a
// row (likes, reposts; follows, which have no post) make one row, "alice
// and 2 others liked your post", with the first few avatars. A live one
// joins its group, which moves to the top.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS).

import { h, icon, own, phrase, slots } from './dom.js';
import { t } from './i18n.js';
import { avatar } from './render.js';
import { nameLink } from './profile.js';
import { timeElement } from './time.js';
import { excerpt } from './text.js';

/** TABS are the list's tabs: the kinds each shows (null: every kind). */
export const TABS = [
  { id: 'all', types: null, label: 'notify.tab_all' },
  { id: 'mentions', types: ['mention'], label: 'notify.tab_mentions' },
  { id: 'comments', types: ['comment', 'reply'], label: 'notify.tab_comments' },
  { id: 'likes', types: ['like'], label: 'notify.tab_likes' },
];

/** GROUPED are the kinds that group; the others each say something of their own. */
const GROUPED = new Set(['like', 'repost', 'follow']);

/** sig is what a notification groups by ('' for one that stays alone). */
export function sig(n) {
  return GROUPED.has(n.kind) ? n.kind + ':' + (n.post ? n.post.id : 0) : '';
}

/** group is a row of notifications, newest first; its id is the newest's. */
export function group(items) {
  return { id: items[0].id, kind: items[0].kind, post: items[0].post, items };
}

/** groupRun groups the notifications of a page, newest first: each run of one kind on one post in a row is one group. */
export function groupRun(items) {
  const out = [];
  for (const n of items) {
    const last = out[out.length - 1];
    if (last && sig(n) && sig(last.items[0]) === sig(n)) last.items.push(n);
    else out.push(group([n]));
  }
  return out;
}

/** groupText is a group's sentence with {{name}} kept: "{{name}} and 2 others liked your post". */
function groupText(g) {
  const others = new Set(g.items.map((n) => n.actor && n.actor.id)).size - 1;
  const onComment = g.post && g.post.kind === 'comment';
  const key = g.kind === 'like' ? (onComment ? 'notify.group_like_comment' : 'notify.group_like_post') : 'notify.group_' + g.kind;
  return t(key, { ...slots('name'), count: others, total: others + 1 });
}

/** actorsOf are a group's actors, each once, newest first. */
function actorsOf(g) {
  const seen = new Map();
  for (const n of g.items) if (n.actor && !seen.has(n.actor.id)) seen.set(n.actor.id, n.actor);
  return [...seen.values()];
}

/** groupRow draws a group of several actors (one alone is drawn by single(n)). */
export function groupRow(g, ctx, single) {
  const actors = actorsOf(g);
  if (actors.length < 2) return single(g.items[0]);
  const unread = g.items.some((n) => !n.read);
  const first = actors[0];
  const text = g.post ? (g.post.content || (g.post.repost_of && !g.post.repost_of.deleted ? g.post.repost_of.content : '') || '') : '';
  const kindIcon = { like: 'heart', repost: 'repost', follow: 'userPlus' }[g.kind] || 'bell';
  return h('article', { class: 'notif notif-group' + (unread ? ' unread' : ''), dataset: { id: String(g.id), kind: g.kind, count: String(actors.length) } },
    h('span', { class: 'notif-icon notif-' + g.kind, attrs: { 'aria-hidden': 'true' } }, icon(kindIcon, 18)),
    h('div', { class: 'notif-body' },
      h('div', { class: 'notif-avatars', attrs: { 'aria-hidden': 'true' } },
        actors.slice(0, 5).map((a) => h('a', { href: ctx.href('/u/' + encodeURIComponent(a.username)), tabIndex: -1 }, avatar(a, 'sm')))),
      h('p', { class: 'notif-text' },
        unread ? h('span', { class: 'visually-hidden' }, t('notify.new')) : null,
        phrase(groupText(g), { name: h('span', { class: 'notif-name' }, nameLink(ctx, first)) }),
        h('span', { class: 'dot', attrs: { 'aria-hidden': 'true' } }, ' · '),
        h('span', { class: 'time' }, timeElement(g.items[0].created_at))),
      g.post && text ? own(excerpt(text, 140), 'a', { class: 'notif-post', href: ctx.href('/p/' + g.post.id) }) : null));
}

/**
 * tabBar is the row of tabs; onPick(tab) is told of the one picked. The
 * arrow keys move between them, as in any tab list.
 */
export function tabBar(current, onPick) {
  const buttons = TABS.map((tab) => h('button', {
    type: 'button', class: 'notif-tab', dataset: { tab: tab.id },
    attrs: { role: 'tab', 'aria-selected': String(tab.id === current), tabindex: tab.id === current ? '0' : '-1' },
    on: { click: () => pick(tab) },
  }, t(tab.label)));
  const bar = h('div', { class: 'notif-tabs', attrs: { role: 'tablist', 'aria-label': t('notify.tabs') } }, buttons);
  function pick(tab) {
    for (const b of buttons) {
      const on = b.dataset.tab === tab.id;
      b.setAttribute('aria-selected', String(on));
      b.setAttribute('tabindex', on ? '0' : '-1');
    }
    onPick(tab);
  }
  bar.addEventListener('keydown', (e) => {
    const i = buttons.indexOf(document.activeElement);
    if (i < 0 || (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft')) return;
    const next = buttons[(i + (e.key === 'ArrowRight' ? 1 : buttons.length - 1)) % buttons.length];
    next.focus();
    next.click();
    e.preventDefault();
  });
  return bar;
}

/**
 * acceptedFollow shows at once that a protected account let the reader
 * in: every follow button for it on the page says Following.
 */
export function acceptedFollow(n) {
  if (!n.actor) return;
  for (const b of document.querySelectorAll('.btn-follow')) {
    if (b.dataset.user === n.actor.username && b.syncFollow) b.syncFollow(true, false);
  }
}
