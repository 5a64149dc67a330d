// account.js is the "Account" area both front ends show to a logged-in
// user: change the password (this device stays logged in, every other one is
// logged out), log out everywhere, and delete the account (asking for the
// password, then once more to be sure).
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, own, phrase, slots } from './dom.js';
import { t } from './i18n.js';
import { waitText } from './time.js';

/** messageOf says what went wrong in words a person can act on. */
function messageOf(err, wrongPassword) {
  if (err.code === 'invalid_credentials') return wrongPassword;
  if (err.status === 429) {
    const s = Number(err.retryAfter);
    return s > 0 ? t('account.too_many_wait', { wait: waitText(s) }) : t('account.too_many');
  }
  return err.message;
}

function passwordField(id, label, autocomplete, help) {
  const input = h('input', { id, name: id, type: 'password', required: true, autocomplete, attrs: { minlength: '8', maxlength: '128' } });
  return { input, el: h('div', { class: 'field' }, h('label', { htmlFor: id }, label), input, help ? h('p', { class: 'help' }, help) : null) };
}

/**
 * settingsSection is one titled part of the Account area or of Settings
 * (of class sectionClass too, such as the desktop page's card); text, if
 * given, explains it under the title.
 */
export function settingsSection(id, title, text, sectionClass, ...body) {
  return h('section', { class: ('account-section ' + sectionClass).trim(), attrs: { 'aria-labelledby': id } },
    h('h2', { id }, title), text ? h('p', { class: 'muted' }, text) : null, ...body);
}

/** errorLine is a form's error message, hidden until something fails. */
export function errorLine() {
  return h('p', { class: 'form-error', attrs: { role: 'alert' }, hidden: true });
}

/**
 * accountArea returns the Account sections (each of class sectionClass
 * too, such as the desktop page's card). signedOut(message) is called
 * once the server has ended this device's session (log out everywhere, or
 * the account is gone): the app forgets the user and says message. While a
 * request that ends the session is out, ctx.app.leaving is set, so that the
 * live feed's "logged out" close does not tell the user the session ended.
 */
export function accountArea(ctx, { signedOut, sectionClass = '' }) {
  const me = ctx.me();

  // ---- change password ----
  const oldPw = passwordField('acct-old', t('account.current_password'), 'current-password');
  const newPw = passwordField('acct-new', t('account.new_password'), 'new-password', t('account.new_password_help'));
  const pwError = errorLine();
  const pwButton = h('button', { type: 'submit', class: 'btn btn-primary' }, t('account.change_password'));
  const pwForm = h('form', { class: 'account-form', attrs: { 'aria-labelledby': 'acct-pw-title' }, on: { submit: async (e) => {
    e.preventDefault();
    pwError.hidden = true;
    pwButton.disabled = true;
    try {
      await ctx.api.changePassword(oldPw.input.value, newPw.input.value);
      pwForm.reset();
      ctx.toast(t('account.password_changed'));
    } catch (err) {
      pwError.textContent = messageOf(err, t('account.wrong_current_password'));
      pwError.hidden = false;
      (err.code === 'invalid_password' ? newPw : oldPw).input.focus();
    } finally {
      pwButton.disabled = false;
    }
  } } }, oldPw.el, newPw.el, pwError, pwButton);

  // ---- log out everywhere ----
  const allError = errorLine();
  const allButton = h('button', { type: 'button', class: 'btn', on: { click: async () => {
    allError.hidden = true;
    allButton.disabled = true;
    ctx.app.leaving = true;
    try {
      await ctx.api.logoutAll();
      signedOut(t('account.logged_out_everywhere'));
    } catch (err) {
      ctx.app.leaving = false;
      allError.textContent = messageOf(err, err.message);
      allError.hidden = false;
      allButton.disabled = false;
    }
  } } }, t('account.log_out_everywhere'));

  // ---- delete account ----
  const delPw = passwordField('acct-del', t('account.password'), 'current-password');
  const delError = errorLine();
  const confirmBox = h('div', { class: 'account-confirm', attrs: { role: 'group', 'aria-labelledby': 'acct-confirm-text' }, hidden: true });
  const askButton = h('button', { type: 'submit', class: 'btn btn-danger' }, t('account.delete_ask'));
  const delForm = h('form', { class: 'account-form', attrs: { 'aria-labelledby': 'acct-del-title' }, on: { submit: (e) => {
    e.preventDefault();
    delError.hidden = true;
    askButton.hidden = true;
    confirmBox.hidden = false;
    confirmBox.querySelector('.btn-danger').focus();
  } } }, delPw.el, delError, askButton, confirmBox);
  const cancel = () => { confirmBox.hidden = true; askButton.hidden = false; askButton.focus(); };
  const really = h('button', { type: 'button', class: 'btn btn-danger', on: { click: async () => {
    really.disabled = true;
    ctx.app.leaving = true;
    try {
      await ctx.api.deleteAccount(delPw.input.value);
      signedOut(t('account.deleted'));
    } catch (err) {
      ctx.app.leaving = false;
      delError.textContent = messageOf(err, t('account.wrong_password'));
      delError.hidden = false;
      really.disabled = false;
      confirmBox.hidden = true;
      askButton.hidden = false;
      delPw.input.focus();
    }
  } } }, t('account.delete_forever'));
  confirmBox.append(
    h('p', { id: 'acct-confirm-text' }, phrase(t('account.delete_confirm', slots('handle')), { handle: own('@' + me.username) })),
    h('div', { class: 'account-actions' }, really, h('button', { type: 'button', class: 'btn', on: { click: cancel } }, t('common.cancel'))));

  const section = (id, title, text, ...body) => settingsSection(id, title, text, sectionClass, ...body);
  const el = h('div', { class: 'account-area' },
    section('acct-pw-title', t('account.change_password'), null, pwForm),
    section('acct-all-title', t('account.log_out_everywhere'), t('account.log_out_everywhere_help'), allError, allButton),
    section('acct-del-title', t('account.delete'), t('account.delete_help'), delForm));
  return { el };
}
