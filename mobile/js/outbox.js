// outbox.js keeps what the user writes (posts, comments, private messages)
// on the device until the server has it, so that nothing typed offline is
// lost: each write is stored in IndexedDB first, then sent; what cannot be
// sent (no connection, the server down or busy) waits there, across closing
// and opening the app, and is sent when the connection returns (the online
// event, the app's start, the live feed connecting again) or at the latest
// after a wait that doubles with each failure.
//
// Exactly once: the Idempotency-Key of a write is made when it is written
// and stored with it, so every attempt carries the same key and the server
// writes it once even when an earlier attempt reached it but its answer was
// lost (docs/api.md: the server keeps a key's answer for 24 hours). A
// refusal (a 4xx: too long, blocked, …) takes the write out and is told to
// the app; a 401 keeps it for when the same account signs in again. Only
// the account that wrote an item, on the server it wrote to, sends it. Two
// pages of the app never send at once (a Web Lock).
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { newKey } from './core/api.js';
import { retryable, RETRY_FIRST, RETRY_MAX } from './core/feed.js';

const DB_NAME = 'microblog-outbox';
const STORE = 'items';
const LOCK = 'microblog-outbox';

// SEND sends an item's fields (what the user wrote) with its key.
const SEND = {
  post: (api, f, key) => api.createPost(f.content, f.repost_of || null, f.media_ids || [], key, { poll: f.poll || null, spoiler: f.spoiler || '' }),
  comment: (api, f, key) => api.comment(f.parent_id, f.content, key),
  message: (api, f, key) => api.sendMessage(f.to, f.content, key, f.media_ids || []),
};

/** keep says whether a failed send is kept to try again rather than refused for good. */
function keep(err) {
  return retryable(err) || err.status === 401 || err.code === 'request_in_progress';
}

let db = null;

/** open opens the outbox's database: one store of items by key, indexed by owner. */
function open() {
  db ||= new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: 'key' }).createIndex('owner', 'owner');
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  db.catch(() => { db = null; }); // try again next time
  return db;
}

/** transact runs fn(store) in a transaction and resolves with its request's result once that is committed. */
async function transact(mode, fn) {
  const conn = await open();
  return new Promise((resolve, reject) => {
    const tx = conn.transaction(STORE, mode);
    const req = fn(tx.objectStore(STORE));
    tx.oncomplete = () => resolve(req ? req.result : undefined);
    tx.onerror = tx.onabort = () => reject(tx.error || new Error('outbox: transaction aborted'));
  });
}

/**
 * Outbox is one account's outbox on one server. It dispatches "change"
 * (what waits changed), "sent" ({item, result, late}: the server's Post,
 * comment or Message) and "refused" ({item, error, late}: an ApiError; the
 * item is gone). late: after write() had answered "waiting", so that no
 * screen has shown the outcome yet.
 *
 * An item is {key, owner, kind: "post" | "comment" | "message", fields, at}:
 * fields are what SEND needs (content, repost_of, media_ids; parent_id;
 * to) and whatever the app wants to show it with.
 */
export class Outbox extends EventTarget {
  /** api returns the current API client; owner names the account and its server. */
  constructor({ api, owner }) {
    super();
    this.api = api;
    this.owner = owner;
    this.waiters = new Map(); // key → {item, resolve, reject} of a write() waiting for its first attempt
    this.running = null;      // the flush under way
    this.again = false;       // something asked for a flush while one ran
    this.failures = 0;        // failed attempts in a row, for the wait before the next
    this.timer = null;
    this.closed = false;
    this.onOnline = () => { this.failures = 0; this.flush(); };
    addEventListener('online', this.onOnline);
  }

  /**
   * write keeps what the user wrote and tries to send it now. It resolves
   * with {sent: result} or {waiting: item} (kept, sent later), or rejects
   * with the ApiError of a refusal. Without IndexedDB it just sends.
   */
  async write(kind, fields, key = newKey()) {
    const item = { key, owner: this.owner, kind, fields, at: performance.timeOrigin + performance.now() };
    // The waiter is there before the item, so the attempt that sends it answers here.
    const outcome = new Promise((resolve, reject) => this.waiters.set(key, { item, resolve, reject }));
    try {
      await transact('readwrite', (s) => s.put(item));
    } catch {
      this.waiters.delete(key);
      return { sent: await SEND[kind](this.api(), fields, key) }; // storage off (private mode): as before the outbox
    }
    this.changed();
    this.flush();
    return outcome;
  }

  /** waiting lists the items of kind that wait, oldest first, those match(item) accepts. */
  async waiting(kind, match = () => true) {
    return (await this.items()).filter((i) => i.kind === kind && match(i));
  }

  /** discard takes an item out: it will not be sent (unless it is being sent this moment). */
  async discard(key) {
    await transact('readwrite', (s) => s.delete(key));
    this.changed();
  }

  /** clear takes out every item of this account (it logged out of this device). */
  async clear() {
    const items = await this.items();
    await transact('readwrite', (s) => { for (const item of items) s.delete(item.key); });
    this.changed();
  }

  /** close stops sending (the session ended); what waits stays on the device. */
  close() {
    this.closed = true;
    clearTimeout(this.timer);
    removeEventListener('online', this.onOnline);
  }

  /** flush sends what waits, in the order it was written; one flush runs at a time. */
  flush() {
    if (this.closed) return Promise.resolve();
    if (this.running) { this.again = true; return this.running; }
    clearTimeout(this.timer);
    const locked = navigator.locks ? navigator.locks.request(LOCK, () => this.run()) : this.run();
    this.running = locked.catch(() => {
      // The store failed: what was written is in it (or write() said otherwise), so it waits.
      for (const [key, w] of this.waiters) { this.waiters.delete(key); w.resolve({ waiting: w.item }); }
      this.later(null);
    }).finally(() => {
      this.running = null;
      if (this.again) { this.again = false; this.flush(); }
    });
    return this.running;
  }

  /** items lists this account's items, oldest first. */
  async items() {
    const all = await transact('readonly', (s) => s.index('owner').getAll(this.owner));
    return all.sort((a, b) => a.at - b.at);
  }

  /** run sends the items, stopping at the first kept failure; a write() whose item it did not try hears "waiting". */
  async run() {
    const items = await this.items();
    try {
      await this.send(items);
    } finally {
      for (const item of items) {
        const w = this.waiters.get(item.key);
        if (w) { this.waiters.delete(item.key); w.resolve({ waiting: w.item }); }
      }
    }
  }

  /** send tries items in order: each sent or refused leaves the store; a kept failure stops it. */
  async send(items) {
    for (const item of items) {
      if (this.closed) return;
      if (navigator.onLine === false) return; // the online event flushes
      const waiter = this.waiters.get(item.key);
      this.waiters.delete(item.key);
      let result;
      try {
        result = await SEND[item.kind](this.api(), item.fields, item.key);
      } catch (err) {
        if (keep(err)) {
          if (waiter) waiter.resolve({ waiting: item });
          this.later(err);
          return; // the rest waits too: most often the connection is gone for all
        }
        await transact('readwrite', (s) => s.delete(item.key));
        if (waiter) waiter.reject(err);
        this.dispatchEvent(new CustomEvent('refused', { detail: { item, error: err, late: !waiter } }));
        this.changed();
        continue;
      }
      this.failures = 0;
      await transact('readwrite', (s) => s.delete(item.key));
      if (waiter) waiter.resolve({ sent: result });
      this.dispatchEvent(new CustomEvent('sent', { detail: { item, result, late: !waiter } }));
      this.changed();
    }
  }

  /** later tries again after a wait that doubles with each failure (and honours Retry-After). */
  later(err) {
    this.failures++;
    if (this.closed || (err && err.status === 401)) return; // a new session's outbox sends it
    let wait = Math.min(RETRY_MAX, RETRY_FIRST * 2 ** (this.failures - 1));
    if (err) wait = Math.max(wait, (Number(err.retryAfter) || 0) * 1000);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), wait);
  }

  changed() {
    this.dispatchEvent(new Event('change'));
  }
}
