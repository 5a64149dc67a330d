// caching.test.mjs: the browser gets the front end's files gzipped, under
// URLs that carry their version, and on the next visit takes every one of
// them from its cache without asking the server again. (The mobile app's
// service worker still opens it offline: see mobile.test.mjs.)
// The code is the bundle the server made of the modules
// (server/api/static_bundle.go), whose files' names carry their version
// (js/bundle/app-<hash>.js); the rest carries it as ?v=.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, desktop, phone, clean } from './helpers.mjs';

/** versioned tells whether a URL names one version of a file, for ever. */
const versioned = (url) => new URL(url).searchParams.has('v') || /\/bundle\/[^/]+-[A-Z0-9]{8}\.js$/.test(new URL(url).pathname);

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

for (const [name, open, first, second] of [
  ['desktop', desktop, '/public', '/login'],
  ['mobile', phone, '/m/#/public', '/m/?again#/login'], // a new query: a new page, not a hash change
]) {
  test(`${name}: files come gzipped and versioned, then from the cache`, async () => {
    const P = await open(browser, null);
    const { page } = P;
    const seen = [];
    page.on('response', (r) => { if (versioned(r.url())) seen.push(r); });
    await page.goto(BASE_URL + first);
    await page.waitForLoadState('networkidle');
    // The page's style sheets and code: the bundle's entry, its shared chunk
    // and the language's three catalogs, at least.
    const scripts = seen.filter((r) => new URL(r.url()).pathname.endsWith('.js'));
    assert.ok(scripts.length >= 5, `${scripts.length} versioned scripts: ${scripts.map((r) => r.url())}`);
    for (const r of seen) {
      const h = await r.allHeaders();
      const path = new URL(r.url()).pathname;
      assert.equal(h['cache-control'], 'public, max-age=31536000, immutable', path);
      // Gzipped, but where gzip would not save a tenth (a chunk of a few bytes).
      if (/\.(js|css|svg)$/.test(path) && Number(h['content-length']) > 1000) assert.equal(h['content-encoding'], 'gzip', path);
    }

    // A new visit (a full page load) asks the server for the page alone.
    await page.goto(BASE_URL + second);
    await page.waitForLoadState('networkidle');
    const loaded = (await page.evaluate(() => performance.getEntriesByType('resource')
      .map((e) => ({ url: e.name, bytes: e.transferSize })))).filter((e) => versioned(e.url));
    assert.ok(loaded.length >= scripts.length, `${loaded.length} versioned files on the second visit`);
    assert.deepEqual(loaded.filter((e) => e.bytes > 0).map((e) => e.url), [], 'versioned files fetched again');
    clean(P.w, name);
    await P.context.close();
  });
}
