// waiting.js is the mobile app's side of the outbox (outbox.js): it
// opens the signed-in account's outbox, shows the posts and comments that
// wait in it as cards marked "Waiting to send" (with Discard) where they
// will appear once sent, puts each in its place when the server has it, and
// says in the user's language why one was refused. Private messages that
// wait show in their conversation (core/chat.js).

import { h, fill } from './core/dom.js';
import { avatar, learnAvatar } from './core/render.js';
import { Outbox } from './outbox.js';
import { tell } from './core/app.js';
import { bumpLater } from './core/social.js';
import { t, errorText } from './core/i18n.js';

const QUOTE = 40; // characters of a refused text quoted in the toast

// filters holds what each list on the page shows: [kind, match(item)];
// draws counts each list's drawings, so that only the latest is shown.
const filters = new WeakMap();
const draws = new WeakMap();

/**
 * startOutbox opens the outbox of the signed-in user on this server as
 * ctx.app.outbox, and sends what waits in it from before.
 */
export function startOutbox(ctx) {
  const { app } = ctx;
  const outbox = new Outbox({ api: () => ctx.api, owner: `${ctx.config.server()} ${app.user.id}` });
  app.outbox = outbox;
  outbox.addEventListener('change', () => { for (const el of document.querySelectorAll('.waiting-list')) draw(ctx, el); });
  outbox.addEventListener('sent', (e) => {
    const { item, result, late } = e.detail;
    if (!late) return; // the screen that wrote it shows it
    if (item.kind === 'post') ctx.posted(result);
    if (item.kind === 'comment') {
      bumpLater(item.fields.parent_id, 'comments', 1);
      tell(app, 'comment', result);
    }
  });
  outbox.addEventListener('refused', (e) => {
    const { item, error, late } = e.detail;
    if (!late) return; // the screen that wrote it says so
    const chars = [...item.fields.content];
    const text = chars.length > QUOTE ? chars.slice(0, QUOTE).join('') + '…' : item.fields.content;
    ctx.toast(t('outbox.refused', { text, reason: errorText(error) }));
  });
  // Back online: the live feed connects again before the browser may say so.
  // One's own post, comment or message heard live says the server is
  // reachable (and may be one whose answer was lost): try what waits now.
  app.live.addEventListener('status', (e) => { if (e.detail === 'connected') outbox.flush(); });
  const mine = (e) => { const who = e.detail && (e.detail.author || e.detail.sender); if (who && who.id === app.user.id) outbox.flush(); };
  for (const type of ['post', 'comment', 'message']) app.live.addEventListener(type, mine);
  outbox.flush();
}

/**
 * stopOutbox stops sending. What waits stays on the phone for the next
 * session of the same account, unless discard: the user logged out.
 */
export function stopOutbox(app, discard = false) {
  if (!app.outbox) return;
  if (discard) app.outbox.clear().catch(() => { /* nothing stored */ });
  app.outbox.close();
  app.outbox = null;
}

/**
 * waitingList is a list of the items of kind that wait and match(item)
 * accepts (posts on the home timeline, a thread's comments), kept current.
 */
export function waitingList(ctx, kind, match = () => true) {
  const el = h('div', { class: 'waiting-list', hidden: true, attrs: { 'aria-label': t('outbox.list') } });
  filters.set(el, [kind, match]);
  draw(ctx, el);
  return el;
}

async function draw(ctx, el) {
  const outbox = ctx.app.outbox;
  const [kind, match] = filters.get(el) || [];
  if (!outbox || !kind) return;
  const n = (draws.get(el) || 0) + 1;
  draws.set(el, n);
  const items = await outbox.waiting(kind, match);
  if (draws.get(el) !== n) return; // a later drawing is under way
  fill(el, ...items.map((item) => card(ctx, item)));
  el.hidden = items.length === 0;
}

/** card shows a waiting post or comment as it will look, marked as waiting. */
function card(ctx, item) {
  const me = ctx.me();
  learnAvatar(me);
  return h('article', { class: 'post post-waiting', dataset: { outbox: item.key } },
    avatar(me),
    h('div', { class: 'post-body' },
      h('div', { class: 'post-head' },
        h('span', { class: 'name', attrs: { translate: 'no' } }, me.username),
        h('span', { class: 'waiting-mark' }, t('outbox.waiting'))),
      h('p', { class: 'content', attrs: { translate: 'no' } }, item.fields.content),
      h('div', { class: 'waiting-actions' },
        h('button', { type: 'button', class: 'link-btn', on: { click: () => ctx.app.outbox.discard(item.key) } }, t('outbox.discard')))));
}
