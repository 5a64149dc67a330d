// time.js shows times relative to now ("3 min ago", "3分钟前") in the
// page's language, and keeps every shown time current.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { lang, t } from './i18n.js';

// Times follow the page's language. English is also the page's language for
// every reader whose language the service does not speak: their times at
// least keep their browser's conventions ("vor 1 Min.", "3 Mar"). A reader
// whose browser speaks Chinese and who chose English gets English times.
const browser = navigator.language || 'en';
const locale = lang() === 'en' && !/^zh\b/i.test(browser) ? browser : lang();
const rtf = new Intl.RelativeTimeFormat(locale, { numeric: 'auto', style: 'short' });
const full = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
const day = new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric' });
const dayYear = new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric' });

const UNITS = [
  ['year', 365 * 24 * 3600], ['month', 30 * 24 * 3600], ['week', 7 * 24 * 3600],
  ['day', 24 * 3600], ['hour', 3600], ['minute', 60], ['second', 1],
];

/** relativeTime formats a date as "now", "3 min ago", "yesterday", ... */
export function relativeTime(date, now = Date.now()) {
  const at = date instanceof Date ? date.getTime() : Date.parse(date);
  const secs = Math.round((at - now) / 1000);
  if (Math.abs(secs) < 10) return rtf.format(0, 'second');
  for (const [unit, size] of UNITS) {
    if (Math.abs(secs) >= size || unit === 'second') return rtf.format(Math.round(secs / size), unit);
  }
  return '';
}

/** waitText says how long to wait before trying again: seconds up to 90 ("45 s"), else minutes ("2 min"). */
export function waitText(seconds) {
  return seconds < 90 ? t('time.seconds', { n: seconds }) : t('time.minutes', { n: Math.ceil(seconds / 60) });
}

/** absoluteTime formats a date in full, for tooltips. */
export function absoluteTime(date) {
  return full.format(new Date(date));
}

/** shortDate formats a date as "Mar 3" (this year) or "Mar 3, 2024". */
export function shortDate(date) {
  const d = new Date(date);
  return (d.getFullYear() === new Date().getFullYear() ? day : dayYear).format(d);
}

/** timeElement returns a <time> that the clock keeps current. */
export function timeElement(iso) {
  const el = document.createElement('time');
  el.dateTime = iso;
  el.dataset.rel = '';
  el.title = absoluteTime(iso);
  el.textContent = relativeTime(iso);
  return el;
}

/** startClock refreshes every relative time on the page twice a minute. */
export function startClock(root = document) {
  const tick = () => {
    const now = Date.now();
    for (const el of root.querySelectorAll('time[data-rel]')) el.textContent = relativeTime(el.dateTime, now);
  };
  setInterval(tick, 30_000);
  document.addEventListener('visibilitychange', () => { if (!document.hidden) tick(); });
}
