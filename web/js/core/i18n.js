// i18n.js is the front ends' language: every string a user sees comes from
// the message catalogs in locales/<language>/ through t(), never from code or
// markup. It is i18next (vendor/i18next.js, its ES module build, copied as it
// is from the npm package that web/e2e/package.json pins; make vendor
// refreshes it), with the catalog of the page's language loaded before any
// module that shows text runs: no flash of keys or of another language.
//
// The language is the one the user chose in Settings (kept in localStorage),
// else the first of the browser's languages that the service speaks, else
// English. Counts, dates and relative times follow it through Intl.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.
//
// Catalogs: locales/<language>/core.js holds the strings of js/core,
// desktop.js those of the desktop page, mobile.js those of the mobile app.
// Each exports one object of keys; the three are one namespace, so a key is
// unique across them. Plurals follow i18next: "key_one" and "key_other" in
// English, "key_other" alone in Chinese, chosen by the count option.
// Interpolation is {{name}}; {{n, count}} shows a count as the language
// writes it (1.2K, 1.2万).

import i18next from './vendor/i18next.js';

/** LANGUAGES are the languages the service speaks, each named in itself. */
export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'zh-CN', name: '简体中文' },
];

const STORE_KEY = 'microblog.lang';
// LANG_COOKIE tells the server the language chosen in Settings, so that the
// page it serves preloads that language's catalogs rather than those of the
// browser's languages (server/api/static.go, pageLang).
const LANG_COOKIE = 'microblog.lang';

/** rememberChoice keeps lang (or, null, no choice) in LANG_COOKIE for a year. */
function rememberChoice(lang) {
  try {
    document.cookie = lang ? `${LANG_COOKIE}=${lang}; path=/; max-age=31536000; samesite=lax`
      : `${LANG_COOKIE}=; path=/; max-age=0; samesite=lax`;
  } catch { /* no cookies here (a sandbox): the server guesses from the browser */ }
}

// catalogs load the language the page is shown in, and only it: a reader
// never downloads the other's strings (each catalog is complete, as
// i18n.test.mjs checks). The imports are written out, so that the server
// versions their URLs (server/api/static.go).
const catalogs = {
  en: () => Promise.all([import('./locales/en/core.js'), import('./locales/en/desktop.js'), import('./locales/en/mobile.js')]),
  'zh-CN': () => Promise.all([import('./locales/zh-CN/core.js'), import('./locales/zh-CN/desktop.js'), import('./locales/zh-CN/mobile.js')]),
};

/** pick maps a language tag to one the service speaks, or null. */
export function pick(tag) {
  if (!tag) return null;
  const lower = String(tag).toLowerCase();
  if (lower === 'en' || lower.startsWith('en-')) return 'en';
  // Simplified Chinese is zh, zh-CN, zh-SG and zh-Hans*; Traditional (zh-TW,
  // zh-HK, zh-Hant) readers are better served by it than by English.
  if (lower === 'zh' || lower.startsWith('zh-')) return 'zh-CN';
  return null;
}

function stored() {
  try { return pick(localStorage.getItem(STORE_KEY)); } catch { return null; }
}

function fromBrowser() {
  for (const tag of navigator.languages || [navigator.language]) {
    const lang = pick(tag);
    if (lang) return lang;
  }
  return 'en';
}

const chosen = stored();
const current = chosen || fromBrowser();
if (chosen || document.cookie.includes(LANG_COOKIE + '=')) rememberChoice(chosen);
// Every module that shows text imports this one, so none runs before the
// catalog is here: no flash of keys or of another language.
const loaded = await catalogs[current]();

i18next.init({
  lng: current,
  fallbackLng: 'en',
  supportedLngs: LANGUAGES.map((l) => l.code),
  resources: { [current]: { translation: Object.assign({}, ...loaded.map((m) => m.default)) } },
  initAsync: false, // the catalogs are here: ready before init returns
  returnNull: false,
  // Strings are always shown as text nodes (dom.js), never parsed as HTML,
  // so values need no HTML escaping here.
  interpolation: { escapeValue: false },
});

const compact = new Intl.NumberFormat(current, { notation: 'compact', maximumFractionDigits: 1 });
const whole = new Intl.NumberFormat(current);
i18next.services.formatter.add('count', (value) => count(value));

document.documentElement.lang = current;

/** t is the text of key in the user's language (see i18next's t). */
export function t(key, options) {
  return i18next.t(key, options);
}

/** has reports whether key has a text, in the user's language or English. */
export function has(key) {
  return i18next.exists(key);
}

/** lang is the language the page is shown in: "en" or "zh-CN". */
export function lang() {
  return current;
}

/**
 * setLang remembers the user's choice and shows the page again in it. The
 * page reloads: every view is drawn anew in the new language, and the
 * session (a cookie, or the app's stored token) carries over.
 */
export function setLang(code) {
  const lang = pick(code);
  if (!lang) return;
  try { localStorage.setItem(STORE_KEY, lang); } catch { /* private mode: this page only */ }
  rememberChoice(lang);
  if (lang !== current) location.reload();
}

/**
 * count shows a count as the language writes large numbers: exact below
 * 10,000 (1,234), then short (12K, 1.2M in English; 1.2万, 3.4亿 in Chinese,
 * as Weibo shows them).
 */
export function count(n) {
  const value = Number(n) || 0;
  return Math.abs(value) < 10_000 ? whole.format(value) : compact.format(value);
}

/**
 * localize fills the static markup under root from the catalogs: an element
 * with data-i18n="key" gets the text of key; data-i18n-aria-label,
 * data-i18n-placeholder, data-i18n-title and data-i18n-alt set those
 * attributes. The pages' markup carries only keys.
 */
export function localize(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const attr of ['aria-label', 'placeholder', 'title', 'alt', 'content']) {
    for (const el of root.querySelectorAll(`[data-i18n-${attr}]`)) el.setAttribute(attr, t(el.getAttribute(`data-i18n-${attr}`)));
  }
}

/**
 * errorText is what to tell the user about an API error: the text of its
 * contract code in the user's language ("error.<code>" in the catalogs),
 * else the server's own message, else a general one.
 */
export function errorText(err) {
  const code = err && err.code;
  if (code && has(`error.${code}`)) return t(`error.${code}`, err.details || {});
  return (err && err.message) || t('error.unknown');
}
