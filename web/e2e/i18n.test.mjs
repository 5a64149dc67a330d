// i18n.test.mjs: the message catalogs (web/js/core/locales) hold the same
// keys in English and Chinese, every key the code and the markup ask for is
// in them, no key is in two catalogs of one language (they are merged into
// one namespace), and the vendored i18next is the npm package's file as it
// is. No browser: it reads the files.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, '..', '..');
const LOCALES = join(ROOT, 'web', 'js', 'core', 'locales');
const LANGS = ['en', 'zh-CN'];
const NAMESPACES = ['core', 'desktop', 'mobile'];
const PLURAL = /_(zero|one|two|few|many|other)$/;

async function catalog(lang, ns) {
  return (await import(pathToFileURL(join(LOCALES, lang, `${ns}.js`)).href)).default;
}

/** base drops a plural suffix: English has key_one and key_other where Chinese has key_other. */
const base = (key) => key.replace(PLURAL, '');

async function files(dir, ext) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(ext)) out.push(join(entry.parentPath ?? entry.path, entry.name));
  }
  return out.filter((f) => !f.includes('/vendor/') && !f.includes('/locales/') && !f.includes('/e2e/') && !f.includes('node_modules'));
}

test('both languages have the same keys, catalog by catalog', async () => {
  for (const ns of NAMESPACES) {
    const [en, zh] = [await catalog('en', ns), await catalog('zh-CN', ns)];
    const enKeys = new Set(Object.keys(en).map(base));
    const zhKeys = new Set(Object.keys(zh).map(base));
    assert.deepEqual([...enKeys].filter((k) => !zhKeys.has(k)), [], `keys of en/${ns}.js missing from zh-CN/${ns}.js`);
    assert.deepEqual([...zhKeys].filter((k) => !enKeys.has(k)), [], `keys of zh-CN/${ns}.js missing from en/${ns}.js`);
    for (const [key, value] of Object.entries({ ...en, ...zh })) {
      assert.equal(typeof value, 'string', `${ns}: ${key} is not a string`);
      assert.ok(value.trim() !== '', `${ns}: ${key} is empty`);
    }
    // A plural in English has both forms; Chinese has one form, "other".
    for (const key of Object.keys(en).filter((k) => k.endsWith('_one'))) {
      assert.ok(base(key) + '_other' in en, `en/${ns}.js: ${key} has no _other`);
      assert.ok(base(key) + '_other' in zh, `zh-CN/${ns}.js: ${base(key)} has no _other`);
    }
  }
});

test('no key is in two catalogs of a language', async () => {
  for (const lang of LANGS) {
    const seen = new Map();
    for (const ns of NAMESPACES) {
      for (const key of Object.keys(await catalog(lang, ns))) {
        assert.ok(!seen.has(key), `${lang}: ${key} is in both ${seen.get(key)}.js and ${ns}.js`);
        seen.set(key, ns);
      }
    }
  }
});

test('every key the code and the markup use is in the catalogs', async () => {
  const en = {};
  for (const ns of NAMESPACES) Object.assign(en, await catalog('en', ns));
  const known = (key) => key in en || `${key}_other` in en;
  const used = [];
  for (const file of [...await files(join(ROOT, 'web'), '.js'), ...await files(join(ROOT, 'mobile'), '.js')]) {
    const src = await readFile(file, 'utf8');
    for (const m of src.matchAll(/\bt\(\s*(['"])([\w.-]+)\1/g)) used.push([relative(ROOT, file), m[2]]);
  }
  for (const file of [join(ROOT, 'web', 'index.html'), join(ROOT, 'mobile', 'index.html')]) {
    const src = await readFile(file, 'utf8');
    for (const m of src.matchAll(/data-i18n(?:-[a-z-]+)?="([\w.-]+)"/g)) used.push([relative(ROOT, file), m[1]]);
  }
  assert.ok(used.length > 0, 'no use of the catalogs found');
  const missing = used.filter(([, key]) => !known(key)).map(([file, key]) => `${file}: ${key}`);
  assert.deepEqual(missing, [], 'keys used but in no catalog');
});

test('the vendored i18next is the pinned npm package, unchanged', async () => {
  const vendored = await readFile(join(ROOT, 'web', 'js', 'core', 'vendor', 'i18next.js'));
  const pkg = await readFile(join(here, 'node_modules', 'i18next', 'dist', 'esm', 'i18next.js'));
  assert.ok(vendored.equals(pkg), 'web/js/core/vendor/i18next.js differs from node_modules/i18next: run make vendor');
});
