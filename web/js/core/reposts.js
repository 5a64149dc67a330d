// reposts.js is the Repost button's state (a post's `reposted`, docs/api.md):
// pressed (aria-pressed, highlighted, "Reposted") once the reader reposted
// the post, in every copy of it on the page; a tap on it then takes the
// repost back (DELETE /posts/:id/repost), and the counts follow.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, icon } from './dom.js';
import { t } from './i18n.js';
import { bumpCount } from './social.js';

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

function show(btn, on) {
  btn.classList.toggle('reposted', on);
  btn.setAttribute('aria-pressed', String(on));
  btn.querySelector('.repost-state').textContent = on ? t('repost.reposted') : '';
  btn.title = on ? t('repost.undo') : '';
}

/** markReposted shows every Repost button of post id as reposted (on) or not. */
export function markReposted(ctx, id, on) {
  mine.set(Number(id), on);
  for (const btn of buttons(ctx, id)) show(btn, on);
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
  }, icon('repost', 18), h('span', { class: 'n' }), h('span', { class: 'repost-state' }));
  show(btn, isReposted(target));
  return btn;
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
