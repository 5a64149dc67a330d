// firstpaint.mjs measures a cold first load of both front ends, the desktop
// page (/) and the mobile app (/m/, its service worker blocked), as a user
// with a home timeline of posts sees it: how many requests and bytes, when
// the first non-blank paint came (first-paint) and the first text or image
// (first-contentful-paint) and when the first
// post of the timeline was on screen. Each load is a new browser context
// with the cache disabled, on loopback and on two throttled networks that
// Chromium emulates (Network.emulateNetworkConditions: a round trip added to
// every request, and a download and upload rate).
//
// It starts its own redis-server (a throwaway one, in a temporary folder) and
// the server binary, makes a reader who follows three writers with 30 posts,
// and prints a table and the command that reproduces it. Run it with
// `make bench-firstpaint` (FIRSTPAINT_ARGS="-runs 5"), or
//   node web/e2e/bench/firstpaint.mjs -server bin/microblog [-runs N] [-json out.json]
// Node 20+, playwright-core from web/e2e (npm ci --prefix web/e2e) and
// Chromium (CHROMIUM, else /usr/bin/chromium).

import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith('-')) acc.push([a.replace(/^-+/, ''), all[i + 1] && !all[i + 1].startsWith('-') ? all[i + 1] : 'true']);
  return acc;
}, []));
const SERVER = resolve(args.server || 'bin/microblog');
const RUNS = Number(args.runs || 3);
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// PROFILES are the networks: latency is the round trip Chromium adds to each
// request, in ms; down and up are in bytes per second.
const PROFILES = [
  { name: 'loopback', latency: 0, down: -1, up: -1 },
  { name: '150ms/1.6Mbit', latency: 150, down: 1.6e6 / 8, up: 750e3 / 8 },
  { name: '400ms/750kbit', latency: 400, down: 750e3 / 8, up: 250e3 / 8 },
];
if (args.profiles) PROFILES.splice(0, PROFILES.length, ...PROFILES.filter((p) => args.profiles.split(',').includes(p.name)));

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); });
    s.on('error', fail);
  });
}

async function waitFor(fn, what) {
  const end = Date.now() + 60_000;
  for (;;) {
    try { if (await fn()) return; } catch { /* not yet */ }
    if (Date.now() > end) throw new Error(`waited a minute for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const procs = [];
function start(cmd, argv, env) {
  const p = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (b) => { tail = (tail + b).slice(-4000); };
  p.stdout.on('data', keep); p.stderr.on('data', keep);
  p.tail = () => tail;
  procs.push(p);
  return p;
}
function stopAll() { for (const p of procs) if (p.exitCode === null) p.kill('SIGTERM'); }
process.on('exit', stopAll);
process.on('SIGINT', () => { stopAll(); process.exit(130); });

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'firstpaint-'));
  try {
    const redisPort = await freePort();
    start('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no']);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const server = start(SERVER, [], {
      REDIS_URL: `redis://127.0.0.1:${redisPort}/0`, MICROBLOG_ADDR: `127.0.0.1:${port}`,
      MICROBLOG_RATE_LIMITS: 'off', MICROBLOG_BCRYPT_COST: '4', MICROBLOG_LOG_LEVEL: 'warn',
      MICROBLOG_ARCHIVE: 'off', MICROBLOG_MEDIA_DIR: join(dir, 'media'),
    });
    await waitFor(async () => (await fetch(base + '/readyz')).ok, `the server on ${base}:\n${server.tail()}`);
    const reader = await seed(base);
    const browser = await chromium.launch({
      executablePath: CHROMIUM, headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const results = [];
    try {
      for (const front of ['desktop', 'mobile']) {
        for (const profile of PROFILES) {
          const runs = [];
          for (let i = 0; i < RUNS; i++) runs.push(await load(browser, base, reader, front, profile));
          results.push({ front, profile: profile.name, ...median(runs) });
        }
      }
    } finally {
      await browser.close();
    }
    report(results);
    if (args.json) await writeFile(args.json, JSON.stringify(results, null, 2) + '\n');
  } finally {
    stopAll();
    await rm(dir, { recursive: true, force: true });
  }
}

async function api(base, method, path, token, body) {
  const res = await fetch(base + '/api/v1' + path, {
    method,
    headers: { ...(token ? { Authorization: 'Bearer ' + token } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

// seed makes the reader, three writers it follows and 30 posts on its home timeline.
async function seed(base) {
  const user = async (name) => ({ name, token: (await api(base, 'POST', '/users', null, { username: name, password: 'correct horse battery' })).token });
  const reader = await user('reader');
  for (let w = 0; w < 3; w++) {
    const writer = await user(`writer${w}`);
    await api(base, 'PUT', `/users/${writer.name}/follow`, reader.token);
    for (let i = 0; i < 10; i++) {
      await api(base, 'POST', '/posts', writer.token, { content: `Post ${i} by writer ${w}: a line or two of text, as a timeline holds, with a #topic and a mention of @reader.` });
    }
  }
  return reader;
}

// load opens the front end once, cold, on profile, and measures it.
async function load(browser, base, reader, front, profile) {
  const mobile = front === 'mobile';
  const context = await browser.newContext(mobile
    ? { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, serviceWorkers: 'block', locale: 'en-US' }
    : { viewport: { width: 1280, height: 800 }, serviceWorkers: 'block', locale: 'en-US' });
  if (mobile) {
    await context.addInitScript(([t]) => { localStorage.setItem('microblog.token', t); }, [reader.token]);
  } else {
    await context.addCookies([{ name: 'auth', value: reader.token, url: base, httpOnly: true, sameSite: 'Lax' }]);
  }
  // The moment the first post is in the document, on the page's own clock
  // (ms since the navigation started), as FCP is.
  await context.addInitScript(() => {
    new MutationObserver((_, obs) => {
      if (document.querySelector('[role=feed] .post, [role=feed] [data-key]')) {
        window.__firstPost = performance.now();
        obs.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false, latency: profile.latency, downloadThroughput: profile.down, uploadThroughput: profile.up,
  });
  let requests = 0;
  let bytes = 0;
  const urls = [];
  cdp.on('Network.requestWillBeSent', (e) => { if (!e.request.url.startsWith('data:') && !e.request.url.startsWith('ws')) { requests++; urls.push(e.request.url); } });
  cdp.on('Network.loadingFinished', (e) => { bytes += e.encodedDataLength; });
  await page.goto(base + (mobile ? '/m/#/home' : '/'), { waitUntil: 'commit' });
  await page.waitForFunction(() => window.__firstPost !== undefined, null, { timeout: 120_000, polling: 50 });
  // first-paint: the first pixel that is not the blank page (the top bar,
  // a placeholder); first-contentful-paint: the first text or image.
  const paint = (name) => page.evaluate((n) => new Promise((ok) => {
    new PerformanceObserver((list) => {
      const e = list.getEntriesByName(n)[0];
      if (e) ok(e.startTime);
    }).observe({ type: 'paint', buffered: true });
  }), name);
  const fp = await paint('first-paint');
  const fcp = await paint('first-contentful-paint');
  const firstPost = await page.evaluate(() => window.__firstPost);
  // Count what the first view still asks for after the first post (avatars,
  // the live feed's start): the page is loaded when the network is quiet.
  await page.waitForLoadState('networkidle').catch(() => {});
  await context.close();
  return { requests, bytes, fp, fcp, firstPost, urls };
}

function median(runs) {
  const mid = (k) => runs.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
  return { requests: mid('requests'), kB: Math.round(mid('bytes') / 1024), fpMs: Math.round(mid('fp')), fcpMs: Math.round(mid('fcp')), firstPostMs: Math.round(mid('firstPost')), urls: runs[0].urls };
}

function report(results) {
  console.log(`firstpaint: cold loads, cache disabled, service worker blocked; median of ${RUNS} runs per row`);
  console.log('front    network         requests       kB   first paint ms   contentful ms   first post ms');
  for (const r of results) {
    console.log(`${r.front.padEnd(8)} ${r.profile.padEnd(15)} ${String(r.requests).padStart(8)} ${String(r.kB).padStart(8)} ${String(r.fpMs).padStart(16)} ${String(r.fcpMs).padStart(15)} ${String(r.firstPostMs).padStart(15)}`);
  }
  if (args.verbose) for (const r of results.filter((x) => x.profile === 'loopback')) console.log(`\n${r.front} requests:\n  ` + r.urls.join('\n  '));
  console.log(`\nreproduce: node web/e2e/bench/firstpaint.mjs -server ${SERVER} -runs ${RUNS}`);
}

main().catch((e) => { console.error(e); stopAll(); process.exit(1); });
