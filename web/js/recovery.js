// recovery.js is the desktop page's screen for a forgotten password
// (/forgot): the form that asks for a reset mail (core/recovery.js), on
// the log-in screen's card.

import { h } from './core/dom.js';
import { forgotForm } from './core/recovery.js';
import { t } from './core/i18n.js';
import { languageFooter } from './lang.js';

/** forgot is the "Reset your password" screen. */
export function forgot(ctx) {
  const body = forgotForm(ctx, '/login');
  const el = h('div', { class: 'auth' },
    h('div', { class: 'auth-card card' },
      h('div', { class: 'auth-brand' }, h('span', { class: 'brand-mark brand-mark-lg', attrs: { 'aria-hidden': 'true' } })),
      h('h1', {}, t('recovery.title')),
      h('p', { class: 'muted' }, t('recovery.intro')),
      body),
    languageFooter());
  setTimeout(() => body.querySelector('input').focus(), 0);
  return { el, title: t('recovery.title'), keepFocus: true };
}
