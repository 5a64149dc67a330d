// views.js holds the desktop page's screens. Each returns {el, title,
// destroy?, onEvent?}; app.js swaps them in on navigation.

import { h, icon, fill, own } from './core/dom.js';
import { Feed } from './core/feed.js';
import { postCard, avatar } from './core/render.js';
import { avatarPicker } from './core/media.js';
import { authForm, profileFeed, commentReplies, bioEditor, topicFeed, likersFeed, relationParts, pinnedFeed, bookmarksFeed } from './core/views.js';
import { listsPanel, listPage, listsPicker } from './core/lists.js';
import { notificationsList } from './core/notify.js';
import { accountArea, settingsSection } from './core/account.js';
import { lookFields } from './core/look.js';
import { privacyArea, followRequests } from './core/privacy.js';
import { linkArea, signInOptions, providersOf } from './core/sso.js';
import { forgotLink, emailArea } from './core/recovery.js';
import { bumpCount } from './core/social.js';
import { shortDate } from './core/time.js';
import { composer } from './compose.js';
import { searchPage } from './search.js';
import { messageButton } from './core/messages.js';
import { tagFollowButton, followedTags } from './core/tags.js';
import { trendsBox } from './core/trends.js';
import { t, errorText } from './core/i18n.js';
import { tWith, languageSelect, languageFooter } from './lang.js';
import { remoteNote } from './core/remote.js';
import { profileHeading, headerBanner, profileFields, profileSettings, stat as profileStat } from './core/profile.js';

/** auth is the log-in or sign-up form. */
export function auth(ctx, mode, onDone) {
  const signup = mode === 'signup';
  const switchLine = h('p', { class: 'auth-switch' }, signup ? t('desktop.auth.haveAccount') : t('desktop.auth.newHere'),
    h('a', { href: signup ? '/login' : '/signup' }, signup ? t('desktop.account.login') : t('desktop.auth.createAccount')));
  const sso = signInOptions(ctx, { onList: (list) => {
    if (list.local_signup) return;
    if (signup) ctx.go('/login', { replace: true }); else switchLine.hidden = true;
  } });
  const { form, name } = authForm(ctx, mode, (res) => onDone(res.user), {
    provider: sso,
    nameHelp: t('desktop.auth.nameHelp'),
    focusOnError: true,
    messages: {
      401: t('desktop.auth.wrongPassword'),
      409: t('desktop.auth.nameTaken'),
      429: t('desktop.auth.tooMany'),
    },
  });

  const el = h('div', { class: 'auth' },
    h('div', { class: 'auth-card card' },
      h('div', { class: 'auth-brand' }, h('span', { class: 'brand-mark brand-mark-lg', attrs: { 'aria-hidden': 'true' } })),
      h('h1', {}, signup ? t('desktop.auth.joinTitle') : t('desktop.auth.loginTitle')),
      h('p', { class: 'muted' }, signup ? t('desktop.auth.joinText') : t('desktop.auth.loginText')),
      sso.buttons,
      form,
      signup ? null : forgotLink(ctx, '/forgot'),
      switchLine,
      h('p', { class: 'auth-switch' }, h('a', { href: '/public' }, t('desktop.auth.browse')))),
    languageFooter());
  setTimeout(() => name.focus(), 0);
  return { el, title: signup ? t('desktop.account.signup') : t('desktop.account.login'), keepFocus: true };
}

function pageHead(title, sub) {
  return h('div', { class: 'page-head' }, h('h1', {}, title), sub ? h('p', { class: 'muted' }, sub) : null);
}

/** home is the composer over the live home timeline. */
export function home(ctx) {
  const feed = ctx.app.homeFeed;
  if (ctx.app.homeStale) { ctx.app.homeStale = false; feed.reset(); }
  const box = composer({
    me: ctx.me(), toast: ctx.toast, ctx, poll: true,
    onSubmit: async (text, mediaIds, extra) => {
      const post = await ctx.api.createPost(text, null, mediaIds, undefined, extra);
      feed.add(post, { hold: false });
    },
  });
  const card = h('div', { class: 'card composer-card' }, box.el);
  const el = h('div', { class: 'view' }, pageHead(t('desktop.home.title')), card, feed.el);
  // compose is the rail's New post button: the box comes into view with the focus.
  const compose = () => { card.scrollIntoView({ block: 'nearest' }); box.focus(); };
  return { el, title: t('desktop.home.title'), compose };
}

/**
 * landing is what a logged-out visitor meets at /: what the place is, the
 * way in (sign up, log in, the language), what is trending and the newest
 * public posts, as Weibo's 热搜 and Mastodon's Explore show them.
 */
export function landing(ctx) {
  const signup = h('a', { class: 'btn btn-primary', href: '/signup' }, t('desktop.account.signup'));
  providersOf(ctx).then((list) => { signup.hidden = !list.local_signup; });
  const hero = h('section', { class: 'card landing-hero', attrs: { 'aria-labelledby': 'landing-title' } },
    h('span', { class: 'brand-mark brand-mark-lg', attrs: { 'aria-hidden': 'true' } }),
    h('h1', { id: 'landing-title' }, t('desktop.landing.title')),
    h('p', { class: 'landing-text' }, t('desktop.landing.text')),
    h('div', { class: 'landing-actions' }, signup, h('a', { class: 'btn', href: '/login' }, t('desktop.account.login'))),
    languageFooter());
  const page = explore(ctx, [hero], t('desktop.landing.latest'));
  return { ...page, title: null };
}

/** publicTimeline is everyone's newest posts; it checks for newer ones now and then. */
export function publicTimeline(ctx) {
  return explore(ctx, [
    pageHead(t('desktop.public.title'), t('desktop.public.sub')),
    ctx.me() ? null : h('div', { class: 'card banner' },
      h('p', {}, t('desktop.public.join')),
      h('a', { class: 'btn btn-primary', href: '/signup' }, t('desktop.account.signup'))),
  ]);
}

/**
 * explore is the public timeline under head (nodes), with the trends over
 * it where the side column, which has them, does not show; listTitle, if
 * given, is a heading over the posts.
 */
function explore(ctx, head, listTitle = null) {
  const feed = ctx.trackFeed(new Feed({
    load: (page) => ctx.api.public(page),
    render: (p) => postCard(p, ctx),
    empty: t('desktop.public.empty'),
    label: t('desktop.public.label'),
  }));
  feed.reset();
  const poll = setInterval(async () => {
    if (document.hidden || feed.loading || !feed.maxId) return;
    try {
      const page = await ctx.api.public({ after: feed.maxId, limit: 50 });
      for (const p of page.items.sort((a, b) => a.id - b.id)) feed.add(p);
    } catch { /* try again next time */ }
  }, 15_000);
  const el = h('div', { class: 'view' },
    ...head,
    trendsBox(ctx, { cls: 'card trends-inline', hideEmpty: true, limit: 5 }),
    listTitle ? h('h2', { class: 'section-title' }, listTitle) : null,
    feed.el);
  return {
    el, title: t('desktop.public.title'), destroy: () => clearInterval(poll),
    onEvent: (type, post) => { if (type === 'post') feed.add(post); },
  };
}

/** profile is a user's page with posts, followers or following. */
export function profile(ctx, name, tab) {
  const header = h('div', { class: 'card profile-card' }, h('div', { class: 'spinner' }));
  const base = '/u/' + encodeURIComponent(name);
  const tabs = h('nav', { class: 'tabs', attrs: { 'aria-label': t('desktop.profile.sections') } },
    [['posts', t('desktop.profile.posts'), base], ['followers', t('desktop.profile.followers'), base + '/followers'], ['following', t('desktop.profile.following'), base + '/following']]
      .map(([key, label, href]) => h('a', { href, class: 'tab' + (tab === key ? ' active' : ''), attrs: tab === key ? { 'aria-current': 'page' } : {} }, label)));
  const feed = profileFeed(ctx, name, tab, {
    followers: () => h('p', { class: 'empty' }, tWith('desktop.profile.noFollowers', { name })),
    following: () => h('p', { class: 'empty' }, tWith('desktop.profile.noFollowing', { name })),
  });
  const pins = tab === 'posts' ? pinnedFeed(ctx, name) : null;
  let user = null;
  const counts = {};
  let loaded = false;

  function drawHeader() {
    const me = ctx.me();
    const self = me && me.id === user.id;
    const rel = relationParts(ctx, user, { followed, changed });
    const lists = listsPicker(user, ctx);
    const stat = (key, n, href) => (counts[key] = profileStat(key, n, href, 'stat')).el;
    const bio = user.bio ? own(user.bio, 'p', { class: 'bio' }) : h('p', { class: 'bio muted' }, self ? t('desktop.profile.noBio') : '');
    fill(header,
      headerBanner(user),
      h('div', { class: 'profile-top' },
        avatar(user, 'xl'),
        h('div', { class: 'profile-actions' },
          self ? avatarPicker(ctx, { onDone: (u) => { user = u; ctx.avatarChanged(u); drawHeader(); } }) : null,
          self ? h('button', { type: 'button', class: 'btn', on: { click: () => editBio(bio) } }, t('desktop.profile.editBio')) : null,
          self ? h('a', { class: 'btn', href: '/settings' }, icon('settings', 18), t('desktop.settings.title')) : null,
          self ? h('a', { class: 'btn', href: '/account' }, icon('user', 18), t('desktop.account.title')) : rel.button,
          messageButton(user, ctx),
          lists.button,
          rel.menu)),
      profileHeading(user, 'h1', rel.lock),
      remoteNote(user),
      rel.states,
      bio,
      profileFields(user),
      h('p', { class: 'muted small' }, t('desktop.profile.joined', { date: shortDate(user.created_at) })),
      h('div', { class: 'stats' },
        stat('posts', user.posts_count, base),
        stat('following', user.following_count, base + '/following'),
        stat('followers', user.followers_count, base + '/followers')),
      lists.panel,
      rel.note);
    // A block or a protected account leaves no posts to list; once that changes, they load.
    if (!loaded && (rel.showsPosts || tab !== 'posts')) {
      loaded = true;
      feed.reset();
      if (pins) pins.reset();
    }
  }

  /** followed shows a follow in the counts, keeping the button's focus. */
  function followed() {
    counts.followers.set(user.followers_count);
  }

  /** changed draws the header again after a block or mute from it, and gives its menu back the focus. */
  function changed() {
    drawHeader();
    const menu = header.querySelector('.menu-btn');
    if (menu) menu.focus();
  }

  function editBio(bioEl) {
    bioEl.replaceWith(bioEditor(ctx, user, () => drawHeader()));
  }

  ctx.api.user(name).then((u) => { user = u; drawHeader(); }, (err) => {
    fill(header, h('h1', {}, err.status === 404 ? t('desktop.profile.noSuchUser') : t('desktop.profile.loadFailed')),
      h('p', { class: 'muted' }, err.status === 404 ? tWith('desktop.profile.noSuchUserText', { name }) : errorText(err)));
    // No such user: no tabs nor lists of theirs to offer.
    if (err.status === 404) for (const part of [tabs, pins && pins.el, feed.el]) if (part) part.hidden = true;
  });

  const el = h('div', { class: 'view' }, header, tabs, pins && pins.el, feed.el);
  return {
    el, title: name,
    onEvent(type, data) {
      if (!user) return;
      if (type === 'post' && tab === 'posts' && data.author.id === user.id) feed.add(data);
      if (type === 'follow' && ctx.me() && ctx.me().id === user.id) {
        user.followers_count++;
        counts.followers.set(user.followers_count);
        if (tab === 'followers') feed.add(data);
      }
    },
  };
}

/** thread is one post with its comments; comments can be answered in turn. */
export function thread(ctx, id) {
  const top = h('div', { class: 'card thread-top' }, h('div', { class: 'spinner' }));
  const el = h('div', { class: 'view' },
    h('div', { class: 'page-head page-head-back' },
      backButton(ctx),
      h('h1', {}, t('desktop.thread.title'))),
    top);
  const replies = new Map(); // parent id → Feed of its comments

  function commentList(parentId, depth) {
    const f = ctx.trackFeed(new Feed({
      load: (p) => ctx.api.comments(parentId, p),
      render: (c) => commentNode(c, depth),
      empty: depth === 0 ? t('desktop.thread.noComments') : t('desktop.thread.noReplies'),
      label: depth === 0 ? t('desktop.thread.comments') : t('desktop.thread.replies'),
    }));
    replies.set(Number(parentId), f);
    f.el.classList.add('thread-list');
    f.reset();
    return f;
  }

  function replyBox(parent, onPosted) {
    return composer({
      placeholder: t('desktop.thread.replyPlaceholder'), label: tWith('desktop.thread.replyTo', { name: parent.author.username }), button: t('desktop.thread.reply'),
      rows: 2, me: ctx.me(), toast: ctx.toast, suggest: ctx,
      onSubmit: async (text) => {
        const since = performance.now();
        const c = await ctx.api.comment(parent.id, text);
        onPosted(c);
        bumpCount(parent.id, 'comments', 1, since); // every copy of the parent on the page
      },
    });
  }

  function commentNode(c, depth) {
    const wrap = h('div', { class: 'comment', dataset: { depth: String(depth) } });
    const boxSlot = h('div', { class: 'reply-slot' });
    const answers = commentReplies(c, () => commentList(c.id, depth + 1), boxSlot);
    const reply = () => {
      if (!ctx.me()) { ctx.go('/login?next=' + encodeURIComponent(location.pathname)); return; }
      answers.open();
      if (boxSlot.firstChild) { boxSlot.replaceChildren(); return; } // the button toggles the box
      const box = replyBox(c, (nc) => {
        answers.list.add(nc, { hold: false });
        answers.added();
        boxSlot.replaceChildren();
      });
      boxSlot.append(box.el);
      box.focus();
    };
    wrap.append(postCard(c, ctx, { onComment: reply }), answers.button, answers.children);
    return wrap;
  }

  ctx.api.post(id).then((post) => {
    const comments = commentList(post.id, 0);
    const box = ctx.me()
      ? replyBox(post, (c) => { comments.add(c, { hold: false }); })
      : null;
    fill(top, 
      post.parent_id ? h('a', { class: 'replying', href: ctx.href('/p/' + post.parent_id) }, icon('back', 14), t('desktop.thread.showParent')) : null,
      postCard(post, ctx, { detail: true, onComment: () => box && box.focus() }),
      box ? h('div', { class: 'thread-reply' }, box.el)
        : h('p', { class: 'muted' }, h('a', { href: '/login?next=/p/' + post.id }, t('desktop.account.login')), t('desktop.thread.toReply')),
      h('h2', { class: 'section-title' }, t('desktop.thread.comments')),
      comments.el);
  }, (err) => {
    fill(top, h('h2', {}, err.status === 404 ? t('desktop.thread.noSuchPost') : t('desktop.thread.loadFailed')),
      h('p', { class: 'muted' }, err.status === 404 ? t('desktop.thread.maybeDeleted') : errorText(err)));
  });

  return {
    el, title: t('desktop.thread.title'),
    onEvent(type, c) {
      if (type !== 'comment') return;
      const f = replies.get(Number(c.parent_id));
      if (f) f.add(c);
    },
  };
}

/** likers lists who liked a post. */
export function likers(ctx, id) {
  const feed = likersFeed(ctx, id);
  const el = h('div', { class: 'view' },
    h('div', { class: 'page-head page-head-back' }, backButton(ctx), h('h1', {}, t('desktop.likers.title'))),
    h('p', { class: 'muted page-sub' }, h('a', { href: '/p/' + encodeURIComponent(id) }, t('desktop.likers.showPost'))),
    feed.el);
  return { el, title: t('desktop.likers.title') };
}

/** topic lists the posts carrying a tag, newest first, and checks for new ones every few seconds. */
export function topic(ctx, tag) {
  const topicList = topicFeed(ctx, tag);
  const el = h('div', { class: 'view' },
    h('div', { class: 'page-head page-head-back' }, backButton(ctx),
      h('div', {}, own('#' + tag, 'h1', { class: 'topic-title' }), h('p', { class: 'muted' }, t('desktop.topic.sub'))),
      ctx.me() ? tagFollowButton(ctx, tag) : null),
    topicList.feed.el);
  return { el, title: '#' + tag, destroy: topicList.destroy, onEvent: topicList.onEvent };
}

/** search finds people and topics (the top bar's box leads here on Enter, and on narrow screens). */
export function search(ctx, q) {
  const page = searchPage(ctx, q);
  page.el.prepend(pageHead(t('desktop.search.title')));
  return { el: page.el, title: t('desktop.search.title'), keepFocus: true, destroy: page.stop };
}

/** notifications lists likes, comments, replies, reposts, mentions and new followers; opening it marks them read. */
export function notifications(ctx) {
  const list = notificationsList(ctx, ctx.app.unread);
  const el = h('div', { class: 'view' }, pageHead(t('desktop.notifications.title')), list.el);
  return { el, title: t('desktop.notifications.title'), onEvent: list.onEvent, destroy: list.destroy };
}

/** topics lists the topics the reader follows, each with its Following button. */
export function topics(ctx) {
  const list = followedTags(ctx);
  const el = h('div', { class: 'view' }, pageHead(t('desktop.topics.title'), t('desktop.topics.sub')), list.el);
  return { el, title: t('desktop.topics.title') };
}

/** bookmarks lists the posts the reader bookmarked, newest bookmark first. */
export function bookmarks(ctx) {
  const feed = bookmarksFeed(ctx);
  const el = h('div', { class: 'view' }, pageHead(t('desktop.bookmarks.title'), t('desktop.bookmarks.sub')), feed.el);
  return { el, title: t('desktop.bookmarks.title') };
}

/** account is the Account page: change password, log out everywhere, delete the account. */
export function account(ctx) {
  const area = accountArea(ctx, { signedOut: ctx.signedOut, sectionClass: 'card' });
  const el = h('div', { class: 'view' },
    pageHead(t('desktop.account.title'), tWith('desktop.account.signedInAs', { name: '@' + ctx.me().username })),
    linkArea(ctx, { sectionClass: 'card' }).el,
    emailArea(ctx, { sectionClass: 'card' }).el,
    area.el);
  return { el, title: t('desktop.account.title') };
}

/** settings is the Settings page: protected posts, follow requests, filtered words, blocks and mutes, the language, and this device's theme and text size. */
export function settings(ctx) {
  const el = h('div', { class: 'view' },
    pageHead(t('desktop.settings.title'), t('desktop.settings.sub')),
    profileSettings(ctx, { cls: 'card' }),
    privacyArea(ctx, { sectionClass: 'card' }).el,
    settingsSection('settings-language-title', t('settings.language'), null, 'card',
      languageSelect({ 'aria-labelledby': 'settings-language-title' })),
    settingsSection('settings-look-title', t('look.title'), null, 'card', ...lookFields('look')),
    h('p', { class: 'muted page-sub' }, t('desktop.settings.accountBefore'), h('a', { href: '/account' }, t('desktop.account.title')), t('desktop.settings.accountAfter')));
  return { el, title: t('desktop.settings.title') };
}

/** requests lists who asks to follow the reader's protected account, to approve or reject. */
export function requests(ctx) {
  const el = h('div', { class: 'view' },
    h('div', { class: 'page-head page-head-back' }, backButton(ctx), h('h1', {}, t('desktop.requests.title'))),
    h('p', { class: 'muted page-sub' }, t('desktop.requests.sub'), h('a', { href: '/settings' }, t('desktop.settings.title'))),
    followRequests(ctx).el);
  return { el, title: t('desktop.requests.title') };
}

function backButton(ctx) {
  return h('button', { type: 'button', class: 'btn btn-ghost btn-icon', attrs: { 'aria-label': t('desktop.back') }, on: { click: () => (history.length > 1 ? history.back() : ctx.go('/')) } }, icon('back'));
}

export function notFound() {
  return {
    el: h('div', { class: 'view' }, h('div', { class: 'card' },
      h('h1', {}, t('desktop.notFound.title')), h('p', {}, h('a', { href: '/' }, t('desktop.notFound.home'))))),
    title: t('desktop.notFound.short'),
  };
}

/** lists is the reader's lists (关注分组): make, rename, delete, open. */
export function lists(ctx) {
  const panel = listsPanel(ctx);
  const el = h('div', { class: 'view' }, pageHead(t('desktop.lists.title'), t('desktop.lists.sub')), h('div', { class: 'card' }, panel.el));
  return { el, title: t('desktop.lists.title') };
}

/** list is one of the reader's lists: its posts and its members. */
export function list(ctx, id) {
  const view = { title: t('desktop.lists.title') };
  const page = listPage(ctx, id, {
    onTitle: (title) => { view.title = title; ctx.app.title = t('desktop.title', { page: title }); document.title = ctx.app.title; },
  });
  view.el = h('div', { class: 'view' }, h('div', { class: 'card list-card' }, page.el));
  view.onEvent = page.onEvent;
  view.destroy = page.destroy;
  return view;
}
