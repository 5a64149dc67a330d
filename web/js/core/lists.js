// lists.js is the reader's lists (关注分组, docs/api.md "Lists"): the page
// of lists (make, rename, delete), one list's page (its posts, newest
// first, and its members, added by name and taken out), and the picker on
// a followed person's profile that puts them in or out of each list.
// Lists are private: only their owner sees them.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, own, icon, clear } from './dom.js';
import { Feed } from './feed.js';
import { postCard, userRow } from './render.js';
import { pollNewer } from './views.js';
import { t, errorText } from './i18n.js';
import { ask } from './ask.js';

/** LIST_POLL is how often (ms) an open list's page asks for new posts, besides the live feed. */
const LIST_POLL = 15_000;

const MAX_TITLE = 100;

/** titleInput is the text box of a list's title. */
function titleInput(value = '') {
  return h('input', {
    type: 'text', class: 'input list-title-input', value, maxLength: MAX_TITLE, required: true,
    attrs: { 'aria-label': t('lists.title_label'), placeholder: t('lists.title_placeholder') },
  });
}

/**
 * listsPanel is the reader's lists: a form that makes one, and a row per
 * list (its title linking to its page, its number of members, Rename and
 * Delete). It loads at once.
 */
export function listsPanel(ctx) {
  const rows = h('ul', { class: 'lists-list', attrs: { 'aria-label': t('lists.yours') } });
  const status = h('p', { class: 'muted lists-status', attrs: { 'aria-live': 'polite' } });
  const input = titleInput();
  const exclusive = h('input', { type: 'checkbox', class: 'list-exclusive-input' });
  const form = h('form', { class: 'list-create', on: { submit: create } },
    input, h('button', { type: 'submit', class: 'btn btn-primary' }, t('lists.create')),
    h('label', { class: 'lists-choice list-exclusive' }, exclusive, t('lists.exclusive')));

  async function create(e) {
    e.preventDefault();
    const title = input.value.trim();
    if (!title) { input.focus(); return; }
    try {
      await ctx.api.createList(title, exclusive.checked);
      input.value = '';
      exclusive.checked = false;
      ctx.toast(t('lists.created'));
      await load();
    } catch (err) {
      ctx.toast(errorText(err));
    }
  }

  function row(l) {
    const name = own(l.title, 'a', { class: 'list-name', href: ctx.href('/lists/' + l.id) });
    const li = h('li', { class: 'list-row', dataset: { list: String(l.id) } },
      h('div', { class: 'list-row-body' }, icon('list', 18), name,
        h('span', { class: 'muted small list-count' }, t('lists.members_count', { count: l.members_count })),
        l.exclusive ? h('span', { class: 'badge list-exclusive-badge' }, t('lists.exclusive_badge')) : null),
      h('div', { class: 'row-actions' },
        h('button', { type: 'button', class: 'btn btn-small list-rename', on: { click: () => rename(l, li) } }, t('lists.rename')),
        h('button', { type: 'button', class: 'btn btn-small btn-danger list-delete', on: { click: () => remove(l) } }, t('lists.delete'))));
    return li;
  }

  function rename(l, li) {
    const box = titleInput(l.title);
    const save = async (e) => {
      e.preventDefault();
      try {
        await ctx.api.updateList(l.id, { title: box.value.trim() });
        ctx.toast(t('lists.renamed'));
        await load();
      } catch (err) { ctx.toast(errorText(err)); }
    };
    li.replaceChildren(h('form', { class: 'list-create', on: { submit: save } }, box,
      h('button', { type: 'submit', class: 'btn btn-primary btn-small' }, t('lists.save')),
      h('button', { type: 'button', class: 'btn btn-small', on: { click: () => load() } }, t('lists.cancel'))));
    box.focus();
  }

  async function remove(l) {
    if (!await ask(t('lists.confirm_delete'), t('lists.delete'))) return;
    try {
      await ctx.api.deleteList(l.id);
      ctx.toast(t('lists.deleted'));
      await load();
    } catch (err) { ctx.toast(errorText(err)); }
  }

  async function load() {
    try {
      const { items } = await ctx.api.lists();
      clear(rows).append(...items.map(row));
      status.textContent = items.length ? '' : t('lists.none');
    } catch (err) {
      status.textContent = errorText(err);
    }
  }
  load();
  return { el: h('div', { class: 'lists-panel' }, form, status, rows), refresh: load };
}

/**
 * listPage is one of the reader's lists: its title, its posts (a Feed,
 * newest first) and its members, with a box to add someone the reader
 * follows by name. onTitle(title) is told the list's title once known.
 * A member's new post joins at once from the live feed (onEvent: the
 * reader follows every member, so the feed carries their posts), and the
 * page asks for newer posts now and then besides. destroy() stops that.
 */
export function listPage(ctx, id, { onTitle = () => {} } = {}) {
  const head = h('div', { class: 'list-head' }, h('div', { class: 'spinner' }));
  const feed = ctx.trackFeed(new Feed({
    load: (p) => ctx.api.listPosts(id, p), render: (p) => postCard(p, ctx),
    empty: t('lists.posts_empty'), label: t('lists.posts'),
  }));
  const members = new Feed({
    load: (p) => ctx.api.listMembers(id, p),
    // A feed's items are articles.
    render: (u) => h('article', { class: 'list-member' },
      userRow(u, ctx, { actions: h('button', { type: 'button', class: 'btn btn-small list-remove', on: { click: () => take(u) } }, t('lists.remove')) })),
    empty: t('lists.members_empty'), label: t('lists.members'), canRefresh: false, loadMore: true,
  });
  const name = h('input', { type: 'text', class: 'input', attrs: { 'aria-label': t('lists.add_label'), placeholder: t('lists.add_placeholder'), autocapitalize: 'none' } });
  const add = h('form', { class: 'list-create list-add', on: { submit: put } }, name, h('button', { type: 'submit', class: 'btn btn-primary' }, t('lists.add')));
  const membersBox = h('details', { class: 'list-members' }, h('summary', {}, t('lists.members')), add, members.el);
  membersBox.addEventListener('toggle', () => { if (membersBox.open && !members.watching && members.size === 0) members.reset(); }, { once: true });

  // Who is in the list, for the live feed's posts; read again on each change.
  let memberIds = new Set();
  async function readMembers() {
    const ids = new Set();
    let page = { limit: 100 };
    for (let i = 0; i < 11; i++) { // 1,000 members at most
      const got = await ctx.api.listMembers(id, page);
      for (const u of got.items) ids.add(u.id);
      if (!got.next_cursor) break;
      page = { limit: 100, cursor: got.next_cursor };
    }
    memberIds = ids;
  }
  let stop = () => {};

  async function put(e) {
    e.preventDefault();
    const who = name.value.trim().replace(/^@/, '');
    if (!who) { name.focus(); return; }
    try {
      await ctx.api.addToList(id, who);
      name.value = '';
      ctx.toast(t('lists.added'));
      members.reset();
      feed.reset();
      readMembers().catch(() => {});
    } catch (err) {
      ctx.toast(errorText(err));
    }
  }

  async function take(u) {
    try {
      await ctx.api.removeFromList(id, u.username);
      ctx.toast(t('lists.removed'));
      members.reset();
      feed.reset();
      readMembers().catch(() => {});
    } catch (err) { ctx.toast(errorText(err)); }
  }

  ctx.api.list(id).then((l) => {
    head.replaceChildren(h('h1', { class: 'list-title' }, own(l.title)),
      h('p', { class: 'muted' }, t('lists.about'), ' ', h('a', { href: ctx.href('/lists') }, t('lists.all'))),
      exclusiveSwitch(ctx, l));
    onTitle(l.title);
    feed.reset();
    readMembers().catch(() => {});
    stop = pollNewer(feed, (p) => ctx.api.listPosts(id, p), LIST_POLL);
  }, (err) => {
    head.replaceChildren(h('h1', {}, t('lists.not_found')), h('p', { class: 'muted' }, errorText(err)));
    membersBox.hidden = true;
  });
  return {
    el: h('div', { class: 'list-page' }, head, membersBox, feed.el), feed,
    // An exclusive list's members' posts come as list_post (not for home).
    onEvent(type, post) { if ((type === 'post' || type === 'list_post') && post.author && memberIds.has(post.author.id)) feed.add(post); },
    destroy: () => stop(),
  };
}

/**
 * exclusiveSwitch is the checkbox of list l's page that makes it exclusive
 * (its members' posts leave Home, and show on the list alone) or not, at
 * once (and back if the server refuses).
 */
function exclusiveSwitch(ctx, l) {
  const box = h('input', { type: 'checkbox', class: 'list-exclusive-input', checked: !!l.exclusive });
  box.addEventListener('change', async () => {
    const on = box.checked;
    try {
      await ctx.api.updateList(l.id, { exclusive: on });
      ctx.toast(t(on ? 'lists.exclusive_on' : 'lists.exclusive_off'));
      // Home is read afresh: the members' posts leave it or come back.
      ctx.app?.homeFeed?.reset();
    } catch (err) {
      box.checked = !on;
      ctx.toast(errorText(err));
    }
  });
  return h('label', { class: 'lists-choice list-exclusive' }, box, t('lists.exclusive'));
}

/**
 * listsPicker is the "Lists" button of a profile of someone the reader
 * follows, and the box it opens: a checkbox per list of the reader's,
 * ticked when the person is in it; a change puts them in or takes them
 * out at once (and back if the server refuses).
 */
export function listsPicker(user, ctx) {
  const me = ctx.me();
  if (!me || me.id === user.id || !user.following) return { button: null, panel: null };
  const panel = h('fieldset', { class: 'lists-picker', hidden: true }, h('legend', {}, t('lists.picker_legend')));
  const button = h('button', {
    type: 'button', class: 'btn btn-lists', attrs: { 'aria-expanded': 'false' },
    on: { click: () => (panel.hidden ? open() : close()) },
  }, icon('list', 18), h('span', { class: 'btn-label' }, t('lists.button')));

  function close() { panel.hidden = true; button.setAttribute('aria-expanded', 'false'); }
  async function open() {
    panel.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    panel.replaceChildren(panel.firstChild, h('div', { class: 'spinner' }));
    try {
      const [all, withUser] = await Promise.all([ctx.api.lists(), ctx.api.listsWith(user.username)]);
      const inside = new Set(withUser.items.map((l) => l.id));
      const boxes = all.items.map((l) => {
        const box = h('input', { type: 'checkbox', checked: inside.has(l.id), on: { change: () => toggle(l, box) } });
        return h('label', { class: 'lists-choice' }, box, own(l.title));
      });
      panel.replaceChildren(panel.firstChild, ...(boxes.length ? boxes
        : [h('p', { class: 'muted' }, t('lists.none'), ' ', h('a', { href: ctx.href('/lists') }, t('lists.create_first')))]));
    } catch (err) {
      panel.replaceChildren(panel.firstChild, h('p', { class: 'muted' }, errorText(err)));
    }
  }
  async function toggle(l, box) {
    const on = box.checked;
    try {
      if (on) await ctx.api.addToList(l.id, user.username); else await ctx.api.removeFromList(l.id, user.username);
      ctx.toast(on ? t('lists.added') : t('lists.removed'));
    } catch (err) {
      box.checked = !on;
      ctx.toast(errorText(err));
    }
  }
  return { button, panel };
}
