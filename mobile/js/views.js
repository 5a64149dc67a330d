// views.js holds the mobile app's screens. Each returns {el, title, back?,
// noTabs?, feed?, refresh?, destroy?, onEvent?, userTitle?}; app.js swaps
// them in. userTitle says the title is what a user wrote (a name, a tag), so
// the app bar marks it as not to be translated.

import { h, icon, fill } from './core/dom.js';
import { Feed } from './core/feed.js';
import { postCard, avatar } from './core/render.js';
import { authForm, profileFeed, commentReplies, bioEditor, topicFeed, likersFeed, relationParts, pinnedFeed, bookmarksFeed } from './core/views.js';
import { listsPanel, listPage, listsPicker } from './core/lists.js';
import { charCounter } from './core/editor.js';
import { composeAssist } from './core/assist.js';
import { spoilerField } from './core/spoiler.js';
import { markReposted, repostMade } from './core/reposts.js';
import { notificationsList } from './core/notify.js';
import { accountArea } from './core/account.js';
import { lookFields } from './core/look.js';
import { privacyArea, followRequests } from './core/privacy.js';
import { linkArea, signInOptions, providersOf } from './core/sso.js';
import { trendsBox } from './core/trends.js';
import { forgotLink, emailArea } from './core/recovery.js';
import { searchScreen } from './core/postsearch.js';
import { bumpCount } from './core/social.js';
import { shortDate, timeElement } from './core/time.js';
import { MAX_POST } from './core/api.js';
import { attachments, avatarPicker } from './core/media.js';
import { pollComposer } from './core/polls.js';
import { messageButton } from './core/messages.js';
import { tagFollowButton, followedTags } from './core/tags.js';
import { t, errorText, LANGUAGES, lang, setLang } from './core/i18n.js';
import { waitingList } from './waiting.js';
import { pushArea } from './push.js';
import { remoteNote } from './core/remote.js';
import { profileHeading, headerBanner, profileFields, profileSettings, shownName, stat as profileStat } from './core/profile.js';

/** auth is the log-in or sign-up screen. */
export function auth(ctx, mode) {
  const signup = mode === 'signup';
  const switchLine = h('p', { class: 'auth-switch' }, h('a', { href: signup ? '#/login' : '#/signup' }, signup ? t('mobile.auth.have_account') : t('mobile.auth.create_account')));
  const sso = signInOptions(ctx, { mobile: true, onList: (list) => {
    if (list.local_signup) return;
    if (signup) ctx.go('/login', { replace: true }); else switchLine.hidden = true;
  } });
  const { form } = authForm(ctx, mode, (res) => ctx.loggedIn(res), {
    provider: sso,
    messages: { 401: t('mobile.auth.wrong_password'), 409: t('mobile.auth.name_taken') },
    nameHelp: t('mobile.auth.name_help'),
  });
  // Which server to talk to is a question only inside the packaged app
  // (Cordova): served at /m/, the app talks to the server it came from.
  const serverLink = ctx.config.packaged() ? [' · ', h('a', { href: '#/settings' }, t('mobile.auth.server'))] : [];
  const el = h('div', { class: 'auth' },
    h('div', { class: 'auth-brand' }, h('img', { src: 'icons/icon.svg', alt: '', width: 64, height: 64 })),
    h('h2', {}, signup ? t('mobile.auth.signup_heading') : t('mobile.auth.login_heading')),
    sso.buttons,
    form,
    signup ? null : forgotLink(ctx, '#/forgot'),
    switchLine,
    h('p', { class: 'auth-switch' }, h('a', { href: '#/public' }, t('mobile.auth.browse')), ...serverLink),
    languageField('auth-language'));
  return { el, title: signup ? t('mobile.auth.signup_title') : t('mobile.auth.login_title'), noTabs: true };
}

/** home is the live home timeline. */
export function home(ctx) {
  const feed = ctx.app.homeFeed;
  if (ctx.app.homeStale) { ctx.app.homeStale = false; feed.reset(); }
  return { el: h('div', { class: 'view' }, waitingList(ctx, 'post'), feed.el), title: t('mobile.home.title'), feed, refresh: () => feed.refresh() };
}

/**
 * landing is what the app shows a logged-out visitor at #/home: what the
 * place is, the way in (sign up, log in), the top trends and the newest
 * public posts, as Weibo's app shows its 热搜 and hot feed before any log-in.
 */
export function landing(ctx) {
  const feed = ctx.trackFeed(new Feed({
    load: (p) => ctx.api.public(p), render: (p) => postCard(p, ctx), empty: t('mobile.public.empty'), label: t('mobile.public.label'),
  }));
  feed.reset();
  const signup = h('a', { class: 'btn btn-primary', href: '#/signup' }, t('mobile.landing.signup'));
  providersOf(ctx).then((list) => { signup.hidden = !list.local_signup; });
  const el = h('div', { class: 'view' },
    h('section', { class: 'landing-hero', attrs: { 'aria-labelledby': 'landing-title' } },
      h('img', { src: 'icons/icon.svg', alt: '', width: 48, height: 48 }),
      h('h2', { id: 'landing-title' }, t('mobile.landing.title')),
      h('p', { class: 'muted' }, t('mobile.landing.text')),
      h('div', { class: 'landing-actions' }, signup, h('a', { class: 'btn', href: '#/login' }, t('mobile.landing.login')))),
    trendsBox(ctx, { cls: 'landing-trends', hideEmpty: true, limit: 5 }),
    h('h2', { class: 'section-title landing-latest' }, t('mobile.landing.latest')),
    feed.el);
  return { el, title: t('mobile.app.name'), feed, refresh: () => feed.refresh() };
}

/** publicTimeline is everyone's newest posts. */
export function publicTimeline(ctx) {
  const feed = ctx.trackFeed(new Feed({
    load: (p) => ctx.api.public(p), render: (p) => postCard(p, ctx), empty: t('mobile.public.empty'), label: t('mobile.public.label'),
  }));
  feed.reset();
  const el = h('div', { class: 'view' },
    ctx.me() ? null : h('div', { class: 'banner' }, h('p', {}, t('mobile.public.login_hint')),
      h('a', { class: 'btn btn-primary btn-small', href: '#/login' }, t('mobile.public.login'))),
    feed.el);
  return { el, title: t('mobile.public.title'), feed, refresh: () => feed.refresh(), back: !ctx.me() };
}

/** compose is the full-screen post (or repost) editor. */
export function compose(ctx) {
  const repost = ctx.app.repostOf;
  ctx.app.repostOf = null;
  const area = h('textarea', { id: 'compose', class: 'compose-input', placeholder: repost ? t('mobile.compose.repost_placeholder') : t('mobile.compose.placeholder'), rows: 6 });
  const counter = charCounter(MAX_POST, 'compose-count');
  area.setAttribute('aria-describedby', 'compose-count');
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, repost ? t('mobile.compose.repost') : t('mobile.compose.post'));
  const error = h('p', { class: 'form-error', attrs: { role: 'alert' }, hidden: true });
  // A phone's picker offers the camera and the gallery for image/*.
  const media = repost ? null : attachments(ctx, { accept: 'image/*', onChange: () => update() });
  const assist = composeAssist(area, ctx, { max: MAX_POST });
  const poll = repost ? null : pollComposer({ onChange: () => update() });
  const cw = repost ? null : spoilerField(() => update()); // a content warning, as the desktop composer has
  const update = () => {
    const left = counter.show(area.value);
    const empty = area.value.trim() === '' && !(media && media.count() > 0);
    submit.disabled = left < 0 || (!repost && empty) || (media && media.failed()) || (poll && !poll.valid()) || (cw && cw.tooLong());
    assist.sync();
  };
  area.addEventListener('input', update);
  const form = h('form', { class: 'compose', on: { submit: async (e) => {
    e.preventDefault();
    if (submit.disabled) return;
    submit.disabled = true;
    error.hidden = true;
    try {
      const ids = media ? await media.ready() : [];
      const res = await ctx.app.outbox.write('post', { content: area.value.trim(), repost_of: repost ? repost.id : null, media_ids: ids, poll: poll ? poll.value() : null, spoiler: cw ? cw.value() : '' });
      if (res.sent) ctx.posted(res.sent);
      if (res.sent && repost) repostMade(ctx, res.sent);
      area.value = '';
      if (media) media.clear();
      if (poll) poll.clear();
      if (cw) cw.clear();
      ctx.toast(!res.sent ? t('outbox.saved') : repost ? t('mobile.compose.reposted') : t('mobile.compose.posted'));
      ctx.go('/home');
    } catch (err) {
      if (repost && err.code === 'already_reposted') markReposted(ctx, repost.id, true);
      error.textContent = errorText(err);
      error.hidden = false;
      update();
    }
  } } },
  cw ? cw.el : null,
  h('div', { class: 'compose-top' }, avatar(ctx.me()),
    h('label', { htmlFor: 'compose', class: 'visually-hidden' }, repost ? t('mobile.compose.repost_label') : t('mobile.compose.label')), assist.el),
  repost ? h('div', { class: 'quote' },
    h('div', { class: 'post-head' }, avatar(repost.author, 'sm'), h('span', { class: 'name', translate: false }, shownName(repost.author)), h('span', { class: 'dot' }, '·'), timeElement(repost.created_at)),
    h('p', { class: 'content', translate: false }, repost.content)) : null,
  media ? media.el : null,
  poll ? poll.el : null,
  error,
  h('div', { class: 'compose-bar' }, assist.button, media ? media.button : null, media ? media.input : null, poll ? poll.button : null, cw ? cw.toggle : null, counter.el, submit));
  update();
  setTimeout(() => area.focus(), 50);
  return { el: h('div', { class: 'view' }, form), title: repost ? t('mobile.compose.repost_title') : t('mobile.compose.title'), back: true };
}

/** profile is a user's page; for the logged-in user it is the "Me" tab. */
export function profile(ctx, name, tab) {
  const header = h('div', { class: 'profile' }, h('div', { class: 'spinner' }));
  const base = '#/u/' + encodeURIComponent(name);
  const tabs = h('nav', { class: 'seg', attrs: { 'aria-label': t('mobile.profile.sections') } },
    [['posts', t('mobile.profile.posts'), base], ['followers', t('mobile.profile.followers'), base + '/followers'], ['following', t('mobile.profile.following'), base + '/following']]
      .map(([key, label, href]) => h('a', { href, class: 'seg-item' + (tab === key ? ' active' : ''), attrs: tab === key ? { 'aria-current': 'page' } : {} }, label)));
  const feed = profileFeed(ctx, name, tab, { followers: t('mobile.profile.no_followers'), following: t('mobile.profile.no_following') });
  const pins = tab === 'posts' ? pinnedFeed(ctx, name) : null;
  const me = ctx.me();
  const self = me && me.username.toLowerCase() === name.toLowerCase();
  let loaded = false;
  function draw(user) {
    const followers = profileStat('followers', user.followers_count, base + '/followers');
    const rel = relationParts(ctx, user, {
      followed: () => followers.set(user.followers_count),
      // A block or mute from the menu: draw again, and give the menu back the focus.
      changed: () => { draw(user); const m = header.querySelector('.menu-btn'); if (m) m.focus(); },
    });
    const lists = listsPicker(user, ctx);
    const bio = user.bio ? h('p', { class: 'bio', translate: false }, user.bio) : self ? h('p', { class: 'bio muted' }, t('mobile.profile.no_bio')) : null;
    fill(header,
      headerBanner(user),
      h('div', { class: 'profile-top' }, avatar(user, 'xl'),
        self ? h('div', { class: 'profile-actions' },
          avatarPicker(ctx, { accept: 'image/*', cls: 'btn btn-small', onDone: (u) => { Object.assign(user, { avatar_url: u.avatar_url }); ctx.avatarChanged(u); draw(user); } }),
          h('button', { type: 'button', class: 'btn btn-small', on: { click: () => bio.replaceWith(bioEditor(ctx, user, () => draw(user))) } }, t('mobile.profile.edit_bio')),
          h('button', { type: 'button', class: 'btn btn-small', on: { click: () => ctx.logout() } }, icon('logout', 18), t('mobile.profile.log_out')))
          : me ? h('div', { class: 'profile-actions' }, rel.button, messageButton(user, ctx), lists.button, rel.menu) : null),
      profileHeading(user, 'h2', rel.lock),
      remoteNote(user),
      rel.states,
      bio,
      profileFields(user),
      h('p', { class: 'muted small' }, t('mobile.profile.joined', { date: shortDate(user.created_at) })),
      h('div', { class: 'stats' },
        profileStat('posts', user.posts_count, base).el,
        profileStat('following', user.following_count, base + '/following').el,
        followers.el),
      lists.panel,
      rel.note,
      // Me holds what the five tabs leave out (index.html): the public timeline and search.
      self ? h('nav', { class: 'me-links', attrs: { 'aria-label': t('mobile.profile.more') } },
        h('a', { class: 'btn btn-small', href: '#/public' }, icon('globe', 18), t('mobile.tab.public')),
        h('a', { class: 'btn btn-small', href: '#/search' }, icon('search', 18), t('mobile.tab.search'))) : null);
    const title = document.getElementById('title'); // the app bar: the name shown, once known
    if (!self && user.display_name && title && location.hash.startsWith('#/u/')) title.textContent = user.display_name;
    // A block or a protected account leaves no posts to list; once that changes, they load.
    if (!loaded && (rel.showsPosts || tab !== 'posts')) {
      loaded = true;
      feed.reset();
      if (pins) pins.reset();
    }
  }
  ctx.api.user(name).then(draw, (err) => {
    fill(header, h('h2', {}, err.status === 404 ? t('mobile.profile.no_such_user') : t('mobile.profile.load_failed')), h('p', { class: 'muted' }, errorText(err)));
    // No such user: no tabs nor lists of theirs to offer.
    if (err.status === 404) for (const part of [tabs, pins && pins.el, feed.el]) if (part) part.hidden = true;
  });
  return {
    el: h('div', { class: 'view' }, header, tabs, pins && pins.el, feed.el), title: self ? t('mobile.profile.me_title') : name, userTitle: !self, back: !self, feed,
    refresh: () => { if (pins && loaded) pins.reset(); return feed.refresh(); },
  };
}

/** thread is a post with its comments; any comment can be answered. */
export function thread(ctx, id) {
  const root = Number(id); // the post the page is about: comments written here wait under it
  const top = h('div', { class: 'thread' }, h('div', { class: 'spinner' }));
  const lists = new Map();
  function list(parentId, depth) {
    const f = ctx.trackFeed(new Feed({
      load: (p) => ctx.api.comments(parentId, p), render: (c) => node(c, depth),
      empty: depth === 0 ? t('mobile.thread.no_comments') : t('mobile.thread.no_replies'), label: depth === 0 ? t('mobile.thread.comments') : t('mobile.thread.replies'),
    }));
    lists.set(Number(parentId), f);
    f.reset();
    return f;
  }
  let replies = 0;
  /** replyForm answers parent, counting down the characters left as the composer does. */
  function replyForm(parent, onPosted) {
    const id = 'reply-' + parent.id + '-' + ++replies;
    // The label holds the author's name apart, marked as not to be translated.
    const label = h('label', { htmlFor: id + '-text', class: 'visually-hidden' }, withName(t('mobile.thread.reply_to', { name: NAME }), parent.author.username));
    const area = h('textarea', { id: id + '-text', class: 'compose-input reply-input', rows: 1, placeholder: t('mobile.thread.reply_placeholder'), attrs: { 'aria-describedby': id, maxlength: String(MAX_POST * 4) } });
    const counter = charCounter(MAX_POST, id);
    const send = h('button', { type: 'submit', class: 'btn btn-primary btn-small', disabled: true }, t('mobile.thread.reply'));
    const assist = composeAssist(area, ctx, { max: MAX_POST });
    const update = () => { const left = counter.show(area.value); send.disabled = !area.value.trim() || left < 0; assist.sync(); };
    area.addEventListener('input', update);
    update();
    return h('form', { class: 'reply', on: { submit: async (e) => {
      e.preventDefault();
      if (send.disabled) return;
      send.disabled = true;
      const since = performance.now();
      try {
        const res = await ctx.app.outbox.write('comment', { parent_id: parent.id, content: area.value.trim(), thread: root });
        if (res.sent) {
          onPosted(res.sent);
          bumpCount(parent.id, 'comments', 1, since); // every copy of the parent on the screen
        } else ctx.toast(t('outbox.saved'));
        area.value = '';
      } catch (err) { ctx.toast(errorText(err)); }
      update();
    } } }, label, assist.el, assist.button, counter.el, send);
  }
  function node(c, depth) {
    const form = ctx.me() ? replyForm(c, (nc) => { answers.list.add(nc, { hold: false }); answers.added(); }) : null;
    const answers = commentReplies(c, () => list(c.id, depth + 1), form);
    // Reply opens the replies with the form; it never closes them (the button under the comment does).
    const reply = () => {
      answers.open();
      if (form) form.querySelector('textarea').focus();
    };
    const wrap = h('div', { class: 'comment' }, postCard(c, ctx, { onComment: reply }), answers.button, answers.children);
    return wrap;
  }
  ctx.api.post(id).then((post) => {
    const comments = list(post.id, 0);
    fill(top, 
      post.parent_id ? h('a', { class: 'replying', href: '#/p/' + post.parent_id }, t('mobile.thread.parent')) : null,
      postCard(post, ctx, { detail: true, onComment: () => {} }),
      ctx.me() ? replyForm(post, (c) => { comments.add(c, { hold: false }); }) : null,
      ctx.me() ? waitingList(ctx, 'comment', (item) => item.fields.thread === root) : null,
      comments.el);
  }, (err) => fill(top, h('h2', {}, err.status === 404 ? t('mobile.thread.not_found') : t('mobile.thread.load_failed')), h('p', { class: 'muted' }, errorText(err))));
  return {
    el: h('div', { class: 'view' }, top), title: t('mobile.thread.title'), back: true,
    onEvent(type, c) { if (type === 'comment') { const f = lists.get(Number(c.parent_id)); if (f) f.add(c); } },
  };
}

/** likers lists who liked a post. */
export function likers(ctx, id) {
  const feed = likersFeed(ctx, id);
  return { el: h('div', { class: 'view' }, feed.el), title: t('mobile.likers.title'), back: true, feed, refresh: () => feed.refresh() };
}

/** topic lists the posts carrying a tag, checking for new ones every few seconds. */
export function topic(ctx, tag) {
  const tf = topicFeed(ctx, tag);
  const el = h('div', { class: 'view' },
    h('div', { class: 'topic-head' }, h('p', { class: 'topic-sub muted' }, t('mobile.topic.about')),
      ctx.me() ? tagFollowButton(ctx, tag) : null),
    tf.feed.el);
  return { el, title: '#' + tag, userTitle: true, back: true, feed: tf.feed, refresh: () => tf.feed.refresh(), onEvent: tf.onEvent, destroy: tf.destroy };
}

/**
 * search finds posts, people (with follow buttons) and topics as you type,
 * and shows the trends while the box is empty.
 */
export function search(ctx) {
  const input = h('input', {
    id: 'search', type: 'search', value: ctx.app.searchQuery, placeholder: t('mobile.search.placeholder'), autocomplete: 'off',
    attrs: { autocapitalize: 'none', autocorrect: 'off', spellcheck: 'false', enterkeyhint: 'search', 'aria-describedby': 'search-help' },
  });
  const screen = searchScreen(ctx);
  input.addEventListener('input', () => { ctx.app.searchQuery = input.value; screen.set(input.value); });
  const form = h('form', { class: 'search-bar', attrs: { role: 'search' }, on: { submit: (e) => { e.preventDefault(); screen.now(input.value); input.blur(); } } },
    h('label', { htmlFor: 'search', class: 'visually-hidden' }, t('mobile.search.label')),
    h('span', { id: 'search-help', class: 'visually-hidden' }, t('mobile.search.help')),
    h('span', { class: 'search-icon', attrs: { 'aria-hidden': 'true' } }, icon('search', 20)),
    input);
  if (input.value.trim()) screen.now(input.value); else screen.set('');
  if (!input.value) setTimeout(() => input.focus(), 50);
  return { el: h('div', { class: 'view' }, form, screen.el), title: t('mobile.search.title'), destroy: screen.stop };
}

/** notifications lists what happened to you; opening it marks everything read. */
export function notifications(ctx) {
  const list = notificationsList(ctx, ctx.app.unread);
  return {
    el: h('div', { class: 'view' }, list.el), title: t('mobile.notifications.title'), feed: list.feed,
    refresh: () => list.feed.reset(), onEvent: list.onEvent, destroy: list.destroy,
  };
}

/** topics lists the topics the reader follows (the # on the Me tab's bar leads here). */
export function topics(ctx) {
  const list = followedTags(ctx);
  return {
    el: h('div', { class: 'view' }, h('p', { class: 'topic-sub muted' }, t('mobile.topics.about')), list.el),
    title: t('mobile.topics.title'), back: true,
  };
}

/** bookmarks lists the posts the reader bookmarked, newest bookmark first (the bookmark on the Me tab's bar leads here). */
export function bookmarks(ctx) {
  const feed = bookmarksFeed(ctx);
  return {
    el: h('div', { class: 'view' }, h('p', { class: 'topic-sub muted' }, t('mobile.bookmarks.about')), feed.el),
    title: t('mobile.bookmarks.title'), back: true, feed, refresh: () => feed.reset(),
  };
}

/**
 * settings holds, logged in, Privacy and safety (protected posts, follow
 * requests, filtered words, blocks and mutes) and the Account area; and
 * always which server the app talks to (needed inside Cordova).
 */
export function settings(ctx) {
  const input = h('input', { id: 'server', type: 'url', inputMode: 'url', placeholder: t('mobile.settings.server_placeholder'), value: ctx.config.server() || '', attrs: { autocapitalize: 'none', autocorrect: 'off', spellcheck: 'false' } });
  const msg = h('p', { class: 'form-error', attrs: { role: 'alert' }, hidden: true });
  const form = h('form', { class: 'auth-form', on: { submit: async (e) => {
    e.preventDefault();
    msg.hidden = true;
    try {
      const before = ctx.config.server();
      const origin = ctx.config.setServer(input.value);
      ctx.serverChanged();
      await ctx.api.public({ limit: 1 }); // is it a microblog server?
      if (before !== origin && ctx.me()) { await ctx.logout(); return; }
      ctx.toast(t('mobile.settings.connected', { origin }));
      ctx.go(ctx.me() ? '/home' : '/login');
    } catch (err) {
      msg.textContent = err.offline ? t('mobile.settings.unreachable') : errorText(err);
      msg.hidden = false;
    }
  } } },
  h('div', { class: 'field' }, h('label', { htmlFor: 'server' }, t('mobile.settings.server_address')), input,
    h('p', { class: 'help' }, t('mobile.settings.server_help'))),
  msg, h('button', { type: 'submit', class: 'btn btn-primary btn-block' }, t('mobile.settings.save')));
  // Logged in, the screen holds the Account area too (core/account.js).
  const acct = ctx.me() ? accountArea(ctx, { signedOut: ctx.signedOut }) : null;
  // Linking is a navigation with the session cookie, which the app has
  // only when its server serves it (at /m/), not from Cordova's origin.
  const links = ctx.me() && ctx.config.server() === location.origin ? linkArea(ctx, { mobile: true }) : null;
  const privacy = ctx.me() ? privacyArea(ctx) : null;
  const push = ctx.me() ? pushArea(ctx) : null;
  return {
    el: h('div', { class: 'view settings' },
      languageField('language'),
      h('section', { class: 'look', attrs: { 'aria-labelledby': 'look-title' } }, h('h2', { class: 'settings-title', id: 'look-title' }, t('look.title')), ...lookFields('look')),
      ctx.me() ? profileSettings(ctx) : null,
      push && push.el,
      privacy ? h('h2', { class: 'settings-title' }, t('mobile.settings.privacy')) : null, privacy && privacy.el,
      acct ? h('h2', { class: 'settings-title' }, t('mobile.settings.server')) : null, form,
      acct ? h('h2', { class: 'settings-title' }, t('mobile.settings.account')) : null, links && links.el,
      acct && emailArea(ctx).el, acct && acct.el),
    title: t('mobile.settings.title'), back: true, noTabs: !ctx.me(),
  };
}

/** requests lists who asks to follow the reader's protected account, to approve or reject. */
export function requests(ctx) {
  const feed = followRequests(ctx);
  return {
    el: h('div', { class: 'view' }, h('p', { class: 'topic-sub muted' }, t('mobile.requests.about')), feed.el),
    title: t('mobile.requests.title'), back: true, feed, refresh: () => feed.reset(),
  };
}

export function notFound() {
  return { el: h('div', { class: 'view' }, h('p', { class: 'empty' }, t('mobile.not_found.text'), ' ', h('a', { href: '#/home' }, t('mobile.not_found.home')))), title: t('mobile.not_found.title'), back: true };
}

/**
 * languageField is the choice of the language the app speaks, each language
 * named in itself; choosing one shows the app again in it, and it is
 * remembered (core/i18n.js).
 */
function languageField(id) {
  const select = h('select', { id, on: { change: () => setLang(select.value) } },
    LANGUAGES.map((l) => h('option', { value: l.code, selected: l.code === lang(), lang: l.code, translate: false }, l.name)));
  return h('div', { class: 'field language-field' }, h('label', { htmlFor: id }, t('settings.language')), select);
}

// NAME stands for a user's name in a text, so that withName can find it.
const NAME = '\u2063';

/** withName is text, in which NAME stands for name, as nodes: the name apart, marked as not to be translated. */
function withName(text, name) {
  const [before, after = ''] = text.split(NAME);
  return [before, h('span', { translate: false }, name), after];
}

/** lists is the reader's lists (关注分组; the list icon on the Me tab's bar leads here). */
export function lists(ctx) {
  const panel = listsPanel(ctx);
  return {
    el: h('div', { class: 'view' }, h('p', { class: 'topic-sub muted' }, t('mobile.lists.about')), panel.el),
    title: t('mobile.lists.title'), back: true, refresh: () => panel.refresh(),
  };
}

/** list is one of the reader's lists: its posts and its members. */
export function list(ctx, id) {
  const page = listPage(ctx, id, { onTitle: (title) => { const el = document.getElementById('title'); el.textContent = title; el.translate = false; } });
  return {
    el: h('div', { class: 'view' }, page.el), title: t('mobile.lists.title'), back: true, feed: page.feed,
    refresh: () => page.feed.refresh(), onEvent: page.onEvent, destroy: page.destroy,
  };
}
