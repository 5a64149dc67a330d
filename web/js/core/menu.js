// menu.js is the "⋯" menu of a post or a profile: a button that opens a
// short list of actions (Mute, Block, Report …) over the page.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, icon } from './dom.js';

let seq = 0;

/**
 * menuButton returns a "⋯" button named label that opens a menu of the
 * actions items() returns when it opens ([{label, icon, danger?, run()}], so
 * that each says the state of the moment: "Mute" or "Unmute"; a label is
 * text or a phrase()). The menu is a popover, in the browser's top layer:
 * no list's overflow clips it, and Escape or a tap elsewhere closes it. The
 * arrow keys, Home and End move between its items. With quotesUser (label
 * names someone), the button, a bare icon, is marked translate="no".
 */
export function menuButton(label, items, cls = '', { quotesUser = false } = {}) {
  const id = 'menu-' + ++seq;
  const menu = h('div', { id, class: 'menu', attrs: { role: 'menu', popover: 'auto', 'aria-labelledby': id + '-btn' } });
  const btn = h('button', {
    type: 'button', id: id + '-btn', class: ('menu-btn ' + cls).trim(),
    attrs: { 'aria-label': label, 'aria-haspopup': 'menu', 'aria-expanded': 'false', 'aria-controls': id, translate: quotesUser ? 'no' : null },
  }, icon('more', 18));
  btn.popoverTargetElement = menu;

  const entries = () => [...menu.querySelectorAll('[role=menuitem]')];
  const close = () => { if (menu.matches(':popover-open')) menu.hidePopover(); };
  const place = () => {
    const r = btn.getBoundingClientRect();
    const w = menu.offsetWidth, ht = menu.offsetHeight;
    const left = Math.max(8, Math.min(r.right - w, innerWidth - w - 8));
    const below = r.bottom + 4;
    const top = below + ht > innerHeight - 8 ? Math.max(8, r.top - ht - 4) : below;
    menu.style.setProperty('left', left + 'px');
    menu.style.setProperty('top', top + 'px');
  };

  menu.addEventListener('beforetoggle', (e) => {
    if (e.newState !== 'open') return;
    menu.replaceChildren(...items().map((it) => h('button', {
      type: 'button', class: 'menu-item' + (it.danger ? ' menu-danger' : ''), attrs: { role: 'menuitem', tabindex: '-1' },
      on: { click: () => { close(); btn.focus(); it.run(); } },
    }, icon(it.icon, 18), h('span', {}, it.label))));
  });
  menu.addEventListener('toggle', (e) => {
    const open = e.newState === 'open';
    btn.setAttribute('aria-expanded', String(open));
    if (!open) { removeEventListener('scroll', close); removeEventListener('resize', close); return; }
    place();
    // A fixed menu would float away from its button: scrolling closes it, as native menus do.
    addEventListener('scroll', close, { passive: true, once: true });
    addEventListener('resize', close, { once: true });
    const first = entries()[0];
    if (first) first.focus();
  });
  menu.addEventListener('keydown', (e) => {
    const all = entries();
    const at = all.indexOf(document.activeElement);
    const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: all.length - 1 }[e.key];
    if (to !== undefined) {
      e.preventDefault();
      all[(to + all.length) % all.length].focus();
    } else if (e.key === 'Tab') {
      close();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      close();
      btn.focus();
    }
  });
  return h('span', { class: 'menu-wrap' }, btn, menu);
}
