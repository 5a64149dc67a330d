// helpers.mjs is shared by the browser tests: it launches Debian's Chromium
// through playwright-core, makes users through the API, opens desktop and
// phone-sized pages already logged in, and saves screenshots.
//
// The tests run under server/browser_test.go, which starts Redis and the
// server and passes BASE_URL (the server) and CONTROL_URL (to restart it).

import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { deflateSync } from 'node:zlib';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BASE_URL = (process.env.BASE_URL || '').replace(/\/$/, '');
export const CONTROL_URL = (process.env.CONTROL_URL || '').replace(/\/$/, '');
if (!BASE_URL) {
  throw new Error('BASE_URL is not set: run these tests through `go test ./server -run TestBrowser` (or make test), which starts the server');
}
// CHROMIUM is set by browser_test.go (Debian's chromium-headless-shell where installed).
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium-headless-shell';
const here = dirname(fileURLToPath(import.meta.url));
export const SHOTS = join(here, 'screenshots');

/**
 * DEADLINE is how long a page action or wait may take before it fails: a
 * deadline against hangs, not a speed check, so a busy machine passes too.
 * Speed is measured by the benchmarks (make bench, make bench-live).
 */
export const DEADLINE = 30_000;

/** until polls fn every 50 ms until it is true, failing after DEADLINE. */
export async function until(fn, what = 'the condition') {
  const end = Date.now() + DEADLINE;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`waited ${DEADLINE} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// CHROMIUM_FULL is the whole browser, for what the headless build lacks:
// notifications and push messaging (push.test.mjs).
const CHROMIUM_FULL = process.env.CHROMIUM_FULL || '/usr/bin/chromium';

/** launch starts headless Chromium (with full, the whole browser headless); close it in an after hook. */
export async function launch({ full = false } = {}) {
  return chromium.launch({
    executablePath: full ? CHROMIUM_FULL : CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

let seq = 0;
/** uniqueName makes a username no other test run uses (2–30 chars of [A-Za-z0-9_]). */
export function uniqueName(prefix) {
  return `${prefix}_${Date.now().toString(36).slice(-5)}${(seq++).toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
}

export const PASSWORD = 'correct horse battery';

/** api calls the server as a client would, with a bearer token if given. */
export async function api(method, path, { token, body, headers = {} } = {}) {
  const h = { ...headers };
  if (token) h.Authorization = 'Bearer ' + token;
  if (body !== undefined) h['Content-Type'] = 'application/json';
  const res = await fetch(BASE_URL + '/api/v1' + path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return data;
}

/** newUser registers a user: {username, token, user}. */
export function newUser(prefix) {
  return register(uniqueName(prefix));
}

/** register registers the user called username (say the operator the server names): {username, token, user}. */
export async function register(username) {
  const res = await api('POST', '/users', { body: { username, password: PASSWORD } });
  return { username, token: res.token, user: res.user };
}

/** post writes a post as u. */
export function post(u, content, repostOf) {
  return api('POST', '/posts', { token: u.token, body: repostOf ? { content, repost_of: repostOf } : { content } });
}

/** follow makes a follow b. */
export function follow(a, b) {
  return api('PUT', `/users/${encodeURIComponent(b.username)}/follow`, { token: a.token });
}

/**
 * watch records what must never happen on a page: uncaught errors, console
 * errors, and dialogs (an alert() from injected script would show as one).
 * Dialogs are dismissed so a test never hangs on one.
 */
export function watch(page) {
  // The front ends ask in their own dialog (core/ask.js): a browser dialog is a fault.
  const w = { errors: [], dialogs: [], console: [] };
  page.on('pageerror', (e) => w.errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') w.console.push(m.text()); });
  page.on('dialog', (d) => {
    w.dialogs.push(`${d.type()}: ${d.message()}`);
    d.dismiss().catch(() => {});
  });
  return w;
}

/** desktop opens a 1280×800 page logged in as u (by its session cookie), or anonymous. */
export async function desktop(browser, u, { colorScheme = 'light', locale = 'en-US' } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme, locale });
  if (u) await context.addCookies([{ name: 'auth', value: u.token, url: BASE_URL, httpOnly: true, sameSite: 'Lax' }]);
  context.setDefaultTimeout(DEADLINE);
  const page = await context.newPage();
  const w = watch(page);
  return { context, page, w };
}

/** phone opens a 360×740 touch page of the mobile app logged in as u (token in local storage). */
export async function phone(browser, u, { colorScheme = 'light', serviceWorkers = 'block', locale = 'en-US' } = {}) {
  const context = await browser.newContext({
    viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true,
    colorScheme, locale, serviceWorkers,
    userAgent: 'Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Mobile Safari/537.36',
  });
  if (u) {
    await context.addInitScript(([t]) => { if (!localStorage.getItem('microblog.token')) localStorage.setItem('microblog.token', t); }, [u.token]);
  }
  context.setDefaultTimeout(DEADLINE);
  const page = await context.newPage();
  const w = watch(page);
  return { context, page, w };
}

/** APP_ORIGIN is where the tests pretend the packaged mobile app runs from (Cordova serves it from its own origin). */
export const APP_ORIGIN = process.env.APP_ORIGIN || 'http://localhost:5999';
const MOBILE_DIR = join(here, '..', '..', 'mobile');
// The files the app shares with the desktop page live only in web/; packaging
// copies them into www/ (see docs/frontends.md), so the test serves them from there.
const WEB_DIR = join(here, '..');
const fromWeb = (path) => path === '/core.css' || path.startsWith('/js/core/');
const TYPES = {
  '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png', '.svg': 'image/svg+xml',
  '.webmanifest': 'application/manifest+json', '.json': 'application/json', '.xml': 'application/xml', '.ico': 'image/x-icon',
};

/**
 * serveApp serves mobile/ (with the shared files from web/) at APP_ORIGIN
 * in context, the way Cordova serves www/ from the device, and lets pages
 * from there talk to the server (Chromium asks before a page from
 * elsewhere talks to a loopback server; a phone talking to a real server
 * is not asked). With www, it serves that folder instead: a Cordova build's.
 */
export async function serveApp(context, { www = null } = {}) {
  await context.grantPermissions(['local-network-access'], { origin: APP_ORIGIN });
  await context.route(`${APP_ORIGIN}/**`, async (route) => {
    let path = decodeURIComponent(new URL(route.request().url()).pathname);
    path = normalize(path === '/' ? '/index.html' : path);
    const dir = www || (fromWeb(path) ? WEB_DIR : MOBILE_DIR);
    const file = normalize(join(dir, path));
    if (!file.startsWith(dir + '/')) return route.fulfill({ status: 404 });
    try {
      await route.fulfill({ body: await readFile(file), contentType: TYPES[extname(file)] || 'application/octet-stream' });
    } catch {
      await route.fulfill({ status: 404 });
    }
  });
}

/** shot saves a screenshot as screenshots/<name>.png for people to look at. */
export async function shot(page, name, opts = {}) {
  await mkdir(SHOTS, { recursive: true });
  await page.evaluate(() => document.fonts && document.fonts.ready);
  await page.screenshot({ path: join(SHOTS, name + '.png'), animations: 'disabled', ...opts });
}

/** control asks the Go test to stop, start or restart the server (same port, same Redis). */
export async function control(action) {
  assert.ok(CONTROL_URL, 'CONTROL_URL is not set: run through server/browser_test.go');
  const res = await fetch(CONTROL_URL + '/' + action, { method: 'POST' });
  assert.equal(res.status, 204, `control ${action}: ${res.status} ${await res.text()}`);
}

/** postsShown returns the ids of the posts in a feed list, top to bottom. */
export function feedIds(page, scope = '[role=feed]') {
  return page.$$eval(`${scope} > .post, ${scope} > [data-key]`, (els) => els.map((e) => Number(e.dataset.key || e.dataset.id)));
}

/** clean asserts a page raised no errors and no dialogs. */
export function clean(w, label = 'page') {
  assert.deepEqual(w.errors, [], `${label}: uncaught errors`);
  assert.deepEqual(w.dialogs, [], `${label}: unexpected dialogs`);
}

/** fits says whether nothing on the page is wider than the window (no sideways scrolling). */
export function fits(page) {
  return page.evaluate(() => document.documentElement.scrollWidth <= innerWidth);
}

/**
 * unnamedControls lists the links and buttons that assistive technology
 * would announce without a name (say an icon whose text is hidden), as
 * Chromium computes accessible names.
 */
export async function unnamedControls(page) {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const bad = nodes.filter((n) => !n.ignored && ['link', 'button'].includes(n.role && n.role.value) &&
      !String((n.name && n.name.value) || '').trim());
    return Promise.all(bad.map(async (n) => {
      const { outerHTML } = await cdp.send('DOM.getOuterHTML', { backendNodeId: n.backendDOMNodeId });
      return outerHTML.slice(0, 160);
    }));
  } finally {
    await cdp.detach();
  }
}

/**
 * contrast is the WCAG contrast ratio of the text of the first element
 * matching locator against what is behind it (the first opaque background
 * up the tree, with any translucent ones over it).
 */
export function contrast(locator) {
  return locator.first().evaluate((el) => {
    // A canvas turns any CSS colour (rgb(), color(srgb …), oklab(), …) into RGBA bytes.
    const ctx = Object.assign(document.createElement('canvas'), { width: 1, height: 1 }).getContext('2d', { willReadFrequently: true });
    const rgba = (css) => {
      ctx.clearRect(0, 0, 1, 1);
      ctx.fillStyle = '#000';
      ctx.fillStyle = css;
      ctx.fillRect(0, 0, 1, 1);
      return [...ctx.getImageData(0, 0, 1, 1).data].map((x) => x / 255); // not premultiplied
    };
    const over = (top, below) => top.slice(0, 3).map((c, i) => c * top[3] + below[i] * (1 - top[3])).concat(1);
    const layers = [];
    for (let n = el; n; n = n.parentElement) {
      const c = rgba(getComputedStyle(n).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] === 1) break;
    }
    let bg = [1, 1, 1, 1]; // the canvas of the page, should nothing be opaque
    for (const c of layers.reverse()) bg = over(c, bg);
    const fg = over(rgba(getComputedStyle(el).color), bg);
    const lum = (c) => {
      const [r, g, b] = c.slice(0, 3).map((x) => (x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    return (hi + 0.05) / (lo + 0.05);
  });
}

// ---- pictures: a tiny PNG encoder, so the tests draw their own images ----

const CRC = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/** png draws a w×h RGB picture: a diagonal blend of two colours, with a stripe. */
export function png(w, h, [r1, g1, b1], [r2, g2, b2]) {
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) {
    const row = y * (w * 3 + 1);
    raw[row] = 0;
    for (let x = 0; x < w; x++) {
      const t = (x / w + y / h) / 2;
      const stripe = Math.abs(x - y * w / h) < w / 12;
      const i = row + 1 + x * 3;
      raw[i] = stripe ? 255 : r1 + (r2 - r1) * t;
      raw[i + 1] = stripe ? 255 : g1 + (g2 - g1) * t;
      raw[i + 2] = stripe ? 255 : b1 + (b2 - b1) * t;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0); ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; ihdr[9] = 2; // 8 bits, RGB
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** upload sends a picture of u's to POST /media: the Media object. */
export async function upload(u, buffer, alt = '') {
  const form = new FormData();
  if (alt) form.append('alt', alt);
  form.append('file', new Blob([buffer], { type: 'image/png' }), 'picture.png');
  const res = await fetch(BASE_URL + '/api/v1/media', { method: 'POST', headers: { Authorization: 'Bearer ' + u.token }, body: form });
  if (res.status !== 201) throw new Error(`POST /media: ${res.status} ${await res.text()}`);
  return res.json();
}

/**
 * englishLeft lists the English a user can see on page as it is now: text
 * (and the aria-label, placeholder, title and alt that speak for elements)
 * with two or more Latin letters in a row, outside what users wrote. What
 * users wrote (posts, names, handles) is marked translate="no" by the front
 * ends, as HTML means it, and is skipped, as are hidden elements.
 */
export async function englishLeft(page) {
  return page.evaluate(() => {
    const latin = /[A-Za-z]{2,}/;
    const found = [];
    const skip = (el) => el.closest('[translate="no"], [hidden], script, style, noscript, svg, [aria-hidden="true"]');
    const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden'; };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || skip(el) || !latin.test(n.data) || !shown(el)) continue;
      found.push(`${el.tagName.toLowerCase()}: ${n.data.trim()}`);
    }
    for (const el of document.body.querySelectorAll('[aria-label], [placeholder], [title], [alt]')) {
      if (skip(el)) continue;
      for (const attr of ['aria-label', 'placeholder', 'title', 'alt']) {
        const v = el.getAttribute(attr);
        if (v && latin.test(v)) found.push(`${el.tagName.toLowerCase()}[${attr}]: ${v}`);
      }
    }
    if (latin.test(document.title)) found.push(`title: ${document.title}`);
    return found;
  });
}

const AXE = join(here, 'node_modules', 'axe-core', 'axe.min.js');

/**
 * axeViolations runs axe-core on page as it is now, for WCAG 2.1 A and AA
 * and axe's best practices, and returns its violations as lines ("rule:
 * target …"). axe is evaluated in the page (not a <script>, which the
 * page's Content-Security-Policy would refuse).
 */
export async function axeViolations(page) {
  // A row that has just arrived live fades in (.enter, 0.45 s); axe would
  // read its text's contrast mid-fade, as no reader sees it for long.
  await page.evaluate(() => Promise.all(document.getAnimations()
    .filter((a) => a.effect?.getComputedTiming().endTime !== Infinity).map((a) => a.finished.catch(() => {}))));
  if (!await page.evaluate(() => Boolean(window.axe))) await page.evaluate(await readFile(AXE, 'utf8'));
  const violations = await page.evaluate(() => window.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    resultTypes: ['violations'],
  }).then((r) => r.violations.map((v) => ({ id: v.id, help: v.help, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')),
      why: v.nodes[0]?.any[0]?.message ?? v.nodes[0]?.failureSummary ?? '' }))));
  return violations.map((v) => `${v.id} (${v.help}): ${v.targets.join(', ')}${v.why ? ` (${v.why})` : ''}`);
}
