// What the browser test files share: the server's address, the output directory, assert,
// Chromium, the runner, and the steps of tests on an online room's page. Not a test itself
// (run.sh runs *.test.mjs and tests.mjs).
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The address run.sh passed (`node FILE http://127.0.0.1:PORT/`), without its last slash. */
export const base = (process.argv[2] || 'http://127.0.0.1:8080/').replace(/\/$/, '');

/** e2e/out/: screenshots and logs for a person to look at. */
export const out = join(dirname(fileURLToPath(import.meta.url)), 'out');
mkdirSync(out, { recursive: true });

export function assert(cond, msg) {
  if (!cond) throw new Error(`assertion failed: ${msg}`);
}

/**
 * Debian's headless Chromium. playwright-core gives every launch a fresh, temporary
 * --user-data-dir of its own (it refuses that flag in `args`), so no state carries over
 * between runs.
 */
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Runs `tests` ({ name, fn(browser) }) whose name contains `only` (all if empty), one
 * after the other, printing `ok`/`FAIL` and a summary; closes `browser` and exits with 1
 * if any failed.
 */
export async function runTests(tests, browser, only = '') {
  let passed = 0;
  let failed = 0;
  for (const t of tests) {
    if (only && !t.name.includes(only)) continue;
    const started = Date.now();
    try {
      await t.fn(browser);
      passed++;
      console.log(`ok   ${t.name} (${Date.now() - started} ms)`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${t.name}\n     ${String(e.stack || e).split('\n').slice(0, 4).join('\n     ')}`);
    }
  }
  await browser.close();
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

// ---- an online room's page (/online/game/…) --------------------------------------------

/** The number of turns the room's page has shown. */
export const ply = (page) => page.$eval('#room', (r) => Number(r.dataset.ply || -1));

/** Every hole's label and count on the page's board: equal strings, equal positions. */
export const counts = (page) => page.$$eval('#board g.hole', (gs) => gs.map((g) => `${g.dataset.hole}=${g.querySelector('.count').textContent}`).join(','));

/** Plays one whole turn on `page` by clicking legal holes (and buttons) until it is sent. */
export async function playTurn(page) {
  const before = await ply(page);
  for (let i = 0; i < 200; i++) {
    await page.waitForFunction((p) => {
      const r = document.getElementById('room');
      return (r.dataset.offer === 'yes' && r.dataset.busy === 'false') || Number(r.dataset.ply) > p;
    }, before);
    if ((await ply(page)) > before) return;
    const hole = await page.$('#board g.hole.legal, #board g.hole.takeable');
    if (hole) await hole.click();
    else {
      const b = await page.$('#btn-continue:not([hidden]):not(:disabled), #btn-stop:not([hidden]):not(:disabled), #btn-done:not([hidden])');
      if (b) await b.click();
    }
    await page.waitForTimeout(20);
    if ((await page.$eval('#status', (s) => s.textContent)).includes('Turn sent')) {
      await page.waitForFunction((p) => Number(document.getElementById('room').dataset.ply) > p, before);
      return;
    }
  }
  throw new Error('turn did not complete');
}
