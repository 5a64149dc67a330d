// messages.js holds the mobile app's private messages screens: the
// Messages tab (#/messages, the conversations) and one conversation
// (#/messages/alice, full screen, without the tab bar). What they show and
// do is shared with the desktop page (core/messages.js, core/chat.js).

import { h } from './core/dom.js';
import { conversationsList, unreadButton } from './core/messages.js';
import { newMessageButton } from './core/dmnew.js';
import { chatView } from './core/chat.js';
import { t } from './core/i18n.js';
import { shownName } from './core/profile.js';

/** messages lists the reader's conversations, latest activity first, updated live. */
export function messages(ctx) {
  const list = conversationsList(ctx);
  return {
    el: h('div', { class: 'view' }, list.feed.el), title: t('mobile.messages.title'), feed: list.feed,
    action: newMessageButton(ctx, { cls: 'appbar-btn', iconOnly: true }),
    refresh: () => list.feed.reset(), onEvent: list.onEvent, destroy: list.destroy,
  };
}

/** conversation is the conversation with name. */
export function conversation(ctx, name) {
  // The app bar shows the display name once the user is read.
  const chat = chatView(ctx, name, { onUser: (user) => { const title = document.getElementById('title'); if (title && user.display_name && location.hash.startsWith('#/messages/')) title.textContent = shownName(user); } });
  return {
    el: h('div', { class: 'view chat-view' }, chat.el), title: name, userTitle: true, back: true, noTabs: true,
    action: unreadButton(ctx, name, { cls: 'appbar-btn', iconOnly: true, before: () => chat.stopRead() }),
    onEvent: chat.onEvent, destroy: chat.destroy,
  };
}
