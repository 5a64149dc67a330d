// feed.js is a list that pages in with the cursor as the reader scrolls
// (infinite scroll), takes live items at the top without duplicates, and,
// when the reader has scrolled away from the top, holds them behind an
// "N new posts" button instead of moving the text they are reading.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, clear, icon } from './dom.js';

const PAGE = 20;

export class Feed {
  /**
   * load(page) fetches a Page ({limit, cursor} or {limit, after});
   * render(item) draws one item; key(item) is its unique id.
   */
  constructor({ load, render, key = (x) => x.id, empty = 'Nothing here yet.', label = 'Posts', canRefresh = true }) {
    this.load = load;
    this.render = render;
    this.key = key;
    this.emptyText = empty;
    this.canRefresh = canRefresh;
    this.nodes = new Map();   // key → list item
    this.pending = [];        // live items held behind the "new posts" button
    this.cursor = null;
    this.loading = false;
    this.done = false;
    this.maxId = 0;

    this.pill = h('button', { type: 'button', class: 'new-pill', hidden: true, on: { click: () => this.showPending(true) } });
    this.list = h('div', { class: 'feed-list', attrs: { role: 'feed', 'aria-label': label, 'aria-busy': 'false' } });
    this.status = h('div', { class: 'feed-status', attrs: { 'aria-live': 'polite' } });
    this.sentinel = h('div', { class: 'sentinel', attrs: { 'aria-hidden': 'true' } });
    this.el = h('section', { class: 'feed' }, this.pill, this.list, this.status, this.sentinel);
    this.observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) this.more();
    }, { rootMargin: '800px 0px' });
    this.observer.observe(this.sentinel);
  }

  /** destroy stops paging (the view is gone). */
  destroy() { this.observer.disconnect(); }

  get size() { return this.nodes.size; }

  /** reset loads the first page again. */
  async reset() {
    this.cursor = null;
    this.done = false;
    this.nodes.clear();
    this.pending = [];
    this._pill();
    clear(this.list);
    await this.more(true);
  }

  /** more loads the next page. */
  async more(first = false) {
    if (this.loading || (this.done && !first)) return;
    this.loading = true;
    this.list.setAttribute('aria-busy', 'true');
    this._status('loading');
    try {
      const page = await this.load(this.cursor ? { limit: PAGE, cursor: this.cursor } : { limit: PAGE });
      for (const item of page.items || []) this._append(item);
      this.cursor = page.next_cursor;
      this.done = !page.next_cursor;
      this._status(this.nodes.size === 0 ? 'empty' : this.done ? 'end' : '');
    } catch (err) {
      this._status('error', err);
    } finally {
      this.loading = false;
      this.list.setAttribute('aria-busy', 'false');
    }
    // A short first page may not fill the screen: keep going while the sentinel shows.
    if (!this.done && this._sentinelVisible()) setTimeout(() => this.more(), 0);
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
   * that arrives while the reader is scrolled down waits behind the pill.
   */
  add(item, { hold = true } = {}) {
    const k = this.key(item);
    if (this.nodes.has(k) || this.pending.some((p) => this.key(p) === k)) return false;
    if (hold && window.scrollY > 120) {
      this.pending.push(item);
      this._pill();
      return true;
    }
    this._prepend(item, true);
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

  /** remove takes an item away (deleted). */
  remove(k) {
    const node = this.nodes.get(k);
    if (node) { node.remove(); this.nodes.delete(k); }
    this.pending = this.pending.filter((p) => this.key(p) !== k);
    this._pill();
    if (this.nodes.size === 0 && this.done) this._status('empty');
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
    this.list.append(node);
    if (typeof item.id === 'number' && item.id > this.maxId) this.maxId = item.id;
  }

  _prepend(item, animate) {
    const k = this.key(item);
    if (this.nodes.has(k)) return;
    const node = this._wrap(item);
    if (animate) node.classList.add('enter');
    this.nodes.set(k, node);
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
    this.pill.replaceChildren(icon('arrowUp', 16), n === 1 ? '1 new post' : `${n} new posts`);
  }

  _sentinelVisible() {
    const r = this.sentinel.getBoundingClientRect();
    return r.top < innerHeight + 800 && this.el.isConnected;
  }

  _status(state, err) {
    this.status.dataset.state = state;
    switch (state) {
      case 'loading': this.status.replaceChildren(h('span', { class: 'spinner', attrs: { role: 'status', 'aria-label': 'Loading' } })); break;
      case 'empty': this.status.replaceChildren(h('p', { class: 'empty' }, this.emptyText)); break;
      case 'end': this.status.replaceChildren(this.nodes.size > 5 ? h('p', { class: 'end' }, 'You’re all caught up.') : ''); break;
      case 'error': this.status.replaceChildren(h('p', { class: 'error' }, err.message + ' ',
        h('button', { type: 'button', class: 'btn btn-small', on: { click: () => this.more(this.nodes.size === 0) } }, 'Try again'))); break;
      default: this.status.replaceChildren();
    }
  }
}
