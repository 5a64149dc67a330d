// admin.js is the operators' page (/admin, desktop only): the open reports,
// oldest first, each with who reported whom and why and the reported
// posts, and the buttons to resolve the report, suspend or unsuspend the
// account, and remove a post; with federation on, the blocked domains
// too. Only a /me with "admin": true shows it.

import { ask } from './core/ask.js';
import { h, icon, fill, own } from './core/dom.js';
import { Feed } from './core/feed.js';
import { postCard, avatar, userLink } from './core/render.js';
import { timeElement } from './core/time.js';
import { lockMark, userStates } from './core/safety.js';
import { removeEverywhere, onScreen } from './core/app.js';
import { t, errorText } from './core/i18n.js';
import { tWith } from './lang.js';

/** suspendButton suspends or unsuspends target, asking first, and redraws its states in where. */
function suspendButton(ctx, target, where) {
  const btn = h('button', { type: 'button', class: 'btn btn-small' });
  const show = () => {
    btn.textContent = target.suspended ? t('desktop.admin.unsuspend') : t('desktop.admin.suspend');
    btn.classList.toggle('btn-danger', !target.suspended);
    btn.setAttribute('aria-label', target.suspended ? t('desktop.admin.unsuspendName', { name: target.username }) : t('desktop.admin.suspendName', { name: target.username }));
    fill(where, userStates(target));
  };
  btn.addEventListener('click', async () => {
    const on = !target.suspended;
    if (on && !await ask(t('desktop.admin.suspendConfirm', { name: target.username }), t('desktop.admin.suspendName', { name: target.username }))) return;
    btn.disabled = true;
    try {
      if (on) await ctx.api.suspend(target.username); else await ctx.api.unsuspend(target.username);
      target.suspended = on;
      show();
      ctx.toast(on ? t('desktop.admin.suspended', { name: target.username }) : t('desktop.admin.unsuspended', { name: target.username }));
    } catch (err) {
      ctx.toast(errorText(err));
    } finally {
      btn.disabled = false;
    }
  });
  show();
  return btn;
}

/** reportedPost is a post named in a report, with its Remove post button. */
function reportedPost(ctx, post) {
  const remove = h('button', { type: 'button', class: 'btn btn-small btn-danger', attrs: { 'aria-label': t('desktop.admin.removePostId', { id: post.id }) }, on: { click: async () => {
    if (!await ask(t('desktop.admin.removeConfirm', { name: post.author.username }), t('desktop.admin.removePost'))) return;
    remove.disabled = true;
    try {
      await ctx.api.removePost(post.id);
      removeEverywhere(post.id, onScreen(ctx.app));
      wrap.replaceChildren(h('p', { class: 'muted report-removed' }, t('desktop.admin.removed')));
      ctx.toast(t('desktop.admin.removed'));
    } catch (err) {
      remove.disabled = false;
      ctx.toast(errorText(err));
    }
  } } }, icon('trash', 16), t('desktop.admin.removePost'));
  const wrap = h('div', { class: 'report-post' }, postCard(post, ctx), h('div', { class: 'report-post-actions' }, remove));
  return wrap;
}

/** reportCard is one open report. done() takes it off the list once resolved. */
function reportCard(ctx, r, done) {
  const states = h('div', { class: 'report-states' });
  const resolve = h('button', { type: 'button', class: 'btn btn-primary btn-small', attrs: { 'aria-label': t('desktop.admin.resolveId', { id: r.id }) }, on: { click: async () => {
    resolve.disabled = true;
    try {
      await ctx.api.resolveReport(r.id);
      done();
      ctx.toast(t('desktop.admin.resolved'));
    } catch (err) {
      resolve.disabled = false;
      ctx.toast(errorText(err));
    }
  } } }, t('desktop.admin.resolve'));
  const posts = r.posts || [];
  return h('article', { class: 'card report', dataset: { id: String(r.id), target: r.target.username }, attrs: { 'aria-labelledby': 'report-' + r.id } },
    h('div', { class: 'report-head' },
      avatar(r.target),
      h('div', { class: 'report-who' },
        h('h2', { id: 'report-' + r.id, class: 'report-title' }, userLink(ctx, r.target.username), r.target.protected ? lockMark(16) : null),
        h('p', { class: 'muted small' }, tWith('desktop.admin.reportedBy', { name: userLink(ctx, r.reporter.username, 'reporter') }), ' · ', timeElement(r.created_at)))),
    states,
    own(r.reason, 'blockquote', { class: 'report-why' }),
    posts.length
      ? h('div', { class: 'report-posts' }, h('h3', { class: 'section-title' }, t('desktop.admin.reportedPosts', { count: posts.length })), posts.map((p) => reportedPost(ctx, p)))
      : h('p', { class: 'muted small' }, t('desktop.admin.aboutAccount')),
    h('div', { class: 'report-actions' }, resolve, suspendButton(ctx, r.target, states)));
}

/**
 * domainBlocks is the list of blocked domains (federation), with a field
 * that blocks one more (asked first) and an Unblock for each. It stays
 * hidden on a server without federation (404 federation_off).
 */
function domainBlocks(ctx) {
  const list = h('ul', { class: 'domain-list', attrs: { 'aria-labelledby': 'domain-blocks-title' } });
  const input = h('input', { id: 'domain-block-input', name: 'domain', type: 'text', autocomplete: 'off', placeholder: 'spam.example',
    attrs: { autocapitalize: 'none', spellcheck: 'false', dir: 'ltr', 'aria-describedby': 'domain-blocks-help' } });
  const error = h('p', { class: 'form-error', attrs: { role: 'alert' }, hidden: true });
  const add = h('button', { type: 'submit', class: 'btn btn-danger' }, t('desktop.admin.blockDomain'));
  const box = h('section', { class: 'card domain-blocks', hidden: true, attrs: { 'aria-labelledby': 'domain-blocks-title' } });
  const show = (domains) => {
    fill(list, domains.length ? domains.map((d) => h('li', { class: 'domain-row', dataset: { domain: d } },
      own(d, 'span', { class: 'domain-name', attrs: { dir: 'ltr' } }),
      h('button', { type: 'button', class: 'btn btn-small', attrs: { 'aria-label': t('desktop.admin.unblockDomainName', { domain: d }), translate: 'no' }, on: { click: async (e) => {
        e.currentTarget.disabled = true;
        try {
          show((await ctx.api.unblockDomain(d)).domains || []);
          ctx.toast(t('desktop.admin.domainUnblocked', { domain: d }));
        } catch (err) {
          ctx.toast(errorText(err));
        }
      } } }, t('desktop.admin.unblockDomain'))))
      : h('li', { class: 'muted' }, t('desktop.admin.noDomains')));
  };
  const form = h('form', { class: 'domain-form', on: { submit: async (e) => {
    e.preventDefault();
    const domain = input.value.trim().toLowerCase();
    error.hidden = true;
    if (!domain) return;
    if (!await ask(t('desktop.admin.blockDomainConfirm', { domain }), t('desktop.admin.blockDomain'))) return;
    add.disabled = true;
    try {
      show((await ctx.api.blockDomain(domain)).domains || []);
      input.value = '';
      ctx.toast(t('desktop.admin.domainBlocked', { domain }));
    } catch (err) {
      error.textContent = errorText(err);
      error.hidden = false;
    } finally {
      add.disabled = false;
    }
  } } },
  h('label', { htmlFor: input.id, class: 'visually-hidden' }, t('desktop.admin.domain')), input, add);
  box.append(
    h('h2', { id: 'domain-blocks-title', class: 'section-title' }, t('desktop.admin.domainsTitle')),
    h('p', { id: 'domain-blocks-help', class: 'muted small' }, t('desktop.admin.domainsHelp')),
    form, error, list);
  ctx.api.domainBlocks().then((r) => { show(r.domains || []); box.hidden = false; }, () => { box.hidden = true; });
  return box;
}

/** admin is the page of open reports. */
export function admin(ctx) {
  const feed = ctx.trackFeed(new Feed({
    load: (p) => ctx.api.reports(p),
    render: (r) => reportCard(ctx, r, () => feed.remove(r.id)),
    empty: t('desktop.admin.empty'),
    label: t('desktop.admin.label'),
    canRefresh: false,
  }));
  feed.el.classList.add('report-feed');
  feed.reset();
  const el = h('div', { class: 'view' },
    h('div', { class: 'page-head' }, h('h1', {}, t('desktop.admin.title')), h('p', { class: 'muted' }, t('desktop.admin.sub'))),
    feed.el,
    domainBlocks(ctx));
  return { el, title: t('desktop.admin.title') };
}
