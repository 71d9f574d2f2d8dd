// Launches Debian's Chromium through playwright-core: never a downloaded
// browser, a fresh profile each time, nothing fetched in the background.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function findChromium(explicit) {
  const candidates = [explicit, process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);
  for (const c of candidates) if (existsSync(c)) return c;
  throw new Error(`no Chromium found (tried ${candidates.join(', ')}); install Debian's: apt-get install chromium`);
}

/** Returns { context, page, close }. */
export async function launch({ executablePath, viewport = { width: 1280, height: 900 } } = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'tactus-chromium-'));
  // launchPersistentContext passes the profile as --user-data-dir.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: findChromium(executablePath),
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    timeout: 30_000,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const close = async () => {
    await context.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, page, close };
}
