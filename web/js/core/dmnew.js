// dmnew.js is "New message" on the Messages screen of both front ends: a
// button that opens a dialog where the user types a name, picks a person
// from the user search (GET /search/users) and lands in the conversation
// with them. Names come from users: they reach the page as text only.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, icon, own } from './dom.js';
import { t } from './i18n.js';
import { avatar } from './render.js';
import { shownName } from './profile.js';
import { handleOf } from './remote.js';

const LIMIT = 8;
const WAIT = 200; // ms of quiet typing before the search is asked

/** newMessageButton opens the picker; iconOnly for an app bar. */
export function newMessageButton(ctx, { cls = 'btn btn-primary', iconOnly = false } = {}) {
  const label = t('messages.new');
  return h('button', {
    type: 'button', class: cls + ' btn-new-message', attrs: iconOnly ? { 'aria-label': label, title: label } : {},
    on: { click: (e) => pickPerson(ctx, e.currentTarget) },
  }, icon('edit', iconOnly ? 20 : 18), iconOnly ? null : h('span', { class: 'btn-label' }, label));
}

/** pickPerson is the dialog: type a name, choose a person, open the conversation. */
export function pickPerson(ctx, from = null) {
  const me = ctx.me();
  const dialog = h('dialog', { class: 'dialog dm-pick', attrs: { 'aria-labelledby': 'dm-pick-title' } });
  const input = h('input', {
    type: 'search', id: 'dm-pick-input', class: 'compose-input dm-pick-input', placeholder: t('messages.pick_placeholder'),
    attrs: { autocomplete: 'off', 'aria-describedby': 'dm-pick-status', enterkeyhint: 'go', spellcheck: 'false' },
  });
  const status = h('p', { id: 'dm-pick-status', class: 'muted dm-pick-status', attrs: { role: 'status' } }, t('messages.pick_help'));
  const list = h('ul', { class: 'dm-pick-list', attrs: { 'aria-label': t('messages.pick_people') } });
  let timer = null, asked = 0, found = [];

  function open(user) {
    dialog.close();
    ctx.go('/messages/' + encodeURIComponent(user.username));
  }

  function show(users) {
    found = users;
    list.replaceChildren(...users.map((u) => h('li', {},
      h('button', { type: 'button', class: 'dm-pick-user', dataset: { user: u.username }, on: { click: () => open(u) } },
        avatar(u),
        h('span', { class: 'dm-pick-names' },
          own(shownName(u), 'span', { class: 'dm-pick-name', attrs: { dir: 'auto' } }),
          u.display_name ? own('@' + u.username, 'span', { class: 'handle', attrs: { dir: 'ltr' } }) : null)))));
  }

  async function search() {
    const q = input.value.trim().replace(/^@/, '');
    const n = ++asked;
    if (!q) { show([]); status.textContent = t('messages.pick_help'); return; }
    try {
      // name@domain is another server's account, found (through WebFinger) by name.
      const handle = handleOf(q);
      const page = handle
        ? await ctx.api.user(handle).then((u) => ({ items: [u] }), (err) => { if (err.status === 404 || err.status === 400) return { items: [] }; throw err; })
        : await ctx.api.searchUsers(q, { limit: LIMIT });
      if (n !== asked) return; // a newer search is on its way
      const users = (page.items || []).filter((u) => !me || u.id !== me.id);
      show(users);
      status.textContent = users.length ? t('messages.pick_found', { n: users.length }) : t('messages.pick_none', { q });
    } catch (err) {
      if (n === asked) status.textContent = err.message;
    }
  }

  input.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(search, WAIT); });
  input.addEventListener('keydown', (e) => {
    // Enter opens the first person found; the arrow down goes into the list.
    if (e.key === 'Enter' && !e.isComposing) { e.preventDefault(); if (found.length) open(found[0]); }
    if (e.key === 'ArrowDown' && list.querySelector('button')) { e.preventDefault(); list.querySelector('button').focus(); }
  });
  list.addEventListener('keydown', (e) => {
    const items = [...list.querySelectorAll('button')];
    const i = items.indexOf(document.activeElement);
    if (e.key === 'ArrowDown' && i < items.length - 1) { e.preventDefault(); items[i + 1].focus(); }
    if (e.key === 'ArrowUp') { e.preventDefault(); (i > 0 ? items[i - 1] : input).focus(); }
  });

  dialog.append(
    h('div', { class: 'dialog-head' },
      h('h2', { id: 'dm-pick-title' }, t('messages.new')),
      h('button', { type: 'button', class: 'btn btn-ghost btn-icon', attrs: { 'aria-label': t('common.close') }, on: { click: () => dialog.close() } }, icon('close', 20))),
    h('label', { htmlFor: 'dm-pick-input', class: 'dm-pick-label' }, t('messages.pick_label')),
    input, status, list);
  dialog.addEventListener('close', () => {
    clearTimeout(timer);
    dialog.remove();
    if (from && from.isConnected && !location.pathname.includes('/messages/') && !location.hash.includes('/messages/')) from.focus();
  });
  document.body.append(dialog);
  dialog.showModal();
  input.focus();
  return dialog;
}
