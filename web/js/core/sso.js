// sso.js is what both front ends show of the other ways to sign in that
// GET /api/v1/auth/providers lists: a "Sign in with …" button for each
// provider the browser is sent to (OpenID Connect), a choice on the login
// form for each that takes a name and password (LDAP), links in Settings,
// and the outcome the server's callback reports in ?sso_error / ?sso_linked.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h } from './dom.js';

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
  const select = h('select', { id: 'provider', name: 'provider' }, h('option', { value: '' }, 'Local account'));
  const field = h('div', { class: 'field', hidden: true }, h('label', { htmlFor: 'provider' }, 'Sign in with'), select);
  providersOf(ctx).then((list) => {
    for (const p of list.providers) {
      if (p.kind === 'redirect') {
        buttons.append(h('a', { class: 'btn btn-block sso-button', href: loginURL(ctx, p, mobile) }, 'Sign in with ' + p.name));
      } else if (p.kind === 'password') {
        select.append(h('option', { value: p.id }, p.name));
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
    h('h2', { id: 'sso-title' }, 'Sign-in services'),
    h('p', { class: 'muted' }, 'Link an account of your school or company, then sign in with it instead of your password.'),
    list);
  forget();
  providersOf(ctx).then(({ providers }) => {
    for (const p of providers.filter((x) => x.kind === 'redirect')) {
      list.append(h('li', {},
        p.linked ? h('span', { class: 'sso-linked' }, p.name + ': linked') :
          h('a', { class: 'btn', href: loginURL(ctx, p, mobile) }, 'Link ' + p.name)));
    }
    el.hidden = !list.children.length;
  });
  return { el };
}

const messages = {
  invalid_state: 'That sign-in expired or was not started in this browser. Please try again.',
  denied: 'The sign-in was cancelled.',
  rejected: 'The sign-in service’s answer could not be verified. Please try again.',
  unavailable: 'The sign-in service cannot be reached. Try again later.',
  identity_taken: 'That account of the sign-in service is linked to another user.',
  session_changed: 'You were logged out before the link was made. Log in and try again.',
  forbidden: 'This account may not sign in.',
};

/** ssoOutcome tells, once, what the server's callback reported in the page's URL, and takes it out of the URL. */
export function ssoOutcome(toast) {
  const q = new URLSearchParams(location.search);
  const error = q.get('sso_error');
  const linked = q.get('sso_linked');
  if (!error && !linked) return;
  toast(error ? messages[error] || 'Single sign-on failed (' + error + ').' : 'Linked. You can sign in with it from now on.');
  q.delete('sso_error');
  q.delete('sso_linked');
  const rest = q.toString();
  history.replaceState(history.state, '', location.pathname + (rest ? '?' + rest : '') + location.hash);
}
