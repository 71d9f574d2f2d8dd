#!/usr/bin/env node
// The arbiter's view against a running tactus relay or daemon (never a
// stand-in): irregularities and flag falls are alerts; an alert on record
// before the page opened says so rather than showing the page's own time;
// actions are refused without the token (401) or with a wrong one (403),
// done with it (the penalty comes back from the board as a live alert), and
// refused with the server's reason on a board whose game is over.
//
//   node test/arbiter.mjs BASE_URL TOKEN --live ID --over ID [--timeout-ms 20000]
//
// --live: a board whose game goes on (the penalty is added there);
// --over: a board whose game has ended. Prints "ok - …"/"not ok - …" lines;
// exits 0 when all pass, 1 when not, 2 on bad arguments.
import { launch } from './browser.mjs';

const argv = process.argv.slice(2);
const flag = (name) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const [base, token] = argv.filter((a, i) => !a.startsWith('--') && !(argv[i - 1] ?? '').startsWith('--'));
const live = flag('live');
const over = flag('over');
if (!base || !token || !live || !over) {
  console.error('usage: node test/arbiter.mjs BASE_URL TOKEN --live ID --over ID [--timeout-ms MS]');
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
page.on('dialog', (d) => d.accept());
try {
  await page.goto(`${base}/arbiter`);
  await page.waitForSelector('body[data-live="1"] main[data-ready="1"] .arb-board', { timeout });
  const alert = (kind, board) => page.locator(`ol.alerts li.alert[data-kind="${kind}"]${board ? `[data-board="${board}"]` : ''}`).first();
  const seen = async (kind, board) => {
    try {
      await alert(kind, board).waitFor({ timeout });
      return true;
    } catch {
      return false;
    }
  };
  check(await seen('irregularity'), 'an irregularity is an alert');
  check(await seen('flag_fall'), 'a flag fall is an alert');
  const when = (await alert('irregularity').locator('.when').textContent()) ?? '';
  check(/before this page opened/.test(when) && /game time \d/.test(when), `an alert on record says so, with its game time (${when})`);

  const act = async (board, form, fill) => {
    const panel = page.locator(`article.arb-board[data-board="${board}"]`);
    await panel.locator('details').evaluate((d) => (d.open = true));
    const f = panel.locator(`form.action[data-action="${form}"]`);
    if (fill) await fill(f);
    const status = f.locator('.form-status');
    await status.evaluate((s) => (s.textContent = ''));
    await f.locator('button[type="submit"]').first().click();
    await status.filter({ hasText: /Refused|Sent|Not done|Could not/ }).waitFor({ timeout });
    return (await status.textContent()) ?? '';
  };
  const penalty = (board) => act(board, 'Add time (penalty)', async (f) => f.locator('input[name="ms"]').fill('1:00'));

  // The action boxes of a board sit side by side without overlapping, at a
  // desktop's width and a tablet's.
  for (const width of [1280, 1000, 800]) {
    await page.setViewportSize({ width, height: 900 });
    const panel = page.locator(`article.arb-board[data-board="${live}"]`);
    await panel.locator('details').evaluate((d) => (d.open = true));
    const overlaps = await panel.evaluate((p) => {
      const boxes = [...p.querySelectorAll('form.action fieldset')].map((f) => f.getBoundingClientRect());
      const out = [];
      boxes.forEach((a, i) =>
        boxes.slice(i + 1).forEach((b) => {
          if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) out.push([a.left, b.left]);
        }),
      );
      return out;
    });
    check(overlaps.length === 0, `the action boxes do not overlap at ${width} px${overlaps.length ? `: ${JSON.stringify(overlaps)}` : ''}`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });

  let said = await penalty(live);
  check(/401/.test(said), `no token: refused with 401 (${said})`);
  await page.getByRole('textbox', { name: 'Arbiter token' }).fill('not-the-token');
  await page.getByRole('button', { name: 'Save' }).click();
  said = await penalty(live);
  check(/403/.test(said), `wrong token: refused with 403 (${said})`);
  await page.getByRole('textbox', { name: 'Arbiter token' }).fill(token);
  await page.getByRole('button', { name: 'Save' }).click();
  said = await penalty(live);
  check(/^Sent/.test(said), `right token: sent (${said})`);
  check(await seen('penalty', live), 'the penalty comes back from the board as an alert');
  const penaltyWhen = (await alert('penalty', live).locator('.when').textContent()) ?? '';
  check(/\d\d:\d\d:\d\d/.test(penaltyWhen) && !/before this page/.test(penaltyWhen), `a live alert has the time it came (${penaltyWhen})`);
  // In the board's words, as the server has them for the penalty.
  const penaltyText = (await alert('penalty', live).locator('.alert-text').textContent()) ?? '';
  const record = await (await fetch(`${base}/api/game/${encodeURIComponent(live)}`)).json();
  const told = record.irregularities.filter((r) => r.event === 'penalty').pop()?.text;
  check(penaltyText === told && /1 minute/.test(penaltyText), `the penalty says what it gave, in the board's words (${penaltyText})`);

  said = await act(over, 'Clocks');
  check(/503/.test(said) && /is over/.test(said), `a finished game takes no actions, and the page says why (${said})`);
  const stored = await page.evaluate(() => sessionStorage.getItem('tactus.arbiterToken'));
  check(stored === token, 'the token is kept for this tab only (sessionStorage)');
  check(errors.length === 0, `no page errors${errors.length ? `: ${errors.join(' | ')}` : ''}`);
} catch (e) {
  check(false, `the arbiter's view works: ${e}`);
} finally {
  await close();
}
const failed = checks.filter((c) => !c.ok).length;
console.log(`arbiter: ${checks.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
