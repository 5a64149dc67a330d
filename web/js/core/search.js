// search.js finds people (by the start of their name) and topics as the
// reader types, and suggests people to follow.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, icon, own, phrase, slots } from './dom.js';
import { t } from './i18n.js';
import { userRow } from './render.js';
import { countChars } from './api.js';
import { handleOf } from './remote.js';

export const SEARCH_DELAY = 250; // ms of quiet typing before asking the server

// The longest username and topic: the server refuses to search for longer
// ones (400 invalid_query), and a username has no spaces either. Such a
// query may still find posts (core/postsearch.js), so it is no error here.
const NAME_MAX = 30, TAG_MAX = 50;

/**
 * searcher asks the server for people and topics matching what was typed,
 * once typing pauses for delay ms, and never for an empty box. "@ali" looks
 * for people only, "#go" for topics only, and neither for what cannot be a
 * name or a topic; "bob@example.social" (or "@bob@…") for that account of
 * another server alone (GET /users/bob@example.social, federation). Answers to a query that is no
 * longer the box's are dropped. show(state) is called with
 * {q, state: 'idle'|'loading'|'done'|'error', users, tags, error}.
 */
export function searcher(ctx, show, { limit = 8, delay = SEARCH_DELAY } = {}) {
  let timer = null;
  let seq = 0;
  let shown = '';

  async function run(q) {
    const my = ++seq;
    const term = q.replace(/^[@#]/, '').trim();
    if (!term) { show({ q, state: 'idle' }); return; }
    shown = q;
    show({ q, state: 'loading' });
    try {
      // name@domain (or @name@domain) is another server's account: the
      // server finds it (through WebFinger the first time), or there is none.
      const handle = !q.startsWith('#') && handleOf(q);
      if (handle) {
        const user = await ctx.api.user(handle).catch((err) => {
          if (err.status === 404 || err.status === 400) return null;
          throw err;
        });
        if (my !== seq) return;
        show({ q, state: 'done', users: user ? [user] : [], tags: [] });
        return;
      }
      const name = !q.startsWith('#') && countChars(term) <= NAME_MAX && !/\s/u.test(term);
      const topic = !q.startsWith('@') && countChars(term) <= TAG_MAX;
      const [users, tags] = await Promise.all([
        name ? ctx.api.searchUsers(term, { limit }) : null,
        topic ? ctx.api.searchTags(term, { limit }) : null,
      ]);
      if (my !== seq) return;
      show({ q, state: 'done', users: users ? users.items || [] : [], tags: tags ? tags.items || [] : [] });
    } catch (error) {
      if (my === seq) show({ q, state: 'error', error });
    }
  }

  return {
    /** set is called with the box's text on every change. */
    set(value) {
      clearTimeout(timer);
      const q = String(value || '').trim();
      if (q.replace(/^[@#]/, '') === '') { seq++; shown = ''; show({ q: '', state: 'idle' }); return; }
      if (q === shown) return;
      timer = setTimeout(() => run(q), delay);
    },
    /** now searches at once (Enter), unless that query is already shown. */
    now(value) {
      clearTimeout(timer);
      const q = String(value || '').trim();
      if (q && q !== shown) run(q);
    },
    stop() { clearTimeout(timer); seq++; },
  };
}

/** topicRow links to a topic's page, with how many posts carry it. */
export function topicRow(topic, ctx) {
  const n = Number(topic.posts_count) || 0;
  return h('a', { class: 'topic-row', href: ctx.href('/t/' + encodeURIComponent(topic.tag)), dataset: { tag: topic.tag } },
    h('span', { class: 'topic-icon', attrs: { 'aria-hidden': 'true' } }, icon('hash', 18)),
    own('#' + topic.tag, 'span', { class: 'topic-name' }),
    h('span', { class: 'topic-count muted' }, t('search.posts_count', { count: n })));
}

/**
 * searchResults draws a searcher's state: people (with follow buttons) and
 * topics, or what went wrong. It returns null for an empty box.
 */
export function searchResults(ctx, st) {
  switch (st.state) {
    case 'idle': return null;
    case 'loading': return h('div', { class: 'search-status' }, h('span', { class: 'spinner', attrs: { role: 'status', 'aria-label': t('search.searching') } }));
    case 'error': return h('div', { class: 'search-status' }, h('p', { class: 'error' }, t('search.failed', { message: st.error.message })));
    default: break;
  }
  if (!st.users.length && !st.tags.length) {
    return h('div', { class: 'search-status' }, h('p', { class: 'muted' }, phrase(t('search.no_match', slots('q')), { q: own(st.q) })));
  }
  return h('div', { class: 'search-results' },
    st.users.length ? h('section', { class: 'search-section', attrs: { 'aria-label': t('search.people') } },
      h('h2', { class: 'search-heading' }, t('search.people')),
      h('div', { class: 'search-list' }, st.users.map((u) => userRow(u, ctx)))) : null,
    st.tags.length ? h('section', { class: 'search-section', attrs: { 'aria-label': t('search.topics') } },
      h('h2', { class: 'search-heading' }, t('search.topics')),
      h('div', { class: 'search-list' }, st.tags.map((topic) => topicRow(topic, ctx)))) : null);
}

/**
 * whoToFollow is a box of people the reader might follow
 * (/suggestions/users). It hides itself when there is no one to suggest or
 * the suggestions cannot be loaded. onFollow(user) is told of each follow.
 */
export function whoToFollow(ctx, { limit = 5, title = t('search.who_to_follow'), onFollow, cls = '' } = {}) {
  const list = h('div', { class: 'who-list' });
  const box = h('section', { class: 'who ' + cls, hidden: true, attrs: { 'aria-label': title } },
    h('h2', { class: 'who-title' }, title), list);
  ctx.api.suggestions({ limit }).then((page) => {
    const users = (page.items || []).filter((u) => !ctx.me() || u.id !== ctx.me().id);
    list.replaceChildren(...users.map((u) => userRow(u, ctx, { onFollow })));
    box.hidden = users.length === 0;
  }, () => { box.hidden = true; });
  return box;
}
