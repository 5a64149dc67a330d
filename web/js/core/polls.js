// polls.js draws a post's poll and the poll part of a composer. A poll
// shows its options to vote on (radio buttons, or check boxes for a
// multiple-choice poll) until the reader votes or it closes; then each
// option as a bar with its share. The same poll may be on the page several
// times (a post and reposts of it): every copy is a .poll with
// data-poll-id, and a vote here or a live `poll` event (its counts, at most
// a few a second however fast votes come) repaints them all.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { h, own } from './dom.js';
import { t, count, errorText } from './i18n.js';

/** The poll limits of CONTRACT §15. */
export const POLL_MIN = 2;
export const POLL_MAX = 4;
export const POLL_OPTION_MAX = 50;

// What this page knows of each poll (id → Poll): the newest counts, and
// the reader's own votes, which live events (the same for everyone) do not
// carry.
const known = new Map();

let seq = 0;

/** percent is n's share of total, rounded, as a whole number. */
function percent(n, total) {
  return total > 0 ? Math.round((n * 100) / total) : 0;
}

/** merge keeps what the page knows of poll: the reader's votes survive a live event's nulls. */
function merge(poll) {
  const before = known.get(poll.id);
  const p = { ...poll };
  if ((p.voted === null || p.voted === undefined) && before && before.voted !== undefined) {
    p.voted = before.voted;
    p.own_votes = before.own_votes;
  }
  if (before && !p.expired && before.expired) p.expired = true;
  known.set(p.id, p);
  return p;
}

/** closed tells whether poll has closed by now (its own word, or its time). */
function closed(poll) {
  return !!poll.expired || Date.parse(poll.expires_at) <= Date.now();
}

/** when says when poll closes, or that it has. */
function when(poll) {
  if (closed(poll)) return t('poll.closed');
  const left = Date.parse(poll.expires_at) - Date.now();
  const mins = Math.max(1, Math.round(left / 60000));
  if (mins < 60) return t('poll.closes_minutes', { count: mins });
  const hours = Math.round(mins / 60);
  if (hours < 24) return t('poll.closes_hours', { count: hours });
  return t('poll.closes_days', { count: Math.round(hours / 24) });
}

/**
 * pollBox draws post's poll (null when it has none). ctx is the app's: its
 * api votes, me() tells whether the reader may vote, askLogin() sends a
 * logged-out reader to log in.
 */
export function pollBox(post, ctx) {
  if (!post || !post.poll) return null;
  const el = h('div', { class: 'poll', dataset: { pollId: String(post.poll.id) } });
  el.ctx = ctx;
  const poll = merge(post.poll);
  draw(el, poll);
  // A poll closes at its time: the copy on the page shows its results then
  // (a timer as long as setTimeout takes; a longer one is drawn anew by then).
  const left = Date.parse(poll.expires_at) - Date.now();
  if (!closed(poll) && left < 2 ** 31 - 1) {
    setTimeout(() => {
      if (!el.isConnected) return;
      const now = known.get(poll.id) || poll;
      draw(el, merge({ ...now, expired: true }));
    }, left + 500);
  }
  return el;
}

/** draw fills el with poll: the options to vote on, or the results. */
function draw(el, poll) {
  el.replaceChildren();
  const ctx = el.ctx;
  const canVote = ctx && ctx.me() && !poll.voted && !closed(poll);
  const total = poll.multiple ? poll.voters_count : poll.votes_count;
  const foot = h('p', { class: 'poll-foot muted' },
    t('poll.voters', { count: poll.voters_count, n: count(poll.voters_count) }), ' · ', when(poll));
  if (!canVote) {
    const mine = new Set(poll.own_votes || []);
    const list = h('ul', { class: 'poll-results', attrs: { 'aria-label': t('poll.results') } });
    poll.options.forEach((o, i) => {
      const share = percent(o.votes_count, total);
      list.append(h('li', { class: 'poll-result' + (mine.has(i) ? ' poll-own' : '') },
        h('span', { class: 'poll-bar', style: `width:${share}%`, attrs: { 'aria-hidden': 'true' } }),
        h('span', { class: 'poll-pct' }, share + '%'),
        mine.has(i) ? h('span', { class: 'visually-hidden' }, t('poll.your_choice') + ' ') : null,
        own(o.title, 'span', { class: 'poll-title' })));
    });
    el.append(list, foot);
    return;
  }
  const name = 'poll-' + poll.id + '-' + ++seq;
  const type = poll.multiple ? 'checkbox' : 'radio';
  const boxes = poll.options.map((o, i) => h('input', { type, name, value: String(i), id: name + '-' + i }));
  const vote = h('button', { type: 'submit', class: 'btn btn-small btn-primary poll-vote', disabled: true }, t('poll.vote'));
  const error = h('p', { class: 'form-error', attrs: { role: 'alert' }, hidden: true });
  const form = h('form', { class: 'poll-form', on: {
    change: () => { vote.disabled = !boxes.some((b) => b.checked); },
    submit: async (e) => {
      e.preventDefault();
      const choices = boxes.filter((b) => b.checked).map((b) => Number(b.value));
      if (!choices.length) return;
      vote.disabled = true;
      error.hidden = true;
      try {
        applyPoll({ post_id: poll.id, poll: await ctx.api.vote(poll.id, choices) });
      } catch (err) {
        if (err.code === 'already_voted' || err.code === 'poll_expired') {
          try { applyPoll({ post_id: poll.id, poll: await ctx.api.poll(poll.id) }); } catch { /* shown below */ }
        }
        error.textContent = errorText(err);
        error.hidden = false;
        vote.disabled = false;
      }
    },
  } },
  h('fieldset', {},
    h('legend', { class: 'visually-hidden' }, poll.multiple ? t('poll.multiple_choice') : t('poll.single_choice')),
    ...poll.options.map((o, i) => h('label', { class: 'poll-option', htmlFor: name + '-' + i }, boxes[i], own(o.title, 'span')))),
  error,
  h('div', { class: 'poll-bar-row' }, vote, foot));
  el.append(form);
}

/**
 * applyPoll shows a poll's new counts ({post_id, poll}, a live event or a
 * vote's answer) in every copy of it on the page; a copy the reader is
 * voting in keeps its choices, and shows the results once it has voted.
 */
export function applyPoll(data) {
  if (!data || !data.poll) return;
  const poll = merge(data.poll);
  for (const el of document.querySelectorAll(`.poll[data-poll-id="${Number(poll.id)}"]`)) {
    const picking = el.querySelector('.poll-form input:checked');
    if (picking && !poll.voted && !closed(poll)) {
      const foot = el.querySelector('.poll-foot');
      if (foot) foot.firstChild.textContent = t('poll.voters', { count: poll.voters_count, n: count(poll.voters_count) });
      continue;
    }
    draw(el, poll);
  }
}

/** DURATIONS are the composer's choices of how long a poll stays open, in seconds. */
const DURATIONS = [
  [300, 'poll.d_5m'], [3600, 'poll.d_1h'], [86400, 'poll.d_1d'], [259200, 'poll.d_3d'], [604800, 'poll.d_7d'],
];

/**
 * pollComposer is the poll part of a composer: a button that adds a poll,
 * and then 2 to 4 options, how long it stays open and whether it takes
 * several choices. It returns {button, el, value(), valid(), clear()}:
 * value() is the poll to send (null when none), valid() says whether what
 * is there may be sent; onChange is called on every change.
 */
export function pollComposer({ onChange = () => {} } = {}) {
  const id = 'pollc-' + ++seq;
  let on = false;
  const button = h('button', { type: 'button', class: 'btn btn-ghost btn-small poll-toggle', attrs: { 'aria-expanded': 'false', 'aria-controls': id } }, t('poll.add'));
  const list = h('div', { class: 'poll-options' });
  const add = h('button', { type: 'button', class: 'btn btn-ghost btn-small poll-add-option' }, t('poll.add_option'));
  const duration = h('select', { id: id + '-d', class: 'poll-duration' },
    ...DURATIONS.map(([s, key]) => h('option', { value: String(s), selected: s === 86400 }, t(key))));
  const multiple = h('input', { type: 'checkbox', id: id + '-m', class: 'poll-multiple' });
  const el = h('fieldset', { id, class: 'poll-composer', hidden: true },
    h('legend', {}, t('poll.legend')),
    list, add,
    h('div', { class: 'poll-settings' },
      h('label', { htmlFor: id + '-d' }, t('poll.duration')), duration,
      h('label', { class: 'poll-multi', htmlFor: id + '-m' }, multiple, t('poll.multiple'))));

  function inputs() { return [...list.querySelectorAll('input')]; }
  function renumber() {
    inputs().forEach((input, i) => {
      input.setAttribute('aria-label', t('poll.option_n', { n: i + 1 }));
      input.placeholder = t('poll.option_n', { n: i + 1 });
    });
    for (const b of list.querySelectorAll('.poll-remove')) b.hidden = inputs().length <= POLL_MIN;
    list.querySelectorAll('.poll-remove').forEach((b, i) => b.setAttribute('aria-label', t('poll.remove_option', { n: i + 1 })));
    add.hidden = inputs().length >= POLL_MAX;
  }
  function addOption() {
    const input = h('input', { type: 'text', class: 'poll-option-input', attrs: { maxlength: String(POLL_OPTION_MAX), autocomplete: 'off' }, on: { input: () => onChange() } });
    const row = h('div', { class: 'poll-option-row' }, input,
      h('button', { type: 'button', class: 'btn btn-ghost btn-small poll-remove', on: { click: () => { row.remove(); renumber(); onChange(); } } }, '×'));
    list.append(row);
    renumber();
    return input;
  }
  function show(yes) {
    on = yes;
    el.hidden = !yes;
    button.setAttribute('aria-expanded', String(yes));
    button.textContent = yes ? t('poll.remove') : t('poll.add');
    if (yes && !inputs().length) { addOption(); addOption(); }
    onChange();
  }
  button.addEventListener('click', () => { show(!on); if (on) inputs()[0].focus(); });
  add.addEventListener('click', () => { addOption().focus(); onChange(); });
  duration.addEventListener('change', () => onChange());
  multiple.addEventListener('change', () => onChange());

  return {
    button, el,
    value: () => on ? {
      options: inputs().map((i) => i.value.trim()),
      expires_in: Number(duration.value),
      multiple: multiple.checked,
    } : null,
    valid: () => !on || inputs().every((i) => i.value.trim() !== '' && [...i.value.trim()].length <= POLL_OPTION_MAX),
    clear: () => { list.replaceChildren(); multiple.checked = false; duration.value = '86400'; show(false); },
  };
}
