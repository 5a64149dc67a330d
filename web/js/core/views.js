// views.js holds the parts of screens that both front ends build alike: the
// log-in and sign-up form, the list under a profile, and the replies under a
// comment in a thread. What is around them (cards, headings, links, tabs) is
// each front end's own layout.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h } from './dom.js';
import { Feed } from './feed.js';
import { postCard, userRow } from './render.js';

/**
 * authForm is the log-in (mode 'login') or sign-up ('signup') form. Its
 * fields carry the server's rules for names and passwords. onDone gets the
 * API's answer ({user, token}). A failure shows in the form as
 * messages[err.status], or err.message when that has none; with
 * focusOnError the field to fix (the name when it is taken, else the
 * password) gets the focus. nameHelp, if given, shows under the name when
 * signing up. It returns the form and its name field.
 */
export function authForm(ctx, mode, onDone, { messages, nameHelp = null, focusOnError = false }) {
  const signup = mode === 'signup';
  const error = h('p', { class: 'form-error', attrs: { role: 'alert' }, hidden: true });
  const name = h('input', { id: 'username', name: 'username', required: true, autocomplete: 'username', attrs: { autocapitalize: 'none', autocorrect: 'off', spellcheck: 'false', minlength: '2', maxlength: '30' } });
  const pass = h('input', { id: 'password', name: 'password', type: 'password', required: true, autocomplete: signup ? 'new-password' : 'current-password', attrs: { minlength: '8', maxlength: '128' } });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary btn-block' }, signup ? 'Create account' : 'Log in');
  const form = h('form', { class: 'auth-form', on: { submit: send } },
    h('div', { class: 'field' }, h('label', { htmlFor: 'username' }, 'Username'), name,
      signup && nameHelp ? h('p', { class: 'help' }, nameHelp) : null),
    h('div', { class: 'field' }, h('label', { htmlFor: 'password' }, 'Password'), pass,
      signup ? h('p', { class: 'help' }, 'At least 8 characters.') : null),
    error, submit);

  async function send(e) {
    e.preventDefault();
    error.hidden = true;
    submit.disabled = true;
    try {
      const res = signup
        ? await ctx.api.register(name.value.trim(), pass.value)
        : await ctx.api.login(name.value.trim(), pass.value);
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

/**
 * profileFeed is the list under name's profile for tab ('posts',
 * 'followers' or 'following'), tracked by the app; empty holds what the
 * followers and following lists say when they have no one.
 */
export function profileFeed(ctx, name, tab, empty) {
  return ctx.trackFeed(tab === 'posts'
    ? new Feed({ load: (p) => ctx.api.userPosts(name, p), render: (p) => postCard(p, ctx), empty: `${name} hasn’t posted yet.`, label: `Posts by ${name}` })
    : new Feed({
      load: (p) => (tab === 'followers' ? ctx.api.followers : ctx.api.following)(name, p),
      render: (u) => userRow(u, ctx),
      empty: empty[tab],
      label: tab === 'followers' ? `Followers of ${name}` : `Followed by ${name}`,
      canRefresh: false,
    }));
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
    button.textContent = open ? 'Hide replies' : count === 1 ? 'Show 1 reply' : `Show ${count} replies`;
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
