// views.js holds the mobile app's screens. Each returns {el, title, back?,
// noTabs?, feed?, refresh?, destroy?, onEvent?}; app.js swaps them in.

import { h, icon, fill } from './core/dom.js';
import { Feed } from './core/feed.js';
import { postCard, avatar, followButton } from './core/render.js';
import { authForm, profileFeed, commentReplies } from './core/views.js';
import { shortDate, timeElement } from './core/time.js';
import { countChars, MAX_POST } from './core/api.js';

/** auth is the log-in or sign-up screen. */
export function auth(ctx, mode) {
  const signup = mode === 'signup';
  const { form } = authForm(ctx, mode, (res) => ctx.loggedIn(res), {
    messages: { 401: 'Wrong username or password.', 409: 'That username is taken.' },
  });
  const el = h('div', { class: 'auth' },
    h('div', { class: 'auth-brand' }, h('img', { src: 'icons/icon.svg', alt: '', width: 64, height: 64 })),
    h('h2', {}, signup ? 'Create your account' : 'Log in to Microblog'),
    form,
    h('p', { class: 'auth-switch' }, h('a', { href: signup ? '#/login' : '#/signup' }, signup ? 'I have an account' : 'Create an account')),
    h('p', { class: 'auth-switch' }, h('a', { href: '#/public' }, 'Browse public posts'), ' · ', h('a', { href: '#/settings' }, 'Server')));
  return { el, title: signup ? 'Sign up' : 'Log in', noTabs: true };
}

/** home is the live home timeline. */
export function home(ctx) {
  const feed = ctx.app.homeFeed;
  if (ctx.app.homeStale) { ctx.app.homeStale = false; feed.reset(); }
  return { el: h('div', { class: 'view' }, feed.el), title: 'Home', feed, refresh: () => feed.refresh() };
}

/** publicTimeline is everyone's newest posts. */
export function publicTimeline(ctx) {
  const feed = ctx.trackFeed(new Feed({
    load: (p) => ctx.api.public(p), render: (p) => postCard(p, ctx), empty: 'No posts yet.', label: 'Public timeline',
  }));
  feed.reset();
  const el = h('div', { class: 'view' },
    ctx.me() ? null : h('div', { class: 'banner' }, h('p', {}, 'Log in to post and follow people.'),
      h('a', { class: 'btn btn-primary btn-small', href: '#/login' }, 'Log in')),
    feed.el);
  return { el, title: 'Public', feed, refresh: () => feed.refresh(), back: !ctx.me() };
}

/** compose is the full-screen post (or repost) editor. */
export function compose(ctx) {
  const repost = ctx.app.repostOf;
  ctx.app.repostOf = null;
  const area = h('textarea', { id: 'compose', class: 'compose-input', placeholder: repost ? 'Add a comment (optional)' : 'What’s happening?', rows: 6 });
  const num = h('span', { class: 'count-num' });
  const ring = h('span', { class: 'ring', attrs: { 'aria-hidden': 'true' } });
  const counter = h('span', { class: 'counter', id: 'compose-count' }, ring, num);
  area.setAttribute('aria-describedby', 'compose-count');
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, repost ? 'Repost' : 'Post');
  const error = h('p', { class: 'form-error', attrs: { role: 'alert' }, hidden: true });
  const update = () => {
    const n = countChars(area.value);
    const left = MAX_POST - n;
    ring.style.setProperty('--p', Math.min(n / MAX_POST, 1));
    counter.dataset.state = left < 0 ? 'over' : left <= 20 ? 'warn' : '';
    num.textContent = String(left);
    counter.setAttribute('aria-label', left >= 0 ? `${left} characters left` : `${-left} characters over the limit`);
    submit.disabled = left < 0 || (!repost && area.value.trim() === '');
  };
  area.addEventListener('input', update);
  const form = h('form', { class: 'compose', on: { submit: async (e) => {
    e.preventDefault();
    if (submit.disabled) return;
    submit.disabled = true;
    error.hidden = true;
    try {
      const post = await ctx.api.createPost(area.value.trim(), repost ? repost.id : null);
      ctx.posted(post);
      area.value = '';
      ctx.toast(repost ? 'Reposted.' : 'Posted.');
      ctx.go('/home');
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
      update();
    }
  } } },
  h('div', { class: 'compose-top' }, avatar(ctx.me().username),
    h('label', { htmlFor: 'compose', class: 'visually-hidden' }, repost ? 'Your comment' : 'Write a post'), area),
  repost ? h('div', { class: 'quote' },
    h('div', { class: 'post-head' }, avatar(repost.author.username, 'sm'), h('span', { class: 'name' }, repost.author.username), h('span', { class: 'dot' }, '·'), timeElement(repost.created_at)),
    h('p', { class: 'content' }, repost.content)) : null,
  error,
  h('div', { class: 'compose-bar' }, counter, submit));
  update();
  setTimeout(() => area.focus(), 50);
  return { el: h('div', { class: 'view' }, form), title: repost ? 'Repost' : 'New post', back: true };
}

/** profile is a user's page; for the logged-in user it is the "Me" tab. */
export function profile(ctx, name, tab) {
  const header = h('div', { class: 'profile' }, h('div', { class: 'spinner' }));
  const base = '#/u/' + encodeURIComponent(name);
  const tabs = h('nav', { class: 'seg', attrs: { 'aria-label': 'Profile sections' } },
    [['posts', 'Posts', base], ['followers', 'Followers', base + '/followers'], ['following', 'Following', base + '/following']]
      .map(([key, label, href]) => h('a', { href, class: 'seg-item' + (tab === key ? ' active' : ''), attrs: tab === key ? { 'aria-current': 'page' } : {} }, label)));
  const feed = profileFeed(ctx, name, tab, { followers: 'No followers yet.', following: 'Not following anyone yet.' });
  const me = ctx.me();
  const self = me && me.username.toLowerCase() === name.toLowerCase();
  ctx.api.user(name).then((user) => {
    const followers = h('strong', {}, String(user.followers_count));
    fill(header, 
      h('div', { class: 'profile-top' }, avatar(user.username, 'xl'),
        self ? h('button', { type: 'button', class: 'btn btn-small', on: { click: () => ctx.logout() } }, icon('logout', 18), 'Log out')
          : me ? followButton(user, ctx, () => { followers.textContent = String(user.followers_count); }) : null),
      h('h2', { class: 'profile-name' }, user.username),
      user.bio ? h('p', { class: 'bio' }, user.bio) : null,
      h('p', { class: 'muted small' }, 'Joined ' + shortDate(user.created_at)),
      h('div', { class: 'stats' },
        h('a', { href: base }, h('strong', {}, String(user.posts_count)), ' Posts'),
        h('a', { href: base + '/following' }, h('strong', {}, String(user.following_count)), ' Following'),
        h('a', { href: base + '/followers' }, followers, ' Followers')));
    feed.reset();
  }, (err) => {
    fill(header, h('h2', {}, err.status === 404 ? 'No such user' : 'Could not load this profile'), h('p', { class: 'muted' }, err.message));
  });
  return {
    el: h('div', { class: 'view' }, header, tabs, feed.el), title: self ? 'Me' : name, back: !self, feed,
    refresh: () => feed.refresh(),
  };
}

/** thread is a post with its comments; any comment can be answered. */
export function thread(ctx, id) {
  const top = h('div', { class: 'thread' }, h('div', { class: 'spinner' }));
  const lists = new Map();
  function list(parentId, depth) {
    const f = ctx.trackFeed(new Feed({
      load: (p) => ctx.api.comments(parentId, p), render: (c) => node(c, depth),
      empty: depth === 0 ? 'No comments yet.' : 'No replies yet.', label: depth === 0 ? 'Comments' : 'Replies',
    }));
    lists.set(Number(parentId), f);
    f.reset();
    return f;
  }
  function replyForm(parent, onPosted) {
    const area = h('textarea', { class: 'compose-input reply-input', rows: 1, placeholder: 'Write a reply…', attrs: { 'aria-label': `Reply to ${parent.author.username}` } });
    const send = h('button', { type: 'submit', class: 'btn btn-primary btn-small', disabled: true }, 'Reply');
    area.addEventListener('input', () => { const n = countChars(area.value); send.disabled = !area.value.trim() || n > MAX_POST; });
    return h('form', { class: 'reply', on: { submit: async (e) => {
      e.preventDefault();
      send.disabled = true;
      try { onPosted(await ctx.api.comment(parent.id, area.value.trim())); area.value = ''; } catch (err) { ctx.toast(err.message); send.disabled = false; }
    } } }, area, send);
  }
  /** bump adds one to the first comment count inside scope. */
  function bump(scope) {
    const n = scope.querySelector('[data-count="comments"]');
    if (n) n.textContent = String((Number(n.textContent) || 0) + 1);
  }
  function node(c, depth) {
    const form = ctx.me() ? replyForm(c, (nc) => { answers.list.add(nc, { hold: false }); answers.added(); bump(wrap); }) : null;
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
      post.parent_id ? h('a', { class: 'replying', href: '#/p/' + post.parent_id }, 'Show the message this replies to') : null,
      postCard(post, ctx, { detail: true, onComment: () => {} }),
      ctx.me() ? replyForm(post, (c) => { comments.add(c, { hold: false }); bump(top); }) : null,
      comments.el);
  }, (err) => fill(top, h('h2', {}, err.status === 404 ? 'This post doesn’t exist' : 'Could not load this post'), h('p', { class: 'muted' }, err.message)));
  return {
    el: h('div', { class: 'view' }, top), title: 'Post', back: true,
    onEvent(type, c) { if (type === 'comment') { const f = lists.get(Number(c.parent_id)); if (f) f.add(c); } },
  };
}

/** settings sets which server the app talks to (needed inside Cordova). */
export function settings(ctx) {
  const input = h('input', { id: 'server', type: 'url', inputMode: 'url', placeholder: 'https://microblog.example.com', value: ctx.config.server() || '', attrs: { autocapitalize: 'none', autocorrect: 'off', spellcheck: 'false' } });
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
      ctx.toast('Connected to ' + origin);
      ctx.go(ctx.me() ? '/home' : '/login');
    } catch (err) {
      msg.textContent = err.offline ? 'That server cannot be reached.' : err.message;
      msg.hidden = false;
    }
  } } },
  h('div', { class: 'field' }, h('label', { htmlFor: 'server' }, 'Server address'), input,
    h('p', { class: 'help' }, 'The address of your microblog server. The app signs in with a token kept on this phone.')),
  msg, h('button', { type: 'submit', class: 'btn btn-primary btn-block' }, 'Save'));
  return { el: h('div', { class: 'view settings' }, form), title: 'Settings', back: true, noTabs: !ctx.me() };
}

export function notFound() {
  return { el: h('div', { class: 'view' }, h('p', { class: 'empty' }, 'Nothing here. ', h('a', { href: '#/home' }, 'Go home'))), title: 'Not found', back: true };
}
