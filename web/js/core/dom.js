// dom.js builds DOM nodes. It is the only way the front ends create markup:
// strings passed as children always become text nodes, so text written by
// users is shown as text and can never turn into HTML; and every text it
// shows goes through plain(), so that no bidirectional control a user wrote
// can reorder it or what follows it.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

// The bidirectional embeddings, overrides and isolates (U+202A–U+202E,
// U+2066–U+2069). Text in any script shows in its right order without them
// (the browser's bidi algorithm places each letter by its own direction);
// with them a user can turn "exe.txt" around or run over the text after.
// The marks U+200E, U+200F and U+061C only nudge weak characters, and stay.
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

// The DOM properties that show text (the others are data: value, href, ...).
const SHOWN = new Set(['alt', 'title', 'placeholder']);

/** plain is text to be shown, without bidirectional controls. */
export function plain(text) {
  return String(text).replace(BIDI_CONTROLS, '');
}

/**
 * h creates an element. props may hold: class, text, attrs (object), dataset,
 * style (string), on (object of event handlers), and any DOM property
 * (href, type, value, disabled, hidden, ...). children are nodes, strings,
 * numbers, or arrays of them; null and false are skipped.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null) continue;
    switch (key) {
      case 'class': el.className = value; break;
      case 'text': el.textContent = plain(value); break;
      case 'attrs': for (const [a, v] of Object.entries(value)) if (v !== null && v !== undefined && v !== false) el.setAttribute(a, v === true ? '' : plain(v)); break;
      case 'dataset': Object.assign(el.dataset, value); break;
      case 'style': el.setAttribute('style', value); break;
      case 'on': for (const [ev, fn] of Object.entries(value)) el.addEventListener(ev, fn); break;
      default: el[key] = SHOWN.has(key) ? plain(value) : value;
    }
  }
  append(el, children);
  return el;
}

/** append adds children (nodes, strings as text, arrays) to el. */
export function append(el, children) {
  for (const c of [children].flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(plain(c)));
  }
  return el;
}

/**
 * own is text a user wrote (a name, a post, a topic, a search) in an element
 * of tag marked translate="no": the page shows it as written, and neither a
 * browser's translator nor a check for untranslated text takes it for the
 * page's own words. props are h()'s.
 */
export function own(text, tag = 'span', props = {}) {
  return h(tag, { ...props, attrs: { ...props.attrs, translate: 'no' } }, text);
}

/** slots are t()'s values that keep each {{name}} in the text, for phrase() to fill with nodes. */
export function slots(...names) {
  return Object.fromEntries(names.map((n) => [n, `{{${n}}}`]));
}

/**
 * phrase fills the {{name}} slots that text (a t() of slots()) kept with
 * nodes[name], so a sentence in the user's language can hold what a user
 * wrote as an own() element, wherever the language puts it:
 * phrase(t('chat.hello', slots('name')), { name: own(name) }). It returns
 * strings and nodes for h(), append() and fill().
 */
export function phrase(text, nodes) {
  const used = new Set(); // a slot the text names twice gets a copy the second time
  return text.split(/\{\{(\w+)\}\}/).map((part, i) => {
    if (i % 2 === 0) return part;
    const node = nodes[part];
    if (!(node instanceof Node)) return node;
    if (used.has(node)) return node.cloneNode(true);
    used.add(node);
    return node;
  }).filter((part) => part !== '');
}

let labels = 0;

/**
 * ariaName names an element for assistive technology by label: text goes in
 * its aria-label; a phrase() with what a user wrote, which an aria-label
 * could not mark translate="no", goes in a hidden element that
 * aria-labelledby points at. It returns {attrs} for h(), and that element
 * (null for text), which must go on the page with the one it names.
 */
export function ariaName(label) {
  if (typeof label === 'string') return { attrs: { 'aria-label': label }, el: null };
  const id = 'aria-name-' + ++labels;
  return { attrs: { 'aria-labelledby': id }, el: h('span', { id, hidden: true }, label) };
}

/** fill replaces the children of el (skipping null and false, like h). */
export function fill(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/** clear removes all children of el and returns it. */
export function clear(el) {
  el.replaceChildren();
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** icon returns an inline SVG icon from a fixed set of path strings (never user data). */
export function icon(name, size = 20) {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('width', size);
  svg.setAttribute('height', size);
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('class', 'icon');
  for (const d of ICONS[name] || []) {
    const p = document.createElementNS(SVG_NS, 'path');
    p.setAttribute('d', d);
    svg.append(p);
  }
  return svg;
}

// Icon paths (24×24, stroked; see the .icon rule in the style sheets).
const ICONS = {
  home: ['M3 10.5 12 3l9 7.5', 'M5 9.5V21h5v-6h4v6h5V9.5'],
  globe: ['M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z', 'M3 12h18', 'M12 3c2.5 2.7 3.8 5.7 3.8 9s-1.3 6.3-3.8 9c-2.5-2.7-3.8-5.7-3.8-9S9.5 5.7 12 3z'],
  edit: ['M4 20h4L19 9l-4-4L4 16v4z', 'M13.5 6.5l4 4'],
  user: ['M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8z', 'M4 21c0-4 3.6-6.5 8-6.5s8 2.5 8 6.5'],
  comment: ['M4 5h16v11H9l-5 4V5z'],
  chat: ['M6 4h12a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2h-7l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z', 'M8 8.5h8', 'M8 12h5'],
  send: ['M4 12 20 4l-4 16-4-7-8-1z', 'M12 13l8-9'],
  smile: ['M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z', 'M8 14c1 1.5 2.3 2.2 4 2.2s3-.7 4-2.2', 'M9 9.5h.01', 'M15 9.5h.01'],
  repost: ['M7 7h11l-3-3', 'M18 7v5', 'M17 17H6l3 3', 'M6 17v-5'],
  trash: ['M4 7h16', 'M9 7V4h6v3', 'M6 7l1 13h10l1-13'],
  back: ['M15 5l-7 7 7 7'],
  logout: ['M15 4h4v16h-4', 'M10 8l-4 4 4 4', 'M6 12h10'],
  settings: ['M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6z', 'M19 12a7 7 0 0 0-.1-1.2l2-1.6-2-3.4-2.4 1a7 7 0 0 0-2-1.2L14 3h-4l-.5 2.6a7 7 0 0 0-2 1.2l-2.4-1-2 3.4 2 1.6a7 7 0 0 0 0 2.4l-2 1.6 2 3.4 2.4-1a7 7 0 0 0 2 1.2L10 21h4l.5-2.6a7 7 0 0 0 2-1.2l2.4 1 2-3.4-2-1.6c.1-.4.1-.8.1-1.2z'],
  arrowUp: ['M12 19V5', 'M5 12l7-7 7 7'],
  heart: ['M12 20.5s-8-4.8-8-10.6A4.4 4.4 0 0 1 12 7.3a4.4 4.4 0 0 1 8 2.6c0 5.8-8 10.6-8 10.6z'],
  bell: ['M6 16V11a6 6 0 0 1 12 0v5l2 2H4l2-2z', 'M10 20a2 2 0 0 0 4 0'],
  search: ['M11 4a7 7 0 1 0 0 14 7 7 0 0 0 0-14z', 'M20 20l-4-4'],
  at: ['M16 12a4 4 0 1 1-8 0 4 4 0 0 1 8 0z', 'M16 12v1.5a2.5 2.5 0 0 0 5 0V12a9 9 0 1 0-3.5 7.1'],
  userPlus: ['M10 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8z', 'M3 21c0-4 3.1-6.5 7-6.5 1.4 0 2.7.3 3.8.9', 'M19 14v6', 'M16 17h6'],
  image: ['M4 5h16v14H4z', 'M4 16l5-5 4 4 3-3 4 4', 'M15.5 9.5a1.5 1.5 0 1 0 0-.01'],
  close: ['M6 6l12 12', 'M18 6 6 18'],
  forward: ['M9 5l7 7-7 7'],
  camera: ['M4 8h4l2-3h4l2 3h4v11H4z', 'M12 17a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7z'],
  hash: ['M5 9h15', 'M4 15h15', 'M10 3 8 21', 'M16 3l-2 18'],
  more: ['M5 11a1 1 0 1 0 0 2 1 1 0 0 0 0-2z', 'M12 11a1 1 0 1 0 0 2 1 1 0 0 0 0-2z', 'M19 11a1 1 0 1 0 0 2 1 1 0 0 0 0-2z'],
  lock: ['M6 11h12v10H6z', 'M8.5 11V8a3.5 3.5 0 0 1 7 0v3'],
  block: ['M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z', 'M5.6 5.6l12.8 12.8'],
  mute: ['M4 9h4l5-4v14l-5-4H4z', 'M17 9l4 6', 'M21 9l-4 6'],
  flag: ['M5 21V4', 'M5 4h11l-2 4 2 4H5'],
  shield: ['M12 3l8 3v6c0 4.5-3.4 8-8 9-4.6-1-8-4.5-8-9V6l8-3z'],
  bookmark: ['M6 3.5h12V21l-6-4.2L6 21z'],
  list: ['M9 6h11', 'M9 12h11', 'M9 18h11', 'M4.5 6h.01', 'M4.5 12h.01', 'M4.5 18h.01'],
  pin: ['M9 3h6', 'M10 3v6l-4 4h12l-4-4V3', 'M12 13v8'],
  history: ['M4 12a8 8 0 1 0 2.3-5.6', 'M4 4v4h4', 'M12 8v4l3 2'],
  mail: ['M3 6h18v12H3z', 'M3 6l9 7 9-7'],
  link: ['M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1.2 1.2', 'M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1.2-1.2'],
  share: ['M12 15V3', 'M7.5 7.5 12 3l4.5 4.5', 'M5 12v8h14v-8'],
};
