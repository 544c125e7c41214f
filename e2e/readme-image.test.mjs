// The README's picture of the board: /play in real Chromium, a few turns into a game of
// Tsoro on 4x8, written to docs/img/board.png (checked in, so that the README shows the
// board as it is drawn now). Usage: node readme-image.test.mjs http://127.0.0.1:PORT/
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiOk as api, assert, base, launchChromium } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const image = join(here, '..', 'docs', 'img', 'board.png');
mkdirSync(dirname(image), { recursive: true });

const RULESET = 'tsoro:8';
const TURNS = 6;
const VIEWPORT = { width: 1200, height: 760 };

// The same game every time: `easy` searches to a fixed depth, and its random turns follow
// the seed.
const moves = [];
for (let i = 0; i < TURNS; i++) {
  const ai = await api('/api/ai', { start: RULESET, moves, level: 'easy', seed: 7 + i });
  moves.push(ai.token);
}
const state = await api('/api/game', { start: RULESET, moves });
assert(state.phase === 'start', `the game goes on after ${TURNS} turns (phase ${state.phase})`);

const browser = await launchChromium();
let passed = 0;
let failed = 0;
try {
  const context = await browser.newContext({ viewport: VIEWPORT, locale: 'en' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`${base}/play?ruleset=${RULESET}&mode=two&lang=en`);
  // The page restores the game of its tab from session storage: put this one there.
  const key = await page.$eval('#play', (p) => `matombo-play:${p.dataset.start}`);
  await page.evaluate(
    ([k, game]) =>
      sessionStorage.setItem(
        k,
        JSON.stringify({ game, settings: { mode: 'two', human: 'South', level: 'easy' }, redo: [] }),
      ),
    [key, { start: state.start, moves, pending: [], resigned: null }],
  );
  await page.reload();
  await page.waitForFunction(
    (n) => {
      const p = document.getElementById('play');
      return p && p.dataset.busy === 'false' && Number(p.dataset.moves) === n;
    },
    moves.length,
  );
  // The board drawn is the engine's position.
  const drawn = await page.$$eval('#board g.hole', (gs) =>
    Object.fromEntries(gs.map((g) => [g.dataset.hole, Number(g.dataset.count)])),
  );
  assert(Object.keys(drawn).length === 32, `32 holes drawn, not ${Object.keys(drawn).length}`);
  for (const row of ['b', 'a', 'A', 'B']) {
    state.rows[row].forEach((c, i) => assert(drawn[`${row}${i + 1}`] === c, `${row}${i + 1} shows ${c}`));
  }
  assert((await page.locator('#moves .move').count()) === moves.length, 'the move list');
  await page.screenshot({ path: image });
  const png = readFileSync(image);
  assert(png.subarray(1, 4).toString() === 'PNG', 'a PNG file');
  assert(png.readUInt32BE(16) === VIEWPORT.width && png.readUInt32BE(20) === VIEWPORT.height, 'image size');
  assert(!errors.length, errors.join('\n'));
  console.log(`ok - README board image (${moves.join(' ')}): ${image}, ${png.length} bytes`);
  passed++;
  await context.close();
} catch (e) {
  console.log(`not ok - README board image: ${e.message}`);
  failed++;
} finally {
  await browser.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
