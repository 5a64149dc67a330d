// assist.js helps every composer of both front ends write (the post box,
// the comment and repost boxes, the private message box):
//
// - @people and #topics# are suggested as they are typed: "@li" lists the
//   people whose username or display name starts with "li" (/search/users),
//   "#杭" the topics starting with "杭" that have a post the reader may see
//   (/search/tags). Typing pauses 150 ms before asking; a newer fragment
//   aborts the request of an older one. The list follows WAI-ARIA's
//   combobox pattern on the textarea itself (aria-autocomplete="list",
//   aria-controls, aria-activedescendant, a listbox of options, and a polite
//   live region saying how many there are): Up and Down move, Enter or Tab
//   picks, Escape closes; a tap picks too. Picking puts "@username " or
//   "#topic# " (Weibo's form, which holds any script) in place of the
//   fragment. An input method's composition (Chinese pinyin) is left alone
//   until it ends.
// - an emoji picker: a button opening a grid of a few hundred common emoji
//   (emoji-data.js, loaded when first opened), grouped, each named in the
//   reader's language for screen readers; arrow keys move, Enter or a tap
//   inserts at the caret, Escape closes, and the focus goes back to the box.
//   The emoji are text, drawn by the reader's own emoji font: nothing is
//   fetched from elsewhere.
// - past the limit, the characters over it are marked: a layer over the
//   textarea that lays the text out as the textarea does (its font,
//   padding, width, scroll) draws the text invisibly, with a mark behind
//   the part past max code points, counted as the server counts.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, icon, own } from './dom.js';
import { t, lang } from './i18n.js';
import { avatar } from './avatar.js';
import { NAME, NAME_MAX, TAG_MAX, SPACE, CJK, glued, weibo } from './text.js';

export const SUGGEST_DELAY = 150; // ms of quiet typing before asking the server
const LIMIT = 6;                   // suggestions asked for

let seq = 0;

/**
 * fragmentAt finds the mention or topic being typed where the caret is in
 * text: {kind: '@' | '#', query, start, end} (start and end in UTF-16 code
 * units, the sigil included), or null. It reads the text as the server does
 * (text.js): "@name" not glued to what comes before, "#话题" up to the
 * caret when that # opens no closed topic, and "#tag" of a Twitter tag.
 */
export function fragmentAt(text, caret) {
  const before = text.slice(0, caret);
  const line = before.slice(before.lastIndexOf('\n') + 1);
  const chars = [...line];
  // @name: the name's letters run back from the caret to an @.
  let n = 0;
  while (n < chars.length && NAME.test(chars[chars.length - 1 - n])) n++;
  const at = chars.length - 1 - n;
  if (n >= 1 && n <= NAME_MAX && at >= 0 && chars[at] === '@' && (at === 0 || !glued(chars[at - 1]))) {
    let end = caret; // the rest of the word after the caret is replaced too
    for (const c of text.slice(caret)) { if (!NAME.test(c)) break; end += c.length; }
    const query = chars.slice(at + 1).join('');
    return { kind: '@', query, start: caret - query.length - 1, end };
  }
  // #topic: the first # of the line that no closed #topic# holds.
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] !== '#' || (i > 0 && glued(chars[i - 1]))) continue;
    const w = weibo(chars, i);
    if (w) { i += w.len - 1; continue; }
    const frag = chars.slice(i + 1);
    if (frag.includes('#')) continue;
    if (!frag.length || frag.length > TAG_MAX || SPACE.test(frag[0])) return null;
    // "#go is" is the Twitter tag #go and more words, not a topic being typed.
    if (frag.some((c) => SPACE.test(c)) && !frag.some((c) => CJK.test(c))) return null;
    const query = frag.join('');
    return { kind: '#', query: query.trimEnd(), start: caret - query.length - 1, end: caret };
  }
  return null;
}

/** insertText puts text in area in place of [start, end), as typing would (so Ctrl+Z undoes it), and tells the page with an input event. */
export function insertText(area, text, start = area.selectionStart, end = area.selectionEnd) {
  area.focus();
  area.setSelectionRange(start, end);
  // execCommand keeps the browser's undo history; where it is gone, setRangeText does the same edit.
  if (!document.execCommand || !document.execCommand('insertText', false, text)) {
    area.setRangeText(text, start, end, 'end');
    area.dispatchEvent(new Event('input', { bubbles: true }));
  }
}

/**
 * composeAssist adds suggestions, the emoji picker and the marking of what
 * is over max characters to area, a composer's textarea. It returns {el,
 * button, sync}: el holds area (put it where area would go), button opens
 * the emoji picker (put it in the composer's bar), and sync() must be
 * called when the page changes area's value itself (after sending).
 */
export function composeAssist(area, ctx, { max }) {
  const id = 'assist-' + ++seq;
  const over = h('div', { class: 'assist-over', attrs: { 'aria-hidden': 'true' }, hidden: true });
  const list = h('ul', { id: id + '-list', class: 'assist-list', hidden: true, attrs: { role: 'listbox', 'aria-label': t('assist.suggestions') } });
  const status = h('div', { class: 'visually-hidden', attrs: { role: 'status', 'aria-live': 'polite' } });
  const picker = emojiPicker(area, id);
  const el = h('div', { class: 'assist' }, area, over, list, status, picker.el);
  area.setAttribute('aria-autocomplete', 'list');
  area.setAttribute('aria-controls', list.id);

  // ---- suggestions ----
  let composing = false;
  let frag = null;       // the fragment the list is for
  let dismissed = null;  // a fragment closed with Escape: not suggested again until it changes
  let items = [];        // [{insert, node}]
  let active = -1;
  let timer = null, aborter = null;
  const key = (f) => f && f.kind + f.query + '@' + f.start;

  function check() {
    if (composing) return;
    const f = area.selectionStart === area.selectionEnd ? fragmentAt(area.value, area.selectionStart) : null;
    if (!f || !f.query) { close(); return; }
    if (key(f) === key(dismissed)) return;
    dismissed = null;
    if (frag && key(f) === key(frag)) return; // shown, or being asked for
    narrow(f);
    frag = f;
    clearTimeout(timer);
    if (aborter) { aborter.abort(); aborter = null; } // an answer for an older fragment is of no use
    timer = setTimeout(() => ask(f), SUGGEST_DELAY);
  }

  async function ask(f) {
    if (aborter) aborter.abort();
    const mine = aborter = new AbortController();
    try {
      const page = f.kind === '@'
        ? await ctx.api.searchUsers(f.query, { limit: LIMIT }, { signal: mine.signal })
        : await ctx.api.searchTags(f.query, { limit: LIMIT }, { signal: mine.signal });
      if (mine !== aborter || frag !== f) return;
      show(f, (page && page.items) || []);
    } catch {
      if (mine === aborter) close(); // a refused or failed look-up offers nothing
    }
  }

  function show(f, found) {
    items = found.map((x, i) => {
      const node = f.kind === '@' ? userOption(x) : topicOption(x);
      node.id = `${id}-opt-${i}`;
      node.addEventListener('click', () => pick(items.findIndex((it) => it.node === node)));
      const keys = f.kind === '@' ? [x.username, x.display_name || ''] : [x.tag];
      return { insert: f.kind === '@' ? '@' + x.username + ' ' : '#' + x.tag + '# ', node, kind: f.kind, keys };
    });
    list.replaceChildren(...items.map((it) => it.node));
    if (!items.length) {
      close();
      status.textContent = t('assist.none');
      return;
    }
    if (list.hidden) follow(true);
    list.hidden = false;
    move(0);
    place();
    status.textContent = t('assist.count', { count: items.length });
  }

  /**
   * narrow keeps, of the suggestions shown, those that still start with what
   * is typed now, until the server answers for it: nothing offered is ever
   * for an older fragment.
   */
  function narrow(f) {
    if (list.hidden) return;
    const q = f.query.toLowerCase();
    const kept = items.filter((it) => it.kind === f.kind && it.keys.some((k) => k.toLowerCase().startsWith(q)));
    if (!kept.length) { close(); return; }
    if (kept.length === items.length) return;
    const was = items[active];
    for (const it of items) if (!kept.includes(it)) it.node.remove();
    items = kept;
    move(Math.max(0, kept.indexOf(was)));
    status.textContent = t('assist.count', { count: items.length });
  }

  function move(i) {
    active = (i + items.length) % items.length;
    items.forEach((it, j) => it.node.setAttribute('aria-selected', String(j === active)));
    area.setAttribute('aria-activedescendant', items[active].node.id);
    items[active].node.scrollIntoView({ block: 'nearest' });
  }

  function pick(i) {
    const f = frag, it = items[i];
    close();
    if (!f || !it) return;
    insertText(area, it.insert, f.start, f.end);
  }

  function close() {
    clearTimeout(timer);
    if (aborter) { aborter.abort(); aborter = null; }
    frag = null;
    items = [];
    active = -1;
    if (!list.hidden) { list.hidden = true; list.replaceChildren(); status.textContent = ''; follow(false); }
    area.removeAttribute('aria-activedescendant');
  }

  /** place puts the list under the caret's line, or over it where the window has no room below. */
  function place() {
    const caret = caretBox(area, over, frag ? frag.start : area.selectionStart);
    list.style.left = '0px';
    list.style.top = '0px';
    const w = list.offsetWidth, ht = list.offsetHeight;
    const left = Math.max(8, Math.min(caret.left, innerWidth - w - 8));
    const below = caret.bottom + 4;
    const top = below + ht > innerHeight - 8 && caret.top - 4 - ht > 8 ? caret.top - 4 - ht : below;
    list.style.left = left + 'px';
    list.style.top = top + 'px';
  }

  area.addEventListener('keydown', (e) => {
    if (list.hidden || e.isComposing || e.keyCode === 229) return;
    let handled = true;
    if (e.key === 'ArrowDown') move(active + 1);
    else if (e.key === 'ArrowUp') move(active - 1);
    else if ((e.key === 'Enter' || e.key === 'Tab') && !e.shiftKey && !e.ctrlKey && !e.metaKey && !e.altKey) pick(active);
    else if (e.key === 'Escape') { dismissed = frag; close(); }
    else handled = false;
    // The composer's own keys (Enter sends a message, Escape ends an edit or a dialog) wait while the list is open.
    if (handled) { e.preventDefault(); e.stopImmediatePropagation(); }
  }, { capture: true });
  area.addEventListener('compositionstart', () => { composing = true; });
  area.addEventListener('compositionend', () => { composing = false; check(); });
  area.addEventListener('input', (e) => { if (!e.isComposing) check(); });
  area.addEventListener('click', check);
  area.addEventListener('keyup', (e) => { if (e.key === 'ArrowLeft' || e.key === 'ArrowRight' || e.key === 'Home' || e.key === 'End') check(); });
  area.addEventListener('blur', () => { if (!pressing) close(); });
  let pressing = false;
  // A press on the list keeps the focus in the box, so the caret stays where the pick goes.
  list.addEventListener('pointerdown', (e) => { pressing = true; e.preventDefault(); });
  list.addEventListener('mousedown', (e) => e.preventDefault());
  const released = () => { pressing = false; };
  // The window is listened to only while the list is open, so a composer that leaves the page leaves nothing behind.
  const follow = (on) => {
    const f = on ? addEventListener : removeEventListener;
    f('pointerup', released, true);
    f('scroll', place, { capture: true, passive: true });
    f('resize', place);
  };

  // ---- over the limit ----
  let overShown = false;
  function sync() {
    if (frag) check(); // the page changed the text (sent it): the list may be for text that is gone
    const chars = [...area.value];
    if (chars.length <= max) {
      if (overShown) { over.hidden = true; over.replaceChildren(); overShown = false; el.classList.remove('assist-is-over'); }
      return;
    }
    overShown = true;
    el.classList.add('assist-is-over');
    layOver(area, over);
    over.replaceChildren(chars.slice(0, max).join(''), h('mark', { class: 'assist-mark' }, chars.slice(max).join('')), '\u200b');
    over.hidden = false;
    over.scrollTop = area.scrollTop;
  }
  area.addEventListener('input', () => sync());
  area.addEventListener('scroll', () => { over.scrollTop = area.scrollTop; });
  if (window.ResizeObserver) new ResizeObserver(() => { if (overShown) sync(); }).observe(area);

  return { el, button: picker.button, sync };
}

/** userOption is a person in the list: their picture, display name (else username) and @username. */
function userOption(u) {
  const shown = (u.display_name || '').trim();
  return h('li', { class: 'assist-option', attrs: { role: 'option', 'aria-selected': 'false' }, dataset: { insert: u.username } },
    avatar(u, 'sm'),
    h('span', { class: 'assist-text' },
      own(shown || u.username, 'span', { class: 'assist-name' }),
      shown ? own('@' + u.username, 'span', { class: 'assist-sub' }) : null));
}

/** topicOption is a topic in the list, with how many posts carry it. */
function topicOption(topic) {
  const n = Number(topic.posts_count) || 0;
  return h('li', { class: 'assist-option', attrs: { role: 'option', 'aria-selected': 'false' }, dataset: { insert: topic.tag } },
    h('span', { class: 'assist-hash', attrs: { 'aria-hidden': 'true' } }, icon('hash', 18)),
    h('span', { class: 'assist-text' },
      own('#' + topic.tag + '#', 'span', { class: 'assist-name' }),
      h('span', { class: 'assist-sub' }, t('search.posts_count', { count: n }))));
}

// The properties that decide where a textarea's text goes.
const LAYOUT = ['boxSizing', 'paddingTop', 'paddingRight', 'paddingBottom', 'paddingLeft',
  'borderTopWidth', 'borderRightWidth', 'borderBottomWidth', 'borderLeftWidth',
  'fontFamily', 'fontSize', 'fontWeight', 'fontStyle', 'fontVariant', 'fontStretch', 'fontKerning', 'fontFeatureSettings',
  'lineHeight', 'letterSpacing', 'wordSpacing', 'textIndent', 'textTransform', 'tabSize', 'direction', 'textAlign', 'wordBreak'];

/** layOver gives layer area's box and text layout, over area (both are in the same positioned parent). */
function layOver(area, layer) {
  const cs = getComputedStyle(area);
  for (const p of LAYOUT) layer.style[p] = cs[p];
  layer.style.left = area.offsetLeft + 'px';
  layer.style.top = area.offsetTop + 'px';
  layer.style.width = area.offsetWidth + 'px';
  layer.style.height = area.offsetHeight + 'px';
  // The textarea's scroll bar narrows its text; the layer has none.
  const bar = area.offsetWidth - area.clientWidth - parseFloat(cs.borderLeftWidth) - parseFloat(cs.borderRightWidth);
  if (bar > 0) layer.style.paddingRight = (parseFloat(cs.paddingRight) + bar) + 'px';
}

/** caretBox is where, in the window, the character at index i of area's text starts: {left, top, bottom}. */
function caretBox(area, layer, i) {
  const wasHidden = layer.hidden, kept = [...layer.childNodes];
  layOver(area, layer);
  const marker = h('span', {}, '\u200b');
  layer.replaceChildren(area.value.slice(0, i), marker);
  layer.hidden = false;
  layer.scrollTop = area.scrollTop;
  const r = marker.getBoundingClientRect();
  layer.replaceChildren(...kept);
  layer.hidden = wasHidden;
  return { left: r.left, top: r.top, bottom: r.bottom };
}

// ---- the emoji picker ----

// Each group of emoji-data.js: its tab's emoji, and its name (the catalogs' keys, written out for i18n.test.mjs).
const GROUPS = {
  smileys: ['😀', () => t('assist.group.smileys')],
  people: ['👋', () => t('assist.group.people')],
  nature: ['🌸', () => t('assist.group.nature')],
  food: ['🍜', () => t('assist.group.food')],
  travel: ['🌏', () => t('assist.group.travel')],
  activities: ['🎉', () => t('assist.group.activities')],
  objects: ['💡', () => t('assist.group.objects')],
  symbols: ['❤️', () => t('assist.group.symbols')],
};

/**
 * emojiPicker is the button that opens the grid of emoji for area, and the
 * grid (a non-modal dialog under the button, or over it near the bottom of
 * the window).
 */
function emojiPicker(area, id) {
  const button = h('button', {
    type: 'button', class: 'btn btn-ghost btn-icon emoji-btn',
    attrs: { 'aria-label': t('assist.emoji'), title: t('assist.emoji'), 'aria-haspopup': 'dialog', 'aria-expanded': 'false', 'aria-controls': id + '-emoji' },
  }, icon('smile', 22));
  const el = h('div', { id: id + '-emoji', class: 'emoji-pop', hidden: true, attrs: { role: 'dialog', 'aria-label': t('assist.emoji_title') } });
  let built = null, buttons = [], focus = 0; // built: the promise of the grid, made on first open
  let start = 0, end = 0; // the selection the emoji replaces

  async function build() {
    const { default: groups } = await import('./emoji-data.js');
    const zh = lang().startsWith('zh');
    const tabs = h('div', { class: 'emoji-tabs' });
    const scroll = h('div', { class: 'emoji-scroll' });
    for (const [group, emoji] of groups) {
      if (!GROUPS[group]) continue;
      const [tab, name] = [GROUPS[group][0], GROUPS[group][1]()];
      const labelId = `${id}-emoji-${group}`;
      const grid = h('div', { class: 'emoji-grid' }, emoji.map(([e, en, zhName]) => {
        const label = zh ? zhName : en;
        const b = h('button', { type: 'button', class: 'emoji', tabIndex: -1, attrs: { 'aria-label': label, title: label }, dataset: { emoji: e } }, e);
        buttons.push(b);
        return b;
      }));
      const section = h('div', { class: 'emoji-group', attrs: { role: 'group', 'aria-labelledby': labelId } },
        h('p', { class: 'emoji-group-name', id: labelId }, name), grid);
      scroll.append(section);
      tabs.append(h('button', {
        type: 'button', class: 'emoji-tab', attrs: { 'aria-label': name, title: name },
        on: { click: () => { section.scrollIntoView({ block: 'start' }); roam(buttons.indexOf(grid.firstChild)); } },
      }, h('span', { attrs: { 'aria-hidden': 'true' } }, tab)));
    }
    el.append(tabs, scroll);
    roam(0, false);
  }

  /** roam makes buttons[i] the one Tab reaches, and focuses it. */
  function roam(i, moveFocus = true) {
    if (!buttons.length) return;
    focus = Math.max(0, Math.min(i, buttons.length - 1));
    buttons.forEach((b, j) => { b.tabIndex = j === focus ? 0 : -1; });
    if (moveFocus) buttons[focus].focus();
  }

  /** columns is how many emoji a row of the grid holds, as laid out now. */
  function columns(b) {
    const grid = b.parentElement, top = grid.firstChild.offsetTop;
    let n = 0;
    for (const c of grid.children) { if (c.offsetTop !== top) break; n++; }
    return Math.max(1, n);
  }

  async function open() {
    start = area.selectionStart;
    end = area.selectionEnd;
    built = built || build();
    try { await built; } catch { built = null; return; } // the list could not load (offline, not cached): the next press tries again
    el.hidden = false;
    follow(true);
    button.setAttribute('aria-expanded', 'true');
    place();
    roam(focus);
  }

  function close(refocus = true) {
    if (el.hidden) return;
    el.hidden = true;
    follow(false);
    button.setAttribute('aria-expanded', 'false');
    if (refocus) { area.focus(); area.setSelectionRange(start, end); }
  }

  function place() {
    const r = button.getBoundingClientRect();
    el.style.left = '0px';
    el.style.top = '0px';
    const w = el.offsetWidth, ht = el.offsetHeight;
    const left = Math.max(8, Math.min(r.left, innerWidth - w - 8));
    const top = r.bottom + 4 + ht > innerHeight - 8 && r.top - 4 - ht > 8 ? r.top - 4 - ht : Math.max(8, Math.min(r.bottom + 4, innerHeight - ht - 8));
    el.style.left = left + 'px';
    el.style.top = top + 'px';
  }

  button.addEventListener('click', () => { if (el.hidden) open(); else close(); });
  el.addEventListener('click', (e) => {
    const b = e.target.closest('.emoji');
    if (!b) return;
    close(false);
    insertText(area, b.dataset.emoji, start, end);
  });
  el.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); close(); return; }
    const i = buttons.indexOf(document.activeElement);
    if (i < 0) return;
    const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: columns(buttons[i]), ArrowUp: -columns(buttons[i]) }[e.key];
    if (step) { e.preventDefault(); roam(i + step); }
    else if (e.key === 'Home') { e.preventDefault(); roam(0); }
    else if (e.key === 'End') { e.preventDefault(); roam(buttons.length - 1); }
  });
  el.addEventListener('focusin', (e) => { const i = buttons.indexOf(e.target); if (i >= 0) roam(i, false); });
  // A press or focus outside the picker and its button closes it.
  const outside = (e) => { if (!el.contains(e.target) && !button.contains(e.target)) close(false); };
  el.addEventListener('focusout', (e) => { if (e.relatedTarget && !el.contains(e.relatedTarget) && e.relatedTarget !== button) close(false); });
  // The window is listened to only while the picker is open.
  function follow(on) {
    const f = on ? addEventListener : removeEventListener;
    f('pointerdown', outside, true);
    f('resize', place);
  }
  return { button, el };
}
