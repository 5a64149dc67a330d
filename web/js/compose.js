// compose.js is the box for writing a post, comment or repost, with a live
// character count, and the repost dialog.

import { h, own } from './core/dom.js';
import { MAX_POST } from './core/api.js';
import { charCounter } from './core/editor.js';
import { avatar } from './core/render.js';
import { timeElement } from './core/time.js';
import { attachments, imageFiles } from './core/media.js';
import { composeAssist } from './core/assist.js';
import { spoilerField } from './core/spoiler.js';
import { markReposted, repostMade } from './core/reposts.js';
import { t, errorText } from './core/i18n.js';
import { tWith } from './lang.js';
import { pollComposer } from './core/polls.js';

let seq = 0;

/**
 * composer returns {el, focus}. onSubmit(text, mediaIds, spoiler) posts and may throw;
 * the box keeps the text and images when it does. allowEmpty is for reposts,
 * whose own text is optional. With ctx (the app's), the box takes up to four
 * images: from its button, pasted, or dropped on it. label names the box
 * (text, or what tWith makes of a sentence naming someone). With suggest
 * (the app's ctx; ctx by default), the box suggests @people and #topics#,
 * has an emoji button and marks what is over the limit (core/assist.js).
 */
export function composer({ placeholder = t('desktop.compose.placeholder'), label = t('desktop.compose.label'), button = t('desktop.compose.post'), onSubmit, allowEmpty = false, rows = 2, me = null, toast, ctx = null, suggest = ctx, poll: withPoll = false }) {
  const id = 'compose-' + ++seq;
  const area = h('textarea', {
    id, rows, placeholder, class: 'compose-input',
    attrs: { 'aria-describedby': id + '-count', maxlength: String(MAX_POST * 4), autocomplete: 'off' },
  });
  const counter = charCounter(MAX_POST, id + '-count');
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', disabled: !allowEmpty }, button);
  const error = h('p', { class: 'form-error', attrs: { role: 'alert' }, hidden: true });
  const media = ctx ? attachments(ctx, { onChange: () => update() }) : null;
  const assist = suggest ? composeAssist(area, suggest, { max: MAX_POST }) : null;
  const poll = withPoll ? pollComposer({ onChange: () => update() }) : null;
  const cw = ctx ? spoilerField(() => update()) : null; // a content warning, where images go too
  const form = h('form', { class: 'composer', on: { submit: send } },
    me ? h('div', { class: 'composer-avatar' }, avatar(me)) : null,
    h('div', { class: 'composer-main' },
      cw ? cw.el : null,
      h('label', { class: 'visually-hidden', htmlFor: id }, label),
      assist ? assist.el : area,
      media ? media.el : null,
      poll ? poll.el : null,
      error,
      h('div', { class: 'composer-bar' },
        assist ? assist.button : null, media ? media.button : null, media ? media.input : null, poll ? poll.button : null, cw ? cw.toggle : null,
        h('span', { class: 'hint' }, tWith('desktop.compose.hint', { keys: h('kbd', { attrs: { translate: 'no' } }, 'Ctrl+Enter') })),
        counter.el, submit)));

  function update() {
    const left = counter.show(area.value);
    const empty = area.value.trim() === '' && !(media && media.count() > 0);
    submit.disabled = left < 0 || (empty && !allowEmpty) || (media && media.failed()) || (poll && !poll.valid()) || (cw && cw.tooLong());
    // Grow with the text, up to a point; empty, it is back to its CSS size.
    area.style.height = '';
    if (area.value && area.isConnected) area.style.height = Math.min(area.scrollHeight + 2, 320) + 'px';
    if (assist) assist.sync();
  }

  async function send(e) {
    e.preventDefault();
    if (submit.disabled) return;
    submit.disabled = true;
    area.setAttribute('aria-busy', 'true');
    error.hidden = true;
    try {
      const ids = media ? await media.ready() : [];
      await onSubmit(area.value.trim(), ids, { poll: poll ? poll.value() : null, spoiler: cw ? cw.value() : '' });
      area.value = '';
      if (media) media.clear();
      if (poll) poll.clear();
      if (cw) cw.clear();
    } catch (err) {
      error.textContent = errorText(err);
      error.hidden = false;
      if (toast && err.offline) toast(errorText(err));
    } finally {
      area.removeAttribute('aria-busy');
      update();
    }
  }

  area.addEventListener('input', update);
  area.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); form.requestSubmit(); }
  });
  if (media) {
    // Images pasted into the box or dropped on it are attached like picked ones.
    area.addEventListener('paste', (e) => {
      const files = imageFiles(e.clipboardData);
      if (files.length) { e.preventDefault(); media.add(files); }
    });
    form.addEventListener('dragover', (e) => {
      if (![...e.dataTransfer.types].includes('Files')) return;
      e.preventDefault();
      form.classList.add('dropping');
    });
    form.addEventListener('dragleave', (e) => { if (!form.contains(e.relatedTarget)) form.classList.remove('dropping'); });
    form.addEventListener('drop', (e) => {
      form.classList.remove('dropping');
      const files = imageFiles(e.dataTransfer);
      if (files.length) { e.preventDefault(); media.add(files); }
    });
  }
  update();
  return { el: form, focus: () => area.focus(), input: area };
}

/** repostDialog asks for an optional comment and reposts post. */
export function repostDialog(post, ctx, onDone) {
  const dialog = h('dialog', { class: 'dialog', attrs: { 'aria-labelledby': 'repost-title' } });
  const box = composer({
    placeholder: t('desktop.repost.placeholder'), label: t('desktop.repost.label'), button: t('desktop.repost.title'), allowEmpty: true, rows: 2,
    toast: ctx.toast, suggest: ctx,
    onSubmit: async (text) => {
      const created = await ctx.api.createPost(text, post.id).catch((err) => {
        if (err.code === 'already_reposted') markReposted(ctx, post.id, true); // made elsewhere: the button says so now
        throw err;
      });
      dialog.close();
      repostMade(ctx, created);
      onDone(created);
    },
  });
  dialog.append(
    h('div', { class: 'dialog-head' },
      h('h2', { id: 'repost-title' }, t('desktop.repost.title')),
      h('button', { type: 'button', class: 'btn btn-ghost btn-small', on: { click: () => dialog.close() } }, t('desktop.repost.cancel'))),
    box.el,
    h('div', { class: 'quote' },
      h('div', { class: 'post-head' }, avatar(post.author, 'sm'),
        own(post.author.username, 'span', { class: 'name' }), h('span', { class: 'dot' }, '·'), timeElement(post.created_at)),
      own(post.content, 'p', { class: 'content' })));
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  box.focus();
}
