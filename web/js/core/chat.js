// chat.js is one conversation of private messages, in both front ends: the
// messages oldest at the top, paging back as the reader scrolls up (or
// taps "Load older messages"), live ones added at the bottom; the box that
// sends with Enter (Shift+Enter for a new line); a message shown as
// "Sending…" until the server has it; one's own messages deleted; and the
// conversation marked read while it is on screen.
//
// A message never shows twice. Each shows once per id, whether it comes in
// a page, in the answer to sending it, live, or again in the replay after
// a reconnection. One's own message can arrive live before the answer to
// sending it: while a message with the same text is being sent, it waits
// (held) and shows when that send is answered (with its id, so once) or
// given up. Each message is sent with its own Idempotency-Key, kept for
// its Retry, so a retry never writes it twice either. In the mobile app,
// messages go through its outbox (outbox.js): one that cannot be sent now
// waits, marked so, and is sent when the connection returns, also after
// the app was closed.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, icon, fill, own, phrase, slots, ariaName } from './dom.js';
import { t } from './i18n.js';
import { ask } from './ask.js';
import { countChars, newKey } from './api.js';
import { retryable } from './feed.js';
import { timeElement } from './time.js';
import { mediaGrid, attachments, imageFiles } from './media.js';
import { MAX_MESSAGE, otherOf, same, sendError } from './messages.js';
import { leftLabel } from './editor.js';
import { composeAssist } from './assist.js';

const PAGE = 30;
const NEAR_BOTTOM = 80; // px: closer than this to the end, new messages scroll into view
const COUNT_FROM = 100; // characters left from which the counter shows
const GROUP = 5 * 60 * 1000; // ms: one person's messages closer than this share one time

let seq = 0;

/**
 * chatView is the conversation with name. onUser(user) is told of the
 * other person's User once loaded (for the front end's header); it is not
 * told when they do not exist, which the view says itself. It returns
 * {el, onEvent, destroy}.
 */
export function chatView(ctx, name, { onUser = () => {} } = {}) {
  const me = ctx.me();
  const inbox = ctx.app.inbox;
  const id = 'chat-' + ++seq;
  const shown = new Map(); // message id → its node in list, in id order
  const pending = [];      // {key, content, node, state: 'sending' | 'waiting' | 'failed'} being sent, oldest first
  const held = new Map();  // id → one's own live message waiting for a send of the same text
  let cursor = null, done = false, loading = false, started = false;
  let readUpTo = 0, readTimer = null, readStopped = false;
  let reading = Promise.resolve(); // the read mark on its way, if any

  const who = () => ({ name: own(name) });
  const top = h('div', { class: 'chat-top' });
  const list = h('div', { class: 'chat-list' });
  const sending = h('div', { class: 'chat-list chat-sending' });
  const logName = ariaName(phrase(t('chat.log', slots('name')), who()));
  const scroller = h('div', { class: 'chat-scroll', tabIndex: 0, attrs: { role: 'log', ...logName.attrs } }, top, list, sending);
  const pill = h('button', { type: 'button', class: 'new-pill chat-pill', hidden: true, on: { click: () => toBottom(true) } }, t('chat.new_messages'));
  const input = h('textarea', {
    id, rows: 1, class: 'chat-input', placeholder: t('chat.placeholder'),
    attrs: { 'aria-describedby': id + '-count', maxlength: String(MAX_MESSAGE * 2), enterkeyhint: 'send', autocomplete: 'off' },
  });
  const assist = composeAssist(input, ctx, { max: MAX_MESSAGE });
  const media = attachments(ctx, { onChange: () => update() });
  const count = h('span', { class: 'chat-count', id: id + '-count' });
  const send = h('button', { type: 'submit', class: 'btn btn-primary chat-send', disabled: true, attrs: { 'aria-label': t('chat.send') } }, icon('send', 20));
  const note = h('p', { class: 'chat-note muted', hidden: true });
  const form = h('form', { class: 'chat-form', on: { submit: (e) => { e.preventDefault(); submit(); } } },
    h('label', { class: 'visually-hidden', htmlFor: id }, phrase(t('chat.input', slots('name')), who())), media.button, media.input, assist.el, assist.button, count, send);
  const el = h('section', { class: 'chat' }, logName.el, h('div', { class: 'chat-frame' }, scroller, pill), note, media.el, form);

  // ---- the box ----

  function update() {
    const left = MAX_MESSAGE - countChars(input.value);
    send.disabled = (!input.value.trim() && media.count() === 0) || left < 0 || media.failed();
    count.textContent = left <= COUNT_FROM ? String(left) : '';
    count.dataset.state = left < 0 ? 'over' : left <= 20 ? 'warn' : '';
    count.setAttribute('aria-label', leftLabel(left));
    input.style.height = '';
    if (input.value) input.style.height = Math.min(input.scrollHeight + 2, 160) + 'px';
    assist.sync();
  }
  input.addEventListener('input', update);
  input.addEventListener('keydown', (e) => {
    // Enter sends; Shift+Enter is a new line; Enter that ends an input method's composition (CJK) is not a send.
    if (e.key !== 'Enter' || e.shiftKey || e.isComposing || e.keyCode === 229) return;
    e.preventDefault();
    submit();
  });

  // Pictures pasted into the box are attached like picked ones.
  input.addEventListener('paste', (e) => {
    const files = imageFiles(e.clipboardData);
    if (files.length) { e.preventDefault(); media.add(files); }
  });

  async function submit() {
    if (send.disabled) return;
    let mediaIds = [];
    if (media.count()) {
      send.disabled = true;
      try {
        mediaIds = await media.ready(); // waits for the uploads and sends changed descriptions
      } catch (err) {
        ctx.toast(err.message);
        update();
        return;
      }
    }
    const p = { key: newKey(), content: input.value.trim(), mediaIds, node: null, state: 'sending' };
    pending.push(p);
    p.node = pendingNode(p);
    sending.append(p.node);
    input.value = '';
    media.clear();
    update();
    toBottom();
    attempt(p);
  }

  async function attempt(p) {
    p.state = 'sending';
    drawPending(p);
    try {
      if (!outbox) { resolved(p, await ctx.api.sendMessage(name, p.content, p.key, p.mediaIds)); return; }
      const res = await outbox.write('message', { to: name, content: p.content, media_ids: p.mediaIds }, p.key);
      if (res.sent) resolved(p, res.sent); else waiting(p);
    } catch (err) {
      p.state = 'failed';
      drawPending(p, err);
    }
  }

  /** resolved puts the server's message in place of p, once, and shows what waited for it. */
  function resolved(p, m) {
    const refocus = p.node.contains(document.activeElement);
    drop(p);
    held.delete(m.id);
    if (add(m) && done) drawTop(); // "Say hello" becomes "the beginning"
    flush(p.content);
    if (refocus) input.focus();
  }

  function drop(p) {
    pending.splice(pending.indexOf(p), 1);
    p.node.remove();
  }

  /** flush shows one's own live messages held for text once nothing with that text is being sent. */
  function flush(text) {
    if (pending.some((q) => q.content === text)) return;
    for (const [mid, m] of held) if (m.content === text) { held.delete(mid); add(m); }
  }

  // ---- the outbox (the mobile app's) ----

  const outbox = ctx.app.outbox || null;

  function waiting(p) {
    p.state = 'waiting';
    drawPending(p);
  }

  /**
   * later hears of a waiting message the outbox sent, or that the server
   * refused (one being sent from here hears it from its write instead).
   */
  const later = (e) => {
    const { item, result, error } = e.detail;
    const p = pending.find((q) => q.key === item.key);
    if (!p || p.state === 'sending') return;
    if (result) resolved(p, result);
    else { p.state = 'failed'; drawPending(p, error); }
  };
  if (outbox) {
    outbox.addEventListener('sent', later);
    outbox.addEventListener('refused', later);
    // What waits from before (the app was closed, or the conversation left) shows again.
    outbox.waiting('message', (item) => same(item.fields.to, name)).then((items) => {
      for (const item of items) {
        if (pending.some((q) => q.key === item.key)) continue;
        const p = { key: item.key, content: item.fields.content, mediaIds: item.fields.media_ids || [], node: null, state: 'waiting' };
        pending.push(p);
        p.node = pendingNode(p);
        sending.append(p.node);
        drawPending(p);
      }
      if (items.length) toBottom();
    }, () => { /* nothing stored */ });
  }

  // ---- messages ----

  /**
   * bubble is one message. Its time shows under the last of a run of one
   * person's messages (see regroup), and the others' on a tap or when
   * something in it has the focus; a screen reader reads each. Delete
   * shows on hover, on a tap, or when it has the keyboard's focus.
   */
  function bubble(m) {
    const mine = m.sender.id === me.id;
    const time = timeElement(m.created_at);
    const node = h('div', {
      class: 'msg ' + (mine ? 'msg-mine' : 'msg-theirs'),
      dataset: { id: String(m.id), sender: String(m.sender.id), at: String(new Date(m.created_at).getTime() || 0) },
      on: { click: (e) => { if (!e.target.closest('button, a')) node.classList.toggle('msg-open'); } },
    },
    h('div', { class: 'msg-row' },
      h('div', { class: 'msg-bubble', attrs: { title: time.title } },
        h('span', { class: 'visually-hidden' }, mine ? t('chat.you') : phrase(t('chat.from', slots('name')), { name: own(m.sender.username) })),
        m.content ? own(m.content, 'p', { class: 'msg-text' }) : null,
        mediaGrid(m.media, ctx)),
      mine ? h('button', { type: 'button', class: 'msg-delete', attrs: { 'aria-label': t('chat.delete') }, on: { click: () => remove(m) } }, icon('trash', 16)) : null),
    h('div', { class: 'msg-meta' }, time));
    return node;
  }

  /** regroup marks node (and its neighbours) grouped when the next message is the same person's, soon after. */
  function regroup(node) {
    for (const n of [node && node.previousElementSibling, node, node && node.nextElementSibling]) {
      if (!n) continue;
      const next = n.nextElementSibling;
      n.classList.toggle('msg-grouped', !!next && next.dataset.sender === n.dataset.sender && Number(next.dataset.at) - Number(n.dataset.at) < GROUP);
    }
  }

  function pendingNode(p) {
    return h('div', { class: 'msg msg-mine msg-pending' },
      h('div', { class: 'msg-bubble' }, h('span', { class: 'visually-hidden' }, t('chat.you')),
        p.content ? own(p.content, 'p', { class: 'msg-text' }) : null,
        p.mediaIds && p.mediaIds.length ? h('p', { class: 'msg-text msg-pictures' }, icon('image', 16), ' ', t('messages.picture')) : null),
      h('div', { class: 'msg-meta' }));
  }

  /** drawPending shows p as being sent, or as not sent with why, Retry (if it may work later) and Discard. */
  function drawPending(p, err) {
    p.node.classList.toggle('msg-failed', p.state === 'failed');
    const meta = p.node.querySelector('.msg-meta');
    if (p.state === 'sending') { fill(meta, h('span', { class: 'msg-status' }, t('chat.sending'))); return; }
    const discard = () => {
      const refocus = p.node.contains(document.activeElement);
      if (outbox) outbox.discard(p.key);
      drop(p);
      flush(p.content);
      if (refocus) input.focus();
    };
    if (p.state === 'waiting') {
      fill(meta, h('span', { class: 'msg-status msg-waiting' }, t('outbox.waiting')),
        h('button', { type: 'button', class: 'link-btn', on: { click: discard } }, t('outbox.discard')));
      return;
    }
    fill(meta,
      h('span', { class: 'msg-status msg-error', attrs: { role: 'alert' } }, t('chat.not_sent', { reason: sendError(err) })),
      retryable(err) ? h('button', { type: 'button', class: 'link-btn', on: { click: () => attempt(p) } }, t('common.retry')) : null,
      h('button', { type: 'button', class: 'link-btn', on: { click: discard } }, t('chat.discard')));
  }

  /** add shows m in its place by id, once; it says whether it was new. */
  function add(m) {
    if (shown.has(m.id)) return false;
    const node = bubble(m);
    const n = Number(m.id);
    const last = list.lastElementChild;
    if (!last || Number(last.dataset.id) < n) list.append(node);
    else if (Number(list.firstElementChild.dataset.id) > n) list.prepend(node);
    else {
      let after = last;
      while (after && Number(after.dataset.id) > n) after = after.previousElementSibling;
      after.after(node);
    }
    shown.set(m.id, node);
    regroup(node);
    return true;
  }

  function unshow(mid) {
    const node = shown.get(mid);
    const prev = node && node.previousElementSibling;
    if (node) node.remove();
    if (prev) regroup(prev);
    shown.delete(mid);
    held.delete(mid);
    if (done) drawTop();
  }

  async function remove(m) {
    if (!await ask(t('chat.confirm_delete'), t('chat.delete'))) return;
    try {
      await ctx.api.deleteMessage(m.id);
      unshow(m.id);
      input.focus();
    } catch (err) {
      ctx.toast(err.message);
    }
  }

  // ---- scrolling and paging back ----

  const nearBottom = () => scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < NEAR_BOTTOM;

  function toBottom(smooth = false) {
    pill.hidden = true;
    scroller.scrollTo({ top: scroller.scrollHeight, behavior: smooth && !matchMedia('(prefers-reduced-motion: reduce)').matches ? 'smooth' : 'auto' });
  }
  scroller.addEventListener('scroll', () => { if (!pill.hidden && nearBottom()) pill.hidden = true; }, { passive: true });

  function drawTop(err) {
    if (loading) return fill(top, h('span', { class: 'spinner', attrs: { role: 'status', 'aria-label': t('common.loading') } }));
    if (err) {
      return fill(top, h('p', { class: 'error' }, t('chat.failed', { message: err.message })),
        h('button', { type: 'button', class: 'btn btn-small', on: { click: () => page() } }, t('common.retry')));
    }
    if (!done) return fill(top, h('button', { type: 'button', class: 'btn btn-small chat-older', on: { click: () => page() } }, t('chat.older')));
    fill(top, h('p', { class: 'chat-start muted' }, phrase(shown.size ? t('chat.beginning', slots('name')) : t('chat.hello', slots('name')), who())));
  }

  /** page loads the newest page first, then each older one, keeping what is on screen in place. */
  async function page() {
    if (loading || done) return;
    loading = true;
    drawTop();
    const first = !started;
    try {
      const res = await ctx.api.messages(name, cursor ? { limit: PAGE, cursor } : { limit: PAGE });
      const fromBottom = scroller.scrollHeight - scroller.scrollTop;
      for (const m of res.items || []) add(m);
      cursor = res.next_cursor;
      done = !cursor;
      loading = false;
      drawTop();
      if (first) { started = true; toBottom(); markRead(true); watchTop.observe(top); } else scroller.scrollTop = scroller.scrollHeight - fromBottom;
      // The observer fires on changes only: a page that still leaves the top in sight asks for the next.
      if (!first && !done && topInSight()) setTimeout(page, 0);
    } catch (err) {
      loading = false;
      if (err.status === 404) missing(); else drawTop(err);
    }
  }

  const topInSight = () => top.getBoundingClientRect().bottom > scroller.getBoundingClientRect().top - 300;

  /** reload shows the newest page afresh (a reconnection missed more than its replay held); what is being sent stays. */
  function reload() {
    if (loading || !started) return;
    watchTop.disconnect();
    list.replaceChildren();
    shown.clear();
    cursor = null;
    done = false;
    started = false;
    page();
  }

  // Near the top, the older page loads by itself (the button stays for keyboards and for slow scrolls).
  const watchTop = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting) && !done) page();
  }, { root: scroller, rootMargin: '300px 0px 0px 0px' });

  // ---- reading ----

  /**
   * markRead tells the server the conversation is read up to its newest
   * message, when there is something new from them and the page shows.
   * opening: the first page just loaded, which needs no word to the server
   * when the inbox knows that nothing is unread.
   */
  function markRead(opening = false) {
    clearTimeout(readTimer);
    if (readStopped) return;
    readTimer = setTimeout(() => { reading = readNow(opening); }, 250);
  }
  /** readNow sends the read mark, if one is due; stopRead waits for it. */
  async function readNow(opening) {
    if (document.hidden || readStopped) return;
    const theirs = [...shown.keys()].filter((mid) => !shown.get(mid).classList.contains('msg-mine'));
    const upTo = Math.max(0, ...[...shown.keys()].map(Number));
    if (!theirs.length || upTo <= readUpTo) return;
    const known = inbox.unread.has(name.toLowerCase());
    if (opening && known && inbox.unreadWith(name) === 0) { readUpTo = upTo; return; }
    const before = readUpTo;
    readUpTo = upTo;
    try {
      await ctx.api.readConversation(name, upTo);
      inbox.read(name);
    } catch {
      readUpTo = before; // the next message or visit tries again
    }
  }
  /**
   * stopRead ends the marking of this conversation read, once a read mark
   * on its way has arrived: "Mark as unread" waits for it, or that mark,
   * answered after the unread one, would read the conversation again.
   */
  function stopRead() {
    readStopped = true;
    clearTimeout(readTimer);
    return reading;
  }
  const visible = () => { if (!document.hidden) markRead(); };
  document.addEventListener('visibilitychange', visible);

  // ---- start ----

  /** missing says that name does not exist (their profile or their messages said so), and stops. */
  function missing() {
    done = true;
    watchTop.disconnect();
    fill(top, h('p', { class: 'chat-start muted' }, phrase(t('chat.no_user', slots('name')), who())));
    form.hidden = true;
  }

  /** closed says why no message can be sent (a sentence of phrase()) instead of the box. */
  function closed(text) {
    fill(note, text);
    note.hidden = false;
    form.hidden = true;
  }

  update();
  if (same(name, me.username)) {
    closed(t('chat.self'));
  } else {
    inbox.reading = name;
    ctx.api.user(name).then((user) => {
      onUser(user);
      const them = { name: own(user.username) };
      if (user.blocking) closed(phrase(t('chat.blocking', slots('name')), them));
      else if (user.blocked_by) closed(phrase(t('chat.blocked_by', slots('name')), them));
    }, (err) => { if (err.status === 404) missing(); });
    page();
  }

  return {
    el,
    input,
    stopRead,
    onEvent(type, data) {
      if (type === 'message_delete') { unshow(data.id); return; }
      if (type === 'messages_truncated') { reload(); return; }
      if (type !== 'message' || !same(otherOf(data, me).username, name)) return;
      const mine = data.sender.id === me.id;
      if (mine && !shown.has(data.id) && pending.some((p) => p.content === data.content)) { held.set(data.id, data); return; }
      const stick = nearBottom();
      if (!add(data)) return;
      if (done) drawTop();
      if (stick || mine) toBottom(); else pill.hidden = false;
      if (!mine) markRead();
    },
    destroy() {
      if (inbox.reading && same(inbox.reading, name)) inbox.reading = null;
      watchTop.disconnect();
      clearTimeout(readTimer);
      document.removeEventListener('visibilitychange', visible);
      if (outbox) {
        outbox.removeEventListener('sent', later);
        outbox.removeEventListener('refused', later);
      }
    },
  };
}
