// text.js shows the text of a post with its @mentions and #topics as links.
// What becomes a link is decided by the server alone: only names listed in
// the post's `mentions` and topics listed in its `tags` are linked, so a
// client never invents a link the server did not recognise. Everything else,
// and the text of every link, stays a text node.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h } from './dom.js';

export const NAME = /[\p{L}\p{Nd}_]/u;         // what a username is made of
const TAG = /[\p{L}\p{Nd}_\p{M}]/u;      // what a #tag is made of (with the vowel signs of Indic scripts)
const LETTER = /\p{L}/u;
export const SPACE = /\s/u;
export const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
export const NAME_MIN = 2, NAME_MAX = 30;       // characters of a username
export const TAG_MAX = 50;               // characters of a topic

/** nameKey and tagKey are how names and topics compare (the server's TagKey: NFC, lower case). */
const nameKey = (s) => s.toLowerCase();
const tagKey = (s) => s.normalize('NFC').toLowerCase();

/**
 * glued says whether an @ or # right after c belongs to a word, an address
 * or an entity (bob@example.com, a#b) rather than starting a mention or
 * topic. Chinese and Japanese put mentions right after text, so only ASCII
 * letters and digits glue.
 */
export const glued = (c) => /^[A-Za-z0-9_.@+\-&/]$/.test(c);

/** span is how many of chars, from i on, match re (stopping after max). */
function span(chars, i, re, max) {
  let n = 0;
  while (i + n < chars.length && n < max && re.test(chars[i + n])) n++;
  return n;
}

/**
 * weibo reads a #话题# whose first # is at chars[i]: the topic and how many
 * characters it spans with both #, or null.
 */
export function weibo(chars, i) {
  let end = i + 1;
  while (end < chars.length && chars[end] !== '#' && chars[end] !== '\n' && chars[end] !== '\r') end++;
  if (end >= chars.length || chars[end] !== '#' || end === i + 1) return null;
  const tag = chars.slice(i + 1, end);
  if (SPACE.test(tag[0]) || SPACE.test(tag[tag.length - 1]) || tag.length > TAG_MAX) return null;
  // "#a #b" is two Twitter tags, not the topic "a "; a topic with a space inside must not look like two tags.
  if (tag.some((c) => SPACE.test(c)) && !tag.some((c) => CJK.test(c))) return null;
  return { tag: tag.join(''), len: end - i + 1 };
}

/**
 * remoteDomain is the "@domain" (with its port, if any) that starts at
 * chars[j], as the server reads it after a mention's name (store's
 * remoteDomain): @name@domain mentions another server's account. It is ""
 * when there is none: a domain has a dot or a port.
 */
export function remoteDomain(chars, j) {
  if (chars[j] !== '@') return '';
  let n = j + 1;
  while (n < chars.length && /^[A-Za-z0-9.:-]$/.test(chars[n])) n++;
  const domain = chars.slice(j + 1, n).join('').replace(/[.:-]+$/, '');
  return domain && /[.:]/.test(domain) ? '@' + domain : '';
}

/**
 * richText returns the nodes of content: strings (which h() and append()
 * turn into text nodes) and <a> links for the mentions and topics that the
 * server listed in post.mentions ([{id, username}]) and post.tags (["话题"]).
 * href(path) makes an app link from '/u/alice' or '/t/话题'.
 *
 * It reads the text as the server does (store.ParseText): @name is 2–30
 * letters of any script, digits or _, not glued to what comes before (so
 * bob@example.com mentions nobody, while 谢谢@小明 does); #话题# (up to 50
 * characters without # or a line break, not starting or ending with a
 * space) is tried before #tag (letters, digits, _ and combining marks, at
 * least one letter); @name@domain is another server's account. Of what it finds, only what the post's lists name
 * becomes a link.
 */
export function richText(content, post, href) {
  const names = new Map((post && post.mentions || []).map((m) => [nameKey(m.username), m.username]));
  const tags = new Map((post && post.tags || []).map((t) => [tagKey(t), t]));
  if (!content || (names.size === 0 && tags.size === 0)) return [content || ''];

  const chars = [...content]; // by code point, as the server counts
  const out = [];
  let text = '';
  /** take consumes len characters from i: as a link when known has them, else as text. */
  const take = (i, len, known, key, cls, prefix) => {
    const written = chars.slice(i, i + len).join('');
    if (known.has(key)) {
      if (text) { out.push(text); text = ''; }
      out.push(h('a', { class: cls, href: href(prefix + encodeURIComponent(known.get(key))) }, written));
    } else {
      text += written;
    }
    return i + len;
  };

  for (let i = 0; i < chars.length;) {
    const c = chars[i];
    const free = i === 0 || !glued(chars[i - 1]);
    if (c === '@' && free) {
      const n = span(chars, i + 1, NAME, NAME_MAX + 1);
      if (n >= NAME_MIN && n <= NAME_MAX) {
        const domain = remoteDomain(chars, i + 1 + n);
        i = take(i, n + 1 + domain.length, names, nameKey(chars.slice(i + 1, i + 1 + n).join('') + domain), 'mention', '/u/');
        continue;
      }
    }
    if (c === '#' && free) {
      const w = weibo(chars, i);
      if (w) {
        i = take(i, w.len, tags, tagKey(w.tag), 'hashtag', '/t/');
        continue;
      }
      const n = span(chars, i + 1, TAG, TAG_MAX + 1);
      const tag = chars.slice(i + 1, i + 1 + n).join('');
      if (n > 0 && n <= TAG_MAX && LETTER.test(tag)) {
        i = take(i, n + 1, tags, tagKey(tag), 'hashtag', '/t/');
        continue;
      }
    }
    text += c;
    i++;
  }
  if (text) out.push(text);
  return out;
}

/** contentOf is the paragraph of a post's text (richText), marked as what a user wrote (translate="no"). */
export function contentOf(post, href) {
  return h('p', { class: 'content', attrs: { translate: 'no' } }, richText(post.content, post, href));
}

/** excerpt shortens text to at most max characters (code points), with an ellipsis. */
export function excerpt(text, max = 120) {
  const chars = [...(text || '')];
  return chars.length <= max ? chars.join('') : chars.slice(0, max - 1).join('').trimEnd() + '…';
}
