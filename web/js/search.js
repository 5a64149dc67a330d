// search.js is the desktop page's search: the box in the top bar, whose
// people and topics drop down under it as you type, and the search page
// (/search?q=: posts too), which Enter opens and narrow screens reach from
// the nav's Search icon.

import { h, icon, fill } from './core/dom.js';
import { searcher, searchResults } from './core/search.js';
import { searchScreen } from './core/postsearch.js';
import { t } from './core/i18n.js';
import { tWith } from './lang.js';

let seq = 0;

/** searchInput is a labelled search field; help, if given, describes it. */
function searchInput(label, { value = '', help = '', placeholder = t('desktop.search.placeholder') } = {}) {
  const id = 'search-' + ++seq;
  const input = h('input', {
    id, type: 'search', value, placeholder, autocomplete: 'off',
    attrs: { autocapitalize: 'none', autocorrect: 'off', spellcheck: 'false', enterkeyhint: 'search', 'aria-describedby': help ? id + '-help' : null },
  });
  const field = h('div', { class: 'search-field' },
    h('label', { htmlFor: id, class: 'visually-hidden' }, label),
    help ? h('span', { id: id + '-help', class: 'visually-hidden' }, help) : null,
    h('span', { class: 'search-icon', attrs: { 'aria-hidden': 'true' } }, icon('search', 18)),
    input);
  return { input, field };
}

/**
 * topSearch fills the top bar's search box in el: results drop down as you
 * type (people with follow buttons, topics), Enter opens the search page,
 * Escape or leaving the box closes them. It returns {close}.
 */
export function topSearch(ctx, el) {
  const { input, field } = searchInput(t('desktop.search.label'), { help: t('desktop.search.help') });
  const panel = h('div', { class: 'search-panel', id: 'search-panel', hidden: true, attrs: { role: 'region', 'aria-label': t('desktop.search.results'), 'aria-live': 'polite' } });
  // The box controls the panel; it says nothing of it being open (aria-expanded
  // is not for a search box, only for a combobox, which the panel of links and
  // buttons is not): the panel is a live region, so its results are heard.
  input.setAttribute('aria-controls', panel.id);
  let state = { state: 'idle' };
  const open = (on) => { panel.hidden = !on; };
  const s = searcher(ctx, (st) => {
    state = st;
    const res = searchResults(ctx, st);
    if (!res) { fill(panel); open(false); return; }
    fill(panel, res, st.state === 'done'
      ? h('a', { class: 'search-all', href: '/search?q=' + encodeURIComponent(st.q) }, tWith('desktop.search.allPosts', { q: st.q })) : null);
    open(document.activeElement === input || el.contains(document.activeElement));
  }, { limit: 5 });
  input.addEventListener('input', () => s.set(input.value));
  input.addEventListener('focus', () => { if (state.state !== 'idle' && input.value.trim()) open(true); });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { open(false); return; }
    if (e.key === 'Enter' && input.value.trim()) { e.preventDefault(); ctx.go('/search?q=' + encodeURIComponent(input.value.trim())); return; }
    if (e.key === 'ArrowDown' && !panel.hidden) {
      const first = panel.querySelector('a, button');
      if (first) { e.preventDefault(); first.focus(); }
    }
  });
  panel.addEventListener('keydown', (e) => { if (e.key === 'Escape') { open(false); input.focus(); } });
  // Leaving the box closes the results: a tap or a click elsewhere, or the
  // focus moving on (not a button inside that is busy and lets go of it).
  const away = (e) => { if (!panel.hidden && !el.contains(e.target)) open(false); };
  document.addEventListener('pointerdown', away);
  document.addEventListener('focusin', away);
  el.append(field, panel);
  return {
    /** close hides the results (the page changed), and the box too with hide. */
    close(hide = false) {
      el.hidden = hide;
      open(false);
      if (el.contains(document.activeElement)) document.activeElement.blur();
    },
  };
}

/**
 * searchPage is the /search screen: a box and every result (posts, people,
 * topics; the trends while the box is empty), the query kept in the URL.
 */
export function searchPage(ctx, q) {
  const { input, field } = searchInput(t('desktop.search.label'), {
    value: q, help: t('desktop.search.pageHelp'), placeholder: t('desktop.search.pagePlaceholder'),
  });
  const screen = searchScreen(ctx, { onQuery: (query) => {
    const url = query ? '/search?q=' + encodeURIComponent(query) : '/search';
    if (location.pathname === '/search' && location.pathname + location.search !== url) history.replaceState(null, '', url);
  } });
  input.addEventListener('input', () => screen.set(input.value));
  input.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); screen.now(input.value); } });
  const form = h('div', { class: 'card search-card' }, field);
  if (q.trim()) screen.now(q); else screen.set('');
  setTimeout(() => input.focus(), 0);
  return { el: h('div', { class: 'view' }, form, screen.el), stop: screen.stop };
}
