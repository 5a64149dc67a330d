// api.js is the client of the HTTP API under /api/v1 (docs/api.md).
// The desktop page talks to its own origin with the auth cookie; the mobile
// app may talk to any server with a bearer token: both are options here.
//
// This file is shared: the mobile app is served it from here as
// /m/js/core/ (see mobile.FS); it has no copy of its own.

import { t, errorText } from './i18n.js';

/** ApiError is a failed call, its message for the user in their language: status 0 means the server could not be reached. */
export class ApiError extends Error {
  constructor(status, code, message, retryAfter = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
  get offline() { return this.status === 0; }
}

/**
 * failure is the ApiError of a refused call: its message says what went wrong
 * in the user's language, from the contract's code (error.<code> in the
 * catalogs: the code decides, not the server's message, so every toast and
 * form says it alike); a code the catalogs do not know shows the server's
 * message, and an answer without one its status.
 */
function failure(status, body, retryAfter) {
  const e = (body && body.error) || {};
  const code = e.code || 'http_' + status;
  return new ApiError(status, code, errorText({ code, message: e.message || t('error.http', { status }) }), retryAfter);
}

/** newKey returns a random key for Idempotency-Key (crypto.randomUUID needs a secure context). */
export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

function query(params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
  const s = q.toString();
  return s ? '?' + s : '';
}

const enc = encodeURIComponent;

/**
 * createApi returns the API client.
 * base: the server's origin ('' for the page's own); getToken: returns the
 * bearer token or null (then the cookie is used); onUnauthorized: called on a
 * 401 from any call but login.
 */
export function createApi({ base = '', getToken = () => null, onUnauthorized = () => {} } = {}) {
  async function request(method, path, body, { headers = {}, quiet401 = false, retries = 0, signal } = {}) {
    const h = { Accept: 'application/json', ...headers };
    const token = getToken();
    if (token) h.Authorization = 'Bearer ' + token;
    if (body !== undefined) h['Content-Type'] = 'application/json';
    let res;
    for (let attempt = 0; ; attempt++) {
      try {
        res = await fetch(base + '/api/v1' + path, {
          method, headers: h,
          body: body === undefined ? undefined : JSON.stringify(body),
          credentials: token ? 'omit' : 'same-origin', signal,
        });
        break;
      } catch (err) {
        if (signal && signal.aborted) throw err; // the caller gave up on it: no retry, no "offline"
        // A network failure: retry writes that are safe to retry (those with an idempotency key).
        if (attempt < retries) { await new Promise((r) => setTimeout(r, 400 * (attempt + 1))); continue; }
        throw new ApiError(0, 'offline', t('error.offline'));
      }
    }
    if (res.status === 204) return null;
    let data = null;
    try { data = await res.json(); } catch { /* not JSON */ }
    if (!res.ok) {
      const err = failure(res.status, data, res.headers.get('Retry-After'));
      // A wrong password (invalid_credentials) is not a lost session.
      if (res.status === 401 && !quiet401 && err.code !== 'invalid_credentials') onUnauthorized();
      throw err;
    }
    return data;
  }

  function form(file, alt) {
    const f = new FormData();
    if (alt) f.append('alt', alt);
    f.append('file', file, file.name || 'image');
    return f;
  }

  /** send is request() for a multipart body, with upload progress; xhr.abort() via the returned promise's abort. */
  function send(method, path, body, onProgress = () => {}) {
    const xhr = new XMLHttpRequest();
    const p = new Promise((resolve, reject) => {
      xhr.open(method, base + '/api/v1' + path);
      xhr.setRequestHeader('Accept', 'application/json');
      const token = getToken();
      if (token) xhr.setRequestHeader('Authorization', 'Bearer ' + token);
      xhr.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(e.loaded / e.total); };
      xhr.onerror = () => reject(new ApiError(0, 'offline', t('error.offline')));
      xhr.onabort = () => reject(new ApiError(0, 'aborted', t('error.aborted')));
      xhr.onload = () => {
        let data = null;
        try { data = JSON.parse(xhr.responseText); } catch { /* not JSON */ }
        if (xhr.status >= 200 && xhr.status < 300) { onProgress(1); resolve(data); return; }
        if (xhr.status === 401) onUnauthorized();
        reject(failure(xhr.status, data, xhr.getResponseHeader('Retry-After')));
      };
      xhr.send(body);
    });
    p.abort = () => xhr.abort();
    return p;
  }

  return {
    base,
    register: (username, password) => request('POST', '/users', { username, password }, { quiet401: true }),
    login: (username, password, provider = null) => request('POST', '/sessions', provider ? { username, password, provider } : { username, password }, { quiet401: true }),
    providers: () => request('GET', '/auth/providers', undefined, { quiet401: true }),
    /** requestPasswordReset asks for a reset link mailed to email, written in lang. */
    requestPasswordReset: (email, lang) => request('POST', '/password_resets', { email, lang }, { quiet401: true }),
    ssoHandover: () => request('POST', '/auth/oidc/handover', undefined, { quiet401: true }),
    logout: () => request('DELETE', '/sessions/current', undefined, { quiet401: true }),
    logoutAll: () => request('DELETE', '/sessions'),
    me: () => request('GET', '/me', undefined, { quiet401: true }),
    changePassword: (oldPassword, newPassword) => request('PUT', '/me/password', { old_password: oldPassword, new_password: newPassword }),
    deleteAccount: (password) => request('DELETE', '/me', { password }),
    /** updateMe changes fields of one's own User: {bio}, {protected} or {messages_from}. */
    updateMe: (fields) => request('PATCH', '/me', fields),
    user: (name) => request('GET', '/users/' + enc(name)),
    follow: (name) => request('PUT', '/users/' + enc(name) + '/follow'),
    unfollow: (name) => request('DELETE', '/users/' + enc(name) + '/follow'),
    followers: (name, page) => request('GET', '/users/' + enc(name) + '/followers' + query(page)),
    following: (name, page) => request('GET', '/users/' + enc(name) + '/following' + query(page)),
    userPosts: (name, page) => request('GET', '/users/' + enc(name) + '/posts' + query(page)),
    // createPost, comment and sendMessage take the write's Idempotency-Key:
    // the mobile app's outbox (outbox.js) makes it when the user writes, so
    // that sending again, even after the app was closed, never writes twice.
    createPost: (content, repostOf = null, mediaIds = [], key = newKey(), { poll = null, spoiler = '' } = {}) => request('POST', '/posts',
      { content, ...(repostOf ? { repost_of: repostOf } : {}), ...(mediaIds.length ? { media_ids: mediaIds } : {}), ...(poll ? { poll } : {}), ...(spoiler ? { spoiler } : {}) },
      { headers: { 'Idempotency-Key': key }, retries: 2 }),
    vote: (id, choices) => request('POST', '/polls/' + enc(id) + '/votes', { choices }),
    poll: (id) => request('GET', '/polls/' + enc(id)),
    post: (id) => request('GET', '/posts/' + enc(id)),
    deletePost: (id) => request('DELETE', '/posts/' + enc(id)),
    comment: (id, content, key = newKey()) => request('POST', '/posts/' + enc(id) + '/comments', { content },
      { headers: { 'Idempotency-Key': key }, retries: 2 }),
    comments: (id, page) => request('GET', '/posts/' + enc(id) + '/comments' + query(page)),
    home: (page) => request('GET', '/timelines/home' + query(page)),
    public: (page) => request('GET', '/timelines/public' + query(page)),

    // Social features: likes, notifications, topics, search.
    like: (id) => request('PUT', '/posts/' + enc(id) + '/like'),
    unlike: (id) => request('DELETE', '/posts/' + enc(id) + '/like'),
    unrepost: (id) => request('DELETE', '/posts/' + enc(id) + '/repost'),
    likes: (id, page) => request('GET', '/posts/' + enc(id) + '/likes' + query(page)),
    notifications: (page) => request('GET', '/notifications' + query(page)),
    readNotifications: (upTo) => request('POST', '/notifications/read', { up_to: upTo }),
    push: () => request('GET', '/me/push'),
    setPush: (sub) => request('PUT', '/me/push', sub),
    deletePush: () => request('DELETE', '/me/push'),
    tagPosts: (tag, page) => request('GET', '/tags/' + enc(tag) + '/posts' + query(page)),
    tag: (tag) => request('GET', '/tags/' + enc(tag)),
    followTag: (tag) => request('PUT', '/tags/' + enc(tag) + '/follow'),
    unfollowTag: (tag) => request('DELETE', '/tags/' + enc(tag) + '/follow'),
    followedTags: (page) => request('GET', '/me/tags' + query(page)),
    searchUsers: (q, page, opts) => request('GET', '/search/users' + query({ ...page, q }), undefined, opts),
    searchTags: (q, page, opts) => request('GET', '/search/tags' + query({ ...page, q }), undefined, opts),
    searchPosts: (q, page) => request('GET', '/search/posts' + query({ ...page, q })),
    trends: () => request('GET', '/trends/tags'),
    suggestions: (page) => request('GET', '/suggestions/users' + query(page)),

    // Safety (docs/api.md, section 8): blocks, mutes, word filters,
    // follow requests, reports, and the operators' moderation.
    block: (name) => request('PUT', '/users/' + enc(name) + '/block'),
    unblock: (name) => request('DELETE', '/users/' + enc(name) + '/block'),
    mute: (name) => request('PUT', '/users/' + enc(name) + '/mute'),
    unmute: (name) => request('DELETE', '/users/' + enc(name) + '/mute'),
    blocks: (page) => request('GET', '/me/blocks' + query(page)),
    mutes: (page) => request('GET', '/me/mutes' + query(page)),
    filters: () => request('GET', '/me/filters'),
    setFilters: (words) => request('PUT', '/me/filters', { words }),
    followRequests: (page) => request('GET', '/me/follow_requests' + query(page)),
    approve: (name) => request('PUT', '/me/follow_requests/' + enc(name)),
    reject: (name) => request('DELETE', '/me/follow_requests/' + enc(name)),
    report: (username, reason, postIds = []) => request('POST', '/reports',
      { username, reason, ...(postIds.length ? { post_ids: postIds } : {}) }),
    reports: (page) => request('GET', '/admin/reports' + query({ resolved: 'false', ...page })),
    resolveReport: (id) => request('POST', '/admin/reports/' + enc(id) + '/resolve'),
    suspend: (name) => request('POST', '/admin/users/' + enc(name) + '/suspend'),
    unsuspend: (name) => request('DELETE', '/admin/users/' + enc(name) + '/suspend'),
    removePost: (id) => request('DELETE', '/admin/posts/' + enc(id)),
    // Domain blocks (federation): each answers {domains: [...]} as they are.
    domainBlocks: () => request('GET', '/admin/domain_blocks'),
    blockDomain: (domain) => request('PUT', '/admin/domain_blocks/' + enc(domain)),
    unblockDomain: (domain) => request('DELETE', '/admin/domain_blocks/' + enc(domain)),

    // Private messages (docs/api.md, section 9). sendMessage takes the
    // Idempotency-Key of the message being sent, so that sending it again
    // (the Retry of one that failed) can never write it twice.
    conversations: (page) => request('GET', '/conversations' + query(page)),
    messages: (name, page) => request('GET', '/conversations/' + enc(name) + '/messages' + query(page)),
    sendMessage: (name, content, key = newKey(), mediaIds = []) => request('POST', '/conversations/' + enc(name) + '/messages',
      mediaIds.length ? { content, media_ids: mediaIds } : { content }, { headers: { 'Idempotency-Key': key }, retries: 2 }),
    readConversation: (name, upTo) => request('POST', '/conversations/' + enc(name) + '/read', { up_to: upTo }),
    unreadConversation: (name) => request('POST', '/conversations/' + enc(name) + '/unread'),
    deleteMessage: (id) => request('DELETE', '/messages/' + enc(id)),
    // Editing, pinning and bookmarks (docs/api.md, section 11).
    editPost: (id, content) => request('PATCH', '/posts/' + enc(id), { content }),
    history: (id) => request('GET', '/posts/' + enc(id) + '/history'),
    pin: (id) => request('PUT', '/posts/' + enc(id) + '/pin'),
    unpin: (id) => request('DELETE', '/posts/' + enc(id) + '/pin'),
    pinned: (name) => request('GET', '/users/' + enc(name) + '/pinned'),
    bookmark: (id) => request('PUT', '/posts/' + enc(id) + '/bookmark'),
    unbookmark: (id) => request('DELETE', '/posts/' + enc(id) + '/bookmark'),
    bookmarks: (page) => request('GET', '/me/bookmarks' + query(page)),
    // Lists (关注分组; docs/api.md, Lists).
    lists: () => request('GET', '/me/lists'),
    list: (id) => request('GET', '/me/lists/' + enc(id)),
    createList: (title, exclusive = false) => request('POST', '/me/lists', { title, exclusive }),
    updateList: (id, change) => request('PATCH', '/me/lists/' + enc(id), change),
    deleteList: (id) => request('DELETE', '/me/lists/' + enc(id)),
    listPosts: (id, page) => request('GET', '/me/lists/' + enc(id) + '/posts' + query(page)),
    listMembers: (id, page) => request('GET', '/me/lists/' + enc(id) + '/members' + query(page)),
    addToList: (id, name) => request('PUT', '/me/lists/' + enc(id) + '/members/' + enc(name)),
    removeFromList: (id, name) => request('DELETE', '/me/lists/' + enc(id) + '/members/' + enc(name)),
    listsWith: (name) => request('GET', '/users/' + enc(name) + '/lists'),

    // Pictures. Uploads go through XMLHttpRequest, whose
    // upload progress fetch does not report; onProgress gets 0…1.
    uploadMedia: (file, alt = '', onProgress) => send('POST', '/media', form(file, alt), onProgress),
    setAvatar: (file, onProgress) => send('PUT', '/me/avatar', form(file), onProgress),
    setHeader: (file, onProgress) => send('PUT', '/me/header', form(file), onProgress),

    /** wsURL is the live feed's address, with ?after=, ?seen=, ?messages_after= and ?token= as needed. */
    wsURL(after, messagesAfter, seen = []) {
      const u = new URL('/ws', base || location.origin);
      u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
      const token = getToken();
      if (token) u.searchParams.set('token', token);
      if (after || seen.length) u.searchParams.set('after', after);
      if (seen.length) u.searchParams.set('seen', seen.join(','));
      if (messagesAfter !== null && messagesAfter !== undefined) u.searchParams.set('messages_after', messagesAfter);
      return u.toString();
    },
  };
}

/** countChars counts characters the way the server does (Unicode code points). */
export function countChars(s) {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** MAX_POST is the longest post or comment, in characters. */
export const MAX_POST = 280;
