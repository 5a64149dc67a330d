// highlight.js marks the words of a post search in the posts it found.
// A post matches when it contains every white-space-separated word of the
// query, case-insensitively, in any script (docs/api.md: search), so
// the same words are marked here, wherever they occur, inside links too,
// folded as the server folds them.
// The text is only ever split into text nodes and <mark> elements: nothing
// a user wrote is parsed as HTML.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

/** queryWords splits a query into its words, as the server does. */
export function queryWords(q) {
  return String(q || '').split(/\s+/u).filter(Boolean);
}

/**
 * fold case-folds one character as the server compares text (Unicode full
 * case folding: "ß" and "ẞ" are "ss", "Σ" and "ς" are "σ"): upper then lower
 * case, twice, since "ẞ" lowers to "ß", which only upper case turns into "SS".
 */
function fold(c) {
  const once = (s) => s.toUpperCase().toLowerCase();
  return once(once(c));
}

/**
 * folded is text case-folded, with where in text each of its UTF-16 units
 * came from ([start, end) of the character it folds), so that a word found
 * in the folded text can be marked in the text as written.
 */
function folded(text) {
  let out = '';
  const start = [], end = [];
  for (const c of text) {
    const f = fold(c);
    const at = start.length ? end[end.length - 1] : 0;
    for (let k = 0; k < f.length; k++) { start.push(at); end.push(at + c.length); }
    out += f;
  }
  return { text: out, start, end };
}

/** ranges lists the [start, end) spans of text that hold one of words, in any case, sorted and merged (words may overlap). */
export function ranges(text, words) {
  const f = folded(text);
  const found = [];
  for (const word of words) {
    const w = folded(word).text;
    for (let i = f.text.indexOf(w); i >= 0; i = f.text.indexOf(w, i + 1)) found.push([f.start[i], f.end[i + w.length - 1]]);
  }
  found.sort((a, b) => a[0] - b[0]);
  const merged = [];
  for (const [s, e] of found) {
    const last = merged[merged.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e); else merged.push([s, e]);
  }
  return merged;
}

/**
 * highlight wraps every occurrence of words in the text of el in <mark>,
 * across its text nodes (a word may run over the edge of a link), and
 * returns el.
 */
export function highlight(el, words) {
  if (!el || !words.length) return el;
  const nodes = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n);
  const spans = ranges(nodes.map((n) => n.data).join(''), words);
  if (!spans.length) return el;
  let offset = 0;
  for (const node of nodes) {
    const start = offset, text = node.data;
    offset += text.length;
    const parts = [];
    let at = 0;
    for (const [s, e] of spans) {
      const from = Math.max(s - start, 0), to = Math.min(e - start, text.length);
      if (to <= from) continue;
      if (from > at) parts.push(document.createTextNode(text.slice(at, from)));
      const mark = document.createElement('mark');
      mark.textContent = text.slice(from, to);
      parts.push(mark);
      at = to;
    }
    if (!parts.length) continue;
    if (at < text.length) parts.push(document.createTextNode(text.slice(at)));
    node.replaceWith(...parts);
  }
  return el;
}
