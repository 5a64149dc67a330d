// config.js holds what the app keeps on the phone: which server to talk to,
// the session token (the app sends it as a bearer token, never a cookie, so
// it works from Cordova's own origin too), and a copy of the last home
// timeline to show when offline.

import { t } from './core/i18n.js';

const KEY_SERVER = 'microblog.server';
const KEY_TOKEN = 'microblog.token';
const KEY_USER = 'microblog.user';
const KEY_HOME = 'microblog.home';

function get(key) {
  try { return localStorage.getItem(key); } catch { return null; }
}
function set(key, value) {
  try {
    if (value === null || value === undefined) localStorage.removeItem(key); else localStorage.setItem(key, value);
  } catch { /* storage full or disabled: the app still works for this session */ }
}

/**
 * defaultServer is the server the page came from when the server itself
 * serves it (at /m/); inside Cordova there is none and the user sets one.
 */
function defaultServer() {
  if (/^https?:$/.test(location.protocol) && location.pathname.startsWith('/m/')) return location.origin;
  return null;
}

/**
 * packaged says whether the app runs apart from a server (Cordova's app,
 * or any origin but a server's /m/): then the user chooses the server.
 */
export function packaged() {
  return Boolean(window.cordova) || defaultServer() === null;
}

/** server returns the server's origin, e.g. "https://microblog.example.com", or null. */
export function server() {
  return get(KEY_SERVER) || defaultServer();
}

/** setServer stores the server's origin; it returns the normalized value or throws. */
export function setServer(value) {
  const v = String(value || '').trim();
  if (!v) { set(KEY_SERVER, null); return server(); }
  let u;
  try { u = new URL(/^[a-z]+:\/\//i.test(v) ? v : 'https://' + v); } catch { throw new Error(t('mobile.settings.bad_address')); }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error(t('mobile.settings.scheme'));
  set(KEY_SERVER, u.origin === defaultServer() ? null : u.origin);
  return u.origin;
}

export const token = () => get(KEY_TOKEN);
export const setToken = (value) => set(KEY_TOKEN, value);

export function savedUser() {
  try { return JSON.parse(get(KEY_USER) || 'null'); } catch { return null; }
}
export const saveUser = (u) => set(KEY_USER, u ? JSON.stringify(u) : null);

export function savedHome() {
  try { return JSON.parse(get(KEY_HOME) || 'null'); } catch { return null; }
}
export const saveHome = (items) => set(KEY_HOME, items ? JSON.stringify(items.slice(0, 30)) : null);
