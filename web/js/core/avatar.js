// avatar.js draws a user's avatar: its picture, or a coloured circle with
// its name's first letter. It imports nothing that draws posts, so that any
// module may use it (render.js re-exports it) without an import cycle, which
// would leave the modules of the cycle unversioned (server/api/static.go).
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h } from './dom.js';
import { mediaURL } from './media.js';

/** hue picks a stable colour for a name. */
function hue(name) {
  let x = 0;
  for (const ch of name) x = (x * 31 + ch.codePointAt(0)) >>> 0;
  return x % 360;
}

// Avatars this page knows (username → avatar_url or null), learned from
// every User it draws (profiles, lists, the reader) and from changes made
// here. A post's author carries only an id and a name, so a post shows its
// author's picture once the page has seen that user; else the letter.
const knownAvatars = new Map();

/** learnAvatar remembers a User's avatar_url for the avatars drawn after. */
export function learnAvatar(user) {
  if (user && user.username && 'avatar_url' in user) knownAvatars.set(user.username, user.avatar_url || null);
}

/**
 * avatar is who: a User (or anything with username and avatar_url) or a
 * name. It shows the user's picture, or a coloured circle with the name's
 * first letter when there is none (or it does not load).
 */
export function avatar(who, size = 'md') {
  const name = typeof who === 'string' ? who : who.username;
  if (typeof who !== 'string') learnAvatar(who);
  const url = knownAvatars.get(name) || null;
  const first = [...name][0] || '?';
  const el = h('span', { class: 'avatar avatar-' + size, style: `--hue:${hue(name)}`, dataset: { user: name }, attrs: { 'aria-hidden': 'true', translate: 'no' } },
    first.toUpperCase());
  if (url) {
    const img = h('img', { class: 'avatar-img', alt: '', loading: 'lazy', decoding: 'async', width: 256, height: 256 });
    img.addEventListener('error', () => { img.remove(); el.classList.remove('has-img'); }, { once: true });
    img.src = mediaURL(url);
    el.classList.add('has-img');
    el.append(img);
  }
  return el;
}

/**
 * avatarChanged shows user's new avatar_url in every avatar of theirs in
 * roots (the page, and lists kept off screen) and in those drawn later.
 */
export function avatarChanged(user, roots = [document]) {
  learnAvatar(user);
  for (const root of roots) {
    if (!root) continue;
    for (const el of root.querySelectorAll(`.avatar[data-user="${CSS.escape(user.username)}"]`)) {
      const size = [...el.classList].find((c) => c.startsWith('avatar-') && c !== 'avatar-img');
      el.replaceWith(avatar(user, size ? size.slice(7) : 'md'));
    }
  }
}
