// postsearch.js is what a search screen shows under its box (the desktop
// page's /search, the mobile app's Search tab): the posts that contain
// every word typed (GET /search/posts), a page at a time with "Load more",
// the words marked in each; above them the first people and topics that
// match; and, while the box is empty, the trends.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, fill, own, phrase, slots } from './dom.js';
import { t } from './i18n.js';
import { Feed } from './feed.js';
import { postCard } from './render.js';
import { countChars } from './api.js';
import { searcher, searchResults } from './search.js';
import { queryWords, highlight } from './highlight.js';
import { trendsBox } from './trends.js';

/** MAX_QUERY is the longest post search the server takes, in characters (code points). */
export const MAX_QUERY = 100;

/** FEW is how many people and topics show above the posts until the reader asks for all. */
const FEW = 3;

/**
 * postResults is the list of posts containing every word of q, newest
 * first, with those words marked, paged by a "Load more" button. A server
 * that keeps no archive cannot search (503 search_unavailable): the list
 * says so in words instead of retrying.
 */
export function postResults(ctx, q) {
  const words = queryWords(q);
  const query = () => ({ q: own(q) });
  let unavailable = null;
  const feed = ctx.trackFeed(new Feed({
    load: async (page) => {
      try {
        return await ctx.api.searchPosts(q, page);
      } catch (err) {
        if (err.code !== 'search_unavailable') throw err;
        unavailable = err;
        return { items: [], next_cursor: null };
      }
    },
    render: (p) => {
      const card = postCard(p, ctx);
      highlight(card.querySelector(':scope > .post-body > .content'), words);
      return card;
    },
    empty: () => (unavailable
      ? h('p', { class: 'error search-note' }, unavailable.message)
      : h('p', { class: 'empty' }, phrase(words.length > 1 ? t('search.no_posts_all', slots('q')) : t('search.no_posts', slots('q')), query()))),
    label: phrase(t('search.posts_label', slots('q')), query()),
    canRefresh: false,
    loadMore: true,
    end: t('search.no_more'),
  }));
  feed.reset();
  return feed;
}

/** idle is what an empty box shows: what the search finds, and the trends. */
function idle(ctx) {
  return h('div', { class: 'search-idle' },
    h('p', { class: 'muted search-hint' }, t('search.hint')),
    trendsBox(ctx, { cls: 'search-trends' }));
}

/**
 * searchScreen runs the searches as the reader types (core/search.js's
 * searcher: after a pause, never for an empty box) and shows the results:
 * "@…" people only, "#…" topics only, anything else posts under the first
 * FEW people and topics (a button shows all of them). onQuery(q) is told
 * of each query shown ('' for none). It returns {el, set(value),
 * now(value), stop()}: set on each change of the box, now on Enter.
 */
export function searchScreen(ctx, { onQuery = () => {} } = {}) {
  const found = h('div', { class: 'search-found', tabIndex: -1, attrs: { 'aria-live': 'polite' } });
  const posts = h('section', { class: 'search-posts', hidden: true, attrs: { 'aria-label': t('search.posts') } });
  const el = h('div', { class: 'search-page-results' }, found, posts);
  let feed = null, postsQ = '', idleShown = false, all = false;

  const showPosts = (q) => {
    if (q === postsQ) return;
    postsQ = q;
    if (feed) { feed.destroy(); ctx.app.feeds.delete(feed); feed = null; }
    posts.hidden = !q;
    if (!q) { fill(posts); return; }
    const heading = h('h2', { class: 'search-heading' }, t('search.posts'));
    if (countChars(q) > MAX_QUERY) {
      fill(posts, heading, h('p', { class: 'error search-note' }, t('search.too_long', { max: MAX_QUERY })));
      return;
    }
    feed = postResults(ctx, q);
    fill(posts, heading, feed.el);
  };

  /** people draws the people and topics found; above posts only FEW of each, unless all. */
  const people = (st) => {
    if (!st.users.length && !st.tags.length) return null; // the posts say whether anything matched
    const cut = !all && (st.users.length > FEW || st.tags.length > FEW);
    if (!cut) return searchResults(ctx, st);
    const more = h('button', { type: 'button', class: 'link-btn search-more', on: { click: () => {
      all = true;
      fill(found, people(st));
      found.focus();
    } } }, t('search.show_all'));
    return [searchResults(ctx, { ...st, users: st.users.slice(0, FEW), tags: st.tags.slice(0, FEW) }), more];
  };

  const s = searcher(ctx, (st) => {
    onQuery(st.q);
    if (st.state === 'idle') {
      showPosts('');
      if (!idleShown) fill(found, idle(ctx));
      idleShown = true;
      return;
    }
    idleShown = false;
    const withPosts = !/^[@#]/.test(st.q);
    if (st.state === 'loading') all = false;
    showPosts(withPosts ? st.q : '');
    if (!withPosts || st.state === 'error') fill(found, searchResults(ctx, st));
    else fill(found, st.state === 'done' ? people(st) : null); // while loading, the posts' spinner shows
  }, { limit: 20 });

  return { el, set: s.set, now: s.now, stop: () => { s.stop(); showPosts(''); } };
}
