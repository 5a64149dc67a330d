// recovery.js is what both front ends show of a forgotten password and
// the email address it is mailed to: the "Forgot password?" link of the
// log-in screen, the screen that asks for the reset mail, and the Settings
// section that sets the address, saying whether it is confirmed. All of it
// shows only when the server sends mail (GET /api/v1/auth/providers says
// "mail"). The links in the mails open the server's own plain pages
// (/auth/reset/…, /auth/confirm/…), which need no JavaScript.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, own, phrase, slots } from './dom.js';
import { t, lang } from './i18n.js';
import { providersOf } from './sso.js';
import { settingsSection, errorLine } from './account.js';
import { waitText } from './time.js';

/** mailLang is the language the server writes the mail in. */
const mailLang = () => (lang().startsWith('zh') ? 'zh' : 'en');

/** failedText says what a refused request means to the person. */
function failedText(err) {
  if (err.status === 429) {
    const s = Number(err.retryAfter);
    return s > 0 ? t('account.too_many_wait', { wait: waitText(s) }) : t('account.too_many');
  }
  return err.message;
}

/** forgotLink is the log-in screen's "Forgot password?" link to href, shown once the server says it sends mail. */
export function forgotLink(ctx, href) {
  const el = h('p', { class: 'auth-switch forgot-link', hidden: true }, h('a', { href }, t('recovery.forgot')));
  providersOf(ctx).then((list) => { el.hidden = !list.mail; });
  return el;
}

/**
 * forgotForm is the body of the screen that asks for a reset mail: an
 * address, then, sent, what happens next (the same words whether an
 * account has the address or not: the server does not say). loginHref is
 * the log-in screen's.
 */
export function forgotForm(ctx, loginHref) {
  const input = h('input', { id: 'forgot-email', name: 'email', type: 'email', required: true, autocomplete: 'email',
    attrs: { autocapitalize: 'none', spellcheck: 'false', maxlength: '254', 'aria-describedby': 'forgot-help' } });
  const error = errorLine();
  const submit = h('button', { type: 'submit', class: 'btn btn-primary btn-block' }, t('recovery.send'));
  const sent = h('div', { class: 'forgot-sent', attrs: { role: 'status' } });
  const form = h('form', { class: 'auth-form', on: { submit: async (e) => {
    e.preventDefault();
    error.hidden = true;
    submit.disabled = true;
    try {
      await ctx.api.requestPasswordReset(input.value.trim(), mailLang());
      sent.append(h('p', {}, phrase(t('recovery.sent', slots('email')), { email: own(input.value.trim()) })),
        h('p', { class: 'muted' }, t('recovery.sent_help')));
      form.hidden = true;
    } catch (err) {
      error.textContent = failedText(err);
      error.hidden = false;
      submit.disabled = false;
      input.focus();
    }
  } } },
  h('div', { class: 'field' }, h('label', { htmlFor: 'forgot-email' }, t('recovery.email')), input,
    h('p', { class: 'help', id: 'forgot-help' }, t('recovery.email_help'))),
  error, submit);
  return h('div', { class: 'forgot' }, form, sent,
    h('p', { class: 'auth-switch' }, h('a', { href: loginHref }, t('recovery.back'))));
}

/**
 * emailArea is the Settings section of the signed-in user's address: the
 * address, whether it is confirmed or waits for its link, and a form to
 * set (or, empty, remove) it. Hidden while the server sends no mail.
 */
export function emailArea(ctx, { sectionClass = '' } = {}) {
  const me = ctx.me() || {};
  const input = h('input', { id: 'email-address', name: 'email', type: 'email', autocomplete: 'email',
    value: me.email_pending || me.email || '', attrs: { autocapitalize: 'none', spellcheck: 'false', maxlength: '254', 'aria-describedby': 'email-state' } });
  const state = h('p', { id: 'email-state', class: 'email-state', attrs: { role: 'status' } });
  const error = errorLine();
  const save = h('button', { type: 'submit', class: 'btn btn-primary' }, t('common.save'));
  const show = (u) => {
    state.replaceChildren();
    if (u.email_pending) {
      state.append(h('span', { class: 'badge email-unconfirmed' }, t('recovery.unconfirmed')), ' ',
        ...phrase(t('recovery.pending_help', slots('email')), { email: own(u.email_pending) }));
    } else if (u.email) {
      state.append(h('span', { class: 'badge email-confirmed' }, t('recovery.confirmed')), ' ', t('recovery.confirmed_help'));
    } else {
      state.append(t('recovery.none'));
    }
  };
  show(me);
  const form = h('form', { class: 'account-form', attrs: { 'aria-labelledby': 'email-title' }, on: { submit: async (e) => {
    e.preventDefault();
    error.hidden = true;
    save.disabled = true;
    try {
      const u = await ctx.api.updateMe({ email: input.value.trim(), lang: mailLang() });
      me.email = u.email;
      me.email_pending = u.email_pending;
      show(u);
      ctx.toast(u.email_pending ? t('recovery.link_sent') : t('recovery.saved'));
    } catch (err) {
      error.textContent = failedText(err);
      error.hidden = false;
      input.focus();
    } finally {
      save.disabled = false;
    }
  } } },
  h('div', { class: 'field' }, h('label', { htmlFor: 'email-address' }, t('recovery.email')), input), state, error, save);
  const el = settingsSection('email-title', t('recovery.email_title'), t('recovery.email_about'), sectionClass, form);
  el.hidden = true;
  providersOf(ctx).then((list) => { el.hidden = !list.mail; });
  return { el };
}
