// spoiler.js folds a post behind its content warning (its `spoiler`,
// docs/api.md): until the reader opens it, a post or a quoted original
// shows the warning and a "Show more" button (aria-expanded) instead of
// its text and pictures. The text stays in the page, folded by CSS
// (.folded), so that editing it in place (edit.js) and marking searched
// words (highlight.js) work on it as on any other.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, own } from './dom.js';
import { t } from './i18n.js';

/**
 * warning is the content warning of post with its Show more / Show less
 * toggle, or null for a post without one. The box that holds it (a
 * .post-body or a .quote) must start with the class folded (see folded).
 */
export function warning(post) {
  if (!post || !post.spoiler) return null;
  const btn = h('button', { type: 'button', class: 'btn btn-small spoiler-toggle', attrs: { 'aria-expanded': 'false' } }, t('cw.show_more'));
  btn.addEventListener('click', (e) => {
    e.stopPropagation();
    const box = btn.closest('.folded, .unfolded');
    if (!box) return;
    const open = box.classList.contains('folded');
    box.classList.toggle('folded', !open);
    box.classList.toggle('unfolded', open);
    btn.setAttribute('aria-expanded', String(open));
    btn.textContent = open ? t('cw.show_less') : t('cw.show_more');
  });
  return h('div', { class: 'spoiler' },
    h('span', { class: 'spoiler-label' }, t('cw.label')),
    own(post.spoiler, 'p', { class: 'spoiler-text' }),
    btn);
}

/** folded is the class a box that holds post's warning starts with ('' for a post without one). */
export function folded(post) {
  return post && post.spoiler ? ' folded' : '';
}

/** MAX_SPOILER is the longest content warning, in characters (code points). */
export const MAX_SPOILER = 100;

let seq = 0;

/**
 * spoilerField is a composer's content warning: a toggle (aria-pressed)
 * that shows a one-line field for the warning. It returns {toggle, el,
 * value() (the warning, '' when off), tooLong(), clear()}; onChange is
 * told when it changes.
 */
export function spoilerField(onChange = () => {}) {
  const id = 'cw-' + ++seq;
  const input = h('input', { type: 'text', id, class: 'input cw-input', placeholder: t('cw.placeholder'), attrs: { maxlength: String(MAX_SPOILER * 2), autocomplete: 'off' } });
  const el = h('div', { class: 'cw-field', hidden: true },
    h('label', { htmlFor: id, class: 'cw-field-label' }, t('cw.label')), input);
  const toggle = h('button', {
    type: 'button', class: 'btn btn-ghost btn-small cw-toggle', attrs: { 'aria-pressed': 'false', 'aria-label': t('cw.add'), title: t('cw.add') },
  }, t('cw.short'));
  toggle.addEventListener('click', () => {
    const on = el.hidden;
    el.hidden = !on;
    toggle.setAttribute('aria-pressed', String(on));
    if (on) input.focus();
    onChange();
  });
  input.addEventListener('input', () => onChange());
  const value = () => (el.hidden ? '' : input.value.trim());
  return {
    toggle, el, value,
    tooLong: () => [...value()].length > MAX_SPOILER,
    clear: () => { input.value = ''; el.hidden = true; toggle.setAttribute('aria-pressed', 'false'); },
  };
}
