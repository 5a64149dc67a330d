// reposts.js is the Repost button's state (a post's `reposted`, docs/api.md):
// pressed (aria-pressed, highlighted, "Reposted") once the reader reposted
// the post, in every copy of it on the page; a tap on it then takes the
// repost back (DELETE /posts/:id/repost), and the counts follow.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, icon } from './dom.js';
import { t } from './i18n.js';
import { bumpCount, paint } from './social.js';

// What the reader did on this page (post id → reposted), which outlives
// the copies of a post drawn before (a live post carries no reposted of
// the reader's own).
const mine = new Map();

/** isReposted says whether the reader reposted post, as the page knows it. */
function isReposted(post) {
  return mine.has(post.id) ? mine.get(post.id) : post.reposted === true;
}

/** buttons are the Repost buttons of post id on the page and in the home timeline kept off screen. */
function buttons(ctx, id) {
  const sel = `.repost-btn[data-repost-of="${Number(id)}"]`;
  const found = new Set(document.querySelectorAll(sel));
  const home = ctx.app && ctx.app.homeFeed && ctx.app.homeFeed.el;
  if (home) for (const el of home.querySelectorAll(sel)) found.add(el);
  return [...found];
}

// The button's name stays "Repost: 3" (its visible count is in it, as axe
// asks); aria-pressed tells its state, and the word "Reposted" beside it,
// hidden from assistive technology, tells the eye.
function show(btn, on) {
  btn.classList.toggle('reposted', on);
  btn.setAttribute('aria-pressed', String(on));
  const state = btn.nextElementSibling;
  if (state) state.textContent = on ? t('repost.reposted') : '';
  btn.title = on ? t('repost.undo') : '';
}

/** markReposted shows every Repost button of post id as reposted (on) or not. */
export function markReposted(ctx, id, on) {
  mine.set(Number(id), on);
  for (const btn of buttons(ctx, id)) show(btn, on);
}

/**
 * repostMade shows the repost created (a Post) made: its original's Repost
 * buttons pressed and its count as the server answered it, on the page
 * and in the home timeline kept off screen (which missed the live counts).
 */
export function repostMade(ctx, created) {
  const orig = created && created.repost_of;
  if (!orig || orig.deleted) return;
  markReposted(ctx, orig.id, true);
  const sel = `[data-counts-of="${Number(orig.id)}"]`;
  const rows = new Set(document.querySelectorAll(sel));
  const home = ctx.app && ctx.app.homeFeed && ctx.app.homeFeed.el;
  if (home) for (const el of home.querySelectorAll(sel)) rows.add(el);
  for (const row of rows) {
    row.dataset.reposts = String(Math.max(Number(row.dataset.reposts) || 0, orig.reposts_count || 0));
    paint(row);
  }
}

/**
 * repostButton is the Repost button of target (the post itself, or the
 * original of a repost): not pressed, it calls ctx.repost (the app's way
 * to write the repost, which calls markReposted when done); pressed, it
 * takes the reader's repost back.
 */
export function repostButton(target, ctx) {
  const btn = h('button', {
    type: 'button', class: 'action repost-btn', dataset: { role: 'reposts', label: t('post.repost'), repostOf: String(target.id) },
    on: { click: () => (btn.getAttribute('aria-pressed') === 'true' ? undo(ctx, target.id) : ctx.repost(target)) },
  }, icon('repost', 18), h('span', { class: 'n' }));
  const group = h('span', { class: 'repost-group' }, btn, h('span', { class: 'repost-state', attrs: { 'aria-hidden': 'true' } }));
  show(btn, isReposted(target));
  return group;
}

/** undo takes the reader's repost of post id back. */
async function undo(ctx, id) {
  const since = performance.now();
  markReposted(ctx, id, false);
  try {
    await ctx.api.unrepost(id);
    bumpCount(id, 'reposts', -1, since);
    ctx.toast(t('repost.undone'));
  } catch (err) {
    markReposted(ctx, id, true);
    ctx.toast(err.status === 404 ? t('post.gone') : err.message);
  }
}
