// ask.js asks a yes-or-no question in the app's own dialog (a <dialog>
// like the report and repost ones), where window.confirm() would draw the
// browser's: in the page's language and styles, named for assistive
// technology, and answerable from the keyboard (Esc says no).

import { h } from './dom.js';
import { t } from './i18n.js';

let seq = 0;

/**
 * ask shows text with a Cancel button and ok (the action's name, say
 * "Block alice"), drawn as a dangerous action unless danger is false, and
 * resolves to whether the reader chose ok.
 */
export function ask(text, ok, { danger = true } = {}) {
  const id = 'ask-' + (++seq);
  const dialog = h('dialog', { class: 'dialog ask-dialog', attrs: { 'aria-labelledby': id, role: 'alertdialog' } });
  const yes = h('button', { type: 'submit', class: danger ? 'btn btn-danger' : 'btn', value: 'ok' }, ok);
  dialog.append(h('form', { attrs: { method: 'dialog' } },
    h('p', { id, class: 'ask-text' }, text),
    h('div', { class: 'composer-bar' },
      h('button', { type: 'submit', class: 'btn btn-ghost', value: 'cancel' }, t('common.cancel')), yes)));
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(dialog.returnValue === 'ok');
    });
    dialog.showModal();
    yes.focus();
  });
}
