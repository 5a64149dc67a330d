// mastodon-client.mjs is what mastodon.test.mjs needs around the npm
// package masto: a login through the server's own OAuth authorize page over
// plain HTTP, as an app's web view would do it (no JavaScript: read the
// form, post it back with the cookies the page set, follow nothing), the
// PKCE S256 pair, a wait for one streaming event with a deadline, and the
// last failed HTTP answer for the failure messages.

import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import { BASE_URL, DEADLINE, PASSWORD } from './helpers.mjs';

/** REDIRECT_URI is where the test app says it lives; the test reads the 302 and never goes there. */
export const REDIRECT_URI = 'https://app.example/callback';

/** SCOPES is what apps such as Elk and Phanpy ask for. */
export const SCOPES = 'read write follow push';

/** pkce makes a PKCE code verifier and its S256 challenge (RFC 7636). */
export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** newApp registers an OAuth app through masto: {clientId, clientSecret, ...}. */
export async function newApp(name = 'masto.js acceptance', scopes = SCOPES) {
  const rest = createRestAPIClient({ url: BASE_URL });
  const app = await rest.v1.apps.create({ clientName: name, redirectUris: REDIRECT_URI, scopes, website: 'https://app.example' });
  assert.equal(app.name, name, 'the app keeps its name');
  assert.ok(app.clientId && app.clientSecret, `the app has a client id and secret: ${JSON.stringify(app)}`);
  return app;
}

const entities = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", '#x27': "'", '#34': '"', '#x2F': '/', '#47': '/' };
const unescape = (s) => s.replace(/&(#?\w+);/g, (m, e) => entities[e] ?? m);

/** attrs reads a tag's attributes (quoted with " or ', or bare). */
function attrs(tag) {
  const out = {};
  for (const [, name, v1, v2, v3] of tag.matchAll(/([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/g)) {
    out[name.toLowerCase()] = unescape(v1 ?? v2 ?? v3);
  }
  return out;
}

/** authorizeForm reads the login and consent form of the authorize page: its action and hidden fields. */
export function authorizeForm(html, pageURL) {
  const form = html.match(/<form\b[^>]*>/i);
  assert.ok(form, `the authorize page has a form: ${html.slice(0, 500)}`);
  const f = attrs(form[0]);
  assert.equal((f.method || 'get').toLowerCase(), 'post', 'the authorize form posts');
  const hidden = {};
  const names = new Set();
  for (const [input] of html.matchAll(/<(?:input|button)\b[^>]*>/gi)) {
    const a = attrs(input);
    if (a.name) names.add(a.name);
    if (a.type === 'hidden' && a.name) hidden[a.name] = a.value ?? '';
  }
  for (const field of ['username', 'password', 'decision']) {
    assert.ok(names.has(field), `the authorize form has a field named ${field} (fields: ${[...names].join(', ')})`);
  }
  return { action: new URL(f.action || pageURL, pageURL).href, hidden };
}

/** cookieHeader keeps the cookies a response set, as a browser would send them back. */
function cookieHeader(res, jar) {
  for (const c of res.headers.getSetCookie?.() ?? []) {
    const [pair] = c.split(';');
    const i = pair.indexOf('=');
    jar.set(pair.slice(0, i).trim(), pair.slice(i + 1).trim());
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
}

/**
 * authorize goes through GET /oauth/authorize and its form as a browser
 * would, answering decision (approve or deny) with the given password, and
 * returns the POST's answer (a 302 when it worked; not followed).
 */
export async function authorize(app, username, { password = PASSWORD, decision = 'approve', scope = SCOPES, challenge, state = randomBytes(8).toString('hex') } = {}) {
  const q = new URLSearchParams({ response_type: 'code', client_id: app.clientId, redirect_uri: REDIRECT_URI, scope, state });
  if (challenge) q.set('code_challenge', challenge), q.set('code_challenge_method', 'S256');
  const pageURL = `${BASE_URL}/oauth/authorize?${q}`;
  const jar = new Map();
  const page = await fetch(pageURL, { redirect: 'manual' });
  const html = await page.text();
  assert.equal(page.status, 200, `GET /oauth/authorize shows the login page: ${page.status} ${html.slice(0, 300)}`);
  assert.match(page.headers.get('content-type') || '', /text\/html/, 'the authorize page is HTML');
  const { action, hidden } = authorizeForm(html, pageURL);
  const body = new URLSearchParams({ ...hidden, username, password, decision });
  const res = await fetch(action, {
    method: 'POST', redirect: 'manual', body,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookieHeader(page, jar), Origin: BASE_URL, Referer: pageURL },
  });
  return { res, state, text: await res.text() };
}

/** codeFrom reads the authorization code of a 302 to the app, checking state. */
export function codeFrom({ res, state, text }) {
  assert.equal(res.status, 302, `approving the authorize form redirects to the app: ${res.status} ${text.slice(0, 300)}`);
  const loc = new URL(res.headers.get('location'));
  assert.equal(loc.origin + loc.pathname, REDIRECT_URI, 'the redirect goes to the app\'s redirect_uri');
  assert.equal(loc.searchParams.get('state'), state, 'the redirect carries the state back');
  const code = loc.searchParams.get('code');
  assert.ok(code, `the redirect carries a code: ${loc}`);
  return code;
}

/**
 * login logs username in through masto: an app, the authorize page, and
 * the code exchanged with PKCE S256. It returns the token and a REST client.
 */
export async function login(username, { scope = SCOPES, app } = {}) {
  app ??= await newApp();
  const { verifier, challenge } = pkce();
  const code = codeFrom(await authorize(app, username, { scope, challenge }));
  const oauth = createOAuthAPIClient({ url: BASE_URL });
  const token = await oauth.token.create({
    grantType: 'authorization_code', clientId: app.clientId, clientSecret: app.clientSecret,
    redirectUri: REDIRECT_URI, code, codeVerifier: verifier, scope,
  });
  assert.match(token.accessToken, /^mbt_/, 'an access token of ours starts with mbt_');
  assert.equal(token.tokenType, 'Bearer');
  assert.equal(token.scope, scope, 'the token has the scopes asked for');
  assert.equal(typeof token.createdAt, 'number', 'created_at is a Unix time');
  return { app, token: token.accessToken, rest: createRestAPIClient({ url: BASE_URL, accessToken: token.accessToken, mediaTimeout: DEADLINE }) };
}

/**
 * events reads a masto streaming subscription: next(pred, what, ms) waits
 * up to ms (DEADLINE) for the first event matching pred, keeping the others
 * for later calls, and fails naming what it waited for (an error with
 * timeout set), or with the stream's own error.
 */
export function events(subscription) {
  const it = subscription.values();
  const seen = [];
  // Pulled at once: masto sends the subscription when the first value is
  // asked for, and what is published before that never comes.
  let pending = it.next();
  return {
    seen,
    async next(pred, what, ms = DEADLINE) {
      const end = Date.now() + ms;
      for (;;) {
        const i = seen.findIndex(pred);
        if (i >= 0) return seen.splice(i, 1)[0];
        const left = end - Date.now();
        if (left <= 0) throw Object.assign(new Error(`waited ${ms} ms for ${what}; got ${JSON.stringify(seen.map((e) => [e.event, e.stream]))}`), { timeout: true });
        pending ??= it.next();
        let timer;
        const r = await Promise.race([pending, new Promise((ok) => { timer = setTimeout(ok, left, 'timeout'); })]);
        clearTimeout(timer);
        if (r === 'timeout') continue;
        pending = null;
        if (r.done) throw new Error(`the stream ended while waiting for ${what}`);
        seen.push(r.value);
      }
    },
  };
}

/**
 * failures remembers the last few answers outside 2xx, request by request:
 * masto's errors say only a status (and "[object Object]" for an error body
 * that is not Mastodon's), so area() adds what was asked and answered.
 */
const failures = [];
const nativeFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const res = await nativeFetch(input, init);
  if (!res.ok && res.status !== 302) {
    const req = input instanceof Request ? input : new Request(input, init);
    const body = await res.clone().text().catch(() => '');
    failures.push(`${req.method} ${new URL(req.url).pathname}: ${res.status} ${body.slice(0, 200)}`);
    failures.splice(0, failures.length - 3);
  }
  return res;
};

/** area runs a test's body, adding the last failed HTTP answers to its error. */
export function area(fn) {
  return async (t) => {
    failures.length = 0;
    try {
      await fn(t);
    } catch (e) {
      if (!(e instanceof Error)) throw e;
      const msg = typeof e.message === 'string' ? e.message : JSON.stringify(e.message);
      e.message = `${msg}\n  the last HTTP answers outside 2xx: ${failures.join(' | ') || 'none'}`;
      e.stack = `${e.name}: ${e.message}\n${(e.stack || '').split('\n').filter((l) => /^\s+at /.test(l)).join('\n')}`;
      throw e;
    }
  };
}
