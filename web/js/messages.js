// messages.js holds the desktop page's private messages screens: the list
// of conversations (/messages) and one conversation (/messages/alice).
// What they show and do is shared with the mobile app (core/messages.js,
// core/chat.js); this is the page's frame around it.

import { h, icon, fill, own } from './core/dom.js';
import { avatar } from './core/render.js';
import { nameLink } from './core/profile.js';
import { conversationsList, unreadButton } from './core/messages.js';
import { chatView } from './core/chat.js';
import { t } from './core/i18n.js';

/** messages lists the reader's conversations, latest activity first, updated live. */
export function messages(ctx) {
  const list = conversationsList(ctx);
  const el = h('div', { class: 'view' },
    h('div', { class: 'page-head' }, h('h1', {}, t('desktop.messages.title')),
      h('p', { class: 'muted' }, t('desktop.messages.sub'))),
    list.feed.el);
  return { el, title: t('desktop.messages.title'), onEvent: list.onEvent, destroy: list.destroy };
}

/** conversation is the conversation with name, its box focused. */
export function conversation(ctx, name) {
  const who = h('div', { class: 'chat-who' }, own(name, 'h1'));
  const chat = chatView(ctx, name, {
    onUser: (user) => fill(who, avatar(user), h('h1', {}, nameLink(ctx, user))),
  });
  const el = h('div', { class: 'view chat-page' },
    h('div', { class: 'page-head page-head-back' },
      h('a', { class: 'btn btn-ghost btn-icon', href: '/messages', attrs: { 'aria-label': t('desktop.messages.all') } }, icon('back')),
      who, unreadButton(ctx, name, { before: () => chat.stopRead() })),
    chat.el);
  setTimeout(() => chat.input.focus(), 0);
  return { el, title: t('desktop.messages.with', { name }), keepFocus: true, onEvent: chat.onEvent, destroy: chat.destroy };
}
