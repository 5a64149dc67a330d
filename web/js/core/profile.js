// profile.js draws what a user set of its profile (CONTRACT.md §15): the
// display name (昵称) with the @username beside it wherever a user is
// shown, the header picture and the fields on the profile page, and the
// Profile section of Settings that edits them.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, own, fill } from './dom.js';
import { t, errorText, count } from './i18n.js';
import { mediaURL, uploadError } from './media.js';
import { settingsSection, errorLine } from './account.js';
import { isRemote, localPart, remoteMark } from './remote.js';

const MAX_DISPLAY_NAME = 30;
const MAX_FIELDS = 4;
const MAX_FIELD_TEXT = 100;

/**
 * stat is one of a profile's counts with its label, which agrees with it
 * ("1 Follower", "2 Followers"; 粉丝 either way): { el, set(n) }, set
 * changing both as a follow arrives. key is posts, following or followers.
 */
export function stat(key, n, href, cls) {
  const text = (v) => ({
    posts: () => t('profile.stat_posts', { count: v }),
    following: () => t('profile.stat_following', { count: v }),
    followers: () => t('profile.stat_followers', { count: v }),
  })[key]();
  const num = h('strong', {}, count(n));
  const label = h('span', {}, text(n));
  return {
    el: h('a', { class: cls, href }, num, ' ', label),
    set(v) { num.textContent = count(v); label.textContent = text(v); },
  };
}

/** shownName is what a user is called on screen: its display name, else its username. */
export function shownName(who) {
  return (who && who.display_name) || (who && who.username) || '';
}

/**
 * nameLink links a user (a User or a post's author) to its profile by its
 * display name, with the @username beside it, as Weibo and Mastodon show
 * people; a user without a display name is its username alone. Both are
 * what a user wrote: marked translate="no", and isolated (dir="auto") so
 * that a name in a right-to-left script does not turn the line round.
 */
export function nameLink(ctx, who, cls = 'name') {
  const href = ctx.href('/u/' + encodeURIComponent(who.username));
  // Another server's account: its display name (or the name before the
  // @domain), the globe of its server, and its whole @name@domain, which
  // gives way first where the line is short.
  if (isRemote(who)) {
    return [
      own(who.display_name || localPart(who.username), 'a', { class: cls + ' display-name', href, title: '@' + who.username, attrs: { dir: 'auto' } }),
      remoteMark(who),
      own('@' + who.username, 'span', { class: 'handle', attrs: { dir: 'ltr' } }),
    ];
  }
  if (!who.display_name) return own(who.username, 'a', { class: cls, href });
  return [
    own(who.display_name, 'a', { class: cls + ' display-name', href, attrs: { dir: 'auto' } }),
    own('@' + who.username, 'span', { class: 'handle', attrs: { dir: 'ltr' } }),
  ];
}

/**
 * profileHeading is the name at the top of a profile: the display name as
 * the heading (tag), holding extra (the lock of a protected account), and
 * the @username under it; or the username alone.
 */
export function profileHeading(user, tag, ...extra) {
  if (!user.display_name) return h(tag, { class: 'profile-name' }, own(user.username), ...extra);
  return [
    h(tag, { class: 'profile-name' }, own(user.display_name, 'span', { attrs: { dir: 'auto' } }), ...extra),
    own('@' + user.username, 'p', { class: 'profile-handle', attrs: { dir: 'ltr' } }),
  ];
}

/** headerBanner is the user's header picture, wide above its profile, or null. */
export function headerBanner(user) {
  if (!user.header_url) return null;
  const img = h('img', { alt: '', decoding: 'async', width: 1500, height: 500 });
  const el = h('div', { class: 'profile-banner', attrs: { 'aria-hidden': 'true' } }, img);
  img.addEventListener('error', () => el.remove(), { once: true });
  img.src = mediaURL(user.header_url);
  return el;
}

/** fieldLink is the URL a field's value links to: itself when it is an http(s) address. */
function fieldLink(value) {
  try {
    const u = new URL(value);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host && !/[\s"<>]/.test(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * profileFields lists a user's fields on its profile, a value that is a
 * web address as a link that passes nothing on (rel="nofollow noopener").
 */
export function profileFields(user) {
  const fields = user.fields || [];
  if (!fields.length) return null;
  return h('dl', { class: 'profile-fields' }, fields.map((f) => {
    const link = fieldLink(f.value);
    return h('div', { class: 'profile-field' },
      own(f.name, 'dt', { attrs: { dir: 'auto' } }),
      h('dd', {}, link
        ? own(f.value, 'a', { href: link, attrs: { rel: 'nofollow noopener noreferrer', target: '_blank', dir: 'ltr' } })
        : own(f.value, 'span', { attrs: { dir: 'auto' } })));
  }));
}

/**
 * profileSettings is the Profile section of Settings (both front ends):
 * the display name, the fields and the header picture of the signed-in
 * user (ctx.me()), each saved through the API and shown at once. opts.cls
 * is the section's class (the desktop page's card).
 */
export function profileSettings(ctx, opts = {}) {
  const me = ctx.me();
  const nameInput = h('input', {
    id: 'profile-display-name', name: 'display_name', value: me.display_name || '', autocomplete: 'nickname',
    attrs: { maxlength: String(MAX_DISPLAY_NAME), dir: 'auto', 'aria-describedby': 'profile-display-name-help' },
  });
  const rows = [];
  for (let i = 0; i < MAX_FIELDS; i++) {
    const f = (me.fields || [])[i] || { name: '', value: '' };
    const n = { n: i + 1 };
    const name = h('input', { id: `profile-field-name-${i}`, value: f.name, attrs: { maxlength: String(MAX_FIELD_TEXT), dir: 'auto' } });
    const value = h('input', { id: `profile-field-value-${i}`, value: f.value, attrs: { maxlength: String(MAX_FIELD_TEXT), dir: 'auto' } });
    rows.push({ name, value });
    rows[i].el = h('div', { class: 'profile-field-row' },
      h('label', { htmlFor: name.id, class: 'visually-hidden' }, t('profile.field_name', n)), name,
      h('label', { htmlFor: value.id, class: 'visually-hidden' }, t('profile.field_value', n)), value);
    name.placeholder = t('profile.field_name', n);
    value.placeholder = t('profile.field_value', n);
  }
  const error = errorLine();
  const save = h('button', { type: 'submit', class: 'btn btn-primary' }, t('profile.save'));
  const form = h('form', { class: 'profile-form', on: { submit: async (e) => {
    e.preventDefault();
    error.hidden = true;
    save.disabled = true;
    try {
      const fields = rows.map((r) => ({ name: r.name.value.trim(), value: r.value.value.trim() })).filter((f) => f.name || f.value);
      const u = await ctx.api.updateMe({ display_name: nameInput.value, fields });
      Object.assign(ctx.me(), { display_name: u.display_name, fields: u.fields });
      nameInput.value = u.display_name;
      rows.forEach((r, i) => { const f = u.fields[i] || { name: '', value: '' }; r.name.value = f.name; r.value.value = f.value; });
      ctx.toast(t('profile.saved'));
      if (opts.onSaved) opts.onSaved(u);
    } catch (err) {
      error.textContent = errorText(err);
      error.hidden = false;
    } finally {
      save.disabled = false;
    }
  } } },
  h('div', { class: 'field' },
    h('label', { htmlFor: nameInput.id }, t('profile.display_name')), nameInput,
    h('p', { class: 'help', id: 'profile-display-name-help' }, t('profile.display_name_help'))),
  h('fieldset', { class: 'profile-fieldset' },
    h('legend', {}, t('profile.fields')),
    h('p', { class: 'help' }, t('profile.fields_help')),
    rows.map((r) => r.el)),
  error,
  h('div', { class: 'form-actions' }, save));
  return settingsSection('settings-profile-title', t('profile.section'), t('profile.section_help'), opts.cls || '',
    headerPicker(ctx), form);
}

/** headerPicker shows the header picture and changes it (PUT /me/header). */
function headerPicker(ctx) {
  const preview = h('div', { class: 'profile-header-preview' });
  const show = () => fill(preview, headerBanner(ctx.me()) || h('p', { class: 'muted' }, t('profile.no_header')));
  const input = h('input', { type: 'file', class: 'visually-hidden', tabIndex: -1, attrs: { accept: 'image/*', 'aria-hidden': 'true' } });
  const label = h('span', {}, t('profile.change_header'));
  const button = h('button', { type: 'button', class: 'btn header-change', on: { click: () => input.click() } }, label);
  input.addEventListener('change', async () => {
    const file = input.files[0];
    input.value = '';
    if (!file) return;
    button.disabled = true;
    button.setAttribute('aria-busy', 'true');
    try {
      const u = await ctx.api.setHeader(file, (p) => { label.textContent = t('profile.header_uploading', { percent: Math.round(p * 100) }); });
      ctx.me().header_url = u.header_url;
      show();
      ctx.toast(t('profile.header_changed'));
    } catch (err) {
      ctx.toast(uploadError(err));
    } finally {
      label.textContent = t('profile.change_header');
      button.disabled = false;
      button.removeAttribute('aria-busy');
    }
  });
  show();
  return h('div', { class: 'profile-header-field' },
    h('p', { class: 'profile-header-title' }, t('profile.header')), preview, h('span', {}, button, input));
}
