// messages.js holds the desktop page's private messages screens: the list
// of conversations (/messages) and one conversation (/messages/alice).
// What they show and do is shared with the mobile app (core/messages.js,
// core/chat.js); this is the page's frame around it. On a wide screen both
// are two panes, the conversations on the left and the open one (or a word
// to choose one) on the right; on a narrow one each is a page of its own
// (style.css hides the other pane).

import { h, icon, fill, own } from './core/dom.js';
import { avatar } from './core/render.js';
import { nameLink } from './core/profile.js';
import { conversationsList, unreadButton, same } from './core/messages.js';
import { newMessageButton } from './core/dmnew.js';
import { chatView } from './core/chat.js';
import { t } from './core/i18n.js';

/** listPane is the left pane: the heading, "New message" and the conversations (the open one marked). */
function listPane(ctx, open) {
  const list = conversationsList(ctx);
  const mark = () => {
    for (const a of list.feed.el.querySelectorAll('.conv')) {
      const on = open && same(a.dataset.with, open);
      a.classList.toggle('conv-open', !!on);
      if (on) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
    }
  };
  const watch = new MutationObserver(mark);
  watch.observe(list.feed.el, { childList: true, subtree: true });
  const el = h('div', { class: 'dm-list-pane' + (open ? '' : ' dm-pane-main') },
    h('div', { class: 'page-head dm-head' },
      h('div', { class: 'dm-head-text' }, h(open ? 'p' : 'h1', { class: 'dm-title' }, t('desktop.messages.title')),
        h('p', { class: 'muted' }, t('desktop.messages.sub'))),
      newMessageButton(ctx)),
    list.feed.el);
  return { el, onEvent: list.onEvent, destroy: () => { watch.disconnect(); list.destroy(); } };
}

/** messages lists the reader's conversations, latest activity first, updated live. */
export function messages(ctx) {
  const list = listPane(ctx, null);
  const el = h('div', { class: 'view dm-panes' }, list.el,
    h('div', { class: 'dm-chat-pane dm-chat-none' },
      icon('chat', 40), h('p', { class: 'muted' }, t('messages.choose'))));
  return { el, title: t('desktop.messages.title'), onEvent: list.onEvent, destroy: list.destroy };
}

/** conversation is the conversation with name, its box focused. */
export function conversation(ctx, name) {
  const list = listPane(ctx, name);
  const who = h('div', { class: 'chat-who' }, own(name, 'h1'));
  const chat = chatView(ctx, name, {
    onUser: (user) => fill(who, avatar(user), h('h1', {}, nameLink(ctx, user))),
  });
  const el = h('div', { class: 'view dm-panes dm-panes-open' }, list.el,
    h('div', { class: 'dm-chat-pane chat-page dm-pane-main' },
      h('div', { class: 'page-head page-head-back' },
        h('a', { class: 'btn btn-ghost btn-icon dm-back', href: '/messages', attrs: { 'aria-label': t('desktop.messages.all') } }, icon('back')),
        who, unreadButton(ctx, name, { before: () => chat.stopRead() })),
      chat.el));
  setTimeout(() => chat.input.focus(), 0);
  return {
    el, title: t('desktop.messages.with', { name }), keepFocus: true,
    onEvent: (type, data) => { list.onEvent(type, data); chat.onEvent(type, data); },
    destroy: () => { list.destroy(); chat.destroy(); },
  };
}
