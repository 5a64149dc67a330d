// feed.js is a list that pages in with the cursor as the reader scrolls
// (infinite scroll), takes live items at the top without duplicates, and,
// when the reader has scrolled away from the top, holds them behind an
// "N new posts" button instead of moving the text they are reading. A page
// that fails to load is tried again later, waiting longer each time.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, clear, icon, ariaName } from './dom.js';
import { t } from './i18n.js';

/** PAGE is how many items a page of a list holds: {limit: PAGE} is a first page. */
export const PAGE = 20;
export const RETRY_FIRST = 1000;  // ms before the first automatic retry of a failed page
export const RETRY_MAX = 30_000;  // ms, the longest wait between retries

/**
 * retryable says whether the same request may work later: no connection,
 * a timeout, rate limited, or the server down or busy. Any other 4xx (say the
 * user does not exist) will not fix itself, so only the reader retries it.
 */
export function retryable(err) {
  return err.status === 0 || err.status === 408 || err.status === 429 || err.status >= 500;
}

export class Feed {
  /**
   * load(page) fetches a Page ({limit, cursor} or {limit, after});
   * render(item) draws one item; key(item) is its unique id. empty is what
   * an empty list says: text, or a function returning a node. onPage(page,
   * first) is told of each page loaded by paging (first: the top page).
   * With loadMore, the next page waits for a "Load more" button instead of
   * the reader scrolling near the end; end is what the end of a long list
   * says. label names the list: text, or a phrase() that quotes what a
   * user wrote (core/dom.js's ariaName).
   */
  constructor({ load, render, key = (x) => x.id, empty = t('feed.empty'), label = t('feed.label'), canRefresh = true, onPage = null, loadMore = false, end = t('feed.end') }) {
    this.load = load;
    this.onPage = onPage;
    this.render = render;
    this.key = key;
    this.emptyText = empty;
    this.canRefresh = canRefresh;
    this.loadMore = loadMore;
    this.endText = end;
    this.nodes = new Map();   // key → list item
    this.items = new Map();   // key → the item it shows
    this.pending = [];        // live items held behind the "new posts" button
    this.cursor = null;
    this.loading = false;
    this.done = false;
    this.maxId = 0;
    this.failed = false;      // the last load failed: nothing loads by itself until retry()
    this.failures = 0;        // failed loads in a row, for the back-off
    this.retryTimer = null;
    this.watching = false;    // the observer runs from the first reset() on
    this._online = () => { if (this.failed) this.retry(); };

    this.pill = h('button', { type: 'button', class: 'new-pill', hidden: true, on: { click: () => this.showPending(true) } });
    const name = ariaName(label);
    this.list = h('div', { class: 'feed-list', attrs: { role: 'feed', ...name.attrs, 'aria-busy': 'false' } });
    this.status = h('div', { class: 'feed-status', attrs: { 'aria-live': 'polite' } });
    this.sentinel = h('div', { class: 'sentinel', attrs: { 'aria-hidden': 'true' } });
    this.el = h('section', { class: 'feed' }, name.el, this.pill, this.list, this.status, this.sentinel);
    this.observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) this.more();
    }, { rootMargin: '800px 0px' });
  }

  /** destroy stops paging and retrying (the view is gone). */
  destroy() {
    this.observer.disconnect();
    clearTimeout(this.retryTimer);
    removeEventListener('online', this._online);
  }

  get size() { return this.nodes.size; }

  /**
   * reset loads the first page again. The list loads nothing before its
   * first reset, so a view can wait until it knows the list exists (a
   * profile whose user is not found never asks for their posts).
   */
  async reset() {
    this.cursor = null;
    this.done = false;
    this.nodes.clear();
    this.items.clear();
    this.pending = [];
    this._pill();
    clear(this.list);
    this._clearFailure();
    this.failures = 0;
    if (!this.watching && !this.loadMore) { this.watching = true; this.observer.observe(this.sentinel); }
    await this.more(true);
  }

  /** more loads the next page; after a failure it waits for retry(). */
  async more(first = false) {
    if (this.loading || this.failed || (this.done && !first)) return;
    this.loading = true;
    this.list.setAttribute('aria-busy', 'true');
    this._status('loading');
    let ok = false;
    try {
      const top = !this.cursor;
      const page = await this.load(this.cursor ? { limit: PAGE, cursor: this.cursor } : { limit: PAGE });
      for (const item of page.items || []) this._append(item);
      if (this.onPage) this.onPage({ ...page, items: page.items || [] }, top);
      this.cursor = page.next_cursor;
      this.done = !page.next_cursor;
      this.failures = 0;
      ok = true;
      this._status(this.nodes.size === 0 ? 'empty' : this.done ? 'end' : '');
    } catch (err) {
      this._fail(err);
    } finally {
      this.loading = false;
      this.list.setAttribute('aria-busy', 'false');
    }
    // A short first page may not fill the screen: keep going while the sentinel shows.
    if (ok && !this.done && !this.loadMore && this._sentinelVisible()) setTimeout(() => this.more(), 0);
  }

  /** retry loads the page that failed, now (the Retry button, the timer, coming back online). */
  retry() {
    this._clearFailure();
    this.more(this.nodes.size === 0);
  }

  /**
   * _fail shows that a load failed and, when waiting may help, retries it
   * after 1 s, 2 s, 4 s … up to RETRY_MAX (or the server's Retry-After),
   * so a list that cannot load does not hammer a server that is down.
   */
  _fail(err) {
    this.failed = true;
    this.failures++;
    let wait = 0;
    if (retryable(err)) {
      wait = Math.min(RETRY_MAX, RETRY_FIRST * 2 ** (this.failures - 1));
      wait = Math.max(wait, (Number(err.retryAfter) || 0) * 1000);
      this.retryTimer = setTimeout(() => this.retry(), wait);
      if (err.offline) addEventListener('online', this._online, { once: true });
    }
    this._status('error', err, wait);
  }

  _clearFailure() {
    this.failed = false;
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    removeEventListener('online', this._online);
  }

  /** refresh fetches what is newer than the newest item (pull to refresh) and shows it. */
  async refresh() {
    if (!this.canRefresh) return this.reset();
    if (this.maxId === 0) return this.reset();
    const items = [];
    let after = this.maxId;
    for (let i = 0; i < 5; i++) { // at most 5 pages of catch-up, then start over
      const page = await this.load({ limit: 100, after });
      items.push(...(page.items || []));
      if (!page.next_cursor || !page.items.length) break;
      after = Math.max(...page.items.map((p) => p.id));
      if (i === 4) return this.reset();
    }
    items.sort((a, b) => a.id - b.id);
    for (const item of items) this.add(item, { hold: false });
    return items.length;
  }

  /**
   * add puts a live item at the top, once. With hold (the default), an item
   * that arrives while the reader is scrolled down waits behind the pill;
   * without, it shows at once, even if it was waiting there. It slides in
   * unless animate is false (an item drawn again, not a new one).
   */
  add(item, { hold = true, animate = true } = {}) {
    const k = this.key(item);
    if (this.nodes.has(k)) return false;
    if (this.pending.some((p) => this.key(p) === k)) {
      if (hold) return false;
      // Held (say the live feed brought the reader's own post while a long
      // compose screen was scrolled down), but now wanted at once.
      this.pending = this.pending.filter((p) => this.key(p) !== k);
      this._pill();
    }
    if (hold && window.scrollY > 120) {
      this.pending.push(item);
      this._pill();
      return true;
    }
    this._prepend(item, animate);
    return true;
  }

  /** showPending puts the held items at the top. */
  showPending(scroll = false) {
    const items = this.pending.sort((a, b) => this.key(a) - this.key(b));
    this.pending = [];
    for (const item of items) this._prepend(item, true);
    this._pill();
    if (scroll) {
      window.scrollTo({ top: 0, behavior: matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth' });
      const first = this.list.querySelector('a, button');
      if (first) first.focus({ preventScroll: true });
    }
  }

  /** redraw draws the item of key k again, in place (it changed). */
  redraw(k) {
    const node = this.nodes.get(k);
    if (!node) return;
    const fresh = this._wrap(this.items.get(k));
    node.replaceWith(fresh);
    this.nodes.set(k, fresh);
  }

  /** remove takes an item away (deleted). */
  remove(k) {
    const node = this.nodes.get(k);
    if (node) { node.remove(); this.nodes.delete(k); }
    this.items.delete(k);
    this.pending = this.pending.filter((p) => this.key(p) !== k);
    this._pill();
    if (this.nodes.size === 0 && this.done) this._status('empty');
  }

  /** removeWhere takes away every item, shown or held, for which test(item) is true (say the posts of someone just blocked). */
  removeWhere(test) {
    for (const [k, item] of [...this.items]) if (test(item)) this.remove(k);
    for (const item of this.pending.filter(test)) this.remove(this.key(item));
  }

  _wrap(item) {
    const node = this.render(item);
    node.dataset.key = String(this.key(item));
    return node;
  }

  _append(item) {
    const k = this.key(item);
    if (this.nodes.has(k)) return;
    const node = this._wrap(item);
    this.nodes.set(k, node);
    this.items.set(k, item);
    this.list.append(node);
    if (typeof item.id === 'number' && item.id > this.maxId) this.maxId = item.id;
  }

  _prepend(item, animate) {
    const k = this.key(item);
    if (this.nodes.has(k)) return;
    const node = this._wrap(item);
    if (animate) node.classList.add('enter');
    this.nodes.set(k, node);
    this.items.set(k, item);
    // Keep newest first even when events arrive out of order.
    let before = this.list.firstElementChild;
    while (before && Number(before.dataset.key) > Number(k)) before = before.nextElementSibling;
    this.list.insertBefore(node, before);
    if (typeof item.id === 'number' && item.id > this.maxId) this.maxId = item.id;
    if (this.status.dataset.state === 'empty') this._status(this.done ? 'end' : '');
  }

  _pill() {
    const n = this.pending.length;
    this.pill.hidden = n === 0;
    this.pill.replaceChildren(icon('arrowUp', 16), t('feed.new_posts', { count: n }));
  }

  _sentinelVisible() {
    const r = this.sentinel.getBoundingClientRect();
    return r.top < innerHeight + 800 && this.el.isConnected;
  }

  /** _moreButton loads the next page and then moves the focus that was on it to the first post it brought. */
  _moreButton() {
    const btn = h('button', { type: 'button', class: 'btn btn-small load-more', on: { click: async () => {
      const had = this.nodes.size;
      const focused = document.activeElement === btn;
      await this.more();
      const first = [...this.nodes.values()][had];
      if (focused && first) (first.querySelector('a[href]:not([tabindex="-1"]), button') || first).focus();
    } } }, t('feed.load_more'));
    return btn;
  }

  _status(state, err, wait = 0) {
    this.status.dataset.state = state;
    switch (state) {
      case 'loading': this.status.replaceChildren(h('span', { class: 'spinner', attrs: { role: 'status', 'aria-label': t('common.loading') } })); break;
      case 'empty': this.status.replaceChildren(typeof this.emptyText === 'function' ? this.emptyText() : h('p', { class: 'empty' }, this.emptyText)); break;
      case 'end': this.status.replaceChildren(this.nodes.size > 5 ? h('p', { class: 'end' }, this.endText) : ''); break;
      case 'error': this.status.replaceChildren(
        h('p', { class: 'error' }, t('feed.failed', { message: err.message })),
        wait ? h('p', { class: 'muted small' }, t('feed.retrying', { s: Math.round(wait / 1000) })) : '',
        h('button', { type: 'button', class: 'btn btn-small', on: { click: () => this.retry() } }, t('common.retry'))); break;
      default: this.status.replaceChildren(this.loadMore && !this.done ? this._moreButton() : '');
    }
  }
}
