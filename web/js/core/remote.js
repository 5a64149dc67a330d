// remote.js is what both front ends show of accounts on other servers
// (federation, CONTRACT.md §16). Such an account is a user like any other,
// named name@domain (a local name never holds '@'): it has a profile page
// (/u/name@domain), a follow button, a menu, and its posts are drawn like
// local ones. Besides, it carries a small globe saying which server it is
// on, and links to its page there (the User's `url`, a post's `url`).
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, icon, own, phrase, slots } from './dom.js';
import { t } from './i18n.js';

/**
 * HANDLE is a remote account's handle as a person types it: name@domain,
 * with or without the leading @ (Mastodon's @name@domain). A domain is
 * letters, digits, dots and dashes, with a port where it has one.
 */
const HANDLE = /^@?([\p{L}\p{Nd}_.\-]{1,64})@((?:[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?(?::\d{1,5})?)$/u;

/** handleOf is the name@domain that q spells (trimmed, without its @), or null. */
export function handleOf(q) {
  const m = HANDLE.exec(String(q || '').trim());
  if (!m || !/[.:]/.test(m[2])) return null; // "bob@host" without a dot or port is not a server's name
  return m[1] + '@' + m[2];
}

/** isRemote tells an account of another server (a User or a post's author). */
export function isRemote(who) {
  return !!who && (!!who.remote || String(who.username || '').includes('@'));
}

/** localPart and domainOf split a remote account's name@domain. */
export function localPart(username) {
  const s = String(username || '');
  const i = s.indexOf('@');
  return i < 0 ? s : s.slice(0, i);
}
export function domainOf(username) {
  const s = String(username || '');
  const i = s.indexOf('@');
  return i < 0 ? '' : s.slice(i + 1);
}

/** webLink is url when it is an http(s) address that can be linked to, else null. */
export function webLink(url) {
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host ? u.href : null;
  } catch {
    return null;
  }
}

/** external is a link out of the service that passes nothing on, opened in a new tab. */
function external(href, cls, ...children) {
  return h('a', { class: cls, href, attrs: { rel: 'nofollow noopener noreferrer', target: '_blank' } }, ...children);
}

/**
 * remoteMark is the small globe by a remote account's name, saying which
 * server it is on (its tooltip and accessible name); null for a local one.
 */
export function remoteMark(who, size = 14) {
  if (!isRemote(who)) return null;
  const label = t('remote.on_server', { domain: domainOf(who.username) });
  return h('span', { class: 'remote-mark', title: label, attrs: { role: 'img', 'aria-label': label, translate: 'no' } }, icon('globe', size));
}

/**
 * remoteNote is the line of a remote account's profile under its name:
 * the server it is on and a link to its page there; null for a local one.
 */
export function remoteNote(user) {
  if (!isRemote(user)) return null;
  const link = webLink(user.url);
  return h('p', { class: 'profile-remote' },
    icon('globe', 16),
    h('span', {}, phrase(t('remote.account_on', slots('domain')), { domain: own(domainOf(user.username), 'strong', { attrs: { dir: 'ltr' } }) })),
    link ? external(link, 'profile-remote-link', t('remote.original_profile')) : null);
}

/**
 * originalItems are the "⋯" menu's "Open original" of a post that came
 * from another server and says where it lives there (its `url`); none
 * otherwise.
 */
export function originalItems(post) {
  const link = post && isRemote(post.author) ? webLink(post.url) : null;
  if (!link) return [];
  return [{ label: t('remote.open_original'), icon: 'globe', run: () => window.open(link, '_blank', 'noopener,noreferrer') }];
}
