// live.js keeps one WebSocket to /ws open (docs/api.md, "The live feed") and hands
// its events to the page. When the connection drops it reconnects by itself,
// with exponential backoff and jitter, asking for ?after=&seen= (see
// resumePoint) and ?messages_after=<highest message id seen> so the server
// replays the posts and private messages that were missed; the page drops
// duplicates by id.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

const BACKOFF_MIN = 500;     // ms before the first retry
const BACKOFF_MAX = 15_000;  // ms, the longest wait between retries
const CLOSE_LOGGED_OUT = 4001;
const CLOSE_TOO_SLOW = 4008;
// A post may become visible up to RESUME_WINDOW ms after its created_at
// (its write held up by a failing server), below newer posts already
// delivered: a resume looks back that far (docs/api.md, "Resuming").
const RESUME_WINDOW = 30_000;
const MAX_SEEN = 100;   // the most ids ?seen= may list
const HELD_MAX = 1000;  // posts received live that are remembered

/**
 * LiveFeed fires:
 *   'status' {detail: 'connecting' | 'connected' | 'reconnecting' | 'offline' | 'stopped'}
 *   'post' | 'delete' | 'comment' | 'follow' | 'message' | 'ready' ... {detail: data}
 *   'loggedout' when the server closed with 4001;
 *   'dropped' {detail: attempt} each time a retry is scheduled (the page may
 *   check that its session still works: a 401 before the upgrade looks like
 *   any other failed connection to a browser).
 */
export class LiveFeed extends EventTarget {
  /** urlFor(after, messagesAfter, seen) returns the WebSocket URL. */
  constructor(urlFor) {
    super();
    this.urlFor = urlFor;
    this.lastId = 0;        // highest post id the page loaded (see)
    this.held = [];         // posts received live: {id, at}, oldest first
    // The highest private message id seen, from events and `ready`; null
    // until the first `ready`, after which even 0 asks for a replay (of
    // whatever was written to a user with no messages while it was away).
    this.lastMessageId = null;
    this.status = 'stopped';
    this.ws = null;
    this.attempt = 0;
    this.timer = null;
    this.running = false;
    this._online = () => this._retryNow();
    this._offline = () => { if (this.running && this.status !== 'connected') this._set('offline'); };
    this._visible = () => { if (!document.hidden) this._retryNow(); };
  }

  /** see raises lastId to the id of a post the page has loaded. */
  see(id) {
    const n = Number(id);
    if (n > this.lastId) this.lastId = n;
  }

  _hold(post) {
    const id = Number(post.id), at = Date.parse(post.created_at);
    if (!(id > 0) || Number.isNaN(at)) return;
    this.held.push({ id, at });
    if (this.held.length > HELD_MAX) this.held.splice(0, this.held.length - HELD_MAX);
  }

  /**
   * resumePoint is where a reconnection starts: after = the newest post
   * received live that was written RESUME_WINDOW before the newest received
   * (or the newest the page loaded, if higher), and seen = the posts
   * received above it, at most MAX_SEEN (after rising below them). The
   * server replays what is above after and not in seen.
   */
  resumePoint() {
    let after = this.lastId;
    const newest = Math.max(0, ...this.held.map((h) => h.at));
    for (const h of this.held) if (h.at <= newest - RESUME_WINDOW && h.id > after) after = h.id;
    let seen = [...new Set(this.held.filter((h) => h.id > after).map((h) => h.id))].sort((a, b) => a - b);
    if (seen.length > MAX_SEEN) {
      after = seen[seen.length - MAX_SEEN - 1];
      seen = seen.slice(-MAX_SEEN);
    }
    return { after, seen };
  }

  _seeMessage(id) {
    const n = Number(id);
    if (n >= 0 && (this.lastMessageId === null || n > this.lastMessageId)) this.lastMessageId = n;
  }

  start() {
    if (this.running) return;
    this.running = true;
    addEventListener('online', this._online);
    addEventListener('offline', this._offline);
    document.addEventListener('visibilitychange', this._visible);
    this._connect();
  }

  stop() {
    this.running = false;
    removeEventListener('online', this._online);
    removeEventListener('offline', this._offline);
    document.removeEventListener('visibilitychange', this._visible);
    clearTimeout(this.timer);
    if (this.ws) { this.ws.onclose = null; this.ws.close(1000); this.ws = null; }
    this._set('stopped');
  }

  _set(status) {
    if (this.status === status) return;
    this.status = status;
    this.dispatchEvent(new CustomEvent('status', { detail: status }));
  }

  _connect() {
    clearTimeout(this.timer);
    if (!this.running || this.ws) return;
    if (navigator.onLine === false) { this._set('offline'); return; } // 'online' brings us back
    this._set(this.attempt === 0 ? 'connecting' : 'reconnecting');
    let ws;
    try {
      const { after, seen } = this.resumePoint();
      ws = new WebSocket(this.urlFor(after, this.lastMessageId, seen));
    } catch {
      this._schedule();
      return;
    }
    this.ws = ws;
    ws.onmessage = (m) => {
      let frame;
      try { frame = JSON.parse(m.data); } catch { return; }
      if (!frame || typeof frame.event !== 'string') return;
      if (frame.event === 'ready') {
        this.attempt = 0;
        this._set('connected');
      }
      if (frame.event === 'post' && frame.data) this._hold(frame.data);
      // Messages are counted from the socket alone (never from a page or a
      // send's answer), so a reconnection asks for all that it did not bring.
      // `ready`'s id is the newest message when the replay ended, whose event
      // may still be on its way: it is the mark only of a first connection
      // (nothing seen yet) or of a replay cut short (the page reloads the
      // conversations). Else a drop before that event came would resume past
      // it, and the server, taking the mark as had, would never send it.
      if (frame.event === 'message' && frame.data) this._seeMessage(frame.data.id);
      if (frame.event === 'ready' && frame.data && (this.lastMessageId === null || frame.data.messages_truncated)) {
        this._seeMessage(frame.data.last_message_id);
      }
      this.dispatchEvent(new CustomEvent(frame.event, { detail: frame.data }));
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (!this.running) return;
      if (e.code === CLOSE_LOGGED_OUT) {
        this.stop();
        this.dispatchEvent(new CustomEvent('loggedout'));
        return;
      }
      if (e.code === CLOSE_TOO_SLOW) this.attempt = 0; // we are fine, just catch up now
      this._schedule();
    };
  }

  _schedule() {
    if (!this.running) return;
    this._set(navigator.onLine === false ? 'offline' : 'reconnecting');
    // Full jitter: a random wait up to the current ceiling, so many clients
    // dropped at once by a restart do not all come back in the same instant.
    const ceiling = Math.min(BACKOFF_MAX, BACKOFF_MIN * 2 ** this.attempt);
    const wait = BACKOFF_MIN / 2 + Math.random() * ceiling;
    this.attempt++;
    this.dispatchEvent(new CustomEvent('dropped', { detail: this.attempt }));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this._connect(), wait);
  }

  _retryNow() {
    if (!this.running || this.ws) return;
    this.attempt = Math.min(this.attempt, 1);
    this._connect();
  }
}
