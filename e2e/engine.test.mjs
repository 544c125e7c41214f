// The engine in the page, in real Chromium: after /play has loaded, the test stops the
// server, and the page goes on playing (the rules, the computer's turns, a hint and an
// analysis all come from the WebAssembly engine in the page and its worker).
// Usage: node engine.test.mjs http://127.0.0.1:PORT/ (the address is not used: this test
// starts a server of its own, $MATOMBO_BIN, so that it can stop it).
import { join } from 'node:path';
import { assert, idle as boardIdle, launchChromium, out, newPage, ownServer, runTests } from './harness.mjs';

const browser = await launchChromium();

/** Opens /play for `query` with fast animations; the server is stopped once it is shown. */
async function offlinePage(query) {
  const server = await ownServer('engine');
  const page = await newPage(browser, { viewport: { width: 1366, height: 900 }, consoleErrors: true });
  page.requests = [];
  // The one request the page may make of the server for its own sake, the list of endgame
  // tables (egtb.js: none when it fails), is not the engine's.
  page.on('request', (r) => !new URL(r.url()).pathname.startsWith('/api/egtb') && page.requests.push(r.url()));
  await page.goto(`${server.url}/play?${query}`);
  await idle(page);
  // A stopped search restarts its worker, whose scripts then come from the service
  // worker's cache: wait until it has cached the site and controls the page.
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60000 });
  await server.stop();
  page.requests.length = 0;
  return page;
}

const idle = (page) => boardIdle(page, 60000);

const data = (page, key) => page.$eval('#play', (p, k) => p.dataset[k], key);

/** Makes one decision for the side to move by clicking, as a person would. */
async function humanDecision(page, random) {
  const phase = await data(page, 'phase');
  if (phase === 'head') {
    const ids = [];
    for (const id of ['btn-continue', 'btn-stop']) if (await page.$eval(`#${id}`, (b) => !b.disabled)) ids.push(id);
    await page.click(`#${ids[Math.floor(random() * ids.length)]}`);
    return;
  }
  const holes = await page.$$eval('#board g.hole.legal, #board g.hole.takeable', (gs) => gs.map((g) => g.dataset.hole));
  if (phase === 'bonus' && (!holes.length || random() < 0.2) && (await page.$eval('#btn-done', (b) => !b.hidden))) {
    await page.click('#btn-done');
    return;
  }
  assert(holes.length, `something to click in phase ${phase}`);
  await page.click(`#board g.hole[data-hole="${holes[Math.floor(random() * holes.length)]}"]`);
}

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

test('a whole game against the computer on tsoro:8 with the server stopped', async () => {
  const page = await offlinePage('game=tsoro&size=8&level=beginner');
  const random = rng(3);
  for (let i = 0; i < 600 && (await data(page, 'phase')) !== 'over'; i++) {
    await humanDecision(page, random);
    await idle(page);
  }
  assert((await data(page, 'phase')) === 'over', 'the game ended');
  assert(await page.isVisible('#banner'), 'the result banner is shown');
  const moves = Number(await data(page, 'moves'));
  assert(moves > 2, `turns were played (${moves})`);
  const north = await page.$$eval('#moves .move', (ms) => ms.filter((m) => /^[ab]/.test(m.textContent)).length);
  assert(north > 0, 'the computer (North) played');
  await page.screenshot({ path: join(out, 'engine-offline-tsoro8-over.png') });
  assert(!page.requests.some((u) => u.includes('/api/')), `no API request: ${page.requests.join(' ')}`);
  assert(!page.errors.filter((e) => !/ERR_CONNECTION_REFUSED|Failed to load resource/.test(e)).length, page.errors.join('\n'));
  await page.context().close();
});

test('several turns on nsolo:36 with the server stopped', async () => {
  const page = await offlinePage('game=nsolo&size=36&level=easy');
  const random = rng(5);
  for (let i = 0; i < 40 && Number(await data(page, 'moves')) < 8 && (await data(page, 'phase')) !== 'over'; i++) {
    await humanDecision(page, random);
    await idle(page);
  }
  assert(Number(await data(page, 'moves')) >= 8, 'eight turns played');
  assert(!page.requests.some((u) => u.includes('/api/')), `no API request: ${page.requests.join(' ')}`);
  await page.context().close();
});

test('a hint and an analysis line with the server stopped', async () => {
  const page = await offlinePage('game=tsoro&size=8&mode=two');
  await page.click('#btn-hint');
  await page.waitForFunction(() => /\S/.test(document.getElementById('hint').textContent), null, { timeout: 30000 });
  const hint = await page.textContent('#hint');
  assert(/[AB]\d+/.test(hint), `the hint names a South turn: ${hint}`);
  await page.click('#btn-analyse');
  await page.waitForFunction(() => Number(document.getElementById('play').dataset.analysisDepth || 0) >= 4, null, {
    timeout: 30000,
  });
  const lines = await page.$$eval('#analysis-lines li', (ls) => ls.map((l) => l.textContent));
  assert(lines.length === 3, `three lines: ${lines.join(' | ')}`);
  assert(lines.every((l) => /^([+−]\d+\.\d\d|#-?\d+) depth \d+ [AB]\d+/.test(l)), `score, depth, then a South turn: ${lines.join(' | ')}`);
  // Playing a turn restarts the analysis for the new position (North to move).
  const holes = await page.$$eval('#board g.hole.legal, #board g.hole.takeable', (gs) => gs.map((g) => g.dataset.hole));
  await page.click(`#board g.hole[data-hole="${holes[0]}"]`);
  await idle(page);
  while ((await data(page, 'phase')) !== 'start') {
    await humanDecision(page, rng(1));
    await idle(page);
  }
  await page.waitForFunction(
    () => [...document.querySelectorAll('#analysis-lines li .pv')].some((l) => /^[ab]\d+/.test(l.textContent)),
    null,
    { timeout: 30000 },
  );
  // Stopping it is at once, and the board stays usable.
  await page.click('#btn-analyse');
  assert((await page.$$('#analysis-lines li')).length === 0, 'analysis cleared');
  await page.screenshot({ path: join(out, 'engine-offline-analysis.png') });
  assert(!page.requests.some((u) => u.includes('/api/')), `no API request: ${page.requests.join(' ')}`);
  await page.context().close();
});

test('a search is stopped by New game without freezing the board', async () => {
  const page = await offlinePage('game=tsoro&size=21&level=max');
  // South (the person) plays; the computer (max: seconds of search) starts thinking.
  const holes = await page.$$eval('#board g.hole.legal', (gs) => gs.map((g) => g.dataset.hole));
  await page.click(`#board g.hole[data-hole="${holes[0]}"]`);
  const settled = () =>
    page.waitForFunction(() => {
      const p = document.getElementById('play');
      return !document.getElementById('thinking').hidden || (p.dataset.busy === 'false' && p.dataset.phase !== 'start');
    });
  await settled();
  while (await page.$eval('#thinking', (t) => t.hidden)) {
    await humanDecision(page, rng(2));
    await settled();
  }
  // The page keeps answering while the worker searches.
  const during = await page.evaluate(() => !document.getElementById('thinking').hidden);
  assert(during, 'the page ran a script while the search was running');
  // New game stops it: the board shows the start, and the stopped search's turn never lands.
  await page.click('#btn-new');
  await page.waitForFunction(() => document.getElementById('play').dataset.moves === '0');
  assert(await page.$eval('#thinking', (t) => t.hidden), 'no search runs after New game');
  await page.waitForTimeout(4000);
  assert(Number(await data(page, 'moves')) === 0, 'the stopped search played nothing');
  assert((await page.$$('#board g.hole.legal')).length > 0, 'South can start the new game');
  await page.context().close();
});

const only = process.env.E2E_ONLY || '';
await runTests(tests, browser, only);
