// recovery.test.mjs: a user who forgot their password gets it back by
// mail, through the real SMTP server the Go test starts (aiosmtpd, which
// writes each message into MAIL_DIR, where these tests read it): on the
// desktop page at 1280 px in English, the address is set and confirmed in
// the Account page; on the phone at 360 px in Chinese, "忘记密码？" asks for
// the link, the mailed page sets a new password, and the new password logs
// in. axe-core checks every screen of the way.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  BASE_URL, launch, newUser, api, desktop, phone, until, clean, shot, fits, axeViolations,
} from './helpers.mjs';

const MAIL_DIR = process.env.MAIL_DIR;

let browser;
before(async () => {
  assert.ok(MAIL_DIR, 'MAIL_DIR is not set: run through server/browser_test.go');
  browser = await launch();
});
after(async () => { await browser?.close(); });

/** decodeQP decodes a quoted-printable body (soft line breaks, =XX bytes) as UTF-8. */
function decodeQP(text) {
  const joined = text.replace(/=\r?\n/g, '');
  const bytes = [];
  for (let i = 0; i < joined.length; i++) {
    const m = joined[i] === '=' && /^[0-9A-F]{2}$/i.test(joined.slice(i + 1, i + 3));
    if (m) { bytes.push(parseInt(joined.slice(i + 1, i + 3), 16)); i += 2; } else bytes.push(...Buffer.from(joined[i]));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** mailTo waits for a mail to address that is not one of seen (file names), and returns {file, subject, body, link}. */
async function mailTo(address, seen = []) {
  let found = null;
  await until(async () => {
    for (const file of (await readdir(MAIL_DIR)).sort()) {
      if (file.startsWith('.') || seen.includes(file)) continue;
      const raw = await readFile(join(MAIL_DIR, file), 'utf8');
      const [head, ...rest] = raw.split(/\r?\n\r?\n/);
      if (!/^X-Envelope-To: .*$/m.exec(head)?.[0].includes(address)) continue;
      const body = /quoted-printable/i.test(head) ? decodeQP(rest.join('\n\n')) : rest.join('\n\n');
      found = { file, head, body, link: /https?:\/\/\S+\/auth\/\S+/.exec(body)?.[0] };
      return true;
    }
    return false;
  }, `a mail to ${address}`);
  assert.ok(found.link, `no link in the mail:\n${found.body}`);
  assert.ok(found.link.startsWith(BASE_URL + '/auth/'), `the link ${found.link} is not on ${BASE_URL}`);
  return found;
}

/** noViolations runs axe on the page and fails on any violation. */
async function noViolations(page, label) {
  assert.deepEqual(await axeViolations(page), [], `${label}: axe violations`);
}

test('desktop, 1280 px, English: the address is set and confirmed in Account, then a forgotten password is reset by mail', async () => {
  const u = await newUser('rcv_d');
  const address = `${u.username.toLowerCase()}@example.com`;
  const { context, page, w } = await desktop(browser, u);
  try {
    await page.goto(BASE_URL + '/account');
    const section = page.locator('section[aria-labelledby=email-title]');
    await section.waitFor();
    await until(async () => section.isVisible(), 'the Email address section');
    await assert.doesNotReject(section.getByText('No address yet').waitFor());
    await section.getByLabel('Email address').fill(address);
    await section.getByRole('button', { name: 'Save' }).click();
    await section.getByText('Not confirmed').waitFor();
    await section.getByText(`We mailed a link to ${address}`).waitFor();
    await noViolations(page, 'Account, address not confirmed');
    await shot(page, 'recovery-desktop-account-pending');

    const confirm = await mailTo(address);
    assert.match(confirm.head, /^Subject: Confirm your email address/m);
    await page.goto(confirm.link);
    await page.getByText(`Confirm that ${address} is the address of your account`).waitFor();
    await noViolations(page, 'the confirmation page');
    await page.getByRole('button', { name: 'Confirm address' }).click();
    await page.getByRole('status').getByText('Your email address is confirmed').waitFor();
    await page.goto(BASE_URL + '/account');
    await section.getByText('Confirmed', { exact: true }).waitFor();
    await shot(page, 'recovery-desktop-account-confirmed');

    // Signed out, the user has forgotten the password.
    await context.clearCookies();
    await page.goto(BASE_URL + '/login');
    await page.getByRole('link', { name: 'Forgot password?' }).waitFor();
    await shot(page, 'recovery-desktop-login');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/forgot');
    await noViolations(page, 'the forgot screen');
    await page.getByLabel('Email address').fill(address.toUpperCase());
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByRole('status').getByText('a link to reset its password is on its way').waitFor();
    await noViolations(page, 'the forgot screen, sent');
    await shot(page, 'recovery-desktop-sent');

    const reset = await mailTo(address, [confirm.file]);
    assert.match(reset.head, /^Subject: Reset your password/m);
    await page.goto(reset.link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await noViolations(page, 'the reset page');
    await shot(page, 'recovery-desktop-reset');
    await page.getByLabel('New password').fill('a fresh desktop secret');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('status').getByText('Your password is changed').waitFor();
    await page.getByRole('link', { name: 'Log in', exact: true }).click();
    await page.getByLabel('Username').fill(u.username);
    await page.getByLabel('Password').fill('a fresh desktop secret');
    await page.locator('form.auth-form button[type=submit]').click();
    await until(async () => new URL(page.url()).pathname === '/', 'the home page after logging in');
    // The session from before the reset has ended.
    await assert.rejects(api('GET', '/me', { token: u.token }), /401/);
    clean(w);
  } finally {
    await context.close();
  }
});

test('phone, 360 px, Chinese: 忘记密码？ mails a link whose page sets a new password, and it logs in', async () => {
  const u = await newUser('rcv_m');
  const address = `${u.username.toLowerCase()}@example.cn`;
  await api('PATCH', '/me', { token: u.token, body: { email: address, lang: 'zh' } });
  const confirm = await mailTo(address);
  const res = await fetch(confirm.link, { method: 'POST' }); // the confirmation page's button, as a form posts it
  assert.equal(res.status, 200);
  const me = await api('GET', '/me', { token: u.token });
  assert.equal(me.email, address);

  // The Settings screen shows the address confirmed.
  const signedIn = await phone(browser, u, { locale: 'zh-CN' });
  try {
    await signedIn.page.goto(BASE_URL + '/m/#/settings');
    const section = signedIn.page.locator('section[aria-labelledby=email-title]');
    await until(async () => section.isVisible(), 'the email section');
    await section.getByText('已确认', { exact: true }).waitFor();
    await section.scrollIntoViewIfNeeded();
    assert.ok(await fits(signedIn.page), 'Settings is wider than the phone');
    await noViolations(signedIn.page, '设置');
    await shot(signedIn.page, 'recovery-mobile-settings-zh');
    clean(signedIn.w, 'settings');
  } finally {
    await signedIn.context.close();
  }

  const { context, page, w } = await phone(browser, null, { locale: 'zh-CN' });
  try {
    await page.goto(BASE_URL + '/m/#/login');
    await page.getByRole('link', { name: '忘记密码？' }).waitFor();
    await shot(page, 'recovery-mobile-login-zh');
    await page.getByRole('link', { name: '忘记密码？' }).tap();
    await page.getByRole('heading', { name: '重置密码' }).waitFor();
    assert.ok(await fits(page), 'the forgot screen is wider than the phone');
    await noViolations(page, '重置密码');
    await page.getByLabel('邮箱地址').fill(address);
    await page.getByRole('button', { name: '发送链接' }).tap();
    await page.getByRole('status').getByText('重置密码的链接已经发出').waitFor();
    await shot(page, 'recovery-mobile-sent-zh');

    const reset = await mailTo(address, [confirm.file]);
    assert.ok(reset.body.includes('重置') && reset.body.includes(u.username), `the mail is not in Chinese:\n${reset.body}`);
    assert.match(reset.link, /lang=zh/);
    await page.goto(reset.link);
    await page.getByRole('heading', { name: '设置新密码' }).waitFor();
    assert.ok(await fits(page), 'the reset page is wider than the phone');
    await noViolations(page, '设置新密码');
    await shot(page, 'recovery-mobile-reset-zh');
    await page.getByLabel('新密码').fill('short');
    await page.evaluate(() => { document.getElementById('password').removeAttribute('minlength'); });
    await page.getByRole('button', { name: '设置密码' }).tap();
    await page.getByRole('alert').getByText('密码须为 8 到 128 个字符').waitFor(); // the server's check; the link still works
    await page.getByLabel('新密码').fill('一个新的手机密码');
    await page.getByRole('button', { name: '设置密码' }).tap();
    await page.getByRole('status').getByText('密码已更改').waitFor();
    await noViolations(page, '密码已更改');
    await page.getByRole('link', { name: '在手机版登录' }).tap();
    await page.getByLabel('用户名').fill(u.username);
    await page.getByLabel('密码', { exact: true }).fill('一个新的手机密码');
    await page.locator('form.auth-form button[type=submit]').tap();
    await until(async () => page.url().endsWith('#/home'), 'the home screen after logging in');
    clean(w);
  } finally {
    await context.close();
  }
});
