// editor.js holds the parts of the forms that write text: the counter of
// the characters left, and the form that edits a text in place (a bio, a
// post or comment being edited).
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h } from './dom.js';
import { t } from './i18n.js';
import { countChars } from './api.js';
import { composeAssist } from './assist.js';

/** leftLabel says how many characters are left (left ≥ 0) or over the limit, for assistive technology. */
export function leftLabel(left) {
  return left >= 0 ? t('editor.left', { count: left }) : t('editor.over', { n: -left });
}

/**
 * charCounter is the ring and number that count down the characters left
 * (in code points, as the server counts). show(text) updates it and returns
 * how many are left (negative when over).
 */
export function charCounter(max, id) {
  const ring = h('span', { class: 'ring', attrs: { 'aria-hidden': 'true' } });
  const num = h('span', { class: 'count-num' });
  const el = h('span', { class: 'counter', id }, ring, num);
  return {
    el,
    show(text) {
      const n = countChars(text);
      const left = max - n;
      ring.style.setProperty('--p', Math.min(n / max, 1));
      el.dataset.state = left < 0 ? 'over' : left <= 20 ? 'warn' : '';
      num.textContent = String(left);
      el.setAttribute('aria-label', leftLabel(left));
      el.title = `${n} / ${max}`;
      return left;
    },
  };
}

let editSeq = 0;

/**
 * textEditor is a form that edits a text in place (a bio, a post), with the
 * count of characters left of max (in code points, as the server counts).
 * Save, or Ctrl+Enter, calls save(text) with the text trimmed; it may throw,
 * and its error shows in the form, which keeps the text. Cancel, or Escape,
 * calls cancel(). label names the box for assistive technology; without
 * allowEmpty, an empty box cannot be saved. The box takes the focus, with
 * the caret at the end of the text. With suggest (the app's ctx), the box
 * has the composers' suggestions, emoji and over-length mark (assist.js).
 */
export function textEditor({ value, max, label, cls, rows = 3, allowEmpty = true, save, cancel, suggest = null }) {
  const id = 'text-edit-' + ++editSeq;
  const area = h('textarea', { id, class: 'compose-input', rows, value, attrs: { maxlength: String(max * 4), 'aria-describedby': id + '-count' } });
  const counter = charCounter(max, id + '-count');
  const saveBtn = h('button', { type: 'submit', class: 'btn btn-primary btn-small' }, t('common.save'));
  const error = h('p', { class: 'form-error', attrs: { role: 'alert' }, hidden: true });
  const assist = suggest ? composeAssist(area, suggest, { max }) : null;
  const upd = () => {
    saveBtn.disabled = counter.show(area.value) < 0 || (!allowEmpty && !area.value.trim());
    if (assist) assist.sync();
  };
  const form = h('form', { class: cls, on: { submit: async (e) => {
    e.preventDefault();
    if (saveBtn.disabled) return;
    saveBtn.disabled = true;
    error.hidden = true;
    area.setAttribute('aria-busy', 'true');
    try {
      await save(area.value.trim());
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
      upd();
    } finally {
      area.removeAttribute('aria-busy');
    }
  } } },
  h('label', { htmlFor: id, class: 'visually-hidden' }, label), assist ? assist.el : area, error,
  h('div', { class: 'composer-bar' }, assist ? assist.button : null, counter.el,
    h('button', { type: 'button', class: 'btn btn-ghost btn-small', on: { click: () => cancel() } }, t('common.cancel')), saveBtn));
  area.addEventListener('input', upd);
  area.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); form.requestSubmit(); }
    if (e.key === 'Escape') { e.preventDefault(); cancel(); }
  });
  upd();
  setTimeout(() => { area.focus(); area.setSelectionRange(area.value.length, area.value.length); }, 0);
  return form;
}
