// admin.js is the operators' page (/admin, desktop only): the open reports,
// oldest first, each with who reported whom and why and the reported
// posts, and the buttons to resolve the report, suspend or unsuspend the
// account, and remove a post. Only a /me with "admin": true shows it.

import { h, icon, fill } from './core/dom.js';
import { Feed } from './core/feed.js';
import { postCard, avatar, userLink } from './core/render.js';
import { timeElement } from './core/time.js';
import { lockMark, userStates } from './core/safety.js';
import { removeEverywhere, onScreen } from './core/app.js';

/** suspendButton suspends or unsuspends target, asking first, and redraws its states in where. */
function suspendButton(ctx, target, where) {
  const btn = h('button', { type: 'button', class: 'btn btn-small' });
  const show = () => {
    btn.textContent = target.suspended ? 'Unsuspend' : 'Suspend';
    btn.classList.toggle('btn-danger', !target.suspended);
    btn.setAttribute('aria-label', (target.suspended ? 'Unsuspend ' : 'Suspend ') + target.username);
    fill(where, userStates(target));
  };
  btn.addEventListener('click', async () => {
    const on = !target.suspended;
    if (on && !confirm(`Suspend ${target.username}? They are logged out everywhere at once, can’t log in, and their posts are hidden (not deleted) until you unsuspend them.`)) return;
    btn.disabled = true;
    try {
      if (on) await ctx.api.suspend(target.username); else await ctx.api.unsuspend(target.username);
      target.suspended = on;
      show();
      ctx.toast(on ? `Suspended ${target.username}.` : `${target.username} is no longer suspended.`);
    } catch (err) {
      ctx.toast(err.message);
    } finally {
      btn.disabled = false;
    }
  });
  show();
  return btn;
}

/** reportedPost is a post named in a report, with its Remove post button. */
function reportedPost(ctx, post) {
  const remove = h('button', { type: 'button', class: 'btn btn-small btn-danger', attrs: { 'aria-label': 'Remove post ' + post.id }, on: { click: async () => {
    if (!confirm(`Remove this post by ${post.author.username} for everyone?`)) return;
    remove.disabled = true;
    try {
      await ctx.api.removePost(post.id);
      removeEverywhere(post.id, onScreen(ctx.app));
      wrap.replaceChildren(h('p', { class: 'muted report-removed' }, 'Post removed.'));
      ctx.toast('Post removed.');
    } catch (err) {
      remove.disabled = false;
      ctx.toast(err.message);
    }
  } } }, icon('trash', 16), 'Remove post');
  const wrap = h('div', { class: 'report-post' }, postCard(post, ctx), h('div', { class: 'report-post-actions' }, remove));
  return wrap;
}

/** reportCard is one open report. done() takes it off the list once resolved. */
function reportCard(ctx, r, done) {
  const states = h('div', { class: 'report-states' });
  const resolve = h('button', { type: 'button', class: 'btn btn-primary btn-small', attrs: { 'aria-label': `Resolve report ${r.id}` }, on: { click: async () => {
    resolve.disabled = true;
    try {
      await ctx.api.resolveReport(r.id);
      done();
      ctx.toast('Report resolved.');
    } catch (err) {
      resolve.disabled = false;
      ctx.toast(err.message);
    }
  } } }, 'Resolve');
  const posts = r.posts || [];
  return h('article', { class: 'card report', dataset: { id: String(r.id), target: r.target.username }, attrs: { 'aria-labelledby': 'report-' + r.id } },
    h('div', { class: 'report-head' },
      avatar(r.target),
      h('div', { class: 'report-who' },
        h('h2', { id: 'report-' + r.id, class: 'report-title' }, userLink(ctx, r.target.username), r.target.protected ? lockMark(16) : null),
        h('p', { class: 'muted small' }, 'Reported by ', userLink(ctx, r.reporter.username, 'reporter'), ' · ', timeElement(r.created_at)))),
    states,
    h('blockquote', { class: 'report-why' }, r.reason),
    posts.length
      ? h('div', { class: 'report-posts' }, h('h3', { class: 'section-title' }, posts.length === 1 ? 'Reported post' : `Reported posts (${posts.length})`), posts.map((p) => reportedPost(ctx, p)))
      : h('p', { class: 'muted small' }, 'No post named: the report is about the account.'),
    h('div', { class: 'report-actions' }, resolve, suspendButton(ctx, r.target, states)));
}

/** admin is the page of open reports. */
export function admin(ctx) {
  const feed = ctx.trackFeed(new Feed({
    load: (p) => ctx.api.reports(p),
    render: (r) => reportCard(ctx, r, () => feed.remove(r.id)),
    empty: 'No open reports. All clear.',
    label: 'Open reports',
    canRefresh: false,
  }));
  feed.el.classList.add('report-feed');
  feed.reset();
  const el = h('div', { class: 'view' },
    h('div', { class: 'page-head' }, h('h1', {}, 'Reports'), h('p', { class: 'muted' }, 'Open reports, oldest first. Suspending hides an account’s posts and logs it out; nothing is deleted.')),
    feed.el);
  return { el, title: 'Reports' };
}
