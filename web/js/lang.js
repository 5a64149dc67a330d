// lang.js is the desktop page's side of its two languages: the switch that
// lists them (Settings, and the log-in screen's foot, so that a visitor can
// change it before signing in), and the marking of what users wrote, which
// is never translated (translate="no", as HTML means it: a browser's or a
// screen reader's translation leaves it alone, and so does the tests' walk
// for English left on a screen).

import { h, own, phrase, slots } from './core/dom.js';
import { t, lang, setLang, LANGUAGES } from './core/i18n.js';

let seq = 0;

/**
 * languageSelect is a <select> of the languages, each named in itself (and
 * marked as written in it), showing the current one; choosing another
 * shows the page again in it, remembered across visits (setLang).
 * attrs label it (aria-labelledby, or an id for a <label>).
 */
export function languageSelect(attrs = {}) {
  const select = h('select', { class: 'lang-select', attrs: { autocomplete: 'off', ...attrs }, on: { change: () => setLang(select.value) } },
    LANGUAGES.map(({ code, name }) => h('option', { value: code, selected: code === lang(), attrs: { lang: code, translate: 'no' } }, name)));
  return select;
}

/** languageFooter is the log-in screen's "Language" line with its switch. */
export function languageFooter() {
  const id = 'lang-' + ++seq;
  return h('p', { class: 'auth-lang' },
    h('label', { htmlFor: id }, t('settings.language')),
    languageSelect({ id }));
}

/**
 * tWith is the text of key with the values of vars put in as nodes: an
 * array of strings and nodes for h(), so that a sentence such as "Search
 * posts for “{{q}}”" is translated while the query is not. A string value
 * becomes own(value); a node (say a <kbd>) goes in as it is.
 */
export function tWith(key, vars) {
  const nodes = Object.fromEntries(Object.entries(vars).map(([name, value]) => [name, value instanceof Node ? value : own(value)]));
  return phrase(t(key, slots(...Object.keys(vars))), nodes);
}
