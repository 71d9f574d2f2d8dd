#!/usr/bin/env node
// The arbiter's view against the mock server: irregularities and flag falls
// raise alerts (visible, and in the assertive live region); actions are
// refused without the token (401) or with a wrong one (403) and done with it.
//   node test/arbiter.mjs BASE_URL TOKEN [--timeout-ms 15000]
import { launch } from './browser.mjs';

const [base, token] = process.argv.slice(2);
if (!base || !token) {
  console.error('usage: node test/arbiter.mjs BASE_URL TOKEN');
  process.exit(2);
}
const timeout = 15_000;
const checks = [];
const check = (ok, what) => {
  checks.push({ ok, what });
  console.log(`${ok ? 'ok' : 'not ok'} - ${what}`);
};

const { page, close } = await launch();
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
page.on('dialog', (d) => d.accept());
try {
  await page.goto(`${base}/arbiter`);
  await page.waitForSelector('main[data-ready="1"] .arb-board', { timeout });
  const alertSeen = async (kind) => {
    try {
      await page.waitForSelector(`ol.alerts li.alert[data-kind="${kind}"]`, { timeout });
      return true;
    } catch {
      return false;
    }
  };
  check(await alertSeen('irregularity'), 'an irregularity raises an alert');
  const announced = await page.textContent('#announce-assertive');
  check(/Irregularity/.test(announced ?? ''), `the irregularity is in the assertive live region (${JSON.stringify((announced ?? '').slice(0, 80))})`);
  check(await alertSeen('flag_fall'), 'a flag fall raises an alert');

  const panel = page.locator('article.arb-board[data-board="b1"]');
  await panel.locator('details > summary').click().catch(() => {});
  await panel.locator('details').evaluate((d) => (d.open = true));
  const penalty = panel.locator('form.action', { hasText: 'Add time (penalty)' });
  const status = penalty.locator('.form-status');
  const addTime = penalty.getByRole('button', { name: 'Add time' });

  await addTime.click();
  await status.filter({ hasText: /Refused|Done|Failed/ }).waitFor({ timeout });
  check(/401/.test(await status.textContent()), `no token: refused with 401 (${await status.textContent()})`);

  await page.getByRole('textbox', { name: 'Arbiter token' }).fill('not-the-token');
  await page.getByRole('button', { name: 'Save' }).click();
  await addTime.click();
  await status.filter({ hasText: /403/ }).waitFor({ timeout }).catch(() => {});
  check(/403/.test(await status.textContent()), `wrong token: refused with 403 (${await status.textContent()})`);

  await page.getByRole('textbox', { name: 'Arbiter token' }).fill(token);
  await page.getByRole('button', { name: 'Save' }).click();
  await addTime.click();
  await status.filter({ hasText: /Done/ }).waitFor({ timeout }).catch(() => {});
  check(/Done/.test(await status.textContent()), `right token: done (${await status.textContent()})`);
  check(await alertSeen('penalty'), 'the penalty comes back as an event and an alert');
  const stored = await page.evaluate(() => sessionStorage.getItem('tactus.arbiterToken'));
  check(stored === token, 'the token is kept in sessionStorage');
  check(errors.length === 0, `no page errors${errors.length ? `: ${errors.join(' | ')}` : ''}`);
} finally {
  await close();
}
const failed = checks.filter((c) => !c.ok).length;
console.log(`arbiter: ${checks.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
