// render.js draws posts and users. Every piece of text that came from a user
// (names, bios, posts) goes into the page through h(), that is as text nodes.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.
//
// ctx, passed by the app: {
//   me(): the logged-in User or null,
//   href(path): the link for an app path like '/u/alice' or '/p/12',
//   repost(post), remove(post): actions the app carries out,
//   api: the API client, toast(message), go(path): open an app path,
//   askLogin(): send a logged-out reader to log in,
//   followed(user): optional, told after the reader (un)followed someone
// }

import { h, icon, own } from './dom.js';
import { t } from './i18n.js';
import { timeElement, shortDate, absoluteTime } from './time.js';
import { contentOf } from './text.js';
import { countsRow, likeControls, paint } from './social.js';
import { mediaGrid, mediaURL } from './media.js';
import { lockMark, postMenu } from './safety.js';
import { fresh, editedMark } from './edit.js';
import { bookmarkButton, ownPostMenu, pinnedMark } from './keeps.js';
import { nameLink } from './profile.js';
import { pollBox } from './polls.js';
import { avatar } from './avatar.js';
import { warning, folded } from './spoiler.js';
import { repostButton } from './reposts.js';
import { filteredCard } from './filtered.js';

export { avatar, avatarChanged, learnAvatar } from './avatar.js';

/** userLink links a name to the user's profile (marked translate="no", as every name). */
export function userLink(ctx, name, cls = 'name') {
  return own(name, 'a', { class: cls, href: ctx.href('/u/' + encodeURIComponent(name)) });
}

/**
 * quote shows the post a repost points at (or that it was deleted), with its
 * own counters and like button. It is not one big link, since it holds
 * links and buttons: a click on its text opens the post, and its time is the
 * link that keyboards reach.
 */
function quote(src, ctx) {
  if (!src || src.deleted) {
    return h('div', { class: 'quote quote-deleted', dataset: { quoteOf: String(src ? src.id : '') } },
      t('post.original_deleted'));
  }
  src = fresh(src);
  const row = countsRow(src, 'quote-actions');
  row.append(
    h('a', { class: 'action', href: ctx.href('/p/' + src.id), dataset: { role: 'comments', label: t('post.comments') } },
      icon('comment', 16), h('span', { class: 'n' })),
    h('span', { class: 'action action-static', dataset: { role: 'reposts', unit: 'reposts' } },
      icon('repost', 16), h('span', { class: 'n' }), h('span', { class: 'unit visually-hidden' })),
    likeControls(src, ctx));
  paint(row);
  const el = h('div', { class: 'quote' + folded(src), dataset: { quoteOf: String(src.id) } },
    h('div', { class: 'post-head' },
      avatar(src.author, 'sm'),
      nameLink(ctx, src.author),
      h('span', { class: 'dot', attrs: { 'aria-hidden': 'true' } }, '·'),
      h('a', { class: 'time', href: ctx.href('/p/' + src.id) }, timeElement(src.created_at)),
      editedMark(src, ctx)),
    warning(src),
    src.content ? contentOf(src, ctx.href) : null,
    mediaGrid(src.media, ctx),
    pollBox(src, ctx),
    row);
  el.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.target.closest('a, button') || String(getSelection())) return;
    ctx.go('/p/' + src.id);
  });
  return el;
}

/**
 * postCard draws a post, repost or comment, in the newest version the page
 * knows of. opts.detail marks the post a thread page is about;
 * opts.onComment, when set, makes the comment button call it instead of
 * opening the post; opts.pinned marks it Pinned (at the top of a profile).
 */
export function postCard(post, ctx, opts = {}) {
  post = fresh(post);
  if (post.filtered && !opts.unfold) return filteredCard(post, () => postCard(post, ctx, { ...opts, unfold: true }));
  const me = ctx.me();
  const mine = me && me.id === post.author.id;
  const name = post.author.username;
  const isRepost = !!post.repost_of;

  const actions = countsRow(post);
  const reply = post.kind === 'comment';
  const commentBtn = opts.onComment
    ? h('button', { type: 'button', class: 'action', on: { click: () => opts.onComment(post) }, dataset: { role: 'comments', label: reply ? t('post.reply') : t('post.comment') } },
      icon('comment', 18), h('span', { class: 'n', dataset: { count: 'comments' } }))
    : h('a', { class: 'action', href: ctx.href('/p/' + post.id), dataset: { role: 'comments', label: reply ? t('post.replies') : t('post.comments') } },
      icon('comment', 18), h('span', { class: 'n', dataset: { count: 'comments' } }));
  actions.append(commentBtn);
  if (post.kind === 'post' && me) {
    const target = isRepost && !post.repost_of.deleted ? post.repost_of : post;
    // A protected account's posts cannot be reposted (the server answers 403 protected).
    if (!(isRepost && post.repost_of.deleted) && !target.author.protected) {
      actions.append(repostButton(target, ctx));
    }
  }
  actions.append(likeControls(post, ctx));
  const bookmark = bookmarkButton(post, ctx);
  if (bookmark) actions.append(bookmark);
  paint(actions);

  return h('article', { class: 'post' + (opts.detail ? ' post-detail' : '') + (isRepost ? ' post-repost' : ''), dataset: { id: String(post.id), author: name } },
    h('a', { class: 'post-avatar', href: ctx.href('/u/' + encodeURIComponent(name)), tabIndex: -1, attrs: { 'aria-hidden': 'true' } }, avatar(post.author)),
    h('div', { class: 'post-body' + folded(post) },
      opts.pinned ? pinnedMark() : null,
      h('div', { class: 'post-head' },
        nameLink(ctx, post.author),
        post.author.protected ? lockMark(14) : null,
        isRepost ? h('span', { class: 'badge' }, icon('repost', 14), t('post.reposted')) : null,
        h('span', { class: 'dot', attrs: { 'aria-hidden': 'true' } }, '·'),
        h('a', { class: 'time', href: ctx.href('/p/' + post.id) }, timeElement(post.created_at)),
        editedMark(post, ctx),
        mine ? ownPostMenu(post, ctx) : postMenu(post, ctx)),
      post.kind === 'comment' && post.parent_id && opts.showParent
        ? h('a', { class: 'replying', href: ctx.href('/p/' + post.parent_id) }, t('post.in_reply')) : null,
      warning(post),
      post.content ? contentOf(post, ctx.href) : null,
      mediaGrid(post.media, ctx),
      pollBox(post, ctx),
      isRepost ? quote(post.repost_of, ctx) : null,
      // A post's own page says when in full, as Weibo's and Mastodon's do.
      opts.detail ? h('p', { class: 'post-date' }, h('time', { dateTime: post.created_at }, absoluteTime(post.created_at))) : null,
      actions));
}

/**
 * canFollow says whether the reader may follow user: not while either
 * blocks the other, nor a suspended account (which takes no new followers;
 * one who follows it may still unfollow).
 */
export function canFollow(user) {
  return !user.blocking && !user.blocked_by && (!user.suspended || !!user.following);
}

/**
 * followButton toggles following a user and keeps its label and aria-pressed
 * right, and those of every other follow button for that user on the page
 * (the same person may be in a list and in the suggestions). Following a
 * protected account asks it first: the button says "Requested" until it
 * answers, and a click takes the request back.
 *
 * Its aria-label names the user, which an attribute cannot mark apart, so
 * the whole button is translate="no" (as are the other buttons whose label
 * quotes a user): its own words are in the reader's language already.
 */
export function followButton(user, ctx, onChange = () => {}) {
  const btn = h('button', { type: 'button', class: 'btn btn-follow', dataset: { user: user.username }, attrs: { translate: 'no' } });
  btn.syncFollow = (following, requested) => {
    if (user.following !== following || !!user.requested !== requested) { user.following = following; user.requested = requested; show(); }
  };
  const show = () => {
    const asked = !user.following && !!user.requested;
    btn.textContent = user.following ? t('follow.following') : asked ? t('follow.requested') : t('follow.follow');
    btn.classList.toggle('btn-primary', !user.following && !asked);
    btn.setAttribute('aria-pressed', user.following || asked ? 'true' : 'false');
    const name = { name: user.username };
    btn.setAttribute('aria-label', user.following ? t('follow.unfollow_name', name) : asked ? t('follow.withdraw_name', name) : t('follow.follow_name', name));
  };
  btn.addEventListener('click', async () => {
    const was = user.following;
    const undo = was || !!user.requested;
    btn.disabled = true;
    try {
      const res = undo ? await ctx.api.unfollow(user.username) : await ctx.api.follow(user.username);
      const asked = !undo && !!(res && res.requested);
      user.following = !undo && !asked;
      user.requested = asked;
      if (was || user.following) user.followers_count += was ? -1 : 1;
      show();
      for (const other of document.querySelectorAll('.btn-follow')) {
        if (other !== btn && other.dataset.user === user.username && other.syncFollow) other.syncFollow(user.following, asked);
      }
      if (ctx.followed) ctx.followed(user);
      onChange(user);
    } catch (err) {
      ctx.toast(err.message);
    } finally {
      btn.disabled = false;
    }
  });
  show();
  return btn;
}

/**
 * userRow is one line of a list of users (followers, likes, search results,
 * suggestions); opts.onFollow is told when the reader (un)follows them.
 * opts.actions, if given, are the row's buttons instead of Follow (a list
 * of blocked accounts has Unblock).
 */
export function userRow(user, ctx, opts = {}) {
  const me = ctx.me();
  const follow = me && me.id !== user.id && user.following !== null && canFollow(user);
  return h('div', { class: 'user-row', dataset: { user: user.username } },
    h('a', { href: ctx.href('/u/' + encodeURIComponent(user.username)), tabIndex: -1, attrs: { 'aria-hidden': 'true' } }, avatar(user)),
    h('div', { class: 'user-row-body' },
      h('div', { class: 'user-row-name' }, nameLink(ctx, user)),
      user.bio ? own(user.bio, 'p', { class: 'bio' }) : h('p', { class: 'bio muted' }, t('user.joined', { date: shortDate(user.created_at) }))),
    opts.actions ? h('div', { class: 'row-actions' }, opts.actions) : follow ? followButton(user, ctx, opts.onFollow) : null);
}
