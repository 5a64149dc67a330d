// bidi.test.mjs: the bidirectional controls that users put in what they
// write (a right-to-left override, embeddings, isolates) are shown as
// nothing: they cannot turn "exe.txt" around, or the text after them, in
// posts, comments, reposts and bios, on the desktop page and in the mobile
// app (the security probe).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, post, follow, api, desktop, phone, clean } from './helpers.mjs';

const RLO = '\u202e', LRE = '\u202a', PDF = '\u202c', RLI = '\u2067', PDI = '\u2069';
const CONTROLS = /[\u202a-\u202e\u2066-\u2069]/gu;

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/**
 * checkShown finds each text by its first word (which holds no control) and
 * asserts that it shows all its letters, in order, and no bidi control.
 */
async function checkShown(page, w, selector, texts, label) {
  for (const t of texts) {
    const el = page.locator(selector, { hasText: t.split(' ')[0] }).first();
    await el.waitFor();
    const shown = await el.textContent();
    assert.equal(shown, t.replaceAll(CONTROLS, ''), `${label}: shown without its bidi controls`);
  }
  clean(w, label);
}

test('bidirectional controls in what users write are neutralised', async () => {
  const mallory = await newUser('mallory'), bob = await newUser('bob');
  await follow(bob, mallory);
  const spoof = `invoice ${RLO}fdp.exe done`;
  const p1 = await post(mallory, spoof);
  const embedded = `say ${LRE}abc${PDF} and ${RLI}xyz${PDI} end`;
  await post(mallory, embedded);
  await post(mallory, `repost ${RLO}quoted`, p1.id);
  await api('POST', `/posts/${p1.id}/comments`, { token: mallory.token, body: { content: `reply ${RLO}txt.gnp` } });
  await api('PATCH', '/me', { token: mallory.token, body: { bio: `bio ${RLO}olleh` } });

  const D = await desktop(browser, bob);
  await D.page.goto(`${BASE_URL}/`);
  await checkShown(D.page, D.w, '.content', [spoof, embedded, `repost ${RLO}quoted`], 'desktop home');
  await D.page.goto(`${BASE_URL}/p/${p1.id}`);
  await checkShown(D.page, D.w, '.content', [spoof, `reply ${RLO}txt.gnp`], 'desktop thread');
  await D.page.goto(`${BASE_URL}/u/${mallory.username}`);
  await checkShown(D.page, D.w, '.bio', [`bio ${RLO}olleh`], 'desktop profile');

  const M = await phone(browser, bob);
  await M.page.goto(`${BASE_URL}/m/`);
  await checkShown(M.page, M.w, '.content', [spoof, embedded], 'mobile home');
  await M.page.goto(`${BASE_URL}/m/#/p/${p1.id}`);
  await checkShown(M.page, M.w, '.content', [`reply ${RLO}txt.gnp`], 'mobile thread');

  await D.context.close(); await M.context.close();
});
