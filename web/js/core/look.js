// look.js keeps how the app looks on this device: the theme (as the
// system says, light or dark) and the text size. Both live in local
// storage, per device and browser like the language, not in the account:
// a phone in the sun and a laptop at night want different ones. The page
// wears them as <html data-theme data-text>; core.css does the rest (its
// dark colours apply under prefers-color-scheme unless data-theme=light,
// and under data-theme=dark whatever the system says; the text sizes set
// the root font size that the rem sizes follow).
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h } from './dom.js';
import { t } from './i18n.js';

const KEY_THEME = 'microblog.theme';
const KEY_TEXT = 'microblog.text';
export const THEMES = ['system', 'light', 'dark'];
export const TEXT_SIZES = ['small', 'normal', 'large', 'larger'];

function get(key, allowed, fallback) {
  let v = null;
  try { v = localStorage.getItem(key); } catch { /* storage disabled: the defaults */ }
  return allowed.includes(v) ? v : fallback;
}

function put(key, value, fallback) {
  try {
    if (value === fallback) localStorage.removeItem(key); else localStorage.setItem(key, value);
  } catch { /* storage full or disabled: it holds for this visit */ }
}

/** theme is this device's theme: system, light or dark. */
export const theme = () => get(KEY_THEME, THEMES, 'system');
/** textSize is this device's text size: small, normal, large or larger. */
export const textSize = () => get(KEY_TEXT, TEXT_SIZES, 'normal');

/** applyLook puts the device's theme and text size on the page; the apps call it first thing. */
export function applyLook() {
  const root = document.documentElement;
  const th = theme(), size = textSize();
  if (th === 'system') delete root.dataset.theme; else root.dataset.theme = th;
  if (size === 'normal') delete root.dataset.text; else root.dataset.text = size;
}

/**
 * lookFields are the Theme and Text size choices of Settings, each a
 * labelled <select> (as the language is) that applies at once and is
 * remembered on this device. idPrefix keeps their ids apart.
 */
export function lookFields(idPrefix = 'look') {
  const field = (id, label, options, current, save) => {
    const select = h('select', { id, on: { change: () => { save(select.value); applyLook(); } } },
      options.map((o) => h('option', { value: o, selected: o === current }, t(label + '_' + o))));
    return h('div', { class: 'field look-field' }, h('label', { htmlFor: id }, t(label)), select);
  };
  return [
    field(idPrefix + '-theme', 'look.theme', THEMES, theme(), (v) => put(KEY_THEME, v, 'system')),
    field(idPrefix + '-text', 'look.text', TEXT_SIZES, textSize(), (v) => put(KEY_TEXT, v, 'normal')),
    h('p', { class: 'help' }, t('look.help')),
  ];
}
