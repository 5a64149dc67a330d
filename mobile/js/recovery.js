// recovery.js is the mobile app's screen for a forgotten password
// (#/forgot): the form that asks for a reset mail (core/recovery.js),
// under the app bar's title.

import { h } from './core/dom.js';
import { forgotForm } from './core/recovery.js';
import { t } from './core/i18n.js';

/** forgot is the "Reset your password" screen. */
export function forgot(ctx) {
  const el = h('div', { class: 'auth' },
    h('p', { class: 'muted' }, t('recovery.intro')),
    forgotForm(ctx, '#/login'));
  return { el, title: t('recovery.title'), noTabs: true, back: true };
}
