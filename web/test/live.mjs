#!/usr/bin/env node
// Loads /board/<id> of a running tactus daemon or relay in Debian's headless
// Chromium, waits for the board to render, then for a move to appear in the
// move list, and says how long after a marker it appeared.
//
//   node test/live.mjs BASE_URL [--board b1] [--san SAN | --next]
//        [--completed] [--timeout-ms 10000] [--max-delay-ms MS]
//        [--marker ready|epoch:MS|file:PATH] [--screenshot PATH]
//        [--chromium /usr/bin/chromium]
//
// --san SAN     wait for this SAN at a ply the list did not hold when the
//               board rendered; --next (the default) for any new move.
// --completed   only a move completed by the clock press counts (by default a
//               tentative `move` counts too: the board has shown it).
// --marker      what the delay is measured from: when the board rendered
//               (ready, the default), a wall-clock time in ms since the epoch
//               (epoch:MS), or such a number in a file that may be written
//               before or after the move appears (file:PATH).
// --max-delay-ms  fail when the move appeared later than this after the marker.
//
// Prints "READY <ms since the epoch>" on stdout once the board has rendered
// (moves already on the list then do not count; a caller can make the move
// after this line), then one JSON line {"ok",...,"delay_ms"} on stdout and a
// sentence starting "live.mjs: PASS" (stdout) or "live.mjs: FAIL" (stderr).
// Exits 0 when the move appeared (in time), 1 when not, 2 on bad arguments.
import { readFileSync, existsSync } from 'node:fs';
import { launch } from './browser.mjs';

function usage(msg) {
  console.error(`live.mjs: ${msg}`);
  console.error('usage: node test/live.mjs BASE_URL [--board ID] [--san SAN | --next] [--completed] [--timeout-ms MS] [--max-delay-ms MS] [--marker ready|epoch:MS|file:PATH] [--screenshot PATH] [--chromium PATH]');
  process.exit(2);
}

const argv = process.argv.slice(2);
const opts = { board: 'b1', san: null, completed: false, timeout: 10_000, maxDelay: null, marker: 'ready', screenshot: null, chromium: null };
let base = null;
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const val = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
  switch (a) {
    case '--board': opts.board = val(); break;
    case '--san': opts.san = val(); break;
    case '--next': opts.san = null; break;
    case '--completed': opts.completed = true; break;
    case '--timeout-ms': opts.timeout = Number(val()); break;
    case '--max-delay-ms': opts.maxDelay = Number(val()); break;
    case '--marker': opts.marker = val(); break;
    case '--screenshot': opts.screenshot = val(); break;
    case '--chromium': opts.chromium = val(); break;
    case '-h': case '--help': usage('help');
    default:
      if (a.startsWith('--') || base) usage(`unexpected argument ${a}`);
      base = a;
  }
}
if (!base) usage('BASE_URL is required');
if (!/^https?:\/\//.test(base)) usage(`BASE_URL must start with http:// (got ${base})`);
if (!Number.isFinite(opts.timeout) || opts.timeout <= 0) usage('--timeout-ms must be a positive number');
if (opts.maxDelay !== null && !Number.isFinite(opts.maxDelay)) usage('--max-delay-ms must be a number');
if (!/^(ready|epoch:\d+|file:.+)$/.test(opts.marker)) usage(`bad --marker ${opts.marker}`);
base = base.replace(/\/+$/, '');

const started = Date.now();
const deadline = started + opts.timeout;
const url = `${base}/board/${encodeURIComponent(opts.board)}`;
const what = opts.san ? `move ${opts.san}` : 'the next move';

function finish(ok, message, extra = {}) {
  console.log(JSON.stringify({ ok, url, board: opts.board, san: opts.san, ...extra }));
  (ok ? console.log : console.error)(`live.mjs: ${ok ? 'PASS' : 'FAIL'}: ${message}`);
  return ok ? 0 : 1;
}

async function readMarker(readyAt) {
  if (opts.marker === 'ready') return readyAt;
  if (opts.marker.startsWith('epoch:')) return Number(opts.marker.slice(6));
  const path = opts.marker.slice(5);
  while (Date.now() < deadline + 2000) {
    if (existsSync(path)) {
      const n = Number(readFileSync(path, 'utf8').trim());
      if (Number.isFinite(n) && n > 0) return n;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return null;
}

async function main() {
  const { page, close } = await launch({ executablePath: opts.chromium });
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  try {
    try {
      await page.goto(url, { waitUntil: 'domcontentloaded', timeout: Math.max(1000, deadline - Date.now()) });
    } catch (e) {
      return finish(false, `could not load ${url}: ${e.message}`);
    }
    try {
      await page.waitForSelector('body[data-live="1"] main[data-ready="1"] .board cg-board piece', { timeout: Math.max(1, deadline - Date.now()) });
    } catch {
      const text = (await page.textContent('main').catch(() => '')) ?? '';
      return finish(false, `the board did not render within ${opts.timeout} ms at ${url}${text ? ` (page says: ${text.trim().slice(0, 200)})` : ''}${pageErrors.length ? `; page errors: ${pageErrors.join(' | ')}` : ''}`);
    }
    const readyAt = Date.now();
    // For a caller that makes the move only once the page is watching.
    process.stdout.write(`READY ${readyAt}\n`);
    // Plies already on the list when the board rendered do not count (with
    // --completed, only those already completed).
    const before = await page.$$eval(
      '#moves .mv[data-ply]',
      (els, completed) => els.filter((e) => !completed || e.getAttribute('data-state') === 'complete').map((e) => e.getAttribute('data-ply')),
      opts.completed,
    );
    let found;
    try {
      const handle = await page.waitForFunction(
        ({ san, before, completed }) => {
          const skip = new Set(before);
          for (const el of document.querySelectorAll('#moves .mv[data-ply]')) {
            if (skip.has(el.getAttribute('data-ply'))) continue;
            if (completed && el.getAttribute('data-state') !== 'complete') continue;
            if (san && el.getAttribute('data-san') !== san) continue;
            return {
              san: el.getAttribute('data-san'),
              ply: Number(el.getAttribute('data-ply')),
              state: el.getAttribute('data-state'),
              shown_at: Number(el.getAttribute('data-shown-at')),
              event_at: el.hasAttribute('data-event-at') ? Number(el.getAttribute('data-event-at')) : null,
            };
          }
          return null;
        },
        { san: opts.san, before, completed: opts.completed },
        { polling: 'raf', timeout: Math.max(1, deadline - Date.now()) },
      );
      found = await handle.jsonValue();
    } catch {
      const list = await page.$$eval('#moves .mv[data-ply]', (els) => els.map((e) => e.getAttribute('data-san'))).catch(() => []);
      return finish(false, `${what} did not appear on ${url} within ${opts.timeout} ms (move list: ${list.slice(-8).join(' ') || 'empty'})${pageErrors.length ? `; page errors: ${pageErrors.join(' | ')}` : ''}`, { ready_at_ms: readyAt });
    }
    if (opts.screenshot) await page.screenshot({ path: opts.screenshot, fullPage: true });
    const marker = await readMarker(readyAt);
    if (marker === null) return finish(false, `${found.san} appeared, but no marker time was found in ${opts.marker.slice(5)}`, { ...found, ready_at_ms: readyAt });
    const delay = found.shown_at - marker;
    const extra = { ...found, ply: found.ply, ready_at_ms: readyAt, marker_ms: marker, delay_ms: delay };
    const desc = `${found.san} (ply ${found.ply}, ${found.state}) appeared ${delay} ms after the marker (${opts.marker.split(':')[0]})`;
    if (opts.maxDelay !== null && delay > opts.maxDelay) return finish(false, `${desc}: more than ${opts.maxDelay} ms`, extra);
    return finish(true, desc, extra);
  } finally {
    await close();
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`live.mjs: FAIL: ${e && e.stack ? e.stack : e}`);
    process.exit(1);
  },
);
