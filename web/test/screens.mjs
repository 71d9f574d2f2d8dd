#!/usr/bin/env node
// Screenshots of the page for a look by eye:
//   node test/screens.mjs BASE_URL OUTDIR [--wait-ms 0] [--chromium PATH]
// writes hall.png, board.png, arbiter.png and phone-board.png, phone-arbiter.png.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launch } from './browser.mjs';

const [base, out = '/tmp/tactus-shots'] = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !(all[i - 1] ?? '').startsWith('--'));
const flag = (n, d) => {
  const i = process.argv.indexOf(`--${n}`);
  return i >= 0 ? process.argv[i + 1] : d;
};
if (!base) {
  console.error('usage: node test/screens.mjs BASE_URL [OUTDIR] [--wait-ms MS]');
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const wait = Number(flag('wait-ms', '0'));

async function shoot(path, file, viewport) {
  const { page, close } = await launch({ executablePath: flag('chromium'), viewport });
  try {
    await page.goto(base.replace(/\/$/, '') + path);
    await page.waitForSelector('main[data-ready="1"]');
    if (wait) await page.waitForTimeout(wait);
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(out, file), fullPage: true });
    console.log(join(out, file));
  } finally {
    await close();
  }
}

const desk = { width: 1280, height: 900 };
const phone = { width: 390, height: 844 };
await Promise.all([
  shoot('/', 'hall.png', desk),
  shoot('/board/b1', 'board.png', desk),
  shoot('/arbiter', 'arbiter.png', desk),
  shoot('/board/b1', 'phone-board.png', phone),
  shoot('/arbiter', 'phone-arbiter.png', phone),
]);
