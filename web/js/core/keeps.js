// keeps.js is what a person keeps, alike in both front ends: their own
// posts pinned to the top of their profile, and anyone's posts bookmarked
// to read later; and the "⋯" menu of their own post or comment, which
// edits it (core/edit.js) or pins it.
//
// The lists these change are Feeds in app.feeds tagged by core/views.js:
// feed.pinsOf (a profile's pinned posts, loaded again after a pin) and
// feed.bookmarks (the Bookmarks page, which an unbookmarked post leaves).
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, icon } from './dom.js';
import { t } from './i18n.js';
import { menuButton } from './menu.js';
import { shareItems } from './share.js';
import { startEdit, onPage } from './edit.js';

// What this page changed of posts' pinned and bookmarked (post id → true or
// false): every copy of a post, and those drawn later from the objects the
// lists hold, say the state of the moment.
const pinned = new Map();
const marked = new Map();
const busy = new Set(); // posts whose bookmark request is under way

const isPinned = (post) => (pinned.has(post.id) ? pinned.get(post.id) : !!post.pinned);
const isBookmarked = (post) => (marked.has(post.id) ? marked.get(post.id) : !!post.bookmarked);

/** setPinned pins the reader's post to their profile or unpins it, and loads that profile's pinned posts again if they show. */
async function setPinned(ctx, post, on) {
  try {
    if (on) await ctx.api.pin(post.id); else await ctx.api.unpin(post.id);
  } catch (err) {
    ctx.toast(err.message);
    return;
  }
  pinned.set(post.id, on);
  ctx.toast(on ? t('keeps.pinned_toast') : t('keeps.unpinned_toast'));
  const name = post.author.username.toLowerCase();
  for (const f of ctx.app.feeds) if (f.pinsOf && f.pinsOf.toLowerCase() === name) f.reset();
}

/**
 * ownPostMenu is the "⋯" menu of the reader's own post or comment: Edit
 * (in place), for a post "Pin to profile" or "Unpin", Copy link, Share,
 * and Delete (asked first; it was a bin in every action row).
 */
export function ownPostMenu(post, ctx) {
  const wrap = menuButton(t('post.menu'), () => [
    { label: t('keeps.edit'), icon: 'edit', run: () => startEdit(ctx, wrap.closest('.post'), post, () => wrap.querySelector('.menu-btn').focus()) },
    post.kind === 'post' && (isPinned(post)
      ? { label: t('keeps.unpin'), icon: 'pin', run: () => setPinned(ctx, post, false) }
      : { label: t('keeps.pin'), icon: 'pin', run: () => setPinned(ctx, post, true) }),
    ...shareItems(post, ctx),
    { label: t('post.delete'), icon: 'trash', danger: true, run: () => ctx.remove(post) },
  ].filter(Boolean), 'post-menu');
  return wrap;
}

/** showBookmarked sets every copy of post id's bookmark button to on. */
function showBookmarked(ctx, id, on) {
  marked.set(id, on);
  for (const btn of onPage(ctx, `[data-bookmark-of="${Number(id)}"]`)) {
    btn.setAttribute('aria-pressed', String(on));
    btn.title = on ? t('keeps.unbookmark') : t('keeps.bookmark');
  }
}

/**
 * toggleBookmark bookmarks post, or takes the bookmark away, at once on the
 * page and then on the server; a refusal puts the page back. A post no
 * longer bookmarked leaves the Bookmarks page.
 */
async function toggleBookmark(ctx, post) {
  if (busy.has(post.id)) return;
  const on = !isBookmarked(post);
  busy.add(post.id);
  showBookmarked(ctx, post.id, on);
  try {
    if (on) await ctx.api.bookmark(post.id); else await ctx.api.unbookmark(post.id);
    ctx.toast(on ? t('keeps.bookmarked_toast') : t('keeps.unbookmarked_toast'));
    if (!on) for (const f of ctx.app.feeds) if (f.bookmarks) f.remove(post.id);
  } catch (err) {
    showBookmarked(ctx, post.id, !on);
    ctx.toast(err.status === 404 ? t('post.gone') : err.message);
  } finally {
    busy.delete(post.id);
  }
}

/** bookmarkButton is the bookmark under a post, for a signed-in reader (null otherwise). */
export function bookmarkButton(post, ctx) {
  if (!ctx.me()) return null;
  const on = isBookmarked(post);
  return h('button', {
    type: 'button', class: 'action bookmark', title: on ? t('keeps.unbookmark') : t('keeps.bookmark'),
    dataset: { bookmarkOf: String(post.id) }, attrs: { 'aria-label': t('keeps.bookmark'), 'aria-pressed': String(on) },
    on: { click: () => toggleBookmark(ctx, post) },
  }, icon('bookmark', 18));
}

/** pinnedMark is the "Pinned" over a post at the top of a profile. */
export function pinnedMark() {
  return h('p', { class: 'pinned-mark' }, icon('pin', 14), t('keeps.pinned'));
}
