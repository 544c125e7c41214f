// The time of a full game review in the page (real Chromium, the engine in its worker) at
// the review page's default budget, for a typical tsoro:21 game. A benchmark, not a test.
//
//   cargo build --release && node e2e/bench-review.mjs [--record game.txt] [--nodes N]
//
// Without --record it plays the game docs/review.md uses (`matombo match hard hard
// --ruleset tsoro:21 --games 2 --records …`, the first game), so that the figure sits
// beside the command line's `time matombo review game.txt`. Prints the time and the counts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, launchChromium, ownServer } from './harness.mjs';

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : null;
};
const dir = mkdtempSync(join(tmpdir(), 'matombo-bench-review-'));

let record = arg('--record') && readFileSync(arg('--record'), 'utf8');
if (!record) {
  const file = join(dir, 't21.txt');
  console.error('playing hard against hard on tsoro:21 (a few minutes)…');
  execFileSync(bin, ['match', 'hard', 'hard', '--ruleset', 'tsoro:21', '--games', '2', '--records', file], { stdio: ['ignore', 'ignore', 'inherit'] });
  // The first game of the file: its first [Ruleset …] block.
  const text = readFileSync(file, 'utf8');
  const second = text.indexOf('[Ruleset ', 1);
  record = second > 0 ? text.slice(0, second) : text;
}

const server = await ownServer('bench-review');
const url = server.url;
const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
await page.goto(`${url}/review`);
await page.fill('#record-text', record);
const nodes = arg('--nodes');
if (nodes) {
  await page.evaluate((n) => {
    const s = document.getElementById('budget');
    s.add(new Option(n, n));
    s.value = n;
  }, nodes);
}
const budget = await page.$eval('#budget', (s) => Number(s.value));
// The engine compiled and its worker started before the clock starts, as after a page load.
await page.waitForTimeout(1000);
const started = Date.now();
await page.click('#btn-review');
await page.waitForFunction(() => document.getElementById('review').dataset.state === 'done', null, { timeout: 0 });
const seconds = (Date.now() - started) / 1000;
const turns = await page.$$eval('#graph circle.graph-point', (cs) => cs.length);
const summary = await page.$$eval('#summary tr[data-key]', (rows) =>
  rows.map((r) => `${r.dataset.key} ${[...r.cells].slice(1).map((c) => c.textContent).join(' / ')}`),
);
const ruleset = await page.textContent('#game-title .ruleset');
console.log(`full review of a ${ruleset} game of ${turns} turns at ${budget.toLocaleString('en')} nodes a position: ${seconds.toFixed(1)} s`);
console.log(`South / North: ${summary.join('; ')}`);
console.log(`Chromium ${browser.version()}`);
await browser.close();
await server.stop();
