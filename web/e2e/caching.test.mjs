// caching.test.mjs: the browser gets the front end's files gzipped, under
// URLs that carry their version, and on the next visit takes every one of
// them from its cache without asking the server again. (The mobile app's
// service worker still opens it offline: see mobile.test.mjs.)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, desktop, phone, clean } from './helpers.mjs';

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
    page.on('response', (r) => { if (new URL(r.url()).searchParams.has('v')) seen.push(r); });
    await page.goto(BASE_URL + first);
    await page.waitForLoadState('networkidle');
    // The page, its style sheets and every module it imports, each under ?v=.
    const scripts = seen.filter((r) => new URL(r.url()).pathname.endsWith('.js'));
    assert.ok(scripts.length >= 10, `${scripts.length} versioned modules`);
    for (const r of seen) {
      const h = await r.allHeaders();
      const path = new URL(r.url()).pathname;
      assert.equal(h['cache-control'], 'public, max-age=31536000, immutable', path);
      if (/\.(js|css|svg)$/.test(path)) assert.equal(h['content-encoding'], 'gzip', path);
    }

    // A new visit (a full page load) asks the server for the page alone.
    await page.goto(BASE_URL + second);
    await page.waitForLoadState('networkidle');
    const loaded = await page.evaluate(() => performance.getEntriesByType('resource')
      .filter((e) => new URL(e.name).searchParams.has('v')).map((e) => ({ url: e.name, bytes: e.transferSize })));
    assert.ok(loaded.length >= scripts.length, `${loaded.length} versioned files on the second visit`);
    assert.deepEqual(loaded.filter((e) => e.bytes > 0).map((e) => e.url), [], 'versioned files fetched again');
    clean(P.w, name);
    await P.context.close();
  });
}
