// filtered.js folds a post that the reader's own word filters hide: the
// server keeps it on the reader's home page, marked filtered with its
// content (as Mastodon's filtered statuses), and the page shows a one-line
// placeholder that opens it on a click. A filter is the reader's own
// choice, so nothing here is kept from anyone else.

import { h } from './dom.js';
import { t } from './i18n.js';

/**
 * filteredCard is the placeholder for post; open() draws the post itself,
 * which takes the placeholder's place (and the focus) when the reader asks.
 */
export function filteredCard(post, open) {
  const show = h('button', { type: 'button', class: 'link-btn', dataset: { role: 'show-filtered' } }, t('filter.show'));
  const card = h('article', { class: 'post post-filtered', dataset: { id: String(post.id), author: post.author.username, filtered: '' } },
    h('p', { class: 'filtered-note' }, t('filter.hidden'), h('span', { attrs: { 'aria-hidden': 'true' } }, ' · '), show));
  show.addEventListener('click', () => {
    const full = open();
    card.replaceWith(full);
    full.tabIndex = -1;
    full.focus({ preventScroll: true });
  });
  return card;
}
