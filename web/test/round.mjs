#!/usr/bin/env node
// The arbiter's view of a round from the pairing program, against a running
// `tactus relay --round-trf FILE --round N` (never a stand-in): the boards
// in FIDE's order with their players; a result refused without the token;
// each board's result set on the page; the file downloaded with them, byte
// for byte what it must be; the file read again for a round it does not
// pair, the page saying where the file is wrong.
//
//   node test/round.mjs BASE_URL TOKEN --expect FILE [--timeout-ms 20000]
//
// Sets board 1 to 1-0, 2 to ½-½, 3 to 0-1 and 4 to -+ (a forfeit), then
// compares the download with FILE. Prints "ok - …"/"not ok - …" lines;
// exits 0 when all pass, 1 when not, 2 on bad arguments.
import { readFileSync } from 'node:fs';
import { launch } from './browser.mjs';

const argv = process.argv.slice(2);
const flag = (name) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const [base, token] = argv.filter((a, i) => !a.startsWith('--') && !(argv[i - 1] ?? '').startsWith('--'));
const expect = flag('expect');
if (!base || !token || !expect) {
  console.error('usage: node test/round.mjs BASE_URL TOKEN --expect FILE [--timeout-ms MS]');
  process.exit(2);
}
const timeout = Number(flag('timeout-ms') ?? '20000');
const checks = [];
const check = (ok, what) => {
  checks.push({ ok, what });
  console.log(`${ok ? 'ok' : 'not ok'} - ${what}`);
};

const { page, close } = await launch();
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
try {
  await page.goto(`${base}/arbiter`);
  await page.waitForSelector('main[data-ready="1"] section.round[data-loaded="1"]:not([hidden])', { timeout });
  const round = page.locator('section.round');
  const heading = (await round.locator('h2').textContent()) ?? '';
  check(heading === 'Round 1 — Hall Open 2025', `the round and its tournament (${heading})`);
  const rows = round.locator('table.round-boards tbody tr');
  check((await rows.count()) === 4, 'four boards');
  const second = (await rows.nth(1).innerText()).replace(/\s+/g, ' ');
  check(/^2 CM Novak, Petr \(2200\) IM Kowalczyk, Irina \(2488\)/.test(second), `board 2 in FIDE's order (${second})`);

  const status = round.locator('p.form-status');
  const setResult = async (board, result) => {
    const form = round.locator(`form.round-result[data-board="${board}"]`);
    await form.locator('select').selectOption(result);
    await status.evaluate((s) => (s.textContent = ''));
    await form.locator('button').click();
    await status.filter({ hasText: /Board|Refused|Not done|Could not/ }).waitFor({ timeout });
    return (await status.textContent()) ?? '';
  };
  let said = await setResult(1, '1-0');
  check(/401/.test(said), `no token: refused with 401 (${said})`);
  await page.getByRole('textbox', { name: 'Arbiter token' }).fill(token);
  await page.getByRole('button', { name: 'Save' }).click();
  for (const [board, result] of [[1, '1-0'], [2, '1/2-1/2'], [3, '0-1'], [4, '-+']]) {
    said = await setResult(board, result);
    check(/^Board \d: .* is in the file\.$/.test(said), `board ${board} set to ${result} (${said})`);
    await round.locator(`tr[data-board="${board}"][data-result="${result}"]`).waitFor({ timeout });
  }

  const [download] = await Promise.all([page.waitForEvent('download', { timeout }), round.locator('button[data-action="download"]').click()]);
  const path = await download.path();
  const got = readFileSync(path);
  const want = readFileSync(expect);
  check(download.suggestedFilename() === 'open.trf', `the file keeps its name (${download.suggestedFilename()})`);
  check(Buffer.compare(got, want) === 0, `the download is the file with the round's results, byte for byte (${got.length} bytes, ${want.length} expected)`);

  const reload = round.locator('form.round-reload');
  await reload.locator('input[name="round"]').fill('2');
  await status.evaluate((s) => (s.textContent = ''));
  await reload.locator('button').click();
  await status.filter({ hasText: /Not done|Round 2 read/ }).waitFor({ timeout });
  said = (await status.textContent()) ?? '';
  check(/422/.test(said) && /line 12, column 102: round 2 is not paired/.test(said), `a round the file does not pair: the page says where (${said})`);
  const alert = round.locator('p.round-error');
  await alert.waitFor({ timeout });
  const alertText = (await alert.textContent()) ?? '';
  check(/line 12, column 102/.test(alertText) && /stays as it was/.test(alertText), `the error stays on the page (${alertText})`);
  check((await round.locator('h2').textContent()) === 'Round 1 — Hall Open 2025', 'the relay keeps round 1');
  check(errors.length === 0, `no page errors${errors.length ? `: ${errors.join(' | ')}` : ''}`);
} catch (e) {
  check(false, `the round's view works: ${e}`);
} finally {
  await close();
}
const failed = checks.filter((c) => !c.ok).length;
console.log(`round: ${checks.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
