// The review page (/review) in headless Chromium: a finished game reviewed in the page's
// engine (small node budgets, so that it is quick) shows one graph point per turn, a click
// on a point or the arrow keys move the board to that position, a shared link opens at its
// turn, the board page's "Review game" link carries the game, Stop keeps what was scored,
// an online game is fetched by its number or link, a bad record or link is refused with a
// clear error, and the page reviews offline once visited. Screenshots at 1280x800 and
// 390x844 go to e2e/out/review-*.png.
// Usage: node review.test.mjs http://127.0.0.1:PORT/   (run.sh does this; the offline test
// starts a server of its own, $MATOMBO_BIN)
import { join } from 'node:path';
import { apiOk as api, assert, base, launchChromium, out, ownServer, runTests } from './harness.mjs';

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** A whole game between two beginners, played by the server's JSON API. */
async function finishedGame(ruleset, seed) {
  const moves = [];
  for (;;) {
    const state = await api('/api/game', { start: ruleset, moves });
    if (state.outcome) break;
    const ai = await api('/api/ai', { start: ruleset, moves, level: 'beginner', seed: seed + moves.length });
    moves.push(ai.token);
  }
  const { record } = await api('/api/record/export', { start: ruleset, moves, tags: { South: 'Ann', North: 'Ben' } });
  return { moves, record };
}

async function open(browser, path, viewport = DESKTOP) {
  const phone = viewport.width < 500;
  const context = await browser.newContext({ viewport, deviceScaleFactor: phone ? 2 : 1, isMobile: phone, hasTouch: phone });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.errors = errors;
  if (path) await page.goto(base + path);
  return page;
}

/** Waits until the review has scored every position (or stopped). */
async function reviewed(page, states = ['done']) {
  await page.waitForFunction((s) => s.includes(document.getElementById('review').dataset.state), states, { timeout: 120000 });
}

const data = (page, key) => page.$eval('#review', (r, k) => r.dataset[k], key);
const boardRows = (page) =>
  page.$$eval('#board g.hole', (gs) => Object.fromEntries(gs.map((g) => [g.dataset.hole, Number(g.dataset.count)])));

/** The board the engine says the position after `k` turns has, hole by hole. */
async function rowsAfter(ruleset, moves, k) {
  const s = await api('/api/game', { start: ruleset, moves: moves.slice(0, k) });
  const holes = {};
  for (const row of ['b', 'a', 'A', 'B']) s.rows[row].forEach((c, i) => (holes[`${row}${i + 1}`] = c));
  return { holes, position: s.position };
}

const link = (ruleset, moves, extra = '') =>
  `/review?ruleset=${encodeURIComponent(ruleset)}&moves=${encodeURIComponent(moves.join(' '))}&nodes=2000${extra}`;

let game8 = null;
const tsoro8 = async () => (game8 ||= await finishedGame('tsoro:8', 7));

test('a finished game: one graph point per turn, a click on a point shows its position', async (browser) => {
  const { moves } = await tsoro8();
  const page = await open(browser, link('tsoro:8', moves));
  await reviewed(page);
  const points = await page.$$eval('#graph circle.graph-point', (cs) => cs.map((c) => Number(c.dataset.turn)));
  assert(points.length === moves.length, `${points.length} points for ${moves.length} turns`);
  assert(points.every((t, i) => t === i + 1), 'the points are the turns in order');
  for (const k of [Math.floor(moves.length / 2), 3]) {
    await page.locator(`#graph circle.graph-point[data-turn="${k}"]`).click();
    const want = await rowsAfter('tsoro:8', moves, k);
    assert(Number(await data(page, 'turn')) === k, `at turn ${k}`);
    assert((await data(page, 'position')) === want.position, `the position after ${k} turns`);
    const shown = await boardRows(page);
    assert(Object.entries(want.holes).every(([h, c]) => shown[h] === c), `the board shows the position after ${k} turns`);
    assert(new URL(page.url()).searchParams.get('turn') === String(k), 'the address follows');
  }
  // Keyboard: left and right step through the turns.
  await page.keyboard.press('ArrowRight');
  assert(Number(await data(page, 'turn')) === 4, 'ArrowRight: turn 4');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  assert(Number(await data(page, 'turn')) === 2, 'ArrowLeft twice: turn 2');
  // The turn played and the engine's best are drawn (one green arrow when they agree).
  const arrows = await page.$$eval('#board .arrows path.arrow', (ps) => ps.map((p) => p.getAttribute('class')));
  assert(arrows.length >= 1 && arrows.length <= 2, `arrows: ${arrows}`);
  assert((await page.textContent('#turn-info')).includes(moves[2]), 'the turn played is named');
  // Counts and accuracy per side, the thresholds stated.
  const acc = await page.$$eval('#summary td[data-key=accuracy]', (tds) => tds.map((t) => t.textContent));
  assert(acc.length === 2 && acc.every((a) => /^\d+\.\d%$/.test(a)), `accuracy per side: ${acc}`);
  const thresholds = await page.textContent('#thresholds');
  assert(thresholds.includes('1 to under 3') && thresholds.includes('6 or more'), thresholds);
  await page.screenshot({ path: join(out, 'review-desktop.png') });
  // The annotated record.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#btn-download')]);
  const text = await (await download.createReadStream()).toArray().then((b) => Buffer.concat(b).toString());
  assert(text.includes('[Ruleset "tsoro:8"]') && text.includes('[%eval'), `an annotated record: ${text.slice(0, 200)}`);
  assert(page.errors.length === 0, `no page errors: ${page.errors}`);
  await page.context().close();
});

test('a pasted record on a phone, and the shared link opening at its turn', async (browser) => {
  const { moves, record } = await tsoro8();
  const page = await open(browser, '/review', PHONE);
  await page.fill('#record-text', record);
  await page.selectOption('#budget', '50000');
  // The smallest budget offered is still more than this test needs: a shorter game.
  await page.evaluate(() => {
    const s = document.getElementById('budget');
    s.add(new Option('2000', '2000'));
    s.value = '2000';
  });
  await page.click('#btn-review');
  await reviewed(page);
  assert((await page.$$('#graph circle.graph-point')).length === moves.length, 'one point per turn');
  assert((await page.textContent('#side-south')).includes('Ann'), "the record's names");
  await page.locator('#graph circle.graph-point[data-turn="5"]').tap();
  assert(Number(await data(page, 'turn')) === 5, 'tapped turn 5');
  const shared = page.url();
  const q = new URL(shared).searchParams;
  assert(q.get('ruleset') === 'tsoro:8' && q.get('moves') === moves.join(' ') && q.get('turn') === '5', shared);
  await page.screenshot({ path: join(out, 'review-phone.png'), fullPage: true });
  const scrollX = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert(scrollX <= 0, `the page does not scroll sideways (${scrollX})`);
  await page.context().close();

  const other = await open(browser, new URL(shared).pathname + new URL(shared).search, DESKTOP);
  await other.waitForFunction(() => document.getElementById('review').dataset.turn === '5');
  const want = await rowsAfter('tsoro:8', moves, 5);
  assert((await data(other, 'position')) === want.position, 'the link opens at turn 5');
  assert((await other.textContent('#turn-label')).includes(moves[4]), 'labelled with the fifth turn');
  // The language switch keeps the game and the turn.
  await other.click('nav.langs a[hreflang=fi]');
  await other.waitForFunction(() => document.documentElement.lang === 'fi' && document.getElementById('review').dataset.turn === '5');
  assert((await other.textContent('#review-title')) === 'Pelin analyysi', 'in Finnish');
  await reviewed(other);
  assert(Number(await data(other, 'turn')) === 5, 'still at turn 5 once reviewed');
  await other.context().close();
});

test("the board page's Review game link carries its game", async (browser) => {
  const { moves, record } = await finishedGame('tsoro:6', 3);
  const page = await open(browser, '/play?ruleset=tsoro:6&mode=two');
  await page.waitForFunction(() => document.getElementById('play').dataset.busy === 'false');
  await page.setInputFiles('#record-file', { name: 'game.txt', mimeType: 'text/plain', buffer: Buffer.from(record) });
  await page.waitForFunction((n) => document.getElementById('play').dataset.moves === String(n), moves.length);
  await page.click('#review-link');
  await page.waitForURL(/\/review\?/);
  await page.waitForFunction(() => document.getElementById('review').dataset.state !== 'input');
  const q = new URL(page.url()).searchParams;
  assert(q.get('ruleset') === 'tsoro:6' && q.get('moves') === moves.join(' '), `the game in the address: ${page.url()}`);
  // The default budget is the page's, and this game is short: stop it, keep what was scored.
  await page.waitForFunction(() => document.getElementById('graph').querySelectorAll('circle').length >= 1, null, { timeout: 60000 });
  await page.click('#btn-stop');
  await reviewed(page, ['stopped', 'done']);
  const points = (await page.$$('#graph circle.graph-point')).length;
  assert(points >= 1 && points <= moves.length, `${points} points after Stop`);
  if ((await data(page, 'state')) === 'stopped') {
    assert((await page.textContent('#tool-message')).includes('Stopped'), 'says it stopped');
  }
  assert(page.errors.length === 0, `no page errors: ${page.errors}`);
  await page.context().close();
});

test("an online game's record, fetched from the server by its number or link", async (browser) => {
  const room = await api('/api/online/rooms', { ruleset: 'tsoro:6', name: 'Rudo' });
  const page = await open(browser, `/review?online=${room.id}&nodes=2000`);
  await reviewed(page);
  assert((await page.textContent('#game-title')).includes('tsoro:6'), 'the online game');
  const names = (await page.textContent('#side-south')) + (await page.textContent('#side-north'));
  assert(names.includes('Rudo'), `the record's names: ${names}`);
  assert(new URL(page.url()).searchParams.get('ruleset') === 'tsoro:6', 'the address holds the game');
  await page.click('#btn-another');
  await page.fill('#online-id', `${base}${room.links.watch}`);
  await page.click('#btn-review');
  await reviewed(page);
  assert(page.errors.length === 0, `no page errors: ${page.errors}`);
  await page.context().close();
});

test('a bad record and a bad link are refused with a clear error', async (browser) => {
  const page = await open(browser, '/review');
  await page.fill('#record-text', '[Ruleset "tsoro:8"]\n\n1. B2= Z9 *\n');
  await page.click('#btn-review');
  await page.waitForFunction(() => document.getElementById('review-error').textContent !== '');
  const error = await page.textContent('#review-error');
  assert(error.startsWith('This record cannot be read:') && /line|Z9/.test(error), error);
  assert(await page.isHidden('#review-result'), 'no review shown');
  await page.screenshot({ path: join(out, 'review-bad-record.png') });
  await page.goto(`${base}/review?ruleset=tsoro:8&moves=${encodeURIComponent('B2= A1')}`);
  await page.waitForFunction(() => document.getElementById('review-error').textContent !== '');
  const linkError = await page.textContent('#review-error');
  assert(linkError.startsWith('This link does not hold a game:') && linkError.includes('A1'), linkError);
  await page.fill('#online-id', 'nosuchgame');
  await page.click('#btn-review');
  await page.waitForFunction(() => /nosuchgame/.test(document.getElementById('review-error').textContent));
  assert(page.errors.length === 0, `no page errors: ${page.errors}`);
  await page.context().close();
});

test('offline: after one visit the review page reviews a linked game with the server gone', async (browser) => {
  const { moves } = await tsoro8();
  // A server of this test's own, to stop.
  const server = await ownServer('review');
  const url = server.url;
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  try {
    await page.goto(`${url}/`);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60000 });
    const cached = await page.evaluate(async () => {
      const keys = await (await caches.open((await caches.keys())[0])).keys();
      return keys.map((k) => new URL(k.url).pathname);
    });
    assert(cached.includes('/review') && cached.some((p) => p.endsWith('/js/review.js')), `cached: ${cached.join(' ')}`);
  } finally {
    await server.stop();
  }
  await page.goto(url + link('tsoro:8', moves, '&turn=4'));
  await reviewed(page);
  assert(Number(await data(page, 'turn')) === 4, 'at turn 4');
  assert((await page.$$('#graph circle.graph-point')).length === moves.length, 'one point per turn, offline');
  await context.close();
});

const browser = await launchChromium();
await runTests(tests, browser, process.env.REVIEW_ONLY || '');
