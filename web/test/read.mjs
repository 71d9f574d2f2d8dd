#!/usr/bin/env node
// Loads a page of a running tactus daemon or relay in Debian's headless
// Chromium, waits for the page to say it is ready, and prints what it shows
// as one JSON line: the text a reader sees, in the page's own structure.
//
//   node test/read.mjs BASE_URL PATH [--await-alerts N] [--wait SELECTOR] [--chromium PATH] [--timeout-ms 15000]
//
// --await-alerts N: once the page is drawn and live, print `READY` on a line
// of its own, then wait until it shows at least N alerts before reading it
// (the caller sends what makes them after the READY).
//
// --wait: also wait for an element (what the page fetches after it is
// ready, e.g. `section.lichess[data-loaded="1"]`).
// PATH `/`: the hall: `matches` (caption, and per row the board number,
// the home team's player, the points, the away team's player) and `cards`
// (board id, title, event line, last move, status); `trust` is the banner
// of a relay without a hall key when it shows. `/board/ID`: `heading`,
// `event`, `status`, `engine` (the engine's view), `moves` (SAN), `rulings` (kind and text). `/arbiter`:
// `alerts` (kind, title, when, board, text), `boards` (id, summary, and
// `lichess`: the board's line about the Lichess broadcast) and `lichess`
// (the broadcast's section: status, rounds, and the boards Lichess refused).
// Exit 0 when the page was read, 1 when it could not be, 2 on bad arguments.
import { launch } from './browser.mjs';

const argv = process.argv.slice(2);
const flag = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};
const [base, path] = argv.filter((a, i) => !a.startsWith('--') && !(argv[i - 1] ?? '').startsWith('--'));
if (!base || !path || !/^https?:\/\//.test(base)) {
  console.error('usage: node test/read.mjs BASE_URL PATH [--wait SELECTOR] [--chromium PATH] [--timeout-ms MS]');
  process.exit(2);
}
const timeout = Number(flag('timeout-ms', '15000'));
const awaitAlerts = flag('await-alerts');
const wait = flag('wait');

const { page, close } = await launch({ executablePath: flag('chromium') });
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
page.on('console', (m) => {
  if (m.type() === 'error') errors.push(m.text());
});
let code = 0;
try {
  await page.goto(base.replace(/\/$/, '') + path, { waitUntil: 'domcontentloaded', timeout });
  await page.waitForSelector('body[data-live="1"] main[data-ready="1"]', { timeout });
  if (awaitAlerts !== undefined) {
    console.log('READY');
    const n = Number(awaitAlerts);
    await page.waitForFunction((n) => document.querySelectorAll('ol.alerts li.alert').length >= n, n, { timeout });
  }
  if (wait) await page.waitForSelector(wait, { timeout, state: 'attached' });
  const shown = await page.evaluate(() => {
    const text = (el) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
    const all = (sel, f) => [...document.querySelectorAll(sel)].map(f);
    const trust = document.getElementById('trust');
    return {
      view: document.body.dataset.view,
      title: document.title,
      trust: trust && !trust.hidden ? text(trust) : null,
      matches: all('table.match', (t) => ({
        name: t.dataset.match,
        caption: text(t.querySelector('caption')),
        rows: [...t.querySelectorAll('tbody tr')].map((r) => ({
          id: r.dataset.board,
          board: text(r.querySelector('th')),
          home: text(r.children[1]),
          points: text(r.children[2]),
          away: text(r.children[3]),
        })),
      })),
      cards: all('li.card', (c) => ({
        id: c.dataset.board,
        title: text(c.querySelector('.card-title')),
        event: text(c.querySelector('.event')),
        last: text(c.querySelector('.last')),
        status: text(c.querySelector('.status')),
      })),
      heading: text(document.querySelector('.game-head .players')),
      event: text(document.querySelector('.game-head .event')),
      status: text(document.getElementById('status')),
      engine: text(document.getElementById('engine')),
      moves: all('#moves .mv[data-san]', (m) => m.dataset.san),
      rulings: all('ul.irregularities li', (li) => ({ kind: li.dataset.kind, text: text(li) })),
      alerts: all('ol.alerts li.alert', (a) => ({
        kind: a.dataset.kind,
        title: text(a.querySelector('.alert-title')),
        when: text(a.querySelector('.when')),
        board: text(a.querySelector('.alert-board')),
        text: text(a.querySelector('.alert-text')),
      })),
      boards: all('article.arb-board', (b) => {
        const line = b.querySelector('.lichess-line');
        return { id: b.dataset.board, summary: text(b.querySelector('.status')), lichess: line && !line.hidden ? text(line) : null };
      }),
      lichess: (() => {
        const s = document.querySelector('section.lichess');
        if (!s || s.hidden) return null;
        return {
          status: text(s.querySelector('.lichess-status')),
          rounds: text(s.querySelector('.lichess-rounds')),
          refused: all('section.lichess .lichess-errors li', (li) => ({ board: li.dataset.board, text: text(li) })),
        };
      })(),
    };
  });
  console.log(JSON.stringify({ ok: true, errors, ...shown }));
} catch (e) {
  const main = (await page.textContent('main').catch(() => '')) ?? '';
  console.log(JSON.stringify({ ok: false, error: String(e), errors, main: main.trim().slice(0, 300) }));
  code = 1;
} finally {
  await close();
}
process.exit(code);
