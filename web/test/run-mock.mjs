#!/usr/bin/env node
// npm test: the page end to end against test/mock-server.mjs (build first).
// 1. live.mjs sees b1's scripted Re1 within a second of the mock sending it;
// 2. live.mjs sees the next completed move;
// 3. arbiter.mjs: alerts, and actions refused without the token.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const TOKEN = 'test-token';
const tmp = mkdtempSync(join(tmpdir(), 'tactus-web-test-'));

function startMock(extra = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, 'mock-server.mjs'), '--port', '0', '--token', TOKEN, ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1], stop: () => child.kill('SIGTERM') });
    });
    child.on('exit', (code) => reject(new Error(`mock server exited (${code})`)));
  });
}

function run(script, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(here, script), ...args], { stdio: 'inherit' });
    child.on('exit', (code) => resolve(code));
  });
}

const results = [];
async function step(name, fn) {
  let ok = false;
  try {
    ok = (await fn()) === 0;
  } catch (e) {
    console.error(`${name}: ${e.stack ?? e}`);
  }
  results.push({ name, ok });
  console.log(`${ok ? 'ok' : 'not ok'} - ${name}`);
}

try {
  const marker = join(tmp, 'marker');
  const a = await startMock(['--marker-file', marker]);
  try {
    await step('a scripted move appears within a second', () =>
      run('live.mjs', [a.url, '--board', 'b1', '--san', 'Re1', '--marker', `file:${marker}`, '--max-delay-ms', '1000', '--timeout-ms', '10000']),
    );
    await step('the next completed move appears', () => run('live.mjs', [a.url, '--board', 'b1', '--next', '--completed', '--timeout-ms', '10000']));
  } finally {
    a.stop();
  }
  const b = await startMock(['--speed', '2']);
  try {
    await step('the arbiter view raises alerts and guards its actions', () => run('arbiter.mjs', [b.url, TOKEN]));
  } finally {
    b.stop();
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
const failed = results.filter((r) => !r.ok).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
