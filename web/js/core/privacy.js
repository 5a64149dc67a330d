// privacy.js is the "Privacy and safety" part of Settings in both front
// ends: the "Protect my posts" switch, who can send one private messages
// (core/messages.js), the follow requests to approve or reject, the
// filtered words, and the accounts one blocks and mutes.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, icon, own, phrase, slots } from './dom.js';
import { t } from './i18n.js';
import { Feed } from './feed.js';
import { userRow } from './render.js';
import { countChars } from './api.js';
import { settingsSection, errorLine } from './account.js';
import { setBlocked, setMuted } from './safety.js';
import { messagesSetting } from './messages.js';

/** MAX_FILTERS and MAX_FILTER_WORD are the server's limits: 100 words of 1–50 characters. */
export const MAX_FILTERS = 100;
export const MAX_FILTER_WORD = 50;

/** protectSwitch is the "Protect my posts" switch (PATCH /me {"protected"}). */
function protectSwitch(ctx, sectionClass) {
  const me = ctx.me();
  const input = h('input', { type: 'checkbox', id: 'protect', checked: !!me.protected, attrs: { role: 'switch', 'aria-describedby': 'protect-help' } });
  const error = errorLine();
  input.addEventListener('change', async () => {
    const on = input.checked;
    input.disabled = true;
    error.hidden = true;
    try {
      const u = await ctx.api.updateMe({ protected: on });
      me.protected = !!u.protected;
      ctx.toast(on ? t('privacy.protected_toast') : t('privacy.public_toast'));
    } catch (err) {
      input.checked = !on;
      error.textContent = err.message;
      error.hidden = false;
    } finally {
      input.disabled = false;
    }
  });
  return settingsSection('privacy-protect-title', t('privacy.protected'), null, sectionClass,
    h('label', { class: 'switch', htmlFor: 'protect' }, input,
      h('span', { class: 'switch-track', attrs: { 'aria-hidden': 'true' } }), h('span', { class: 'switch-label' }, t('privacy.protect'))),
    h('p', { class: 'help', id: 'protect-help' }, t('privacy.protect_help')),
    error);
}

/**
 * userList is a list of users, each with the buttons actions(user, done)
 * returns; done() takes the user off the list. The buttons' labels name the
 * user: each is marked translate="no", as the follow button (core/render.js).
 */
function userList(ctx, load, label, empty, actions) {
  const feed = ctx.trackFeed(new Feed({
    load, label, empty, canRefresh: false,
    render: (u) => userRow(u, ctx, { actions: actions(u, () => feed.remove(u.id)) }),
  }));
  feed.el.classList.add('settings-list');
  feed.reset();
  return feed;
}

/** followRequests lists who asks to follow the reader's protected account, with Approve and Reject. */
export function followRequests(ctx) {
  const answer = async (u, yes, done) => {
    try {
      if (yes) await ctx.api.approve(u.username); else await ctx.api.reject(u.username);
      done();
      ctx.toast(phrase(yes ? t('privacy.approved_toast', slots('name')) : t('privacy.rejected_toast', slots('name')), { name: own(u.username) }));
    } catch (err) {
      ctx.toast(err.message);
    }
  };
  return userList(ctx, (p) => ctx.api.followRequests(p), t('privacy.requests'), t('privacy.requests_empty'), (u, done) => [
    h('button', { type: 'button', class: 'btn btn-primary btn-small', attrs: { 'aria-label': t('privacy.approve_name', { name: u.username }), translate: 'no' }, on: { click: () => answer(u, true, done) } }, t('privacy.approve')),
    h('button', { type: 'button', class: 'btn btn-small', attrs: { 'aria-label': t('privacy.reject_name', { name: u.username }), translate: 'no' }, on: { click: () => answer(u, false, done) } }, t('privacy.reject')),
  ]);
}

/**
 * undoList lists the accounts the reader blocks or mutes, each with the
 * button that undoes it: verb is its text, named(name) its label.
 */
function undoList(ctx, load, label, empty, verb, named, undo) {
  return userList(ctx, load, label, empty, (u, done) => [
    h('button', { type: 'button', class: 'btn btn-small', attrs: { 'aria-label': named(u.username), translate: 'no' },
      on: { click: async () => { if (await undo(ctx, u, false)) done(); } } }, verb),
  ]);
}

/**
 * filterWords edits the reader's filtered words (GET and PUT /me/filters):
 * a post containing one, in any letter case, leaves their home timeline,
 * live feed and notifications. Each change is saved at once.
 */
function filterWords(ctx, sectionClass) {
  let words = [];
  const list = h('ul', { class: 'chips', attrs: { 'aria-label': t('privacy.filters') }, hidden: true });
  const none = h('p', { class: 'muted small' }, t('privacy.filters_none'));
  // maxlength counts UTF-16 units (an emoji is two); the form counts characters, as the server does.
  const input = h('input', { id: 'filter-word', autocomplete: 'off', placeholder: t('privacy.filter_placeholder'),
    attrs: { maxlength: String(MAX_FILTER_WORD * 2), enterkeyhint: 'done', autocapitalize: 'none' } });
  const add = h('button', { type: 'submit', class: 'btn btn-primary' }, t('privacy.filter_add'));
  const error = errorLine();

  function draw() {
    list.replaceChildren(...words.map((w) => h('li', { class: 'chip' },
      own(w, 'span', { class: 'chip-text' }),
      h('button', { type: 'button', class: 'chip-remove', attrs: { 'aria-label': t('privacy.filter_remove', { word: w }), translate: 'no' },
        on: { click: () => save(words.filter((x) => x !== w)) } }, icon('close', 14)))));
    list.hidden = words.length === 0;
    none.hidden = words.length > 0;
    add.disabled = words.length >= MAX_FILTERS;
  }
  function fail(message) {
    error.textContent = message;
    error.hidden = false;
  }
  async function save(next) {
    error.hidden = true;
    try {
      words = (await ctx.api.setFilters(next)).words || [];
      draw();
      ctx.app.homeStale = true; // the home timeline loads afresh, without what is filtered now
      return true;
    } catch (err) {
      fail(err.message);
      return false;
    }
  }
  const form = h('form', { class: 'filter-form', on: { submit: async (e) => {
    e.preventDefault();
    const w = input.value.trim();
    if (!w) return;
    if (countChars(w) > MAX_FILTER_WORD) { fail(t('privacy.filter_too_long', { max: MAX_FILTER_WORD })); return; }
    if (words.some((x) => x.toLowerCase() === w.toLowerCase())) { input.value = ''; return; }
    add.disabled = true;
    if (await save([...words, w])) input.value = '';
    draw();
    input.focus();
  } } },
  h('label', { htmlFor: 'filter-word', class: 'visually-hidden' }, t('privacy.filter_label')),
  input, add);
  ctx.api.filters().then((res) => { words = res.words || []; draw(); }, (err) => fail(err.message));
  return settingsSection('privacy-filters-title', t('privacy.filters'), t('privacy.filters_help', { max: MAX_FILTERS }),
    sectionClass, form, error, list, none);
}

/**
 * privacyArea returns the Privacy and safety sections of Settings (each of
 * class sectionClass too).
 */
export function privacyArea(ctx, { sectionClass = '' } = {}) {
  const blocks = undoList(ctx, (p) => ctx.api.blocks(p), t('privacy.blocks'), t('privacy.blocks_empty'),
    t('safety.unblock'), (name) => t('safety.unblock_name', { name }), setBlocked);
  const mutes = undoList(ctx, (p) => ctx.api.mutes(p), t('privacy.mutes'), t('privacy.mutes_empty'),
    t('safety.unmute'), (name) => t('safety.unmute_name', { name }), setMuted);
  const el = h('div', { class: 'account-area privacy-area' },
    protectSwitch(ctx, sectionClass),
    messagesSetting(ctx, sectionClass),
    settingsSection('privacy-requests-title', t('privacy.requests'), t('privacy.requests_help'), sectionClass, followRequests(ctx).el),
    filterWords(ctx, sectionClass),
    settingsSection('privacy-blocks-title', t('privacy.blocks'), t('privacy.blocks_help'), sectionClass, blocks.el),
    settingsSection('privacy-mutes-title', t('privacy.mutes'), t('privacy.mutes_help'), sectionClass, mutes.el));
  return { el };
}
