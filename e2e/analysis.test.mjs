// The analysis board in headless Chromium: the engine's three best lines as it deepens,
// turns for both sides, variations and the way back to the main line, the move list's keys,
// shared links, playing on against the computer; and, on a phone, the side bars at the ends
// of the turned board and the wood lit from the top in every orientation. Screenshots go to
// e2e/out/analysis-*.png. Budgets are small (analyse_ms) so that the tests stay quick.
// Usage: node analysis.test.mjs http://127.0.0.1:PORT/   (run.sh does this)
import { join } from 'node:path';
import { apiOk as api, assert, base, idle, launchChromium, newPage, out, PHONE, runTests } from './harness.mjs';

const only = process.env.ANALYSIS_ONLY || '';
const tests = [];
const test = (name, fn) => tests.push({ name, fn });

const DESKTOP = { width: 1280, height: 800 };

async function open(browser, path, { viewport = DESKTOP } = {}) {
  const page = await newPage(browser, { viewport, consoleErrors: true });
  await page.goto(base + path);
  await idle(page);
  return page;
}

const phase = (page) => page.$eval('#play', (p) => p.dataset.phase);
const moveCount = async (page) => Number(await page.$eval('#play', (p) => p.dataset.moves));
const position = (page) => page.$eval('#position-text', (e) => e.textContent);
/** The turns that led to the position shown. */
const played = (page) => page.$$eval('#moves button.move:not(.future)', (ms) => ms.map((m) => m.textContent));
/** The main line, whatever position is shown. */
const mainLine = (page) => page.$$eval('#moves button.move[data-ply]', (ms) => ms.map((m) => m.textContent));

/** Plays one whole turn by clicking: `hole` (or the first legal one), then stop / done. */
async function playTurn(page, hole = null) {
  const before = await moveCount(page);
  if (hole) await page.locator(`#board g.hole[data-hole=${hole}]`).click();
  else await page.locator('#board g.hole.legal').first().click();
  await idle(page);
  while ((await moveCount(page)) === before && (await phase(page)) !== 'over') {
    const ph = await phase(page);
    if (ph === 'head') await page.click('#btn-stop');
    else if (ph === 'bonus') await page.click('#btn-done');
    await idle(page);
  }
}

/** Waits until the analysis shows `n` lines at depth `depth` or more. */
async function analysed(page, n = 3, depth = 2) {
  await page.waitForFunction(
    ([n, depth]) => {
      const p = document.getElementById('play');
      return Number(p.dataset.analysisLines) === n && Number(p.dataset.analysisDepth) >= depth;
    },
    [n, depth],
    { timeout: 20000 },
  );
}

/** Presses a key with the focus on the page, off the board. */
async function key(page, k) {
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.keyboard.press(k);
  await idle(page);
}

test('the analysis board shows three lines as it deepens, with the scores for South and clickable turns', async (browser) => {
  const page = await open(browser, '/play?ruleset=tsoro:8&mode=analysis&analyse_ms=6000');
  // Every depth the page shows, as it shows them.
  await page.evaluate(() => {
    window.depthsSeen = new Set();
    const p = document.getElementById('play');
    new MutationObserver(() => window.depthsSeen.add(p.dataset.analysisDepth)).observe(p, { attributes: true, attributeFilter: ['data-analysis-depth'] });
  });
  await analysed(page);
  assert((await page.$eval('#play', (p) => p.dataset.mode)) === 'analysis', 'analysis mode');
  assert(await page.isChecked('input[name=mode][value=analysis]'), 'the mode shown');
  const view = await page.textContent('#analysis-view');
  assert(view.includes('for South'), `the score's point of view is said: ${view}`);
  const lines = await page.$$eval('#analysis-lines li', (ls) =>
    ls.map((l) => ({
      score: l.querySelector('.score').textContent,
      depth: l.querySelector('.line-depth').textContent,
      pv: [...l.querySelectorAll('.pv-move')].map((b) => b.textContent),
    })),
  );
  assert(lines.length === 3, `three lines: ${JSON.stringify(lines)}`);
  const firsts = new Set();
  for (const l of lines) {
    assert(/^([+−]\d+\.\d\d|#-?\d+)$/.test(l.score), `a score ${l.score}`);
    assert(/depth \d+/.test(l.depth), `a depth ${l.depth}`);
    assert(l.pv.length >= 1 && l.pv.every((t) => /^[AaBb]\d+/.test(t)), `turn tokens ${l.pv}`);
    firsts.add(l.pv[0]);
  }
  assert(firsts.size === 3, 'three different first turns');
  // The lines are the engine's: each replays from the position.
  for (const l of lines) await api('/api/game', { start: 'tsoro:8', moves: l.pv });
  // The analysis deepens: a later depth than the first one shown.
  await page.waitForFunction(() => window.depthsSeen.size >= 2, null, { timeout: 20000 });
  await page.screenshot({ path: join(out, 'analysis-desktop.png') });

  // Turns for both sides: the computer does not reply.
  await playTurn(page);
  await playTurn(page);
  assert((await moveCount(page)) === 2, 'two turns, one a side');
  const ms = await played(page);
  assert(ms.length === 2 && /^[AB]/.test(ms[0]) && /^[ab]/.test(ms[1]), `South then North: ${ms}`);
  await page.waitForTimeout(300);
  assert((await moveCount(page)) === 2, 'no reply from the computer');
  // The analysis follows the position shown.
  await analysed(page, 3, 1);

  // A click on a line's turn plays the line up to it, as a variation.
  // Read and clicked in one step of the page: the lines are redrawn as the search deepens.
  const pv = await page.evaluate(() => {
    const bs = [...document.querySelectorAll('#analysis-lines li:first-child .pv-move')];
    bs[Math.min(2, bs.length) - 1].click();
    return bs.map((b) => b.textContent);
  });
  const upTo = Math.min(2, pv.length);
  await idle(page);
  assert((await moveCount(page)) === 2 + upTo, `the line played up to its turn ${upTo}`);
  const now = await played(page);
  assert(JSON.stringify(now) === JSON.stringify([...ms, ...pv.slice(0, upTo)]), `played ${now}`);
  const engine = await api('/api/game', { start: 'tsoro:8', moves: now });
  assert((await position(page)) === engine.position, 'the engine agrees on the position');
  assert(!page.errors.length, page.errors.join('\n'));
  await page.context().close();
});

test('a branch from an earlier turn becomes a variation; back to the main line; the keys walk the list', async (browser) => {
  const page = await open(browser, '/play?ruleset=tsoro:8&mode=analysis&analyse_ms=500');
  for (let i = 0; i < 4; i++) await playTurn(page);
  const main = await mainLine(page);
  assert(main.length === 4, `four turns ${main}`);

  // Keys: Home, End, Left, Right.
  await key(page, 'Home');
  assert((await moveCount(page)) === 0, 'Home: the start');
  assert((await page.locator('#moves button.move.future').count()) === 4, 'the line stays, grey');
  await key(page, 'End');
  assert((await moveCount(page)) === 4, 'End: the end of the line');
  await key(page, 'ArrowLeft');
  await key(page, 'ArrowLeft');
  await key(page, 'ArrowLeft');
  assert((await moveCount(page)) === 1, 'Left three times');
  await key(page, 'ArrowRight');
  assert((await moveCount(page)) === 2, 'Right once');
  assert(JSON.stringify(await played(page)) === JSON.stringify(main.slice(0, 2)), 'along the main line');
  await key(page, 'ArrowLeft');

  // With a hole of the board focused, the arrows belong to the board.
  const first = await page.$eval('#board g.hole.legal', (g) => g.dataset.hole);
  await page.focus(`#board g.hole[data-hole=${first}]`);
  await page.keyboard.press('ArrowRight');
  const focused = await page.evaluate(() => document.activeElement.dataset.hole || '');
  assert(focused && focused !== first, `the board's arrows moved the focus (${first} → ${focused})`);
  assert((await moveCount(page)) === 1, 'the move list did not move');

  // Another turn at move 2: a variation, the main line kept.
  const mainStart = main[1].match(/^[AaBb]\d+/)[0];
  const other = (await page.$$eval('#board g.hole.legal', (gs) => gs.map((g) => g.dataset.hole))).find((h) => h !== mainStart);
  assert(other, 'another legal turn');
  await playTurn(page, other);
  await playTurn(page);
  assert((await moveCount(page)) === 3, 'two turns into the variation');
  assert(JSON.stringify(await mainLine(page)) === JSON.stringify(main), 'the main line kept');
  assert((await page.locator('#moves .variation').count()) === 1, 'one variation shown');
  assert((await page.locator('#moves .variation button.move.current').count()) === 1, 'the position shown is in it');
  const variationLine = await played(page);
  assert(variationLine[1].startsWith(other), `the variation starts with ${other}: ${variationLine}`);
  await page.screenshot({ path: join(out, 'analysis-variation.png') });
  await page.locator('.moves-panel').screenshot({ path: join(out, 'analysis-variation-move-list.png') });
  // Its address holds the variation's line.
  const url = new URL(page.url());
  assert(url.searchParams.get('moves') === variationLine.join(' '), `the address: ${url.search}`);
  assert(url.searchParams.get('turn') === '3', 'the turn looked at');

  // Back to the main line, where the variation left it; Right goes on along the main line.
  assert(await page.isVisible('#btn-main-line'), 'the way back is offered');
  await page.click('#btn-main-line');
  await idle(page);
  assert((await moveCount(page)) === 1, 'back at the branch');
  assert(!(await page.isVisible('#btn-main-line')), 'on the main line');
  await key(page, 'ArrowRight');
  assert(JSON.stringify(await played(page)) === JSON.stringify(main.slice(0, 2)), 'on along the main line');
  // A click on the variation's turn goes back into it.
  await page.click(`#moves .variation button.move[data-line="${variationLine.join(' ')}"]`);
  await idle(page);
  assert(JSON.stringify(await played(page)) === JSON.stringify(variationLine), 'into the variation by a click');
  assert(!page.errors.length, page.errors.join('\n'));
  await page.context().close();
});

test('a shared link opens at its turn, with its start and its line; Copy link gives the address', async (browser) => {
  // A line from a non-standard start: the position after two turns of the standard one.
  const page0 = await open(browser, '/play?ruleset=tsoro:8&mode=analysis&analyse_ms=300');
  await playTurn(page0);
  await playTurn(page0);
  const pre = await played(page0);
  await page0.context().close();
  const start = (await api('/api/game', { start: 'tsoro:8', moves: pre })).position;
  // Three turns from there, from the engine's analysis of that start.
  const page1 = await open(browser, `/play?position=${encodeURIComponent(start)}&mode=analysis&analyse_ms=300`);
  for (let i = 0; i < 3; i++) await playTurn(page1);
  const line = await played(page1);
  assert((await position(page1)) !== start, 'played on');
  // Copy link: the address of the position shown.
  await page1.click('#btn-copy-link');
  const copied = await page1.textContent('#link-text');
  assert(copied === page1.url(), `the link is the address: ${copied} / ${page1.url()}`);
  assert(new URL(copied).searchParams.get('position') === start && !new URL(copied).searchParams.has('ruleset'), 'a non-standard start is in the link');
  await page1.context().close();

  // Opened elsewhere (a fresh browser context) at turn 1 of the three.
  const link = new URL(copied);
  link.searchParams.set('turn', '1');
  // In Finnish: the language stays in the address as the board moves.
  link.searchParams.set('lang', 'fi');
  const page = await open(browser, `${link.pathname}${link.search}&analyse_ms=300`);
  assert((await moveCount(page)) === 1, 'at turn 1');
  const engine = await api('/api/game', { start, moves: line.slice(0, 1) });
  assert((await position(page)) === engine.position, 'the position after turn 1 of the line');
  assert(JSON.stringify(await mainLine(page)) === JSON.stringify(line), 'the whole line, to step through');
  assert((await page.$eval('#play', (p) => p.dataset.mode)) === 'analysis', 'on the analysis board');
  await page.screenshot({ path: join(out, 'analysis-shared-link.png') });
  await key(page, 'End');
  assert((await moveCount(page)) === 3, 'End: the line’s last turn');
  assert(new URL(page.url()).searchParams.get('turn') === '3', 'the address follows');
  assert(new URL(page.url()).searchParams.get('lang') === 'fi', 'the language kept in the address');
  // A reload keeps the tab's board at the address's turn.
  await page.reload();
  await idle(page);
  assert((await moveCount(page)) === 3, 'reloaded at the same turn');
  assert((await page.getAttribute('html', 'lang')) === 'fi', 'and in the same language');
  assert(!page.errors.length, page.errors.join('\n'));
  await page.context().close();

  // A standard start's link carries no start; a link that cannot be played is refused.
  const plain = await open(browser, `/play?ruleset=tsoro:8&moves=${pre.map(encodeURIComponent).join(',')}&turn=1`);
  assert((await moveCount(plain)) === 1, 'a standard start link');
  assert(!new URL(plain.url()).searchParams.has('position'), `no position in ${plain.url()}`);
  assert(new URL(plain.url()).searchParams.get('moves') === pre.join(' '), `the moves written with spaces: ${plain.url()}`);
  await plain.context().close();
  const bad = await open(browser, '/play?ruleset=tsoro:8&moves=B1,Z9&turn=2');
  assert((await moveCount(bad)) === 0, 'a bad link starts afresh');
  assert((await bad.textContent('#tool-message')).includes('cannot be played'), 'and says why');
  await bad.context().close();
});

test('play on against the computer from a position of the analysis board', async (browser) => {
  const page = await open(browser, '/play?ruleset=tsoro:8&mode=analysis&analyse_ms=300');
  await playTurn(page);
  await playTurn(page);
  await key(page, 'ArrowLeft');
  assert((await moveCount(page)) === 1, 'one turn back: North to move');
  // Play on as South: the computer (North) answers at once, and the rest of the line is gone.
  await page.selectOption('#play-on-side', 'S');
  await page.click('#btn-play-on');
  await page.waitForFunction(() => Number(document.getElementById('play').dataset.moves) === 2 && document.getElementById('play').dataset.busy === 'false', null, { timeout: 20000 });
  assert((await page.$eval('#play', (p) => p.dataset.mode)) === 'ai', 'a game against the computer');
  assert((await page.$eval('#side-south', (b) => b.dataset.name)) === 'You', 'the person plays South');
  assert((await page.locator('#moves button.move.future').count()) === 0, 'one line: the game');
  assert(await page.isHidden('#play-on'), 'no play-on in a game');
  assert(!page.errors.length, page.errors.join('\n'));
  await page.context().close();
});

test('the analysis board on a phone: the lines below the turned board', async (browser) => {
  const page = await open(browser, '/play?ruleset=tsoro:8&mode=analysis&analyse_ms=1500', { viewport: PHONE });
  await analysed(page, 3, 1);
  await playTurn(page);
  await analysed(page, 3, 1);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert(width <= PHONE.width, `no sideways scrolling (${width})`);
  await page.screenshot({ path: join(out, 'analysis-phone.png'), fullPage: true });
  assert(!page.errors.length, page.errors.join('\n'));
  await page.context().close();
});

test("the editor's position is analysed on the analysis board", async (browser) => {
  const page = await open(browser, '/play?ruleset=tsoro:8&mode=analysis&analyse_ms=800');
  await analysed(page, 3, 1);
  // A position two turns in, typed into the editor.
  await playTurn(page);
  await playTurn(page);
  const pos = await position(page);
  await page.click('#btn-new');
  await idle(page);
  await page.click('#btn-editor');
  await page.fill('#editor-text', pos);
  await page.click('#editor-apply');
  await idle(page);
  assert((await position(page)) === pos && (await moveCount(page)) === 0, 'the edited start');
  await analysed(page, 3, 1);
  const first = await page.$$eval('#analysis-lines li .pv-move:first-child', (bs) => bs.map((b) => b.textContent));
  // The lines are the edited position's: each first turn is legal there.
  for (const t of first) await api('/api/game', { start: pos, moves: [t] });
  assert(new URL(page.url()).searchParams.get('position') === pos, 'the link holds the edited start');
  assert(!page.errors.length, page.errors.join('\n'));
  await page.context().close();
});

// ---- Phone: side bars at the board's ends, the wood lit from the top ----------------------

/** The bounding boxes of the board, its side bars and the holes of each column. */
const layout = (page) =>
  page.evaluate(() => {
    const box = (e) => {
      const r = e.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    };
    const col = (row) => [...document.querySelectorAll(`#board g.hole[data-hole^=${row}] .pit`)].map((c) => box(c));
    return {
      board: box(document.querySelector('#board svg')),
      north: box(document.getElementById('side-north')),
      south: box(document.getElementById('side-south')),
      cols: { b: col('b'), a: col('a'), A: col('A'), B: col('B') },
    };
  });

/** The side bar `bar` holds, left to right, exactly the columns `rows` of the board. */
function barOverColumns(l, bar, rows, where) {
  const b = l[bar];
  for (const row of ['b', 'a', 'A', 'B']) {
    for (const h of l.cols[row]) {
      const mid = (h.left + h.right) / 2;
      const inside = mid >= b.left - 1 && mid <= b.right + 1;
      assert(inside === rows.includes(row), `${where}: the ${bar} bar ${inside ? 'over' : 'not over'} column ${row}`);
    }
  }
}

for (const [name, path, far, near] of [
  ['South nearest', '/play?ruleset=tsoro:21&mode=two', 'north', 'south'],
  ['North nearest', '/play?ruleset=tsoro:21&level=beginner&side=N', 'south', 'north'],
]) {
  test(`portrait on a phone (${name}): each side bar at the board's end, over its own columns`, async (browser) => {
    const page = await open(browser, path, { viewport: PHONE });
    assert((await page.$eval('#board svg', (s) => s.dataset.orientation)) === 'portrait', 'portrait');
    const l = await layout(page);
    assert(l[far].bottom <= l.board.top + 2, `the ${far} bar above the board (${l[far].bottom} / ${l.board.top})`);
    assert(l[near].top >= l.board.bottom - 2, `the ${near} bar below the board (${l[near].top} / ${l.board.bottom})`);
    const rowsOf = (side) => (side === 'north' ? ['b', 'a'] : ['A', 'B']);
    barOverColumns(l, far, rowsOf(far), name);
    barOverColumns(l, near, rowsOf(near), name);
    // The far side's columns are the left ones: its bar at the board's left edge, the near at its right.
    assert(Math.abs(l[far].left - l.board.left) < 3, 'the far bar from the board’s left edge');
    assert(Math.abs(l[near].right - l.board.right) < 3, 'the near bar to the board’s right edge');
    await page.screenshot({ path: join(out, `analysis-portrait-sides-${far === 'north' ? 'south' : 'north'}-nearest.png`), fullPage: true });
    assert(!page.errors.length, page.errors.join('\n'));
    await page.context().close();
  });
}

test('the wood and the pits are lit from the top of the screen in every orientation', async (browser) => {
  const cases = [
    ['landscape', DESKTOP, '/play?ruleset=tsoro:8&mode=two'],
    ['landscape, North nearest', DESKTOP, '/play?ruleset=tsoro:8&level=beginner&side=N'],
    ['portrait', PHONE, '/play?ruleset=tsoro:21&mode=two'],
    ['portrait, North nearest', PHONE, '/play?ruleset=tsoro:21&level=beginner&side=N'],
  ];
  for (const [name, viewport, path] of cases) {
    const page = await open(browser, path, { viewport });
    const light = await page.evaluate(() => {
      const rect = document.querySelector('#board svg rect.wood');
      const grad = document.querySelector(rect.getAttribute('fill').slice(4, -1));
      const bb = rect.getBBox();
      const m = rect.getScreenCTM();
      const at = (u, v) => new DOMPoint(bb.x + u * bb.width, bb.y + v * bb.height).matrixTransform(m);
      const g = (k) => Number(grad.getAttribute(k));
      const from = at(g('x1'), g('y1'));
      const to = at(g('x2'), g('y2'));
      const pit = document.querySelector('#board svg circle.pit');
      const pg = document.querySelector(pit.getAttribute('fill').slice(4, -1));
      const pm = pit.getScreenCTM();
      const pb = pit.getBBox();
      const hi = new DOMPoint(pb.x + Number(pg.getAttribute('cx')) * pb.width, pb.y + Number(pg.getAttribute('cy')) * pb.height).matrixTransform(pm);
      const centre = new DOMPoint(0, 0).matrixTransform(pm);
      return { dx: to.x - from.x, dy: to.y - from.y, hiDx: hi.x - centre.x, hiDy: hi.y - centre.y };
    });
    assert(light.dy > 0 && Math.abs(light.dx) < 1, `${name}: the wood light to dark from the top down ${JSON.stringify(light)}`);
    assert(light.hiDy < 0 && Math.abs(light.hiDx) < 0.5, `${name}: the pits' light above their centre ${JSON.stringify(light)}`);
    await page.context().close();
  }
});

await runTests(tests, await launchChromium(), only);
