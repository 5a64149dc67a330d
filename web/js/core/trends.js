// trends.js is the list of trending topics (GET /trends/tags): the tags
// used by the most people lately, each linking to its topic page with how
// many people and posts. The desktop page shows it beside the feed, the
// mobile app on its search screen.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, fill } from './dom.js';

/** TRENDS_EVERY is how often (ms) a list on screen asks for the trends again. */
export const TRENDS_EVERY = 60_000;

const count = (n, one, many) => {
  const x = Number(n) || 0;
  return x === 1 ? `1 ${one}` : `${new Intl.NumberFormat(navigator.language).format(x)} ${many}`;
};

/** trendRow is one trend: its rank, the topic (a link to its page), and how many people and posts. */
function trendRow(t, rank, ctx) {
  return h('li', { class: 'trend' },
    h('a', { class: 'trend-link', href: ctx.href('/t/' + encodeURIComponent(t.tag)), dataset: { tag: t.tag } },
      h('span', { class: 'trend-rank', attrs: { 'aria-hidden': 'true' } }, String(rank)),
      h('span', { class: 'trend-body' },
        h('span', { class: 'trend-tag' }, '#' + t.tag),
        h('span', { class: 'trend-counts' }, `${count(t.people, 'person', 'people')} · ${count(t.posts, 'post', 'posts')}`))));
}

/**
 * trendsBox is a titled list of the trends, read again every TRENDS_EVERY
 * ms while it is on the page and the page is visible (it stops by itself
 * once taken off the page). With hideEmpty (a side box) it hides when
 * nothing trends or the trends cannot be loaded; otherwise it says so.
 */
export function trendsBox(ctx, { title = 'Trending', cls = '', hideEmpty = false } = {}) {
  const list = h('ol', { class: 'trend-list' });
  const note = h('p', { class: 'trend-note muted', hidden: true });
  const box = h('section', { class: 'trends ' + cls, hidden: hideEmpty, attrs: { 'aria-label': title } },
    h('h2', { class: 'trends-title' }, title), list, note);
  async function load() {
    try {
      const items = (await ctx.api.trends()).items || [];
      fill(list, items.map((t, i) => trendRow(t, i + 1, ctx)));
      note.hidden = items.length > 0;
      note.textContent = 'Nothing is trending right now.';
      box.hidden = hideEmpty && items.length === 0;
    } catch (err) {
      note.hidden = false;
      note.textContent = 'Couldn’t load the trends. ' + err.message;
      box.hidden = hideEmpty;
    }
  }
  const tick = () => {
    if (!box.isConnected) return; // taken off the page: stop
    if (!document.hidden) load();
    setTimeout(tick, TRENDS_EVERY);
  };
  load();
  setTimeout(tick, TRENDS_EVERY);
  return box;
}
