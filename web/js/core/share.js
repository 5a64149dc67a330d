// share.js gives every post's "⋯" menu its Copy link and Share items. A
// post's link is its page on the server (/p/<id>), which the desktop page
// serves to anyone at any width: the one address that works when pasted
// anywhere, from either front end (the mobile app's #/p/<id> means nothing
// outside it).
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { t } from './i18n.js';

/** postLink is the address of post's page: ctx.link(path) when the app has one (the mobile app knows its server), else this origin's. */
export function postLink(post, ctx) {
  const path = '/p/' + post.id;
  return ctx.link ? ctx.link(path) : new URL(path, location.origin).href;
}

/**
 * copyText puts text on the clipboard: the Clipboard API where the page may
 * use it, else a hidden text field and the older copy command (an http://
 * page on a campus network is not a secure context). It says whether it worked.
 */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch { /* not a secure context, or refused: try the old way */ }
  const box = document.createElement('textarea');
  box.value = text;
  box.setAttribute('readonly', '');
  box.style.cssText = 'position:fixed;opacity:0;top:0;left:0';
  document.body.append(box);
  box.select();
  let ok = false;
  try { ok = document.execCommand('copy'); } catch { ok = false; }
  box.remove();
  return ok;
}

/** copyLink copies post's link and says so (or shows the link to copy by hand). */
async function copyLink(post, ctx) {
  const url = postLink(post, ctx);
  ctx.toast(await copyText(url) ? t('share.copied') : t('share.copy_failed', { url }));
}

/**
 * sharePost hands post's link to the system's share sheet (the Web Share
 * API, on phones and some desktops); where there is none it copies the
 * link. Closing the sheet without sharing is no error.
 */
async function sharePost(post, ctx) {
  const url = postLink(post, ctx);
  if (navigator.share) {
    try {
      await navigator.share({ url, title: t('share.title', { name: post.author.username }) });
      return;
    } catch (err) {
      if (err && err.name === 'AbortError') return;
    }
  }
  await copyLink(post, ctx);
}

/** shareItems are the Copy link and Share entries of post's menu. */
export function shareItems(post, ctx) {
  return [
    { label: t('share.copy_link'), icon: 'link', run: () => copyLink(post, ctx) },
    { label: t('share.share'), icon: 'share', run: () => sharePost(post, ctx) },
  ];
}
