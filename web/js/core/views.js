// views.js holds the parts of screens that both front ends build alike: the
// log-in and sign-up form, the list under a profile, the replies under a
// comment in a thread, the bio editor, a topic's list (polled for new
// posts), a profile's pinned posts, the bookmarks, who liked a post, and
// the empty home timeline's suggestions. What is around them (cards,
// headings, links, tabs) is each front end's own layout.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, fill, own, phrase, slots } from './dom.js';
import { t } from './i18n.js';
import { Feed, retryable, RETRY_FIRST, RETRY_MAX } from './feed.js';
import { postCard, userRow, followButton, canFollow } from './render.js';
import { lockMark, profileMenu, unblockButton, userStates, profileNote } from './safety.js';
import { textEditor } from './editor.js';
import { whoToFollow } from './search.js';

/** MAX_BIO is the longest bio, in characters. */
export const MAX_BIO = 160;

/**
 * authForm is the log-in (mode 'login') or sign-up ('signup') form. Its
 * fields carry the server's rules for names and passwords. onDone gets the
 * API's answer ({user, token}). A failure shows in the form as
 * messages[err.status], or err.message when that has none; with
 * focusOnError the field to fix (the name when it is taken, else the
 * password) gets the focus. nameHelp, if given, shows under the name when
 * signing up. provider, if given, is a field to choose a password
 * provider (core/sso.js) and a function saying which one is chosen. It
 * returns the form and its name field.
 */
export function authForm(ctx, mode, onDone, { messages, nameHelp = null, focusOnError = false, provider = null }) {
  const signup = mode === 'signup';
  const error = h('p', { class: 'form-error', attrs: { role: 'alert' }, hidden: true });
  const name = h('input', { id: 'username', name: 'username', required: true, autocomplete: 'username', attrs: { autocapitalize: 'none', autocorrect: 'off', spellcheck: 'false', minlength: '2', maxlength: '30' } });
  const pass = h('input', { id: 'password', name: 'password', type: 'password', required: true, autocomplete: signup ? 'new-password' : 'current-password', attrs: { minlength: '8', maxlength: '128' } });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary btn-block' }, signup ? t('auth.create_account') : t('auth.log_in'));
  const form = h('form', { class: 'auth-form', on: { submit: send } },
    !signup && provider ? provider.field : null,
    h('div', { class: 'field' }, h('label', { htmlFor: 'username' }, t('auth.username')), name,
      signup && nameHelp ? h('p', { class: 'help' }, nameHelp) : null),
    h('div', { class: 'field' }, h('label', { htmlFor: 'password' }, t('auth.password')), pass,
      signup ? h('p', { class: 'help' }, t('auth.password_help')) : null),
    error, submit);

  async function send(e) {
    e.preventDefault();
    error.hidden = true;
    submit.disabled = true;
    try {
      const res = signup
        ? await ctx.api.register(name.value.trim(), pass.value)
        : await ctx.api.login(name.value.trim(), pass.value, provider ? provider.provider() : null);
      await onDone(res);
    } catch (err) {
      error.textContent = messages[err.status] || err.message;
      error.hidden = false;
      submit.disabled = false;
      if (focusOnError) (err.status === 409 ? name : pass).focus();
    }
  }
  return { form, name };
}

/** about fills the {{name}} (or other slot) of text, a t() of slots(slot), with what a user wrote: a name, a topic. */
function about(text, value, slot = 'name') {
  return phrase(text, { [slot]: own(value) });
}

/**
 * profileFeed is the list under name's profile for tab ('posts',
 * 'followers' or 'following'), tracked by the app; empty holds what the
 * followers and following lists say when they have no one.
 */
export function profileFeed(ctx, name, tab, empty) {
  const NAME = slots('name');
  return ctx.trackFeed(tab === 'posts'
    ? new Feed({
      load: (p) => ctx.api.userPosts(name, p), render: (p) => postCard(p, ctx),
      empty: () => h('p', { class: 'empty' }, about(t('profile.no_posts', NAME), name)),
      label: about(t('profile.posts_label', NAME), name),
    })
    : new Feed({
      load: (p) => (tab === 'followers' ? ctx.api.followers : ctx.api.following)(name, p),
      render: (u) => userRow(u, ctx),
      empty: () => peopleEmpty(ctx, name, empty[tab]),
      label: about(tab === 'followers' ? t('profile.followers_label', NAME) : t('profile.following_label', NAME), name),
      canRefresh: false,
    }));
}

/**
 * peopleEmpty is what an empty followers or following list of name says:
 * text (or what a function of the front end draws), unless name is a
 * protected account the reader may not see the people of (it is neither
 * them nor an approved fan), whose lists the server keeps empty.
 */
function peopleEmpty(ctx, name, text) {
  const node = typeof text === 'function' ? text() : h('p', { class: 'empty' }, text);
  ctx.api.user(name).then((u) => {
    const me = ctx.me();
    if (u.protected && !u.following && !(me && me.id === u.id)) {
      node.replaceChildren(...about(t('profile.people_protected', slots('name')), name));
    }
  }, () => {});
  return node;
}

/**
 * pinnedFeed lists the posts name pinned to their profile, newest pin
 * first, each marked Pinned, for the top of their profile; they show in
 * their own place in the list under it too, as on Twitter. It loads on its
 * first reset(), and again when the reader pins or unpins (core/keeps.js).
 */
export function pinnedFeed(ctx, name) {
  const feed = ctx.trackFeed(new Feed({
    load: () => ctx.api.pinned(name), render: (p) => postCard(p, ctx, { pinned: true }),
    empty: '', label: about(t('profile.pinned_label', slots('name')), name), canRefresh: false,
  }));
  feed.pinsOf = name;
  feed.el.classList.add('pinned-feed');
  return feed;
}

/**
 * bookmarksFeed lists the reader's bookmarks, newest bookmark first; a post
 * unbookmarked from it leaves it (core/keeps.js).
 */
export function bookmarksFeed(ctx) {
  const feed = ctx.trackFeed(new Feed({
    load: (p) => ctx.api.bookmarks(p), render: (p) => postCard(p, ctx),
    empty: t('keeps.bookmarks_empty'),
    label: t('keeps.bookmarks'), canRefresh: false,
  }));
  feed.bookmarks = true;
  feed.reset();
  return feed;
}

/**
 * relationParts are the parts of someone's profile header that say and
 * change where the reader stands with them: the Follow (or Unblock) button,
 * the "⋯" menu, the lock of a protected account, the states (Blocked,
 * Muted, Blocks you, Suspended) and the note that says why no posts show
 * (showsPosts is false then). followed(user) is told of a follow or a
 * request, after the note is updated; changed(user) of a block or mute,
 * to draw the header again.
 */
export function relationParts(ctx, user, { followed, changed }) {
  const me = ctx.me();
  const self = me && me.id === user.id;
  const text = profileNote(user, ctx);
  const note = h('p', { class: 'profile-note', hidden: !text }, text);
  const onFollow = () => {
    const now = profileNote(user, ctx);
    fill(note, now);
    note.hidden = !now;
    followed(user);
  };
  return {
    button: !me || self ? null : user.blocking ? unblockButton(user, ctx, changed) : canFollow(user) ? followButton(user, ctx, onFollow) : null,
    menu: profileMenu(user, ctx, changed),
    lock: user.protected ? lockMark(20) : null,
    states: userStates(user),
    note,
    showsPosts: !text,
  };
}

/**
 * commentReplies holds the answers to comment c in a thread: a button that
 * shows and hides them, and the box they go in (children, after the nodes
 * in top, such as a reply form). makeList() makes their Feed the first time
 * they open; hiding keeps it, so opening again does not reload. The button
 * always says what a click will do ("Show 2 replies", "Hide replies", with
 * aria-expanded), however the box was opened: the app's Reply action calls
 * open(). It shows only while there is something to show or hide. added()
 * counts a reply the reader just wrote.
 */
export function commentReplies(c, makeList, ...top) {
  let count = c.comments_count;
  let list = null;
  const children = h('div', { class: 'comment-children', hidden: true }, ...top);
  const button = h('button', { type: 'button', class: 'link-btn show-replies', on: { click: () => show(children.hidden) } });
  function show(open) {
    if (open && !list) { list = makeList(); children.append(list.el); }
    children.hidden = !open;
    button.hidden = !open && count === 0;
    button.textContent = open ? t('replies.hide') : t('replies.show', { count });
    button.setAttribute('aria-expanded', String(open));
  }
  show(false);
  return {
    button, children,
    get list() { return list; },
    open: () => show(true),
    added: () => { count++; },
  };
}

/**
 * bioEditor is the form that edits the logged-in user's bio (PATCH /me),
 * with its 160-character counter. done(user) is called with the saved User,
 * or with null on Cancel.
 */
export function bioEditor(ctx, user, done) {
  return textEditor({
    value: user.bio || '', max: MAX_BIO, label: t('profile.bio'), cls: 'bio-form', cancel: () => done(null),
    save: async (text) => {
      const u = await ctx.api.updateMe({ bio: text });
      Object.assign(user, u);
      const me = ctx.me();
      if (me && me.id === u.id) me.bio = u.bio;
      done(user);
    },
  });
}

/**
 * pollNewer asks load({after, limit}) every `every` ms for items newer than
 * the feed's newest and adds them at the top (behind the "new posts" button
 * when the reader has scrolled down). A failure waits longer each time, as
 * the lists do (1 s, 2 s, 4 s … 30 s, or the server's Retry-After); an error
 * that waiting cannot fix stops it. It returns stop().
 */
export function pollNewer(feed, load, every = 5000) {
  let timer = null;
  let stopped = false;
  let failures = 0;
  const schedule = (ms) => { if (!stopped) timer = setTimeout(tick, ms); };
  async function tick() {
    if (document.hidden || feed.loading || feed.failed) { schedule(every); return; } // a failed list backs off by itself
    try {
      const page = await load(feed.maxId ? { after: feed.maxId, limit: 50 } : { limit: 50 });
      if (stopped) return;
      failures = 0;
      if (page.next_cursor && feed.maxId) { await feed.reset(); schedule(every); return; } // too many to add: start over
      for (const item of (page.items || []).sort((a, b) => a.id - b.id)) feed.add(item);
      schedule(every);
    } catch (err) {
      if (stopped || !retryable(err)) return;
      failures++;
      const wait = Math.max(Math.min(RETRY_MAX, RETRY_FIRST * 2 ** (failures - 1)), (Number(err.retryAfter) || 0) * 1000, every);
      schedule(wait);
    }
  }
  schedule(every);
  return () => { stopped = true; clearTimeout(timer); };
}

/**
 * topicFeed is the list of posts carrying tag (newest first), checked for
 * new ones every few seconds while it is open. Live posts from followed
 * people that carry the tag join it at once. It returns {feed, onEvent, destroy}.
 */
export function topicFeed(ctx, tag, every = TOPIC_POLL) {
  const feed = ctx.trackFeed(new Feed({
    load: (p) => ctx.api.tagPosts(tag, p),
    // A comment carrying the topic links to what it answers.
    render: (p) => postCard(p, ctx, { showParent: true }),
    empty: () => h('p', { class: 'empty' }, about(t('topic.no_posts', slots('tag')), '#' + tag, 'tag')),
    label: about(t('topic.label', slots('tag')), '#' + tag, 'tag'),
  }));
  feed.reset();
  const stop = pollNewer(feed, (p) => ctx.api.tagPosts(tag, p), every);
  const folded = tag.toLowerCase();
  return {
    feed,
    onEvent(type, post) {
      if (type === 'post' && (post.tags || []).some((t) => t.toLowerCase() === folded)) feed.add(post);
    },
    destroy: stop,
  };
}

/** TOPIC_POLL is how often (ms) an open topic page asks for new posts. */
export const TOPIC_POLL = 4000;

/** likersFeed lists who liked post id, newest like first. */
export function likersFeed(ctx, id) {
  const feed = ctx.trackFeed(new Feed({
    load: (p) => ctx.api.likes(id, p),
    render: (u) => userRow(u, ctx),
    empty: t('likers.empty'),
    label: t('likers.label'),
    canRefresh: false,
  }));
  feed.reset();
  return feed;
}

/**
 * homeEmpty is what an empty home timeline shows: text, and people to
 * follow; after a follow, a button loads their posts.
 */
export function homeEmpty(ctx, text) {
  const show = h('button', { type: 'button', class: 'btn btn-primary btn-small', hidden: true, on: { click: () => {
    ctx.app.homeStale = false;
    if (ctx.app.homeFeed) ctx.app.homeFeed.reset();
  } } }, t('home.show_their_posts'));
  return h('div', { class: 'home-empty' },
    h('p', { class: 'empty' }, text),
    whoToFollow(ctx, { limit: 5, onFollow: () => { show.hidden = false; } }),
    show);
}
