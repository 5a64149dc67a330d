// megalodon.test.mjs: the Mastodon client API as a second client library
// sees it. megalodon (npm) is the core of the Whalebird and Fedistar
// desktop apps; unlike masto it first asks NodeInfo what the server is
// (detector), reads the server's version from /api/v1/instance, and finds
// the streaming URL there. Each area is one test, so that a failure names it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import generator, { detector } from 'megalodon';
import { BASE_URL, DEADLINE, follow, newUser, post } from './helpers.mjs';
import { REDIRECT_URI, area, authorize, codeFrom } from './mastodon-client.mjs';

const SCOPES = ['read', 'write', 'follow'];

// megalodon's stream arms a 10 s ping timer when it opens and keeps it
// after stop(), which held this file's process for 10 s after its last
// test. Its long timers are made not to hold the process (unref); they
// still fire while anything else keeps it alive.
const setTimeoutOf = globalThis.setTimeout;
globalThis.setTimeout = (fn, ms, ...args) => {
  const t = setTimeoutOf(fn, ms, ...args);
  if (ms >= 10_000) t.unref?.();
  return t;
};

/** signIn registers a user and signs it in through megalodon: an app, the authorize page, the code exchange. */
async function signIn(prefix) {
  const u = await newUser(prefix);
  const anon = generator('mastodon', BASE_URL);
  const app = await anon.registerApp('megalodon acceptance', { scopes: SCOPES, redirect_uris: REDIRECT_URI, website: 'https://app.example' });
  assert.ok(app.client_id && app.client_secret, `the app has a client id and secret: ${JSON.stringify(app)}`);
  assert.ok(app.url.startsWith(BASE_URL + '/oauth/authorize?'), `megalodon's authorize URL is the service's page: ${app.url}`);
  const code = codeFrom(await authorize({ clientId: app.client_id }, u.username, { scope: SCOPES.join(' ') }));
  const tok = await anon.fetchAccessToken(app.client_id, app.client_secret, code, REDIRECT_URI);
  assert.match(tok.access_token, /^mbt_/, 'an access token of ours');
  return { ...u, client: generator('mastodon', BASE_URL, tok.access_token) };
}

test('detector: NodeInfo says the server speaks Mastodon', area(async () => {
  assert.equal(await detector(BASE_URL), 'mastodon');
}));

test('instance: the version megalodon reads is Mastodon 4', area(async () => {
  const res = await generator('mastodon', BASE_URL).getInstance();
  assert.match(res.data.version, /^4\./, `version ${res.data.version}`);
  assert.match(res.data.urls.streaming_api, /^wss?:\/\//, 'urls.streaming_api is a WebSocket URL');
}));

test('OAuth and REST: verify credentials, post, home timeline, favourite', area(async () => {
  const alice = await signIn('galice');
  const me = await alice.client.verifyAccountCredentials();
  assert.equal(me.data.username, alice.username);
  assert.equal(me.data.id, String(alice.user.id), 'the account id is the native uid, as a string');
  const text = 'from megalodon ' + randomBytes(4).toString('hex');
  const st = await alice.client.postStatus(text);
  assert.ok(st.data.content.includes(text), `the status holds the text: ${st.data.content}`);
  const home = await alice.client.getHomeTimeline({ limit: 5 });
  assert.ok(home.data.some((s) => s.id === st.data.id), 'the status is on the author\'s home timeline');
  const fav = await alice.client.favouriteStatus(st.data.id);
  assert.equal(fav.data.favourited, true);
  assert.equal(fav.data.favourites_count, 1);
  const found = await alice.client.lookupAccount(alice.username);
  assert.equal(found.data.id, me.data.id, 'lookup finds the account');
}));

test('streaming: a followed account\'s post arrives on the user stream', area(async () => {
  const reader = await signIn('greader');
  const author = await newUser('gauthor');
  await follow(reader, author);
  const stream = await reader.client.userStreaming();
  try {
    await new Promise((ok, fail) => {
      const timer = setTimeout(() => fail(new Error('the stream did not connect')), DEADLINE);
      stream.once('connect', () => { clearTimeout(timer); ok(); });
      stream.once('error', (e) => { clearTimeout(timer); fail(e); });
    });
    const text = 'live ' + randomBytes(4).toString('hex');
    const got = new Promise((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`no update with "${text}" within ${DEADLINE} ms`)), DEADLINE);
      stream.on('update', (s) => { if (s.content.includes(text)) { clearTimeout(timer); ok(s); } });
    });
    const p = await post(author, text);
    const s = await got;
    assert.equal(s.id, String(p.id), 'the update is the post');
    assert.equal(s.account.username, author.username);
  } finally {
    stream.stop();
  }
}));
