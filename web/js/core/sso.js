// sso.js is what both front ends show of the other ways to sign in that
// GET /api/v1/auth/providers lists: a "Sign in with …" button for each
// provider the browser is sent to (OpenID Connect), a choice on the login
// form for each that takes a name and password (LDAP), links in Settings,
// and the outcome the server's callback reports in ?sso_error / ?sso_linked.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, own, phrase, slots } from './dom.js';
import { t } from './i18n.js';

const PROVIDER = slots('provider');

/**
 * provided is text with its {{provider}} filled with p's name, which the
 * operators gave it (translate="no"), in one span: a button's one item.
 */
const provided = (text, p) => h('span', {}, phrase(text, { provider: own(p.name) }));

/** providersOf asks the server once per page what is configured; a server that cannot say has none. */
let cached = null;
export function providersOf(ctx) {
  if (!cached) cached = ctx.api.providers().catch(() => ({ local_signup: true, providers: [] }));
  return cached;
}

/** forget drops what providersOf learned (it says what is linked to the user, which changes). */
export function forget() { cached = null; }

/** loginURL is where a redirect provider's button sends the browser: for the mobile app, its server's, marked. */
function loginURL(ctx, p, mobile) {
  return mobile ? (ctx.config.server() || '') + p.login_url + '?app=mobile' : p.login_url;
}

/**
 * signInOptions returns, for the log-in and sign-up screens, a box of
 * "Sign in with …" buttons and a select of the password providers
 * ("Local account" or a directory) for the form; provider() says which
 * one is chosen (null: local). onList(list) runs once the list is known,
 * e.g. to hide sign-up when local_signup is false.
 */
export function signInOptions(ctx, { mobile = false, onList = () => {} } = {}) {
  const buttons = h('div', { class: 'sso-buttons', hidden: true });
  const select = h('select', { id: 'provider', name: 'provider' }, h('option', { value: '' }, t('sso.local')));
  const field = h('div', { class: 'field', hidden: true }, h('label', { htmlFor: 'provider' }, t('sso.sign_in_with')), select);
  providersOf(ctx).then((list) => {
    for (const p of list.providers) {
      if (p.kind === 'redirect') {
        buttons.append(h('a', { class: 'btn btn-block sso-button', href: loginURL(ctx, p, mobile) }, provided(t('sso.sign_in_with_name', PROVIDER), p)));
      } else if (p.kind === 'password') {
        select.append(own(p.name, 'option', { value: p.id }));
      }
    }
    buttons.hidden = !buttons.children.length;
    field.hidden = select.options.length < 2;
    onList(list);
  });
  return { buttons, field, provider: () => select.value || null };
}

/**
 * linkArea is the Settings section that links the signed-in user's
 * account to each redirect provider, saying which are linked already.
 * Linking is a navigation that carries the session cookie.
 */
export function linkArea(ctx, { mobile = false, sectionClass = '' } = {}) {
  const list = h('ul', { class: 'sso-links' });
  const el = h('section', { class: ('account-section ' + sectionClass).trim(), attrs: { 'aria-labelledby': 'sso-title' }, hidden: true },
    h('h2', { id: 'sso-title' }, t('sso.services')),
    h('p', { class: 'muted' }, t('sso.services_help')),
    list);
  forget();
  providersOf(ctx).then(({ providers }) => {
    for (const p of providers.filter((x) => x.kind === 'redirect')) {
      list.append(h('li', {},
        p.linked ? h('span', { class: 'sso-linked' }, phrase(t('sso.linked_name', PROVIDER), { provider: own(p.name) })) :
          h('a', { class: 'btn', href: loginURL(ctx, p, mobile) }, provided(t('sso.link_name', PROVIDER), p))));
    }
    el.hidden = !list.children.length;
  });
  return { el };
}

/** failed says what the sso_error code of the server's callback means. */
function failed(code) {
  switch (code) {
    case 'invalid_state': return t('sso.invalid_state');
    case 'denied': return t('sso.denied');
    case 'rejected': return t('sso.rejected');
    case 'unavailable': return t('sso.unavailable');
    case 'identity_taken': return t('sso.identity_taken');
    case 'session_changed': return t('sso.session_changed');
    case 'forbidden': return t('sso.forbidden');
    default: return t('sso.failed', { code });
  }
}

/** ssoOutcome tells, once, what the server's callback reported in the page's URL, and takes it out of the URL. */
export function ssoOutcome(toast) {
  const q = new URLSearchParams(location.search);
  const error = q.get('sso_error');
  const linked = q.get('sso_linked');
  if (!error && !linked) return;
  toast(error ? failed(error) : t('sso.linked'));
  q.delete('sso_error');
  q.delete('sso_linked');
  const rest = q.toString();
  history.replaceState(history.state, '', location.pathname + (rest ? '?' + rest : '') + location.hash);
}
