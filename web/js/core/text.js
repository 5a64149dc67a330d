// text.js shows the text of a post with its @mentions and #topics as links.
// What becomes a link is decided by the server alone: only names listed in
// the post's `mentions` and topics listed in its `tags` are linked, so a
// client never invents a link the server did not recognise. Everything else,
// and the text of every link, stays a text node.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h } from './dom.js';

const WORD = /[\p{L}\p{Nd}_]/u;   // what names and #tags are made of
const LETTER = /\p{L}/u;
const TAG_MAX = 50;               // longest #话题# topic, in characters

const fold = (s) => s.toLowerCase();

/**
 * richText returns the nodes of content: strings (which h() and append()
 * turn into text nodes) and <a> links for the mentions and topics that the
 * server listed in post.mentions ([{id, username}]) and post.tags (["话题"]).
 * href(path) makes an app link from '/u/alice' or '/t/话题'.
 *
 * @name: not after a letter, digit, _, . or @ (so mail addresses mention
 * nobody), the longest run of letters, digits and _ after it. #topic#
 * (Weibo style: up to 50 characters without # or a line break, not starting
 * or ending with a space) is tried before #topic (Twitter style: letters,
 * digits and _, at least one letter).
 */
export function richText(content, post, href) {
  const names = new Map((post && post.mentions || []).map((m) => [fold(m.username), m.username]));
  const tags = new Map((post && post.tags || []).map((t) => [fold(t), t]));
  if (!content || (names.size === 0 && tags.size === 0)) return [content || ''];

  const chars = [...content]; // by code point, as the server counts
  const out = [];
  let text = '';
  const link = (cls, path, label) => {
    if (text) { out.push(text); text = ''; }
    out.push(h('a', { class: cls, href: href(path) }, label));
  };
  const wordRun = (from) => {
    let j = from;
    while (j < chars.length && WORD.test(chars[j])) j++;
    return j;
  };

  for (let i = 0; i < chars.length;) {
    const c = chars[i];
    if (c === '@' && names.size && !(i > 0 && (WORD.test(chars[i - 1]) || chars[i - 1] === '.' || chars[i - 1] === '@'))) {
      const end = wordRun(i + 1);
      const name = chars.slice(i + 1, end).join('');
      if (name && names.has(fold(name))) {
        link('mention', '/u/' + encodeURIComponent(names.get(fold(name))), '@' + name);
        i = end;
        continue;
      }
    }
    if (c === '#' && tags.size) {
      // Weibo style first: #话题#
      let k = i + 1;
      while (k < chars.length && k - i - 1 <= TAG_MAX && chars[k] !== '#' && chars[k] !== '\n' && chars[k] !== '\r') k++;
      if (k < chars.length && chars[k] === '#' && k > i + 1 && k - i - 1 <= TAG_MAX) {
        const t = chars.slice(i + 1, k).join('');
        if (t.trim() === t && tags.has(fold(t))) {
          link('hashtag', '/t/' + encodeURIComponent(tags.get(fold(t))), '#' + t + '#');
          i = k + 1;
          continue;
        }
      }
      // Twitter style: #golang
      const end = wordRun(i + 1);
      const t = chars.slice(i + 1, end).join('');
      if (t && LETTER.test(t) && tags.has(fold(t))) {
        link('hashtag', '/t/' + encodeURIComponent(tags.get(fold(t))), '#' + t);
        i = end;
        continue;
      }
    }
    text += c;
    i++;
  }
  if (text) out.push(text);
  return out;
}

/** excerpt shortens text to at most max characters (code points), with an ellipsis. */
export function excerpt(text, max = 120) {
  const chars = [...(text || '')];
  return chars.length <= max ? chars.join('') : chars.slice(0, max - 1).join('').trimEnd() + '…';
}
