// safety.js is what a person does about someone unpleasant, alike in both
// front ends: block, mute and report from a post's or a profile's "⋯" menu,
// the report dialog, and what a profile says of the two people (Blocked,
// Muted, Blocks you, the lock of a protected account).
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { ask } from './ask.js';
import { h, icon, own, phrase, slots } from './dom.js';
import { t } from './i18n.js';
import { countChars } from './api.js';
import { menuButton } from './menu.js';
import { shareItems } from './share.js';
import { originalItems } from './remote.js';

/** MAX_REASON is the longest reason of a report, in characters. */
export const MAX_REASON = 1000;

const NAME = slots('name');

/** named fills the {{name}} of text (a t() of NAME) with user's name (a phrase()). */
const named = (text, user) => phrase(text, { name: own(user.username) });

/** lockMark is the lock shown by the name of a protected account. */
export function lockMark(size = 16) {
  return h('span', { class: 'lock', title: t('safety.protected'), attrs: { role: 'img', 'aria-label': t('safety.protected') } }, icon('lock', size));
}

/**
 * hideAuthor takes name's posts (and, with quotes, the reposts of them by
 * others) off every list on the page, the home timeline kept off screen
 * included: the server shows none of them any more, from its next page on.
 */
function hideAuthor(ctx, name, quotes) {
  const by = (p) => p && p.author && p.author.username === name;
  for (const f of [ctx.app.homeFeed, ...ctx.app.feeds]) {
    if (f) f.removeWhere((item) => by(item) || (quotes && by(item.repost_of)));
  }
}

/**
 * setBlocked blocks user (after asking) or unblocks them, and tells
 * changed(user) with its fields updated. A block ends the follows both
 * ways and takes their posts off the page. It returns whether it did it.
 */
export async function setBlocked(ctx, user, on, changed = () => {}) {
  const name = user.username;
  if (on && !await ask(t('safety.confirm_block', { name }), t('safety.block_name', { name }))) return false;
  try {
    if (on) await ctx.api.block(name); else await ctx.api.unblock(name);
  } catch (err) {
    ctx.toast(err.message);
    return false;
  }
  user.blocking = on;
  if (on) {
    if (user.following) user.followers_count = Math.max(0, (user.followers_count || 1) - 1);
    user.following = false;
    user.requested = false;
    hideAuthor(ctx, name, true);
  }
  ctx.app.homeStale = true;
  ctx.toast(named(on ? t('safety.blocked_toast', NAME) : t('safety.unblocked_toast', NAME), user));
  changed(user);
  return true;
}

/** setMuted mutes or unmutes user, and tells changed(user). Muting takes their posts off the home timeline. */
export async function setMuted(ctx, user, on, changed = () => {}) {
  const name = user.username;
  try {
    if (on) await ctx.api.mute(name); else await ctx.api.unmute(name);
  } catch (err) {
    ctx.toast(err.message);
    return false;
  }
  user.muting = on;
  // A mute is about the reader's feed: the profile, the public and topic
  // pages still show them (as the server's do, and Mastodon's).
  if (on && ctx.app.homeFeed) ctx.app.homeFeed.removeWhere((item) => item && item.author && item.author.username === name);
  ctx.app.homeStale = true;
  ctx.toast(named(on ? t('safety.muted_toast', NAME) : t('safety.unmuted_toast', NAME), user));
  changed(user);
  return true;
}

/**
 * reportDialog asks why user (and, if given, their post) should be looked
 * at by the operators, and sends the report.
 */
export function reportDialog(ctx, user, post = null) {
  const name = user.username;
  const dialog = h('dialog', { class: 'dialog report-dialog', attrs: { 'aria-labelledby': 'report-title' } });
  const reason = h('textarea', { id: 'report-reason', class: 'compose-input report-reason', rows: 4, required: true,
    attrs: { maxlength: String(MAX_REASON * 4), 'aria-describedby': 'report-count' } });
  const count = h('span', { id: 'report-count', class: 'counter' });
  const error = h('p', { class: 'form-error', attrs: { role: 'alert' }, hidden: true });
  const send = h('button', { type: 'submit', class: 'btn btn-danger' }, t('report.send'));
  const update = () => {
    const n = countChars(reason.value.trim());
    count.textContent = `${n} / ${MAX_REASON}`;
    count.dataset.state = n > MAX_REASON ? 'over' : '';
    send.disabled = n === 0 || n > MAX_REASON;
  };
  reason.addEventListener('input', update);
  const form = h('form', { class: 'report-form', on: { submit: async (e) => {
    e.preventDefault();
    if (send.disabled) return;
    send.disabled = true;
    error.hidden = true;
    try {
      await ctx.api.report(name, reason.value.trim(), post ? [post.id] : []);
      dialog.close();
      ctx.toast(t('report.sent'));
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
      update();
    }
  } } },
  h('p', { class: 'muted' }, named(post ? t('report.post_help', NAME) : t('report.user_help', NAME), user)),
  post ? h('div', { class: 'quote' },
    h('div', { class: 'post-head' }, own(name, 'span', { class: 'name' })),
    own(post.content || (post.repost_of && post.repost_of.content) || '', 'p', { class: 'content' })) : null,
  h('label', { htmlFor: 'report-reason', class: 'report-label' }, t('report.reason')),
  reason, error,
  h('div', { class: 'composer-bar' }, count,
    h('button', { type: 'button', class: 'btn btn-ghost', on: { click: () => dialog.close() } }, t('common.cancel')), send));
  dialog.append(h('div', { class: 'dialog-head' },
    h('h2', { id: 'report-title' }, post ? t('report.post_title') : named(t('report.user_title', NAME), user))), form);
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  update();
  dialog.showModal();
  reason.focus();
}

/** muteItem and blockItem are the menu's Mute/Unmute and Block/Unblock, saying the state of the moment. */
function muteItem(ctx, user, changed) {
  return { label: named(user.muting ? t('safety.unmute_name', NAME) : t('safety.mute_name', NAME), user), icon: 'mute', run: () => setMuted(ctx, user, !user.muting, changed) };
}
function blockItem(ctx, user, changed) {
  return { label: named(user.blocking ? t('safety.unblock_name', NAME) : t('safety.block_name', NAME), user), icon: 'block', danger: !user.blocking, run: () => setBlocked(ctx, user, !user.blocking, changed) };
}

/**
 * postMenu is the "⋯" menu of someone else's post: copy its link, share
 * it, open it on its own server (a remote post's), mute or block its
 * author, or report the post. Logged out, it has
 * only Copy link and Share (one's own posts have ownPostMenu).
 */
export function postMenu(post, ctx) {
  const me = ctx.me();
  if (!me) return menuButton(t('post.menu'), () => [...shareItems(post, ctx), ...originalItems(post)], 'post-menu');
  // A post carries only its author's name: what we know of them starts from there.
  const author = { id: post.author.id, username: post.author.username, muting: false, blocking: false };
  return menuButton(t('post.menu'), () => [
    ...shareItems(post, ctx),
    ...originalItems(post),
    muteItem(ctx, author, () => {}),
    blockItem(ctx, author, () => {}),
    { label: t('report.post_item'), icon: 'flag', danger: true, run: () => reportDialog(ctx, author, post) },
  ], 'post-menu');
}

/**
 * profileMenu is the "⋯" menu of someone else's profile: mute, block or
 * report them; changed(user) is told of a change, to draw the profile again.
 */
export function profileMenu(user, ctx, changed) {
  const me = ctx.me();
  if (!me || me.id === user.id) return null;
  return menuButton(t('safety.menu_name', { name: user.username }), () => [
    muteItem(ctx, user, changed),
    blockItem(ctx, user, changed),
    { label: named(t('report.user_title', NAME), user), icon: 'flag', danger: true, run: () => reportDialog(ctx, user) },
  ], '', { quotesUser: true });
}

/** unblockButton is what a profile offers instead of Follow to whoever blocks its user (translate="no", as the follow button). */
export function unblockButton(user, ctx, changed) {
  return h('button', { type: 'button', class: 'btn btn-unblock', attrs: { 'aria-label': t('safety.unblock_name', { name: user.username }), translate: 'no' },
    on: { click: () => setBlocked(ctx, user, false, changed) } }, t('safety.unblock'));
}

/** userStates says what stands between the reader and user: Blocked, Muted, Blocks you, Suspended. */
export function userStates(user) {
  const chips = [
    user.blocking && [t('safety.state_blocked'), 'block'],
    user.muting && [t('safety.state_muted'), 'mute'],
    user.blocked_by && [t('safety.state_blocks_you'), 'block'],
    user.suspended && [t('safety.state_suspended'), 'shield'],
  ].filter(Boolean);
  if (!chips.length) return null;
  return h('p', { class: 'states' }, chips.map(([text, ic]) => h('span', { class: 'state-chip', dataset: { state: ic } }, icon(ic, 14), text)));
}

/**
 * profileNote says why a profile shows no posts (a phrase()), or null when
 * it shows them: one of the two blocks the other, the account is
 * suspended, or it is protected and the reader is not an approved fan.
 */
export function profileNote(user, ctx) {
  const me = ctx.me();
  if (me && me.id === user.id) return null;
  const note = (text) => named(text, user);
  if (user.blocking) return note(t('safety.note_blocking', NAME));
  if (user.blocked_by) return note(t('safety.note_blocked_by', NAME));
  if (user.suspended) return note(t('safety.note_suspended', NAME));
  if (user.protected && !user.following) {
    return user.requested ? note(t('safety.note_requested', NAME)) : note(t('safety.note_protected', NAME));
  }
  return null;
}
