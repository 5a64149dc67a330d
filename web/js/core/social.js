// social.js keeps the counters under posts (likes, comments, reposts) and the
// like button. The same post may be on the page several times (in two lists,
// quoted inside reposts): each copy's row of actions carries
// data-counts-of="<id>" with the numbers in its dataset, and every change
// (a like, a reply written here, a live `counts` event) repaints all copies.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, icon } from './dom.js';
import { t, count } from './i18n.js';

const KINDS = ['likes', 'comments', 'reposts'];

/** fmtCount shows a count as the language writes it ("1,234", "1.2万"), and nothing for 0. */
export function fmtCount(n) {
  return n > 0 ? count(n) : '';
}

/** rows returns every row of actions of post id on the page. */
function rows(id) {
  return document.querySelectorAll(`[data-counts-of="${Number(id)}"]`);
}

/**
 * paint writes a row's numbers (its dataset: likes, comments, reposts,
 * liked) into its controls: the visible count and the accessible name
 * ("Unlike (3)") of each.
 */
export function paint(row) {
  const n = (k) => Math.max(0, Number(row.dataset[k]) || 0);
  const liked = row.dataset.liked === 'true';
  for (const el of row.querySelectorAll('[data-role]')) {
    const role = el.dataset.role;
    switch (role) {
      case 'like':
        el.classList.toggle('liked', liked);
        el.setAttribute('aria-pressed', String(liked));
        el.setAttribute('aria-label', liked ? t('social.unlike', { n: n('likes') }) : t('social.like', { n: n('likes') }));
        break;
      case 'likers':
        el.textContent = fmtCount(n('likes'));
        el.hidden = n('likes') === 0;
        el.setAttribute('aria-label', t('social.likers', { n: n('likes') }));
        el.classList.toggle('liked', liked);
        break;
      default: // comments, reposts: a control with a .n inside, its name in data-label
        if (!KINDS.includes(role)) break;
        el.querySelector('.n').textContent = fmtCount(n(role));
        // Only a quote's count of reposts, which is no button, says its unit.
        if (el.dataset.unit) el.querySelector('.unit').textContent = n(role) ? ' ' + t('social.reposts_unit', { count: n(role) }) : '';
        if (el.dataset.label) el.setAttribute('aria-label', t('social.counted', { label: el.dataset.label, n: n(role) }));
    }
  }
}

/** countsRow makes the container of a post's counters; paint it once filled. */
export function countsRow(post, cls = 'actions') {
  return h('div', {
    class: cls,
    dataset: {
      countsOf: String(post.id),
      likes: String(post.likes_count || 0),
      comments: String(post.comments_count || 0),
      reposts: String(post.reposts_count || 0),
      liked: String(!!post.liked),
    },
  });
}

// When the last live `counts` event for each post arrived (performance.now()).
const heard = new Map();

/** applyCounts sets every copy of a post's counters to a live `counts` event's numbers. */
export function applyCounts(data) {
  if (!data || data.id === undefined) return;
  heard.set(Number(data.id), performance.now());
  for (const row of rows(data.id)) {
    for (const k of KINDS) {
      const v = data[k + '_count'];
      if (typeof v === 'number') row.dataset[k] = String(v);
    }
    paint(row);
  }
}

/**
 * bumpCount adds delta to counter kind of every copy of post id, for a change
 * made here that began at since (performance.now()). When a live `counts`
 * event for the post has arrived since then, it already holds the change
 * (the server publishes it before it answers), and the count is left alone.
 */
export function bumpCount(id, kind, delta, since) {
  const t = heard.get(Number(id));
  if (t !== undefined && t >= since) return;
  for (const row of rows(id)) {
    row.dataset[kind] = String(Math.max(0, (Number(row.dataset[kind]) || 0) + delta));
    paint(row);
  }
}

/**
 * bumpLater is bumpCount for a change heard of on the live feed (a comment on
 * one of our posts): the `counts` event the server sends for the same change
 * may come just before or just after it, so it waits a moment and counts the
 * change only when no `counts` event for the post came near it.
 */
export function bumpLater(id, kind, delta, wait = 1500) {
  const at = performance.now();
  setTimeout(() => bumpCount(id, kind, delta, at - wait), wait);
}

function setLiked(id, liked) {
  for (const row of rows(id)) {
    row.dataset.liked = String(liked);
    paint(row);
  }
}

const inFlight = new Map(); // post id → the promise of its last like request, to keep them in order

/**
 * toggleLike likes or unlikes post id at once on the page (every copy) and
 * then on the server; if the server refuses, the page goes back to how it was.
 */
export function toggleLike(ctx, id) {
  const first = rows(id)[0];
  if (!first) return Promise.resolve();
  const was = first.dataset.liked === 'true';
  const now = !was;
  const since = performance.now();
  setLiked(id, now);
  bumpCount(id, 'likes', now ? 1 : -1, Infinity);
  const prev = inFlight.get(id) || Promise.resolve();
  const p = prev.then(() => (now ? ctx.api.like(id) : ctx.api.unlike(id))).catch((err) => {
    setLiked(id, was);
    bumpCount(id, 'likes', now ? -1 : 1, since);
    ctx.toast(err.status === 404 ? t('post.gone') : err.message);
  });
  inFlight.set(id, p);
  p.finally(() => { if (inFlight.get(id) === p) inFlight.delete(id); });
  return p;
}

/**
 * likeControls returns the like button and, next to it, the count that opens
 * the list of who liked the post. Logged out, the button asks to log in.
 */
export function likeControls(post, ctx) {
  const btn = h('button', {
    type: 'button', class: 'action like', dataset: { role: 'like' },
    on: { click: () => (ctx.me() ? toggleLike(ctx, post.id) : ctx.askLogin()) },
  }, icon('heart', 18));
  const who = h('a', { class: 'like-count', href: ctx.href('/p/' + post.id + '/likes'), dataset: { role: 'likers' } });
  return h('span', { class: 'like-group' }, btn, who);
}
