// autocomplete.test.mjs: the composers' writing help (js/core/assist.js) in
// both front ends. In the desktop post composer at 1280 px in English, and
// in the mobile app's comment box and message box at 360 px in Chinese, a
// user types "@al" and is offered people whose name starts with it, narrows
// it to alice and picks her with the keyboard or a tap ("@alice… " replaces
// the fragment); types "#杭" and picks a topic ("#杭州…# "); picks an emoji
// from the picker (which Escape closes, giving the focus back); and writes
// past the limit, where the characters over it are marked. The textarea
// carries the combobox pattern (aria-autocomplete, aria-controls,
// aria-activedescendant on the selected option of a listbox) and a polite
// live region counts the suggestions; axe finds nothing with the list open.
// An input method's composition asks for nothing until it ends.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, launch, newUser, post, follow, desktop, phone, shot, clean, fits, axeViolations, until } from './helpers.mjs';

let browser, alice, bob, topic;
before(async () => {
  browser = await launch();
  [alice, bob] = await Promise.all([newUser('alice'), newUser('bob')]);
  await follow(bob, alice); // bob's home is not empty, as someone who mentions people
  topic = '杭州' + Date.now().toString(36).slice(-5);
  await post(alice, `#${topic}# 西湖边散步`);
});
after(async () => { await browser?.close(); });

/** aria checks the combobox pattern on box with its list open, and returns the options' texts. */
async function aria(page, box, { live }) {
  const list = page.locator('[role=listbox]:visible');
  await list.waitFor();
  assert.equal(await box.getAttribute('aria-autocomplete'), 'list');
  assert.equal(await box.getAttribute('aria-controls'), await list.getAttribute('id'));
  const selected = list.locator('[role=option][aria-selected=true]');
  assert.equal(await selected.count(), 1, 'one option is selected');
  assert.equal(await box.getAttribute('aria-activedescendant'), await selected.getAttribute('id'));
  const n = await list.locator('[role=option]').count();
  const status = box.locator('xpath=..').locator('[role=status]');
  await until(async () => live.test(await status.textContent()) && (await status.textContent()).includes(String(n)), 'the live region to count the suggestions');
  return list.locator('[role=option]').allTextContents();
}

/** typeAt types text at the end of box (focused) one key at a time, as a person would. */
async function typeAt(page, box, text) {
  await box.press('End');
  await page.keyboard.type(text);
}

/**
 * mentionAndTopic types "@al" after start, sees the suggestions (and calls
 * onOpen, for axe and a screenshot), narrows them to alice and picks her
 * with user ('enter' or 'tap'), then types "#杭", narrows to the topic and
 * picks it with topic ('tab' or 'tap').
 */
async function mentionAndTopic(page, box, { user, topic: how, live, start = '', onOpen = async () => {} }) {
  const open = page.locator('[role=listbox]:visible');
  const only = async (option, what) => {
    await until(async () => (await open.locator('[role=option]').count()) === 1 && (await option.count()) === 1, what);
  };
  await box.fill(start);
  await typeAt(page, box, '@al');
  const names = await aria(page, box, { live });
  assert.ok(names.length >= 1 && names.every((n) => /@?al/i.test(n)), `every suggestion starts with "al": ${names}`);
  await onOpen();
  await page.keyboard.type(alice.username.slice(2));
  const option = open.locator('[role=option]', { hasText: alice.username });
  await only(option, 'alice alone in the list');
  if (user === 'tap') await option.tap();
  else { await page.keyboard.press('ArrowDown'); await page.keyboard.press('ArrowUp'); await page.keyboard.press('Enter'); }
  await open.waitFor({ state: 'hidden' });
  assert.equal(await box.inputValue(), `${start}@${alice.username} `, 'the pick replaced "@al…" (and Enter sent nothing)');
  assert.equal(await box.getAttribute('aria-activedescendant'), null, 'no option is active once the list closes');

  await typeAt(page, box, '#杭');
  await aria(page, box, { live });
  await page.keyboard.type(topic.slice(1));
  const tag = open.locator('[role=option]', { hasText: `#${topic}#` });
  await only(tag, 'the topic alone in the list');
  if (how === 'tap') await tag.tap();
  else await page.keyboard.press('Tab');
  assert.equal(await box.inputValue(), `${start}@${alice.username} #${topic}# `);
  assert.equal(await box.evaluate((el) => document.activeElement === el), true, 'the box keeps the focus');
}

/**
 * emoji opens the picker from button, closes it with Escape, opens it again
 * (calling onOpen) and picks the second emoji with the arrow keys.
 */
async function emoji(page, box, button, onOpen = async () => {}) {
  await button.click();
  const dialog = page.locator('.emoji-pop:visible');
  await dialog.waitFor();
  assert.equal(await button.getAttribute('aria-expanded'), 'true');
  await until(() => dialog.locator('.emoji').first().evaluate((el) => document.activeElement === el), 'the first emoji to take the focus');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal(await box.evaluate((el) => document.activeElement === el), true, 'Escape gives the focus back to the box');
  const before_ = await box.inputValue();
  await button.click();
  await dialog.waitFor();
  await onOpen(dialog);
  const second = dialog.locator('.emoji').nth(1);
  const name = await second.getAttribute('aria-label');
  await page.keyboard.press('ArrowRight');
  assert.equal(await second.evaluate((el) => document.activeElement === el), true, 'ArrowRight moves to the next emoji');
  await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal(await box.inputValue(), before_ + '😃');
  assert.equal(await box.evaluate((el) => document.activeElement === el), true, 'the box has the focus back');
  return name;
}

/** overLimit fills box with max + 3 characters (code points) and checks the 3 past the limit are marked, over the box's text. */
async function overLimit(page, box, max) {
  const text = '好'.repeat(max - 1) + '😀' + 'ab😀';
  await box.fill(text);
  const mark = box.locator('xpath=..').locator('.assist-mark');
  await mark.waitFor();
  assert.equal(await mark.textContent(), 'ab😀', 'exactly the code points past the limit are marked');
  // The box's end in view (a narrow box scrolls): the mark moves with the text.
  await box.evaluate((el) => { el.scrollTop = el.scrollHeight; });
  await page.waitForFunction((el) => el.parentNode.querySelector('.assist-over').scrollTop === el.scrollTop, await box.elementHandle());
  const [m, b] = [await mark.boundingBox(), await box.boundingBox()];
  assert.ok(m.width > 0 && m.y >= b.y - 1 && m.y + m.height <= b.y + b.height + 1, `the mark is inside the box: mark ${JSON.stringify(m)}, box ${JSON.stringify(b)}`);
  await box.fill('好');
  await mark.waitFor({ state: 'detached' });
}

test('desktop 1280 px (en): @ and # suggestions by keyboard, an emoji, and the part over 280 marked', async () => {
  const D = await desktop(browser, bob);
  const { page } = D;
  await page.goto(`${BASE_URL}/`);
  const box = page.locator('.composer-card textarea');
  await box.waitFor();
  await box.focus();

  // An input method's composition asks for nothing; what it commits does.
  const cdp = await D.context.newCDPSession(page);
  await page.keyboard.type('#');
  await cdp.send('Input.imeSetComposition', { text: 'hang', selectionStart: 4, selectionEnd: 4 });
  await page.waitForTimeout(300); // longer than the pause before asking
  assert.equal(await page.locator('[role=listbox]:visible').count(), 0, 'no suggestions while composing');
  await cdp.send('Input.insertText', { text: '杭' });
  await page.locator('[role=listbox]:visible [role=option]').first().waitFor();
  assert.equal(await box.inputValue(), '#杭');
  await page.keyboard.press('Escape');
  await page.locator('[role=listbox]:visible').waitFor({ state: 'hidden' });
  assert.equal(await page.locator('[role=listbox]:visible').count(), 0, 'Escape closes the list');

  await mentionAndTopic(page, box, {
    user: 'enter', topic: 'tab', live: /suggestions?\. Up and down/, start: 'Hi ',
    onOpen: async () => {
      assert.deepEqual(await axeViolations(page), [], 'axe with the suggestions open');
      await shot(page, 'autocomplete-desktop-en');
    },
  });

  await box.fill('Hi ');
  const name = await emoji(page, box, page.locator('.composer-card .emoji-btn'));
  assert.equal(name, 'grinning face with big eyes');
  await overLimit(page, box, 280);

  // The comment and repost boxes have the same help.
  const p = await post(alice, 'A post to answer');
  await page.goto(`${BASE_URL}/p/${p.id}`);
  const reply = page.locator('.thread-reply textarea');
  await reply.waitFor();
  await reply.focus();
  await typeAt(page, reply, '@' + alice.username);
  await page.locator('[role=listbox]:visible [role=option]').first().waitFor();
  await page.keyboard.press('Enter');
  assert.equal(await reply.inputValue(), `@${alice.username} `);
  assert.equal(await page.locator('.thread-reply .emoji-btn').count(), 1);
  await page.locator(`.post[data-id="${p.id}"] button[data-role="reposts"]`).first().click();
  const repost = page.locator('dialog[open] textarea');
  await repost.waitFor();
  await typeAt(page, repost, '#杭');
  await page.locator('[role=listbox]:visible [role=option]').first().waitFor();
  await page.keyboard.press('Escape');
  assert.equal(await page.locator('dialog[open]').count(), 1, 'Escape closed the list, not the dialog');
  assert.equal(await page.locator('dialog[open] .emoji-btn').count(), 1);
  clean(D.w);
  await D.context.close();
});

test('mobile 360 px (zh): the comment box suggests by tap, picks an emoji, marks the part over 280', async () => {
  const p = await post(alice, '一条等待评论的微博');
  const M = await phone(browser, bob, { locale: 'zh-CN' });
  const { page } = M;
  await page.goto(`${BASE_URL}/m/#/p/${p.id}`);
  const box = page.locator('form.reply textarea').first();
  await box.waitFor();
  await box.tap();
  await mentionAndTopic(page, box, {
    user: 'tap', topic: 'tab', live: /条联想/,
    onOpen: async () => {
      assert.ok(await fits(page), 'the page with the list fits 360 px');
      assert.deepEqual(await axeViolations(page), [], 'axe with the suggestions open');
    },
  });
  await box.fill('');
  const name = await emoji(page, box, page.locator('form.reply .emoji-btn').first(), async (dialog) => {
    const r = await dialog.boundingBox();
    assert.ok(r.x >= 0 && r.x + r.width <= 360, 'the picker fits 360 px');
    await shot(page, 'autocomplete-mobile-emoji-zh');
  });
  assert.equal(name, '哈哈', 'emoji are named in Chinese');
  await overLimit(page, box, 280);
  clean(M.w);
  await M.context.close();
});

test('mobile 360 px (zh): the message box suggests people and topics, picks an emoji, marks the part over 1000', async () => {
  const M = await phone(browser, bob, { locale: 'zh-CN' });
  const { page } = M;
  await page.goto(`${BASE_URL}/m/#/messages/${alice.username}`);
  const box = page.locator('.chat-input');
  await box.waitFor();
  await box.tap();
  // Enter picks while the list is open: it does not send.
  await mentionAndTopic(page, box, {
    user: 'enter', topic: 'tap', live: /条联想/,
    onOpen: async () => {
      assert.ok(await fits(page), 'the conversation with the list fits 360 px');
      await shot(page, 'autocomplete-mobile-message-zh');
    },
  });
  assert.equal(await page.locator('.msg').count(), 0, 'nothing was sent');
  await emoji(page, box, page.locator('.chat-form .emoji-btn'));
  await overLimit(page, box, 1000);
  await page.keyboard.press('Enter');
  await page.locator('.msg', { hasText: '好' }).first().waitFor();
  clean(M.w);
  await M.context.close();
});
