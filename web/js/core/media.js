// media.js is pictures (docs/api.md, "Pictures") in both front ends: the images a
// composer attaches (each uploaded at once, with a preview, a progress bar,
// a remove button, a description for people who cannot see it, and what
// went wrong in words), the grid of a post's images, the full-screen viewer,
// and changing one's avatar.
//
// Descriptions (alt text): the API takes one only with the upload. An image
// starts uploading the moment it is picked, so a refused file says so at
// once; a description typed afterwards is sent by uploading that image again,
// with it, when Post is pressed (only images whose description changed; the
// first upload, never attached, is removed by the server within a day).
//
// Text from users (descriptions) only ever reaches the page as text or as the
// alt and aria-label properties, never as HTML.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, icon, plain } from './dom.js';
import { t } from './i18n.js';
import { retryable } from './feed.js';
import { blurCanvas } from './blurhash.js';

/** MAX_IMAGES is how many images one post may carry. */
export const MAX_IMAGES = 9;
/** MAX_ALT is the longest description, in characters. */
export const MAX_ALT = 1000;
const TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'];

let base = '';

/** setMediaBase sets the server whose /media/… addresses the API returns ('' for the page's own). */
export function setMediaBase(origin) { base = origin || ''; }

/** mediaURL makes a file address of the API (/media/…) one the page can load. */
export function mediaURL(url) {
  return url && base && url.startsWith('/') ? base + url : url;
}

/** uploadError says in words why an upload failed. */
export function uploadError(err) {
  switch (err.status) {
    case 415: return t('media.unsupported');
    case 413: return t('media.too_large');
    case 400: return err.code === 'invalid_image' ? t('media.unreadable') : err.message;
    case 429: return t('media.rate_limited');
    case 0: return t('media.offline');
    default: return err.status >= 500 ? t('media.server_failed') : err.message;
  }
}

let seq = 0;

/**
 * attachments is the list of images a composer will post. accept is the
 * file input's accept (phones offer camera and gallery for "image/*");
 * onChange is told whenever the list or an upload's state changes. It
 * returns {el (the previews), button (opens the file picker), input, add(files),
 * count(), failed(), ready() → media ids (waits for uploads, re-uploads
 * images whose description changed; throws if one cannot be sent), clear()}.
 */
export function attachments(ctx, { accept = TYPES.join(','), onChange = () => {} } = {}) {
  const id = 'attach-' + ++seq;
  const items = [];
  const list = h('ul', { class: 'attachments', attrs: { 'aria-label': t('media.attachments') }, hidden: true });
  const input = h('input', { type: 'file', id, class: 'visually-hidden', multiple: true, tabIndex: -1, attrs: { accept, 'aria-hidden': 'true' } });
  const note = h('p', { class: 'form-error attach-note', attrs: { role: 'alert' }, hidden: true });
  const button = h('button', {
    type: 'button', class: 'btn btn-ghost btn-icon attach-btn', attrs: { 'aria-label': t('media.add'), title: t('media.add_title', { max: MAX_IMAGES }) },
    on: { click: () => input.click() },
  }, icon('image', 20));
  input.addEventListener('change', () => { add(input.files); input.value = ''; });

  function changed(tell = true) {
    list.hidden = items.length === 0;
    list.dataset.count = String(items.length);
    button.disabled = items.length >= MAX_IMAGES;
    items.forEach((it, i) => it.number(i + 1));
    if (tell) onChange();
  }

  function add(files) {
    note.hidden = true;
    const picked = [...(files || [])];
    const room = MAX_IMAGES - items.length;
    if (picked.length > room) {
      note.textContent = t('media.left_out', { max: MAX_IMAGES, count: picked.length - room });
      note.hidden = false;
    }
    for (const file of picked.slice(0, Math.max(0, room))) items.push(item(file));
    changed();
  }

  function item(file) {
    const it = { file, media: null, sentAlt: '', error: null, job: null, state: 'uploading' };
    const url = URL.createObjectURL(file);
    const preview = h('img', { class: 'attach-preview', src: url, alt: '' });
    preview.addEventListener('error', () => { preview.hidden = true; }, { once: true });
    const bar = h('progress', { class: 'attach-progress', max: 100, value: 0 });
    const error = h('p', { class: 'attach-error', attrs: { role: 'alert' }, hidden: true });
    const retry = h('button', { type: 'button', class: 'btn btn-small attach-retry', hidden: true, on: { click: () => upload() } }, t('media.try_again'));
    const remove = h('button', { type: 'button', class: 'attach-remove', on: { click: () => drop() } }, icon('close', 16));
    const altId = id + '-alt-' + ++seq;
    const alt = h('textarea', { id: altId, class: 'attach-alt', rows: 2, placeholder: t('media.describe'), attrs: { maxlength: String(MAX_ALT) } });
    const altLabel = h('label', { htmlFor: altId, class: 'visually-hidden' });
    alt.addEventListener('input', () => onChange());
    it.el = h('li', { class: 'attach', dataset: { state: 'uploading' } },
      h('div', { class: 'attach-thumb' }, preview, bar, remove),
      altLabel, alt, error, retry);
    it.alt = () => alt.value.trim();
    it.number = (n) => {
      remove.setAttribute('aria-label', t('media.remove', { n }));
      bar.setAttribute('aria-label', t('media.uploading', { n }));
      altLabel.textContent = t('media.alt_label', { n });
    };
    function state(s) { it.state = s; it.el.dataset.state = s; onChange(); }
    function upload() {
      error.hidden = true;
      retry.hidden = true;
      bar.hidden = false;
      bar.value = 0;
      it.error = null;
      state('uploading');
      const a = it.alt();
      it.job = ctx.api.uploadMedia(file, a, (p) => { bar.value = Math.round(p * 100); });
      it.job.then((m) => {
        it.media = m;
        it.sentAlt = a;
        bar.hidden = true;
        state('done');
      }, (err) => {
        if (err.code === 'aborted') return;
        it.error = err;
        error.textContent = uploadError(err);
        error.hidden = false;
        retry.hidden = !retryable(err);
        bar.hidden = true;
        state('error');
      });
      return it.job;
    }
    function drop() {
      if (it.job && it.state === 'uploading') it.job.abort();
      URL.revokeObjectURL(url);
      items.splice(items.indexOf(it), 1);
      it.el.remove();
      changed();
      button.focus();
    }
    it.upload = upload;
    it.revoke = () => URL.revokeObjectURL(url);
    list.append(it.el);
    upload();
    return it;
  }

  /** ready waits for the uploads and returns the ids to post, in order. */
  async function ready() {
    const ids = [];
    for (const it of items) {
      if (it.state === 'uploading') await it.job.catch(() => {});
      if (it.state === 'error') throw Object.assign(new Error(t('media.not_uploaded')), { media: true });
      if (it.alt() !== it.sentAlt) {
        await it.upload().catch(() => {});
        if (it.state === 'error') throw Object.assign(new Error(t('media.not_uploaded')), { media: true });
      }
      ids.push(it.media.id);
    }
    return ids;
  }

  function clear() {
    for (const it of items) it.revoke();
    items.length = 0;
    list.replaceChildren();
    note.hidden = true;
    changed();
  }

  changed(false);
  return {
    el: h('div', { class: 'attach-area' }, list, note), button, input, add, ready, clear,
    count: () => items.length,
    failed: () => items.some((it) => it.state === 'error'),
    busy: () => items.some((it) => it.state === 'uploading'),
  };
}

/** imageFiles picks the image files out of a paste or a drop. */
export function imageFiles(dataTransfer) {
  if (!dataTransfer) return [];
  return [...(dataTransfer.files || [])].filter((f) => f.type.startsWith('image/') || f.type === '');
}

/**
 * mediaGrid shows a post's images (1–9) as a grid of thumbnails, as Weibo
 * lays them out: one large, 2 to 4 in two columns, 5 to 9 in three
 * (九宫格); loaded lazily and sized in advance so nothing jumps, each over
 * its blurhash until it has loaded; each opens the viewer. An
 * image's button is named by its description, which a user wrote: the
 * button, whose only content is the image, is marked translate="no" then.
 */
export function mediaGrid(media, ctx) {
  if (!media || !media.length) return null;
  const n = media.length;
  return h('div', { class: 'media-grid media-' + (n > 4 ? 'many' : n) },
    media.slice(0, MAX_IMAGES).map((m, i) => {
      // width and height give the box its shape before the picture arrives.
      const img = h('img', { class: 'media-img', loading: 'lazy', decoding: 'async', alt: m.alt || '', width: m.width, height: m.height });
      const blur = blurCanvas(m.blurhash, m.width, m.height);
      if (blur) {
        img.classList.add('media-over-blur');
        const loaded = () => { img.classList.add('media-loaded'); };
        img.addEventListener('load', loaded, { once: true });
      }
      img.src = mediaURL(m.thumb_url);
      const label = n > 1 ? t('media.open_nth', { i: i + 1, n }) : t('media.open');
      return h('button', {
        type: 'button', class: 'media-item', attrs: { 'aria-label': m.alt ? t('media.open_alt', { label, alt: m.alt }) : label, translate: m.alt ? 'no' : null },
        on: { click: (e) => { e.stopPropagation(); viewer(media, i, ctx, e.currentTarget); } },
      }, blur, img);
    }));
}

/**
 * viewer shows media[index] full size in a modal dialog: Escape or the close
 * button closes it, the arrow keys and buttons (and a swipe on touch
 * screens) go between a post's images. The focus goes back to from.
 */
export function viewer(media, index, ctx, from = null) {
  let at = index;
  const img = h('img', { class: 'viewer-img', alt: '', attrs: { translate: 'no' } });
  const caption = h('p', { class: 'viewer-alt', attrs: { translate: 'no' } });
  const count = h('p', { class: 'viewer-count', attrs: { 'aria-live': 'polite' } });
  const prev = h('button', { type: 'button', class: 'viewer-nav viewer-prev', attrs: { 'aria-label': t('media.previous') }, on: { click: () => show(at - 1) } }, icon('back', 26));
  const next = h('button', { type: 'button', class: 'viewer-nav viewer-next', attrs: { 'aria-label': t('media.next') }, on: { click: () => show(at + 1) } }, icon('forward', 26));
  const close = h('button', { type: 'button', class: 'viewer-close', attrs: { 'aria-label': t('common.close') }, on: { click: () => dialog.close() } }, icon('close', 24));
  const dialog = h('dialog', { class: 'viewer', attrs: { 'aria-label': t('media.viewer') } },
    h('div', { class: 'viewer-stage' }, img), prev, next, close,
    h('div', { class: 'viewer-foot' }, count, caption));

  function show(i) {
    at = (i + media.length) % media.length;
    const m = media[at];
    img.src = mediaURL(m.url);
    img.alt = plain(m.alt || '');
    img.width = m.width;
    img.height = m.height;
    caption.textContent = plain(m.alt || '');
    caption.hidden = !m.alt;
    count.textContent = media.length > 1 ? t('media.nth', { i: at + 1, n: media.length }) : '';
    prev.hidden = next.hidden = media.length < 2;
  }
  dialog.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowLeft') { e.preventDefault(); show(at - 1); }
    if (e.key === 'ArrowRight') { e.preventDefault(); show(at + 1); }
  });
  // A click on the dark around the picture closes the viewer.
  dialog.addEventListener('click', (e) => { if (e.target === dialog || e.target.classList.contains('viewer-stage')) dialog.close(); });
  let touch = null;
  dialog.addEventListener('touchstart', (e) => { if (e.touches.length === 1) touch = { x: e.touches[0].clientX, y: e.touches[0].clientY }; }, { passive: true });
  dialog.addEventListener('touchend', (e) => {
    if (!touch || media.length < 2) return;
    const dx = e.changedTouches[0].clientX - touch.x, dy = e.changedTouches[0].clientY - touch.y;
    touch = null;
    if (Math.abs(dx) > 50 && Math.abs(dx) > Math.abs(dy) * 1.5) show(at + (dx < 0 ? 1 : -1));
  });
  dialog.addEventListener('close', () => { dialog.remove(); if (from && from.isConnected) from.focus(); });
  show(at);
  document.body.append(dialog);
  dialog.showModal();
  close.focus();
  return dialog;
}

/**
 * avatarPicker is "Change picture" for one's own profile: it uploads the
 * chosen file as the avatar and calls onDone(user) with the updated user.
 */
export function avatarPicker(ctx, { accept = TYPES.join(','), cls = 'btn', onDone }) {
  const input = h('input', { type: 'file', class: 'visually-hidden', tabIndex: -1, attrs: { accept, 'aria-hidden': 'true' } });
  const label = h('span', {}, t('media.change_avatar'));
  const button = h('button', { type: 'button', class: cls + ' avatar-change', on: { click: () => input.click() } }, label);
  input.addEventListener('change', async () => {
    const file = input.files[0];
    input.value = '';
    if (!file) return;
    button.disabled = true;
    button.setAttribute('aria-busy', 'true');
    try {
      const user = await ctx.api.setAvatar(file, (p) => { label.textContent = p < 1 ? t('media.avatar_uploading', { percent: Math.round(p * 100) }) : t('media.avatar_saving'); });
      onDone(user);
      ctx.toast(t('media.avatar_changed'));
    } catch (err) {
      ctx.toast(uploadError(err));
    } finally {
      label.textContent = t('media.change_avatar');
      button.disabled = false;
      button.removeAttribute('aria-busy');
    }
  });
  return h('span', { class: 'avatar-picker' }, button, input);
}
