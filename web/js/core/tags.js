// tags.js is following topics (docs/api.md, "Followed topics"): the button
// on a topic's page that follows or unfollows it, and the list of the
// topics the reader follows. The posts of a followed topic join the home
// timeline and its live feed on the server's side: the front ends show
// them as any other post there.

import { h, own, fill, icon } from './dom.js';
import { t } from './i18n.js';

/**
 * tagFollowButton follows or unfollows tag for the reader, and says which
 * it is ("Follow topic" / "Following", aria-pressed). It asks the server
 * whether the reader follows the topic when drawn, and is hidden until it
 * knows. Its aria-label quotes the topic, so the whole button is
 * translate="no", as the follow button of a user is.
 */
export function tagFollowButton(ctx, tag, state = null) {
  const btn = h('button', { type: 'button', class: 'btn btn-tag-follow', hidden: true, dataset: { tag }, attrs: { translate: 'no' } });
  let following = false;
  const show = () => {
    btn.hidden = false;
    btn.textContent = following ? t('tags.following') : t('tags.follow');
    btn.classList.toggle('btn-primary', !following);
    btn.setAttribute('aria-pressed', following ? 'true' : 'false');
    btn.setAttribute('aria-label', following ? t('tags.unfollow_name', { tag: '#' + tag }) : t('tags.follow_name', { tag: '#' + tag }));
  };
  btn.addEventListener('click', async () => {
    btn.disabled = true;
    try {
      if (following) await ctx.api.unfollowTag(tag); else await ctx.api.followTag(tag);
      following = !following;
      show();
      if (ctx.followed) ctx.followed(); // the home timeline is read again when next shown
      ctx.toast(following ? t('tags.followed_toast', { tag: '#' + tag }) : t('tags.unfollowed_toast', { tag: '#' + tag }));
    } catch (err) {
      ctx.toast(err.message);
    } finally {
      btn.disabled = false;
    }
  });
  if (state !== null) {
    following = state;
    show();
  } else if (ctx.me()) {
    ctx.api.tag(tag).then((v) => { following = !!v.following; show(); }, () => {});
  }
  return btn;
}

/**
 * followedTags lists the topics the reader follows (all of them: at most
 * 100), each linking to its page, with its Following button. It returns
 * {el}.
 */
export function followedTags(ctx) {
  const list = h('div', { class: 'search-list followed-tags', attrs: { role: 'list', 'aria-label': t('tags.title') } });
  const status = h('p', { class: 'muted', attrs: { 'aria-live': 'polite' } }, t('tags.loading'));
  const el = h('section', { class: 'followed-tags-area' }, status, list);
  (async () => {
    const items = [];
    let cursor = null;
    try {
      do {
        const page = await ctx.api.followedTags({ limit: 100, ...(cursor ? { cursor } : {}) });
        items.push(...page.items);
        cursor = page.next_cursor;
      } while (cursor);
    } catch (err) {
      status.textContent = err.message;
      return;
    }
    status.textContent = items.length ? '' : t('tags.empty');
    status.hidden = items.length > 0;
    fill(list, ...items.map((ft) => h('div', { class: 'tag-row', attrs: { role: 'listitem' }, dataset: { tag: ft.name } },
      h('a', { class: 'topic-row', href: ctx.href('/t/' + encodeURIComponent(ft.name)) },
        h('span', { class: 'topic-icon', attrs: { 'aria-hidden': 'true' } }, icon('hash', 18)),
        own('#' + ft.name, 'span', { class: 'topic-name' })),
      tagFollowButton(ctx, ft.name, true))));
  })();
  return { el };
}
