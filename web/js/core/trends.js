// trends.js is the list of trending topics (GET /trends/tags): the tags
// used by the most people lately, each linking to its topic page with how
// many people and posts. The desktop page shows it beside the feed, the
// mobile app on its search screen.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, fill, own } from './dom.js';
import { t } from './i18n.js';

/** TRENDS_EVERY is how often (ms) a list on screen asks for the trends again. */
export const TRENDS_EVERY = 60_000;

/** trendRow is one trend: its rank, the topic (a link to its page), and how many people and posts. */
function trendRow(trend, rank, ctx) {
  return h('li', { class: 'trend' },
    h('a', { class: 'trend-link', href: ctx.href('/t/' + encodeURIComponent(trend.tag)), dataset: { tag: trend.tag } },
      h('span', { class: 'trend-rank', attrs: { 'aria-hidden': 'true' } }, String(rank)),
      h('span', { class: 'trend-body' },
        own('#' + trend.tag, 'span', { class: 'trend-tag' }),
        h('span', { class: 'trend-counts' }, t('trends.counts', {
          people: t('trends.people', { count: Number(trend.people) || 0 }),
          posts: t('search.posts_count', { count: Number(trend.posts) || 0 }),
        })))));
}

/**
 * recent is the last request for the trends: the boxes that ask within a
 * second of it (the side column's and the one over the timeline, of which
 * the width shows one) share its answer, which the server works out again
 * at most every 5 s anyway.
 */
let recent = null;

function fetchTrends(ctx) {
  if (!recent || Date.now() - recent.at > 1000) recent = { at: Date.now(), answer: ctx.api.trends() };
  return recent.answer;
}

/**
 * trendsBox is a titled list of the trends, read again every TRENDS_EVERY
 * ms while it is on the page and the page is visible (it stops by itself
 * once taken off the page). With hideEmpty (a side box) it hides when
 * nothing trends or the trends cannot be loaded; otherwise it says so.
 * limit, if given, shows only the first so many (over a timeline on a
 * narrow screen, where the posts should not be pushed out of sight).
 */
export function trendsBox(ctx, { title = t('trends.title'), cls = '', hideEmpty = false, limit = Infinity } = {}) {
  const list = h('ol', { class: 'trend-list' });
  const note = h('p', { class: 'trend-note muted', hidden: true });
  const box = h('section', { class: 'trends ' + cls, hidden: hideEmpty, attrs: { 'aria-label': title } },
    h('h2', { class: 'trends-title' }, title), list, note);
  async function load() {
    try {
      const items = ((await fetchTrends(ctx)).items || []).slice(0, limit);
      fill(list, items.map((trend, i) => trendRow(trend, i + 1, ctx)));
      note.hidden = items.length > 0;
      note.textContent = t('trends.none');
      box.hidden = hideEmpty && items.length === 0;
    } catch (err) {
      note.hidden = false;
      note.textContent = t('trends.failed', { message: err.message });
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
