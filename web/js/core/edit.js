// edit.js is changing a post or comment after it was written, alike in both
// front ends: the form that edits it in place (from its "⋯" menu), the
// "edited" mark that opens its earlier versions, and showing an edit (made
// here, or heard of live as `post_update`) in every copy of the post on the
// page at once: its cards, and the reposts that quote it.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, fill, own } from './dom.js';
import { t } from './i18n.js';
import { MAX_POST } from './api.js';
import { textEditor } from './editor.js';
import { contentOf } from './text.js';
import { absoluteTime } from './time.js';
import { warning } from './spoiler.js';

// The newest version of each post this page has heard of (id → its text,
// mentions, tags and edited_at): a copy drawn later from an older object
// (the home timeline kept off screen, a post held behind "N new posts", a
// menu's Edit) shows that version too. Only the last KEEP are kept.
const latest = new Map();
const KEEP = 500;

const editedAt = (p) => (p && p.edited_at ? Date.parse(p.edited_at) : 0);

/** remember keeps post as the newest version of it, and says whether it is (an older one than the page has is not). */
function remember(post) {
  const had = latest.get(post.id);
  if (had && editedAt(had) > editedAt(post)) return false;
  latest.delete(post.id);
  latest.set(post.id, { content: post.content, mentions: post.mentions, tags: post.tags, edited_at: post.edited_at, spoiler: post.spoiler || '' });
  if (latest.size > KEEP) latest.delete(latest.keys().next().value);
  return true;
}

/** fresh returns post with the text of the newest version of it the page knows of. */
export function fresh(post) {
  const v = post && latest.get(post.id);
  return v && editedAt(v) > editedAt(post) ? { ...post, ...v } : post;
}

/**
 * onPage lists the elements matching selector on the page and in the home
 * timeline, which the app keeps off screen while another view shows.
 */
export function onPage(ctx, selector) {
  const found = new Set(document.querySelectorAll(selector));
  const home = ctx.app.homeFeed && ctx.app.homeFeed.el;
  if (home) for (const el of home.querySelectorAll(selector)) found.add(el);
  return [...found];
}

/** editedMark is the "edited" by an edited post's time, which opens its earlier versions; null for a post never edited. */
export function editedMark(post, ctx) {
  if (!post.edited_at) return null;
  return h('button', {
    type: 'button', class: 'edited-mark', title: t('edit.edited_at', { time: absoluteTime(post.edited_at) }),
    attrs: { 'aria-label': t('edit.show_history'), 'aria-haspopup': 'dialog' },
    on: { click: () => historyDialog(ctx, post.id) },
  }, t('edit.edited'));
}

/** versionName says which version the i-th of n (oldest first) is. */
function versionName(i, n) {
  if (i === n - 1) return t('edit.current_version');
  return i === 0 ? t('edit.original') : t('edit.version', { n: i + 1 });
}

/** historyDialog shows every version of post id, newest first, each with when it was written. */
export function historyDialog(ctx, id) {
  const list = h('ol', { class: 'history-list', attrs: { 'aria-busy': 'true' } },
    h('li', {}, h('span', { class: 'spinner', attrs: { role: 'status', 'aria-label': t('common.loading') } })));
  const dialog = h('dialog', { class: 'dialog history-dialog', attrs: { 'aria-labelledby': 'history-title' } },
    h('div', { class: 'dialog-head' },
      h('h2', { id: 'history-title' }, t('edit.history')),
      h('button', { type: 'button', class: 'btn btn-ghost btn-small', on: { click: () => dialog.close() } }, t('common.close'))),
    h('p', { class: 'muted small' }, t('edit.history_note')),
    list);
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  ctx.api.history(id).then((res) => {
    const items = res.items || [];
    fill(list, items.map((v, i) => h('li', { class: 'history-item' },
      h('p', { class: 'history-head' },
        h('strong', {}, versionName(i, items.length)), ' · ',
        h('time', { dateTime: v.created_at }, absoluteTime(v.created_at))),
      v.content ? own(v.content, 'p', { class: 'content' }) : h('p', { class: 'muted' }, t('edit.no_text')))).reverse());
  }, (err) => {
    fill(list, h('li', { class: 'error' }, t('edit.history_failed', { message: err.message })));
  }).finally(() => list.setAttribute('aria-busy', 'false'));
}

/** textPlace is what the text of a post's body or quote follows when it has none yet: the head, or the "in reply to" link. */
function textPlace(box) {
  return box.querySelector(':scope > .replying') || box.querySelector(':scope > .post-head');
}

/**
 * startEdit edits post in place in card (its .post): the text gives way to a
 * form with the composer's limit and counter until it is saved (every copy
 * of the post on the page then shows the new text) or cancelled; done() is
 * told then, to give the focus back. A second call focuses the open form.
 */
export function startEdit(ctx, card, post, done = () => {}) {
  const body = card && card.querySelector(':scope > .post-body');
  if (!body) return;
  const open = body.querySelector(':scope > .edit-form');
  if (open) { open.querySelector('textarea').focus(); return; }
  const now = fresh(post);
  const close = () => {
    form.remove();
    const text = body.querySelector(':scope > .content');
    if (text) text.hidden = false;
    done();
  };
  const form = textEditor({
    value: now.content || '', max: MAX_POST, rows: 3, cls: 'edit-form',
    label: post.kind === 'comment' ? t('edit.label_comment') : t('edit.label_post'),
    // A repost's own text and the text under pictures may be left out; a post's may not.
    allowEmpty: !!post.repost_of || (post.media || []).length > 0,
    cancel: close, suggest: ctx,
    save: async (text) => {
      const edited = await ctx.api.editPost(post.id, text);
      close();
      applyUpdate(ctx, edited);
    },
  });
  const text = body.querySelector(':scope > .content');
  if (text) {
    text.hidden = true;
    text.before(form);
  } else {
    textPlace(body).after(form);
  }
}

/** showVersion puts post's text and "edited" mark into box: a post card's body, or a quote of it in a repost. */
function showVersion(ctx, box, post) {
  const old = box.querySelector(':scope > .content');
  const text = post.content ? contentOf(post, ctx.href) : null;
  if (old && text) {
    text.hidden = old.hidden; // an edit form open over it stays
    old.replaceWith(text);
  } else if (old) {
    old.remove();
  } else if (text) {
    const form = box.querySelector(':scope > .edit-form');
    if (form) text.hidden = true;
    (form || textPlace(box)).after(text);
  }
  showWarning(box, post);
  const head = box.querySelector(':scope > .post-head');
  const mark = editedMark(post, ctx);
  const had = head.querySelector(':scope > .edited-mark');
  if (had) had.remove();
  if (mark) head.querySelector(':scope > .time').after(mark);
}

/** showWarning puts post's content warning (spoiler.js) into box, folded if new, or takes it away. */
function showWarning(box, post) {
  const old = box.querySelector(':scope > .spoiler');
  const oldText = old ? old.querySelector('.spoiler-text').textContent : '';
  if (oldText === (post.spoiler || '')) return;
  const cw = warning(post);
  if (old && cw) { old.querySelector('.spoiler-text').textContent = post.spoiler; return; }
  if (old) { old.remove(); box.classList.remove('folded', 'unfolded'); return; }
  box.classList.add('folded');
  (box.querySelector(':scope > .replying') || box.querySelector(':scope > .post-head')).after(cw);
}

/**
 * applyUpdate shows an edited post (a live `post_update`, or an edit made
 * here) in every copy of it on the page and in the home timeline kept off
 * screen, in place: the text of its cards and of the reposts that quote it,
 * and the "edited" mark. An update older than what the page shows is
 * ignored (the live event of an edit can arrive after a newer one).
 */
export function applyUpdate(ctx, post) {
  if (!post || post.id === undefined || !remember(post)) return;
  const id = Number(post.id);
  for (const box of onPage(ctx, `.post[data-id="${id}"] > .post-body, .quote[data-quote-of="${id}"]`)) showVersion(ctx, box, post);
}
