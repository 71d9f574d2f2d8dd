// Builds the live page into dist/: index.html, assets/app.js, assets/*.css.
// Usage: node build.mjs [--watch]
import { build, context } from 'esbuild';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
const assets = join(dist, 'assets');
const require = createRequire(import.meta.url);

rmSync(dist, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });

// chessground's stylesheets: board base, brown squares, cburnett pieces
// (the pieces are embedded SVGs, so nothing is fetched from elsewhere).
const cgAssets = dirname(require.resolve('@lichess-org/chessground/assets/chessground.base.css'));
for (const f of ['chessground.base.css', 'chessground.brown.css', 'chessground.cburnett.css']) {
  cpSync(join(cgAssets, f), join(assets, f));
}
cpSync(join(here, 'src', 'index.html'), join(dist, 'index.html'));
cpSync(join(here, 'src', 'style.css'), join(assets, 'style.css'));

const options = {
  entryPoints: [join(here, 'src', 'main.ts')],
  outfile: join(assets, 'app.js'),
  bundle: true,
  format: 'esm',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  minify: true,
  sourcemap: true,
  legalComments: 'linked',
  logLevel: 'info',
};

if (process.argv.includes('--watch')) {
  const ctx = await context(options);
  await ctx.watch();
} else {
  await build(options);
}
