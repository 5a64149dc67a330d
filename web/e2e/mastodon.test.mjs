// mastodon.test.mjs: the Mastodon client API (CONTRACT §13) as a real
// client library sees it. The npm package masto (v7, what Elk and Phanpy
// use) registers an app, logs in through the server's authorize page over
// HTTP and the PKCE code exchange, then drives every area through its own
// methods, paginators and streaming client. The scenarios follow masto.js's
// own end-to-end suite (its tests/ folder) where they fit the service. No
// browser: users are registered through the native API, and a few native
// calls check that a post made from an app is the same post in our front ends.
//
// One test per area, so that a failure names it. The users log in once
// (session below); when the login itself fails, every test fails with its
// reason.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify } from 'node:crypto';
import { createServer } from 'node:http';
import { MastoHttpError, createOAuthAPIClient, createRestAPIClient, createStreamingAPIClient } from 'masto';
import { BASE_URL, PASSWORD, api, follow, newUser, png, post, until, upload } from './helpers.mjs';
import { REDIRECT_URI, SCOPES, area, authorize, codeFrom, events, login, newApp, pkce } from './mastodon-client.mjs';

const word = () => 'w' + randomBytes(5).toString('hex');

/** rejects asserts that a masto call fails with an HTTP status and Mastodon's {"error"} body. */
async function rejects(promise, status, what) {
  const err = await promise.then(() => null, (e) => e);
  assert.ok(err, `${what} should have failed with ${status}`);
  assert.ok(err instanceof MastoHttpError, `${what}: an HTTP error with a JSON body, got ${err}`);
  assert.equal(err.statusCode, status, `${what}: status`);
  assert.equal(typeof err.message, 'string', `${what}: {"error": "..."}`);
  assert.ok(err.message.length > 0, `${what}: the error says why`);
}

/** member asserts that a list of entities holds one with id. */
function member(list, id, what) {
  assert.ok(Array.isArray(list), `${what} is a list`);
  assert.ok(list.some((x) => x.id === id), `${what} holds ${id}: ${JSON.stringify(list.map((x) => x.id))}`);
}

/** users logs in three native users through masto, once for the whole file. */
let sessionPromise;
function session() {
  sessionPromise ??= (async () => {
    const out = {};
    for (const name of ['alice', 'bob', 'carol']) {
      const u = await newUser('m' + name);
      const { token, rest, app } = await login(u.username);
      out[name] = { ...u, id: String(u.user.id), mtoken: token, rest, app };
    }
    return out;
  })();
  return sessionPromise.catch((e) => { throw new Error(`the OAuth login through masto failed, so this area could not run: ${e.stack || e}`); });
}

test('discovery: instance v1 and v2 with the streaming URL, NodeInfo', area(async () => {
  const rest = createRestAPIClient({ url: BASE_URL });
  const v2 = await rest.v2.instance.fetch();
  assert.equal(typeof v2.domain, 'string');
  assert.ok(v2.domain.length > 0, 'v2 instance has a domain');
  assert.equal(typeof v2.version, 'string');
  assert.match(v2.configuration.urls.streaming, /^wss?:\/\//, 'configuration.urls.streaming is a WebSocket URL');
  assert.equal(typeof v2.configuration.statuses.maxCharacters, 'number');
  assert.ok(v2.configuration.statuses.maxCharacters >= 280, 'max_characters is at least the service\'s 280');
  const v1 = await rest.v1.instance.fetch();
  assert.equal(typeof v1.uri, 'string');
  assert.equal(typeof v1.stats.userCount, 'number');
  assert.match(v1.urls.streamingApi, /^wss?:\/\//, 'v1 urls.streaming_api');
  const wk = await (await fetch(BASE_URL + '/.well-known/nodeinfo')).json();
  const link = wk.links.find((l) => l.rel === 'http://nodeinfo.diaspora.software/ns/schema/2.0');
  assert.ok(link, `/.well-known/nodeinfo links NodeInfo 2.0: ${JSON.stringify(wk)}`);
  const info = await (await fetch(link.href)).json();
  assert.equal(info.version, '2.0');
  assert.equal(typeof info.software.name, 'string');
  assert.deepEqual(info.protocols, info.protocols.filter((p) => typeof p === 'string'));
  assert.equal(typeof info.usage.users.total, 'number');
  const health = await fetch(BASE_URL + '/api/v1/streaming/health');
  assert.equal(health.status, 200, 'the streaming health check answers');
  assert.equal((await health.text()).trim(), 'OK');
}));

test('OAuth: app, authorize page, code with PKCE S256, verify credentials', area(async () => {
  const s = await session();
  const me = await s.alice.rest.v1.accounts.verifyCredentials();
  assert.equal(me.id, s.alice.id, 'the account id is the native uid, as a string');
  assert.equal(me.username, s.alice.username);
  assert.equal(me.acct, s.alice.username, 'a local account\'s acct is its username');
  assert.equal(typeof me.source?.privacy, 'string', 'verify_credentials carries source');
  const app = await s.alice.rest.v1.apps.verifyCredentials();
  assert.equal(app.name, s.alice.app.name, 'apps/verify_credentials names the token\'s app');
}));

test('OAuth: wrong password, deny, a wrong verifier, code reuse, client credentials, revoke', area(async () => {
  const s = await session();
  const app = await newApp();
  const oauth = createOAuthAPIClient({ url: BASE_URL });
  const exchange = (code, codeVerifier) => oauth.token.create({
    grantType: 'authorization_code', clientId: app.clientId, clientSecret: app.clientSecret, redirectUri: REDIRECT_URI, code, codeVerifier, scope: SCOPES,
  });

  const wrong = await authorize(app, s.bob.username, { password: PASSWORD + 'x', challenge: pkce().challenge });
  assert.ok(!(wrong.res.headers.get('location') || '').includes('code='), 'a wrong password gives no code');
  assert.ok([200, 401, 403, 422].includes(wrong.res.status), `a wrong password shows the form again or an error: ${wrong.res.status}`);

  const denied = await authorize(app, s.bob.username, { decision: 'deny', challenge: pkce().challenge });
  assert.equal(denied.res.status, 302, 'denying redirects to the app');
  const loc = new URL(denied.res.headers.get('location'));
  assert.equal(loc.searchParams.get('error'), 'access_denied', 'with error=access_denied (RFC 6749 4.1.2.1)');
  assert.equal(loc.searchParams.get('code'), null);

  const p = pkce();
  const code = codeFrom(await authorize(app, s.bob.username, { challenge: p.challenge }));
  await rejects(exchange(code, pkce().verifier), 400, 'a code exchanged with another verifier');
  const p2 = pkce();
  const code2 = codeFrom(await authorize(app, s.bob.username, { challenge: p2.challenge }));
  const first = await exchange(code2, p2.verifier);
  await rejects(exchange(code2, p2.verifier), 400, 'a code used twice');
  const stolen = createRestAPIClient({ url: BASE_URL, accessToken: first.accessToken });
  await rejects(stolen.v1.accounts.verifyCredentials(), 401, 'the token of a code used twice (revoked, as RFC 6749 4.1.2 asks)');
  const p3 = pkce();
  const tok = await exchange(codeFrom(await authorize(app, s.bob.username, { challenge: p3.challenge })), p3.verifier);

  const appToken = await oauth.token.create({ grantType: 'client_credentials', clientId: app.clientId, clientSecret: app.clientSecret, redirectUri: REDIRECT_URI, scope: 'read' });
  const asApp = createRestAPIClient({ url: BASE_URL, accessToken: appToken.accessToken });
  assert.equal((await asApp.v1.apps.verifyCredentials()).name, app.name, 'a client-credentials token is the app\'s');
  await rejects(asApp.v1.accounts.verifyCredentials(), 422, 'verify_credentials with an app token (no user)');

  const asBob = createRestAPIClient({ url: BASE_URL, accessToken: tok.accessToken });
  assert.equal((await asBob.v1.accounts.verifyCredentials()).id, s.bob.id);
  await oauth.revoke({ clientId: app.clientId, clientSecret: app.clientSecret, token: tok.accessToken });
  await rejects(asBob.v1.accounts.verifyCredentials(), 401, 'a revoked token');
}));

test('scopes: a read-only token reads but may not write', area(async () => {
  const s = await session();
  const { rest } = await login(s.carol.username, { scope: 'read' });
  assert.equal((await rest.v1.accounts.verifyCredentials()).id, s.carol.id);
  await rejects(rest.v1.statuses.create({ status: 'not allowed ' + word() }), 403, 'posting with a read token');
  await rejects(rest.v1.accounts.$select(s.alice.id).follow(), 403, 'following with a read token');
}));

test('accounts: update credentials, fetch, lookup, search, statuses with pinned and exclude_replies', area(async () => {
  const { alice, bob } = await session();
  const bio = 'bio ' + word();
  const me = await alice.rest.v1.accounts.updateCredentials({ note: bio });
  assert.equal(me.source.note, bio, 'source.note is the bio as written');
  assert.match(me.note, new RegExp(`<p>${bio}</p>`), 'note is the bio as HTML');
  assert.equal((await api('GET', '/me', { token: alice.token })).bio, bio, 'the native API sees the same bio');
  const b = await alice.rest.v1.accounts.$select(bob.id).fetch();
  assert.equal(b.username, bob.username);
  assert.equal((await alice.rest.v1.accounts.lookup({ acct: bob.username })).id, bob.id, 'lookup by acct');
  member(await alice.rest.v1.accounts.search.list({ q: bob.username }), bob.id, 'account search');

  const top = await alice.rest.v1.statuses.create({ status: 'top ' + word() });
  const reply = await alice.rest.v1.statuses.create({ status: 'reply ' + word(), inReplyToId: top.id });
  await alice.rest.v1.statuses.$select(top.id).pin();
  const all = await alice.rest.v1.accounts.$select(alice.id).statuses.list();
  member(all, top.id, 'the account\'s statuses');
  // A reply (a comment here) is among the account's statuses, as in
  // Mastodon, unless exclude_replies.
  member(all, reply.id, 'the account\'s statuses with its replies');
  const noReplies = await alice.rest.v1.accounts.$select(alice.id).statuses.list({ excludeReplies: true });
  assert.ok(!noReplies.some((x) => x.id === reply.id), 'exclude_replies leaves the reply out');
  const pinned = await alice.rest.v1.accounts.$select(alice.id).statuses.list({ pinned: true });
  assert.deepEqual(pinned.map((x) => x.id), [top.id], 'pinned=true lists the pinned status only');
}));

test('statuses: create with Idempotency-Key, fetch, reply, context, edit and history, delete', area(async () => {
  const { alice, bob } = await session();
  const text = 'hello ' + word();
  const key = word();
  const meta = { requestInit: { headers: { 'Idempotency-Key': key } } };
  const s = await alice.rest.v1.statuses.create({ status: text }, meta);
  const again = await alice.rest.v1.statuses.create({ status: text }, meta);
  assert.equal(again.id, s.id, 'the same Idempotency-Key makes one status');
  assert.equal(s.content, `<p>${text}</p>`, 'content is Mastodon\'s HTML');
  assert.equal(s.account.id, alice.id);
  assert.equal(s.visibility, 'public');
  assert.match(s.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'created_at as Mastodon writes it');
  assert.deepEqual(s.mediaAttachments, []);
  const got = await bob.rest.v1.statuses.$select(s.id).fetch();
  assert.equal(got.content, s.content);
  const native = await api('GET', `/posts/${s.id}`, { token: bob.token });
  assert.equal(native.content, text, 'a status from an app is the same post in the native API');

  const r1 = await bob.rest.v1.statuses.create({ status: `@${alice.username} reply ${word()}`, inReplyToId: s.id });
  assert.equal(r1.inReplyToId, s.id);
  assert.equal(r1.inReplyToAccountId, alice.id);
  assert.ok(r1.mentions.some((m) => m.id === alice.id), 'the reply mentions alice');
  assert.match(r1.content, new RegExp(`<a [^>]*href="[^"]*${alice.username}[^"]*"[^>]*>@<span>${alice.username}</span></a>|<a [^>]*>@${alice.username}</a>`), 'the mention is a link');
  const r2 = await alice.rest.v1.statuses.create({ status: 'deeper ' + word(), inReplyToId: r1.id });
  const ctx = await alice.rest.v1.statuses.$select(r1.id).context.fetch();
  member(ctx.ancestors, s.id, 'the reply\'s ancestors');
  member(ctx.descendants, r2.id, 'the reply\'s descendants');
  assert.equal((await alice.rest.v1.statuses.$select(s.id).fetch()).repliesCount, 1, 'replies_count');

  const edited = 'edited ' + word();
  const e = await alice.rest.v1.statuses.$select(s.id).update({ status: edited });
  assert.equal(e.content, `<p>${edited}</p>`);
  assert.ok(e.editedAt, 'edited_at is set');
  const history = await alice.rest.v1.statuses.$select(s.id).history.list();
  assert.ok(history.length >= 2, 'the history has the original and the edit');
  assert.equal(history[0].content, `<p>${text}</p>`, 'the history starts with the original');
  assert.equal(history.at(-1).content, `<p>${edited}</p>`, 'and ends with the edit');
  const source = await alice.rest.v1.statuses.$select(s.id).source.fetch();
  assert.equal(source.text, edited, 'the source is the text as written');

  const gone = await alice.rest.v1.statuses.create({ status: 'to delete ' + word() });
  const deleted = await alice.rest.v1.statuses.$select(gone.id).remove();
  assert.equal(deleted.id, gone.id, 'delete answers the status');
  await rejects(alice.rest.v1.statuses.$select(gone.id).fetch(), 404, 'a deleted status');
  await rejects(bob.rest.v1.statuses.$select(s.id).update({ status: 'not mine' }), 403, 'editing another\'s status');
  await rejects(alice.rest.v1.statuses.create({ status: 'x'.repeat(281) }), 422, 'a status over 280 characters');
}));

test('statuses: favourite, reblog, bookmark, pin, and who did it', area(async () => {
  const { alice, bob } = await session();
  const s = await alice.rest.v1.statuses.create({ status: 'like me ' + word() });
  const fav = await bob.rest.v1.statuses.$select(s.id).favourite();
  assert.equal(fav.favourited, true);
  assert.equal(fav.favouritesCount, 1);
  member(await alice.rest.v1.statuses.$select(s.id).favouritedBy.list(), bob.id, 'favourited_by');
  member(await bob.rest.v1.favourites.list(), s.id, 'bob\'s favourites');
  assert.equal((await bob.rest.v1.statuses.$select(s.id).unfavourite()).favourited, false);

  const rb = await bob.rest.v1.statuses.$select(s.id).reblog();
  assert.equal(rb.reblog?.id, s.id, 'a reblog wraps the original');
  assert.equal(rb.account.id, bob.id);
  assert.equal(rb.reblog.reblogged ?? rb.reblogged, true, 'reblogged is true');
  member(await alice.rest.v1.statuses.$select(s.id).rebloggedBy.list(), bob.id, 'reblogged_by');
  const un = await bob.rest.v1.statuses.$select(s.id).unreblog();
  assert.equal(un.reblogged, false);
  assert.equal((await alice.rest.v1.statuses.$select(s.id).rebloggedBy.list()).length, 0, 'unreblog takes it back');

  assert.equal((await bob.rest.v1.statuses.$select(s.id).bookmark()).bookmarked, true);
  member(await bob.rest.v1.bookmarks.list(), s.id, 'bookmarks');
  assert.equal((await bob.rest.v1.statuses.$select(s.id).unbookmark()).bookmarked, false);
  assert.ok(!(await bob.rest.v1.bookmarks.list()).some((x) => x.id === s.id), 'unbookmark takes it off the list');

  assert.equal((await alice.rest.v1.statuses.$select(s.id).pin()).pinned, true);
  assert.equal((await alice.rest.v1.statuses.$select(s.id).unpin()).pinned, false);
  await rejects(bob.rest.v1.statuses.$select(s.id).pin(), 422, 'pinning another\'s status');
}));

test('timelines: home, public and tag, paged by masto\'s paginator through Link headers', area(async () => {
  const { alice, bob } = await session();
  await alice.rest.v1.accounts.$select(bob.id).follow();
  const tag = 'mt' + randomBytes(4).toString('hex');
  const made = [];
  for (let i = 0; i < 7; i++) made.push((await bob.rest.v1.statuses.create({ status: `page ${i} #${tag}` })).id);
  const newestFirst = [...made].reverse();

  const collect = async (paginator, want) => {
    const pages = [];
    const ids = [];
    for await (const page of paginator) {
      pages.push(page.length);
      ids.push(...page.map((x) => x.id).filter((id) => made.includes(id)));
      if (made.every((id) => ids.includes(id)) || pages.length > 20) break;
    }
    assert.deepEqual(ids, newestFirst, `${want}: every status once, newest first (pages of ${pages})`);
    assert.ok(pages.length >= 3, `${want}: several pages (${pages})`);
    assert.ok(pages.every((n) => n <= 3), `${want}: limit is honoured (${pages})`);
  };
  await until(async () => (await alice.rest.v1.timelines.home.list({ limit: 1 })).some((x) => x.id === made[6]), 'bob\'s post on alice\'s home');
  await collect(alice.rest.v1.timelines.home.list({ limit: 3 }), 'home');
  await collect(alice.rest.v1.timelines.tag.$select(tag).list({ limit: 3 }), 'tag');
  await collect(alice.rest.v1.timelines.public.list({ limit: 3, local: true }), 'public');

  const newer = await alice.rest.v1.timelines.tag.$select(tag).list({ limit: 2, minId: made[0] });
  assert.deepEqual(newer.map((x) => x.id).sort(), [made[1], made[2]].sort(), 'min_id: the two just newer');
  const since = await alice.rest.v1.timelines.tag.$select(tag).list({ limit: 2, sinceId: made[0] });
  assert.deepEqual(since.map((x) => x.id), [made[6], made[5]], 'since_id: the newest two');
  const older = await alice.rest.v1.timelines.tag.$select(tag).list({ limit: 10, maxId: made[3] });
  assert.deepEqual(older.map((x) => x.id), [made[2], made[1], made[0]], 'max_id: the older ones');
  const prev = alice.rest.v1.timelines.tag.$select(tag).list({ limit: 2, maxId: made[2] }).setDirection('prev');
  const pages = [];
  for await (const page of prev) {
    if (page.length === 0 || pages.length > 5) break;
    pages.push(page.map((x) => x.id));
  }
  assert.ok(pages.flat().includes(made[6]), `the prev links page up to the newest: ${JSON.stringify(pages)}`);
}));

test('follow, block, mute, follow requests, relationships', area(async () => {
  const { alice, bob, carol } = await session();
  let rel = await carol.rest.v1.accounts.$select(bob.id).follow();
  assert.equal(rel.id, bob.id);
  assert.equal(rel.following, true);
  member(await carol.rest.v1.accounts.$select(bob.id).followers.list(), carol.id, 'bob\'s followers');
  member(await carol.rest.v1.accounts.$select(carol.id).following.list(), bob.id, 'carol\'s following');
  const [r] = await bob.rest.v1.accounts.relationships.fetch({ id: [carol.id] });
  assert.equal(r.followedBy, true, 'followed_by from the other side');
  rel = await carol.rest.v1.accounts.$select(bob.id).unfollow();
  assert.equal(rel.following, false);

  rel = await carol.rest.v1.accounts.$select(bob.id).mute();
  assert.equal(rel.muting, true);
  member(await carol.rest.v1.mutes.list(), bob.id, 'mutes');
  assert.equal((await carol.rest.v1.accounts.$select(bob.id).unmute()).muting, false);

  rel = await carol.rest.v1.accounts.$select(bob.id).block();
  assert.equal(rel.blocking, true);
  member(await carol.rest.v1.blocks.list(), bob.id, 'blocks');
  await rejects(bob.rest.v1.accounts.$select(carol.id).follow(), 403, 'following someone who blocked you');
  assert.equal((await carol.rest.v1.accounts.$select(bob.id).unblock()).blocking, false);

  const locked = await carol.rest.v1.accounts.updateCredentials({ locked: true });
  assert.equal(locked.locked, true, 'locked is the native protected');
  try {
    rel = await alice.rest.v1.accounts.$select(carol.id).follow();
    assert.equal(rel.requested, true, 'following a locked account makes a request');
    assert.equal(rel.following, false);
    member(await carol.rest.v1.followRequests.list(), alice.id, 'follow requests');
    await carol.rest.v1.followRequests.$select(alice.id).authorize();
    [rel] = await alice.rest.v1.accounts.relationships.fetch({ id: [carol.id] });
    assert.equal(rel.following, true, 'an authorized request is a follow');
  } finally {
    await carol.rest.v1.accounts.updateCredentials({ locked: false });
  }
}));

test('notifications: follow, favourite, mention, reblog; fetch one, dismiss, clear', area(async () => {
  const { alice, bob } = await session();
  const n = await newUser('mnotif');
  const { rest } = await login(n.username);
  const s = await rest.v1.statuses.create({ status: 'notify me ' + word() });
  await bob.rest.v1.accounts.$select(String(n.user.id)).follow();
  await bob.rest.v1.statuses.$select(s.id).favourite();
  await bob.rest.v1.statuses.$select(s.id).reblog();
  const m = await alice.rest.v1.statuses.create({ status: `@${n.username} hi ${word()}` });
  let list = [];
  await until(async () => (list = await rest.v1.notifications.list()).length >= 4, 'four notifications');
  const types = list.map((x) => x.type).sort();
  assert.deepEqual(types, ['favourite', 'follow', 'mention', 'reblog'], 'one of each');
  for (const x of list) {
    assert.equal(typeof x.id, 'string');
    assert.match(x.createdAt, /Z$/);
  }
  const mention = list.find((x) => x.type === 'mention');
  assert.equal(mention.account.id, alice.id);
  assert.equal(mention.status.id, m.id);
  assert.equal(list.find((x) => x.type === 'favourite').status.id, s.id);
  assert.equal(list.find((x) => x.type === 'follow').account.id, bob.id);
  const one = await rest.v1.notifications.$select(mention.id).fetch();
  assert.equal(one.id, mention.id);
  const onlyFollows = await rest.v1.notifications.list({ types: ['follow'] });
  assert.deepEqual(onlyFollows.map((x) => x.type), ['follow'], 'types[] filters');
  await rest.v1.notifications.$select(mention.id).dismiss();
  assert.ok(!(await rest.v1.notifications.list()).some((x) => x.id === mention.id), 'dismissed');
  await rest.v1.notifications.clear();
  assert.deepEqual(await rest.v1.notifications.list(), [], 'cleared');
}));

test('search v2: statuses, accounts, hashtags; the paginator', area(async () => {
  const { alice, bob } = await session();
  const w = word();
  const tag = 'st' + randomBytes(4).toString('hex');
  const s = await bob.rest.v1.statuses.create({ status: `findable ${w} #${tag}` });
  let r;
  await until(async () => (r = await alice.rest.v2.search.list({ q: w })).statuses.some((x) => x.id === s.id), 'the status in search');
  assert.ok(Array.isArray(r.accounts) && Array.isArray(r.hashtags), 'accounts and hashtags are lists');
  member((await alice.rest.v2.search.list({ q: bob.username, type: 'accounts' })).accounts, bob.id, 'account search');
  const tags = (await alice.rest.v2.search.list({ q: '#' + tag, type: 'hashtags' })).hashtags;
  assert.ok(tags.some((t) => t.name === tag), `hashtag search finds ${tag}: ${JSON.stringify(tags)}`);
  const first = await alice.rest.v2.search.list({ q: w }).values().next();
  assert.equal(typeof first.done, 'boolean');
  assert.ok(Array.isArray(first.value.statuses), 'iterating search yields results');
}));

test('conversations: a private message is a direct status', area(async () => {
  const { alice, bob } = await session();
  const text = 'psst ' + word();
  await api('POST', `/conversations/${alice.username}/messages`, { token: bob.token, body: { content: text } });
  let conv;
  await until(async () => (conv = (await alice.rest.v1.conversations.list()).find((c) => c.accounts.some((a) => a.id === bob.id))), 'the conversation with bob');
  assert.equal(typeof conv.id, 'string');
  assert.equal(conv.unread, true, 'an unread message');
  assert.equal(conv.lastStatus.visibility, 'direct');
  assert.equal(conv.lastStatus.content, `<p>${text}</p>`);
  assert.equal(conv.lastStatus.account.id, bob.id);
  const read = await alice.rest.v1.conversations.$select(conv.id).read();
  assert.equal(read.unread, false, 'read');
  assert.equal((await api('GET', '/me', { token: alice.token })).unread_messages, 0, 'the native API sees it read');
}));

test('markers, trends, reports, and what apps call at start', area(async () => {
  const { alice, bob } = await session();
  const s = await alice.rest.v1.statuses.create({ status: 'marker ' + word() });
  await alice.rest.v1.markers.create({ home: { lastReadId: s.id } });
  const m = await alice.rest.v1.markers.fetch({ timeline: ['home'] });
  assert.equal(m.home.lastReadId, s.id, 'the home marker');
  assert.equal(typeof m.home.version, 'number');

  const tag = 'tr' + randomBytes(4).toString('hex');
  await bob.rest.v1.statuses.create({ status: `#${tag}` });
  await alice.rest.v1.statuses.create({ status: `#${tag}` });
  const trends = await alice.rest.v1.trends.tags.list();
  assert.ok(Array.isArray(trends), 'trends/tags is a list');
  for (const t of trends) {
    assert.equal(typeof t.name, 'string');
    assert.ok(Array.isArray(t.history), 'a trend has its history');
  }

  const report = await alice.rest.v1.reports.create({ accountId: bob.id, comment: 'test report', category: 'other' });
  assert.equal(typeof report.id, 'string');
  assert.equal(report.targetAccount?.id, bob.id, 'the report names its target');

  assert.deepEqual(await alice.rest.v1.customEmojis.list(), []);
  assert.deepEqual(await alice.rest.v1.lists.list(), []);
  assert.deepEqual(await alice.rest.v1.announcements.list(), []);
  assert.ok(Array.isArray(await alice.rest.v2.filters.list()), 'v2 filters');
  assert.ok(Array.isArray(await alice.rest.v1.followedTags.list()), 'followed tags');
  const prefs = await alice.rest.v1.preferences.fetch();
  assert.equal(prefs['posting:default:visibility'], 'public');
  assert.ok('posting:default:sensitive' in prefs);
}));

test('media v2: upload, masto\'s wait for processing, a status with it', area(async () => {
  const { alice } = await session();
  const file = new Blob([png(40, 30, [200, 40, 40], [40, 40, 200])], { type: 'image/png' });
  const media = await alice.rest.v2.media.create({ file, description: 'a red-blue blend' });
  assert.equal(media.type, 'image');
  assert.equal(media.description, 'a red-blue blend');
  assert.ok(media.url && media.previewUrl, 'url and preview_url');
  const img = await fetch(new URL(media.url, BASE_URL));
  assert.equal(img.status, 200, 'the media url serves the picture');
  assert.match(img.headers.get('content-type') || '', /^image\//);
  const s = await alice.rest.v1.statuses.create({ status: 'with a picture ' + word(), mediaIds: [media.id] });
  assert.deepEqual(s.mediaAttachments.map((x) => x.id), [media.id], 'the status carries the attachment');
}));

test('statuses: a content warning (spoiler_text), nine pictures, reblogged and unreblog (CONTRACT §15)', area(async () => {
  const { alice, bob } = await session();
  const instance = await alice.rest.v2.instance.fetch();
  assert.equal(instance.configuration.statuses.maxMediaAttachments, 9, 'max_media_attachments says 9');
  const ids = [];
  for (let i = 0; i < 10; i++) {
    // Uploaded natively, at once (masto's v2 upload waits for processing, 1 s each).
    ids.push(String((await upload(alice, png(20 + i, 16, [200, 40, 40], [40, 40, 200]), 'picture ' + i)).id));
  }
  await rejects(alice.rest.v1.statuses.create({ status: 'ten ' + word(), mediaIds: ids }), 422, 'a status with 10 pictures');
  await rejects(alice.rest.v1.statuses.create({ status: 'long ' + word(), spoilerText: 'x'.repeat(101) }), 422, 'a spoiler_text over 100 characters');

  const text = 'the butler did it ' + word();
  const s = await alice.rest.v1.statuses.create({ status: text, spoilerText: 'mystery spoilers', mediaIds: ids.slice(0, 9) });
  assert.equal(s.spoilerText, 'mystery spoilers', 'spoiler_text answered');
  assert.equal(s.sensitive, true, 'a status behind a warning is sensitive');
  assert.deepEqual(s.mediaAttachments.map((x) => x.id), ids.slice(0, 9), 'nine attachments, in order');
  assert.ok(s.mediaAttachments.every((m) => typeof m.blurhash === 'string' && m.blurhash.length > 5), 'each with its blurhash');
  const read = await bob.rest.v1.statuses.$select(s.id).fetch();
  assert.equal(read.spoilerText, 'mystery spoilers', 'spoiler_text read back');
  const native = await api('GET', '/posts/' + s.id);
  assert.equal(native.spoiler, 'mystery spoilers', 'the same warning on the native API');
  assert.equal((await alice.rest.v1.statuses.$select(s.id).source.fetch()).spoilerText, 'mystery spoilers', 'source');

  const edited = await alice.rest.v1.statuses.$select(s.id).update({ status: text, spoilerText: 'whodunit' });
  assert.equal(edited.spoilerText, 'whodunit', 'an edit changes the warning');
  const kept = await alice.rest.v1.statuses.$select(s.id).update({ status: text + ' indeed' });
  assert.equal(kept.spoilerText, 'whodunit', 'an edit without spoiler_text keeps it');

  assert.equal(read.reblogged, false, 'not reblogged yet');
  const rb = await bob.rest.v1.statuses.$select(s.id).reblog();
  assert.equal(rb.reblog.reblogged, true, 'reblogged after reblog');
  assert.equal((await bob.rest.v1.statuses.$select(s.id).fetch()).reblogged, true, 'reblogged read back');
  const nativeBob = await api('GET', '/posts/' + s.id, { token: bob.token });
  assert.equal(nativeBob.reposted, true, 'the native API\'s reposted says the same');
  const un = await bob.rest.v1.statuses.$select(s.id).unreblog();
  assert.equal(un.reblogged, false, 'unreblog undoes it');
  assert.equal(un.reblogsCount, 0, 'and the count');
  assert.equal((await api('GET', '/posts/' + s.id, { token: bob.token })).reposted, false, 'the native API sees the undo');
  // And the other way: a native repost shows as reblogged, undone natively.
  const rp = await api('POST', '/posts', { token: bob.token, body: { repost_of: Number(s.id) } });
  assert.equal(rp.repost_of.id, Number(s.id));
  assert.equal((await bob.rest.v1.statuses.$select(s.id).fetch()).reblogged, true, 'a native repost is reblogged');
  assert.equal(await api('DELETE', '/posts/' + s.id + '/repost', { token: bob.token }), null, '204');
  assert.equal((await bob.rest.v1.statuses.$select(s.id).fetch()).reblogged, false, 'the native undo shows as not reblogged');
}));

test('streaming: user, user:notification, public, hashtag and direct through masto\'s client', area(async () => {
  const { alice, bob } = await session();
  const instance = await alice.rest.v2.instance.fetch();
  const streaming = createStreamingAPIClient({ streamingApiUrl: instance.configuration.urls.streaming, accessToken: alice.mtoken, retry: 3 });
  try {
    await alice.rest.v1.accounts.$select(bob.id).follow();
    const user = events(streaming.user.subscribe());
    const notes = events(streaming.user.notification.subscribe());
    const pub = events(streaming.public.subscribe());
    const tag = 'sx' + randomBytes(4).toString('hex');
    const hashtag = events(streaming.hashtag.subscribe({ tag }));
    const direct = events(streaming.direct.subscribe());

    // The subscriptions are sent once the socket is open; a post of one's
    // own on the user stream says that one is in place (sent again
    // meanwhile). The public and hashtag ones were sent after it, and each
    // is in place once a probe comes on it: a probe may come before they
    // are, so more are posted until one does.
    const probes = new Set();
    let probe;
    await until(async () => {
      probes.add((await alice.rest.v1.statuses.create({ status: `probe #${tag} ` + word() })).id);
      probe = await user.next((e) => e.event === 'update' && probes.has(e.payload.id), 'a probe', 1000).catch((e) => {
        if (e.timeout) return null;
        throw e; // the stream failed: say why rather than wait on
      });
      return probe !== null;
    }, 'the user stream to carry alice\'s own post');
    probe = probe.payload;
    for (const [stream, name] of [[pub, 'the public stream'], [hashtag, `the #${tag} stream`]]) {
      await until(async () => {
        const got = await stream.next((e) => e.event === 'update' && probes.has(e.payload.id), `a probe on ${name}`, 1000).catch((e) => {
          if (e.timeout) return null;
          throw e;
        });
        if (got) return true;
        probes.add((await alice.rest.v1.statuses.create({ status: `probe #${tag} ` + word() })).id);
        return false;
      }, `${name} to carry a probe`);
    }

    const b = await bob.rest.v1.statuses.create({ status: `from bob #${tag} ${word()}` });
    const up = await user.next((e) => e.event === 'update' && e.payload.id === b.id, 'bob\'s status on alice\'s user stream');
    assert.ok(up.stream.includes('user'), 'the event names its stream');
    assert.equal(up.payload.account.id, bob.id);
    await pub.next((e) => e.event === 'update' && e.payload.id === b.id, 'bob\'s status on the public stream');
    const h = await hashtag.next((e) => e.event === 'update' && e.payload.id === b.id, `the #${tag} stream`);
    assert.equal(h.payload.id, b.id);

    const native = await post(bob, 'native ' + word());
    await user.next((e) => e.event === 'update' && e.payload.id === String(native.id), 'a post from our own API on the user stream');

    await bob.rest.v1.statuses.$select(probe.id).favourite();
    const n = await notes.next((e) => e.event === 'notification', 'the favourite on user:notification');
    assert.equal(n.payload.type, 'favourite');
    assert.equal(n.payload.account.id, bob.id);
    assert.equal(n.payload.status.id, probe.id);
    await user.next((e) => e.event === 'notification' && e.payload.type === 'favourite', 'the favourite on the user stream');

    await bob.rest.v1.statuses.$select(b.id).update({ status: `edited #${tag}` });
    const su = await hashtag.next((e) => e.event === 'status.update', 'status.update');
    assert.equal(su.payload.id, b.id);
    assert.match(su.payload.content, /edited/);
    await bob.rest.v1.statuses.$select(b.id).remove();
    const del = await user.next((e) => e.event === 'delete', 'delete');
    assert.equal(del.payload, b.id, 'delete carries the id');

    await api('POST', `/conversations/${alice.username}/messages`, { token: bob.token, body: { content: 'direct ' + word() } });
    const c = await direct.next((e) => e.event === 'conversation', 'a conversation event on the direct stream');
    assert.ok(c.payload.accounts.some((a) => a.id === bob.id));
    assert.equal(c.payload.lastStatus.visibility, 'direct');
  } finally {
    streaming.close();
  }
}));

test('hashtag: a reply carrying the tag is on the tag timeline and the hashtag stream, not the public stream', area(async () => {
  const { alice, bob } = await session();
  const instance = await alice.rest.v2.instance.fetch();
  const streaming = createStreamingAPIClient({ streamingApiUrl: instance.configuration.urls.streaming, accessToken: alice.mtoken, retry: 3 });
  try {
    const tag = 'rx' + randomBytes(4).toString('hex');
    const hashtag = events(streaming.hashtag.subscribe({ tag }));
    const pub = events(streaming.public.subscribe());
    const probes = new Set();
    await until(async () => {
      probes.add((await bob.rest.v1.statuses.create({ status: `probe #${tag} ` + word() })).id);
      return hashtag.next((e) => e.event === 'update' && probes.has(e.payload.id), 'a probe', 1000).then(() => true, (e) => {
        if (e.timeout) return false;
        throw e;
      });
    }, `the #${tag} stream to carry a post`);
    await pub.next((e) => e.event === 'update' && probes.has(e.payload.id), 'a probe on the public stream');

    const root = await bob.rest.v1.statuses.create({ status: 'no tag here ' + word() });
    const reply = await alice.rest.v1.statuses.create({ status: `@${bob.username} #${tag} indeed`, inReplyToId: root.id });
    const got = await hashtag.next((e) => e.event === 'update' && e.payload.id === reply.id, `the reply on the #${tag} stream`);
    assert.equal(got.payload.inReplyToId, root.id, 'the streamed status is the reply');
    assert.ok(got.stream.includes('hashtag'), 'the event names the hashtag stream');
    const after = await bob.rest.v1.statuses.create({ status: 'after the reply ' + word() });
    // Files running beside this one post publicly too: only these two's posts count.
    const ours = (e) => [alice.username, bob.username].includes(e.payload.account?.username);
    const next = await pub.next((e) => e.event === 'update' && ours(e) && !probes.has(e.payload.id) && e.payload.id !== root.id, 'the next public update after the root');
    assert.equal(next.payload.id, after.id, `the public stream passes the reply ${reply.id} by`);

    const timeline = await alice.rest.v1.timelines.tag.$select(tag).list({ limit: 10 });
    assert.equal(timeline[0].id, reply.id, 'the reply tops the tag timeline');
    assert.equal(timeline[0].inReplyToId, root.id);
    const publicTimeline = await alice.rest.v1.timelines.public.list({ limit: 40 });
    assert.ok(!publicTimeline.some((s) => s.id === reply.id), 'the reply is not on the public timeline');

    await alice.rest.v1.statuses.$select(reply.id).remove();
    const del = await hashtag.next((e) => e.event === 'delete' && e.payload === reply.id, 'its delete on the hashtag stream');
    assert.equal(del.payload, reply.id);
    assert.ok(!(await alice.rest.v1.timelines.tag.$select(tag).list({ limit: 10 })).some((s) => s.id === reply.id), 'deleted, it leaves the tag timeline');
  } finally {
    streaming.close();
  }
}));

test('live both ways: a native follow and post reach masto, a masto post reaches the native feed', area(async () => {
  const { alice } = await session();
  const u = await newUser('mnative');
  await follow(u, alice);
  const s = await alice.rest.v1.statuses.create({ status: 'both ways ' + word() });
  // The native token on a shared path gets the native answer (a Page).
  await until(async () => (await api('GET', '/timelines/home', { token: u.token })).items.some((p) => String(p.id) === s.id), 'the masto status on the native home timeline');
  const followers = await alice.rest.v1.accounts.$select(alice.id).followers.list();
  member(followers, String(u.user.id), 'a native follow as a Mastodon follower');
}));

test('lists: create, add accounts, the list timeline paged, the list stream, rename, remove', area(async () => {
  const { alice, bob, carol } = await session();
  await alice.rest.v1.accounts.$select(carol.id).follow();
  await alice.rest.v1.accounts.$select(bob.id).follow();
  const list = await alice.rest.v1.lists.create({ title: 'Friends ' + word() });
  assert.equal(typeof list.id, 'string');
  assert.equal(list.repliesPolicy, 'list');
  await alice.rest.v1.lists.$select(list.id).accounts.create({ accountIds: [carol.id] });
  const accounts = await alice.rest.v1.lists.$select(list.id).accounts.list();
  assert.deepEqual(accounts.map((a) => a.id), [carol.id]);
  member(await alice.rest.v1.accounts.$select(carol.id).lists.list(), list.id, 'the lists holding carol');
  member(await alice.rest.v1.lists.list(), list.id, 'alice\'s lists');
  await rejects(bob.rest.v1.lists.$select(list.id).fetch(), 404, 'another user\'s list');
  const stranger = await newUser('mstranger');
  await rejects(alice.rest.v1.lists.$select(list.id).accounts.create({ accountIds: [String(stranger.user.id)] }), 404, 'an account alice does not follow');

  const mine = [];
  for (let i = 0; i < 3; i++) mine.unshift((await carol.rest.v1.statuses.create({ status: `for the list ${i} ${word()}` })).id);
  const bobs = await bob.rest.v1.statuses.create({ status: 'not in the list ' + word() });
  const seen = [];
  for await (const page of alice.rest.v1.timelines.list.$select(list.id).list({ limit: 2 })) {
    seen.push(...page.map((s) => s.id));
    if (seen.length > 10) break;
  }
  assert.deepEqual(seen.slice(0, 3), mine, 'the list timeline, newest first, through masto\'s paginator');
  assert.ok(!seen.includes(bobs.id), 'no post of bob\'s, whom alice follows but did not list');

  const instance = await alice.rest.v2.instance.fetch();
  const streaming = createStreamingAPIClient({ streamingApiUrl: instance.configuration.urls.streaming, accessToken: alice.mtoken, retry: 3 });
  try {
    const stream = events(streaming.list.subscribe({ list: list.id }));
    const probes = new Set();
    let got;
    await until(async () => {
      probes.add((await carol.rest.v1.statuses.create({ status: 'live ' + word() })).id);
      got = await stream.next((e) => e.event === 'update' && probes.has(e.payload.id), 'carol\'s post', 1000).catch((e) => {
        if (e.timeout) return null;
        throw e;
      });
      return got !== null;
    }, 'the list stream to carry carol\'s post');
    assert.ok(got.stream.includes('list'), 'the event names the list stream');
    const b = await bob.rest.v1.statuses.create({ status: 'bob is not in it ' + word() });
    const c = await carol.rest.v1.statuses.create({ status: 'carol again ' + word() });
    const next = await stream.next((e) => e.event === 'update' && !probes.has(e.payload.id), 'carol\'s next post');
    assert.equal(next.payload.id, c.id, `the next update is carol's, not bob's ${b.id}`);
  } finally {
    streaming.close();
  }

  const renamed = await alice.rest.v1.lists.$select(list.id).update({ title: '分组' });
  assert.equal(renamed.title, '分组');
  await alice.rest.v1.lists.$select(list.id).accounts.remove({ accountIds: [carol.id] });
  assert.deepEqual(await alice.rest.v1.lists.$select(list.id).accounts.list(), []);
  await alice.rest.v1.lists.$select(list.id).remove();
  await rejects(alice.rest.v1.lists.$select(list.id).fetch(), 404, 'a deleted list');
}));

test('lists: an exclusive list keeps its members off home and the user stream, and on the list', area(async () => {
  const names = {};
  for (const name of ['owner', 'member', 'other']) {
    const u = await newUser('mx' + name);
    const { token, rest } = await login(u.username);
    names[name] = { ...u, id: String(u.user.id), mtoken: token, rest };
  }
  const { owner, member: m, other } = names;
  await owner.rest.v1.accounts.$select(m.id).follow();
  await owner.rest.v1.accounts.$select(other.id).follow();
  const list = await owner.rest.v1.lists.create({ title: 'Quiet ' + word(), exclusive: true });
  assert.equal(list.exclusive, true, 'the List entity says exclusive');
  await owner.rest.v1.lists.$select(list.id).accounts.create({ accountIds: [m.id] });
  assert.equal((await owner.rest.v1.lists.$select(list.id).fetch()).exclusive, true);

  const instance = await owner.rest.v2.instance.fetch();
  const streaming = createStreamingAPIClient({ streamingApiUrl: instance.configuration.urls.streaming, accessToken: owner.mtoken, retry: 3 });
  try {
    const user = events(streaming.user.subscribe());
    const onList = events(streaming.list.subscribe({ list: list.id }));
    // Both subscriptions are in force once a post of the member's is on the
    // list stream and one of the other's on the user stream.
    const probes = new Set();
    await until(async () => {
      probes.add((await m.rest.v1.statuses.create({ status: 'probe ' + word() })).id);
      return onList.next((e) => e.event === 'update' && probes.has(e.payload.id), 'a probe', 1000).then(() => true, (e) => {
        if (e.timeout) return false;
        throw e;
      });
    }, 'the list stream to carry the member\'s post');
    const others = new Set();
    await until(async () => {
      others.add((await other.rest.v1.statuses.create({ status: 'probe ' + word() })).id);
      return user.next((e) => e.event === 'update' && others.has(e.payload.id), 'a probe', 1000).then(() => true, (e) => {
        if (e.timeout) return false;
        throw e;
      });
    }, 'the user stream to carry the other\'s post');

    const quiet = await m.rest.v1.statuses.create({ status: 'for the list only ' + word() });
    const loud = await other.rest.v1.statuses.create({ status: 'for home ' + word() });
    await onList.next((e) => e.event === 'update' && e.payload.id === quiet.id, 'the member\'s post on the list stream');
    await user.next((e) => e.event === 'update' && e.payload.id === loud.id, 'the other\'s post on the user stream');
    assert.ok(!user.seen.some((e) => e.event === 'update' && (e.payload.id === quiet.id || probes.has(e.payload.id))),
      'no post of the member\'s on the user stream');

    const home = await owner.rest.v1.timelines.home.list({ limit: 40 });
    assert.ok(home.some((s) => s.id === loud.id), 'the other\'s post is home');
    assert.ok(!home.some((s) => s.id === quiet.id || probes.has(s.id)), 'the member\'s posts are not home');
    const listed = await owner.rest.v1.timelines.list.$select(list.id).list({ limit: 40 });
    assert.ok(listed.some((s) => s.id === quiet.id), 'the member\'s post is on the list timeline');

    const open = await owner.rest.v1.lists.$select(list.id).update({ title: list.title, exclusive: false });
    assert.equal(open.exclusive, false, 'exclusive=false through update');
    await until(async () => (await owner.rest.v1.timelines.home.list({ limit: 40 })).some((s) => s.id === quiet.id), 'the member\'s post home once the list is not exclusive');
  } finally {
    streaming.close();
  }
}));

test('push: masto subscribes a device; a mention is pushed to it, signed with the server key and decryptable', area(async () => {
  const { alice } = await session();
  const n = await newUser('mpush');
  const { rest } = await login(n.username);
  // The device: a P-256 key pair and an auth secret, as a browser makes them.
  const device = createECDH('prime256v1');
  const p256dh = device.generateKeys();
  const auth = randomBytes(16);
  const b64u = (b) => Buffer.from(b).toString('base64url');
  // The push service, on the loopback address the server takes over http.
  const got = [];
  const service = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => { got.push({ headers: req.headers, body: Buffer.concat(chunks) }); res.writeHead(201).end(); });
  });
  await new Promise((r) => service.listen(0, '127.0.0.1', r));
  try {
    const origin = `http://127.0.0.1:${service.address().port}`;
    const sub = await rest.v1.push.subscription.create({
      subscription: { endpoint: origin + '/device', keys: { p256dh: b64u(p256dh), auth: b64u(auth) } },
      data: { alerts: { mention: true, favourite: false }, policy: 'all' },
    });
    assert.equal(sub.endpoint, origin + '/device');
    assert.equal(sub.alerts.mention, true);
    assert.equal(sub.alerts.favourite, false);
    const instance = await rest.v2.instance.fetch();
    assert.equal(sub.serverKey, instance.configuration.vapid.publicKey, 'server_key is the instance\'s VAPID key');
    assert.equal((await rest.v1.push.subscription.fetch()).id, sub.id);

    await alice.rest.v1.statuses.create({ status: `@${n.username} pushed ${word()}` });
    await until(() => got.length > 0, 'the push');
    const { headers, body } = got[0];
    assert.equal(headers['content-encoding'], 'aes128gcm');
    // VAPID (RFC 8292): k is the server key, t a JWT it signed for this origin.
    const [, t, k] = headers.authorization.match(/^vapid t=([^,]+), k=(.+)$/);
    assert.equal(k, sub.serverKey);
    const [h64, c64, s64] = t.split('.');
    const point = Buffer.from(k, 'base64url');
    const pub = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: b64u(point.subarray(1, 33)), y: b64u(point.subarray(33)) }, format: 'jwk' });
    assert.ok(verify('sha256', Buffer.from(h64 + '.' + c64), { key: pub, dsaEncoding: 'ieee-p1363' }, Buffer.from(s64, 'base64url')), 'the JWT is signed with the server key');
    assert.equal(JSON.parse(Buffer.from(c64, 'base64url')).aud, origin);
    // The body (RFC 8291, aes128gcm), opened with the device's keys.
    const salt = body.subarray(0, 16), idlen = body[20], asPub = body.subarray(21, 21 + idlen), records = body.subarray(21 + idlen);
    const shared = device.computeSecret(asPub);
    const ikm = Buffer.from(hkdfSync('sha256', shared, auth, Buffer.concat([Buffer.from('WebPush: info\0'), p256dh, asPub]), 32));
    const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
    const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
    const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
    decipher.setAuthTag(records.subarray(records.length - 16));
    const plain = Buffer.concat([decipher.update(records.subarray(0, records.length - 16)), decipher.final()]);
    const payload = JSON.parse(plain.subarray(0, plain.lastIndexOf(2)).toString());
    assert.equal(payload.notification_type, 'mention');
    assert.equal(payload.title, `@${alice.username} mentioned you`);
    assert.match(payload.body, /pushed/);
    assert.equal(payload.access_token, undefined, 'no token in the payload');

    const updated = await rest.v1.push.subscription.update({ data: { alerts: { favourite: true } } });
    assert.equal(updated.alerts.favourite, true);
    assert.equal(updated.alerts.mention, true, 'alerts not given stay');
    await rest.v1.push.subscription.remove();
    await rejects(rest.v1.push.subscription.fetch(), 404, 'the removed subscription');
  } finally {
    service.close();
  }
}));
