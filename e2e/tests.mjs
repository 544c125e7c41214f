// End-to-end tests of the matombo site in Debian's headless Chromium, driven by
// playwright-core. Usage: node tests.mjs http://127.0.0.1:PORT/   (run.sh does this)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, assert, base, boardTurn, closeClean, idle, launchChromium, newPage, out, PHONE, runTests } from './harness.mjs';

const only = process.env.E2E_ONLY || '';

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

const DESKTOP = { width: 1366, height: 900 };

/** A page with fast animations, in a fresh context. */
async function open(browser, path, { viewport = DESKTOP, speed = '4', lang = 'en' } = {}) {
  const page = await newPage(browser, { viewport, speed, lang, consoleErrors: true });
  await page.goto(base + path);
  return page;
}

async function phase(page) {
  return page.$eval('#play', (p) => p.dataset.phase);
}

async function moveCount(page) {
  return Number(await page.$eval('#play', (p) => p.dataset.moves));
}

async function sumCounts(page, selector) {
  return page.$$eval(`${selector} g.hole`, (gs) => gs.reduce((s, g) => s + Number(g.dataset.count), 0));
}

test('catalogue shows both games with variants, traditional sizes first', async (browser) => {
  const page = await open(browser, '/');
  for (const game of ['tsoro', 'nsolo']) {
    const card = page.locator(`#card-${game}`);
    await card.waitFor();
    assert((await card.locator('h2').textContent()).includes(game === 'tsoro' ? 'Tsoro' : 'Nsolo'), 'card title');
    const first = await page.$eval(`#${game}-size optgroup option`, (o) => o.value);
    assert(first === (game === 'tsoro' ? '21' : '8'), `${game} first size ${first}`);
    assert((await card.locator('button[type=submit]').textContent()).includes('Play this game'), 'play button');
  }
  assert(await page.locator('#tsoro-heads').count(), 'tsoro heads choice');
  assert(await page.locator('#tsoro-bonus').count(), 'tsoro bonus choice');
  // The card art follows the chosen size, from the engine's start position.
  await page.waitForFunction(() => document.querySelectorAll('.card-art svg').length === 2);
  await page.screenshot({ path: join(out, 'catalogue-desktop.png'), fullPage: true });
  await page.selectOption('#nsolo-size', '12');
  await page.waitForFunction(() => document.querySelectorAll('#card-nsolo svg g.hole').length === 48);
  assert((await sumCounts(page, '#card-nsolo')) === 8 * 12 - 4, 'nsolo:12 start stones');
  await page.selectOption('#tsoro-size', '8');
  await page.click('#tsoro-submit');
  await page.waitForURL(/\/play\?/);
  await page.locator('#board svg').waitFor();
  assert((await page.locator('#board g.hole').count()) === 32, '4x8 board after Play this game');
  await closeClean(page);
});

test('rules page diagram is the engine start position for the chosen size', async (browser) => {
  const page = await open(browser, '/rules/tsoro');
  for (const id of ['overview', 'board', 'play', 'capture', 'end', 'variants', 'sources']) {
    assert(await page.locator(`section#${id}`).count(), `section ${id}`);
  }
  await page.selectOption('#tsoro-size', '8');
  await page.waitForURL(/size=8/);
  await page.locator('figure.start-diagram svg').waitFor();
  const fig = page.locator('figure.start-diagram');
  assert((await fig.getAttribute('data-holes')) === '32', 'data-holes');
  assert((await page.locator('figure.start-diagram g.hole').count()) === 32, 'drawn holes');
  const engine = (await api('/api/game', { start: 'tsoro:8' })).body;
  const want = [...engine.rows.b, ...engine.rows.a, ...engine.rows.A, ...engine.rows.B];
  const drawn = await page.$$eval('figure.start-diagram g.hole', (gs) =>
    Object.fromEntries(gs.map((g) => [g.dataset.hole, Number(g.dataset.count)])),
  );
  for (const row of ['b', 'a', 'A', 'B']) {
    engine.rows[row].forEach((c, i) => assert(drawn[`${row}${i + 1}`] === c, `${row}${i + 1}`));
  }
  assert(want.reduce((a, b) => a + b, 0) === 32, 'tsoro:8 has 32 stones');
  assert((await page.locator('figure.start-diagram g.hole.head').count()) === 4, 'four heads marked');
  await page.screenshot({ path: join(out, 'rules-tsoro-8.png') });
  // Nsolo on the village board.
  await page.goto(`${base}/rules/nsolo?size=36`);
  await page.locator('figure.start-diagram svg').waitFor();
  assert((await page.locator('figure.start-diagram g.hole').count()) === 144, 'nsolo:36 holes');
  assert((await sumCounts(page, 'figure.start-diagram')) === 284, 'nsolo:36 stones');
  assert((await page.locator('figure.start-diagram g.hole[data-hole="A36"]').getAttribute('data-count')) === '0', 'A36 empty');
  await closeClean(page);
});

test('language switch translates the rules and the board page', async (browser) => {
  const page = await open(browser, '/rules/nsolo');
  await page.click('nav.langs a[hreflang=fi]');
  await page.waitForURL(/lang=fi/);
  assert((await page.getAttribute('html', 'lang')) === 'fi', 'html lang fi');
  assert((await page.locator('h1').textContent()).includes('Säännöt'), 'Finnish title');
  await page.click('nav.langs a[hreflang=bn]');
  await page.waitForURL(/lang=bn/);
  assert((await page.locator('section#capture h2').textContent()).trim() === 'দখল', 'Bengali section');
  // The choice is remembered for the next page (cookie).
  await page.goto(`${base}/play?ruleset=tsoro:8`);
  assert((await page.locator('#btn-new').textContent()).includes('নতুন খেলা'), 'Bengali board words');
  await page.click('nav.langs a[hreflang=da]');
  await page.waitForURL(/lang=da/);
  assert((await page.locator('#btn-undo').textContent()).includes('Fortryd'), 'Danish undo');
  await closeClean(page);
});

test('a complete game against the AI by clicking (tsoro:6, beginner)', async (browser) => {
  const page = await open(browser, '/play?ruleset=tsoro:6&mode=ai&level=beginner&side=S');
  let heads = 0;
  let picks = 0;
  for (let step = 0; step < 600; step++) {
    await idle(page);
    const ph = await phase(page);
    if (ph === 'over') break;
    if (ph === 'start') {
      const legal = page.locator('#board g.hole.legal');
      const n = await legal.count();
      assert(n > 0, 'a legal start is highlighted');
      await legal.nth(step % n).click();
    } else if (ph === 'head') {
      heads++;
      const cont = page.locator('#btn-continue');
      if ((await cont.isEnabled()) && heads % 2) await cont.click();
      else await page.click('#btn-stop');
    } else if (ph === 'bonus') {
      const take = page.locator('#board g.hole.takeable');
      if ((await take.count()) && picks % 3 !== 2) {
        picks++;
        await take.first().click();
      } else {
        picks++;
        await page.click('#btn-done');
      }
    }
  }
  assert((await phase(page)) === 'over', 'the game ended');
  const banner = page.locator('#banner');
  assert(await banner.isVisible(), 'result banner');
  const text = await banner.textContent();
  assert(/You win|You lose|Draw/.test(text) && /no legal move/.test(text), `banner speaks to the player: ${text}`);
  assert(await page.isVisible('#btn-again'), 'a Play again button');
  assert((await page.locator('#moves .move').count()) === (await moveCount(page)), 'move list');
  await page.screenshot({ path: join(out, 'game-over-tsoro-6.png') });
  console.log(`    ${await moveCount(page)} turns, ${heads} head choices, ${picks} bonus decisions: ${text.trim()}`);
  await closeClean(page);
});

test('playing North against the AI: it moves first, with a thinking indicator', async (browser) => {
  const page = await open(browser, '/play?ruleset=nsolo:8&mode=ai&level=beginner');
  await idle(page);
  await page.selectOption('#human-side', 'N');
  // The choice waits for New game: the game in progress is not changed under the player.
  await page.waitForTimeout(500);
  assert((await moveCount(page)) === 0, 'no computer turn before New game');
  assert((await page.$eval('#play', (p) => p.dataset.toMove)) === 'South', 'South (still the person) to move');
  await page.click('#btn-new');
  await page.waitForSelector('#thinking:not([hidden])', { timeout: 5000 }).catch(() => {});
  await page.waitForFunction(() => document.getElementById('play').dataset.moves === '1');
  await idle(page);
  assert((await page.$eval('#play', (p) => p.dataset.toMove)) === 'North', 'North (the person) to move');
  assert((await page.locator('#board g.hole.legal').count()) > 0, 'North starts highlighted');
  const legal = await page.$$eval('#board g.hole.legal', (gs) => gs.map((g) => g.dataset.hole));
  assert(legal.every((h) => h[0] === 'a' || h[0] === 'b'), `only North's holes: ${legal}`);
  await closeClean(page);
});

test('New game during an animation starts a clean game', async (browser) => {
  // Slowest animation, so that the click lands while the turn is still being sown.
  const page = await open(browser, '/play?ruleset=tsoro:8&mode=two', { speed: '0' });
  await idle(page);
  await page.click('#board g.hole[data-hole=B2]');
  await page.waitForFunction(() => document.getElementById('play').dataset.busy === 'true');
  await page.click('#btn-new');
  await idle(page);
  await page.waitForTimeout(300);
  assert((await moveCount(page)) === 0, 'the new game has no turn');
  assert((await page.$eval('#play', (p) => p.dataset.phase)) === 'start', 'the new game is at its start');
  await page.click('#board g.hole[data-hole=B3]');
  await idle(page);
  const moves = await page.$$eval('#moves .move', (ms) => ms.map((m) => m.textContent));
  assert(moves.length <= 1 && !moves.some((m) => m.startsWith('B2')), `only the new game's turn: ${moves}`);
  await closeClean(page);
});

test('head choice, undo and redo, keyboard play (two players)', async (browser) => {
  const page = await open(browser, '/play?ruleset=tsoro:8&mode=two');
  await idle(page);
  // Keyboard: Tab into the board, arrows to B2, Enter.
  await page.locator('#board g.hole[data-hole=B1]').focus();
  await page.keyboard.press('ArrowRight');
  const focused = await page.evaluate(() => document.activeElement.getAttribute('data-hole'));
  assert(focused === 'B2', `arrow moved focus to ${focused}`);
  assert((await page.locator('#board g.hole[data-hole=B2]').getAttribute('aria-label')).includes('B2, 2 stones'), 'label');
  await page.keyboard.press('Enter');
  await idle(page);
  assert((await phase(page)) === 'head', 'lap ended on the head B7');
  assert((await page.locator('#prompt').textContent()).includes('B7'), 'prompt names the head');
  const onButton = await page.evaluate(() => document.activeElement.id);
  assert(onButton === 'btn-continue', `keyboard focus moved to the head choice (${onButton})`);
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await idle(page);
  assert((await page.locator('#moves .move').first().textContent()) === 'B2=', 'B2= in the move list');
  const next = await page.evaluate(() => document.activeElement.getAttribute('data-hole'));
  assert(next && next[0] === 'b', `focus back on North's legal holes (${next})`);
  const after = await page.$eval('#position-text', (e) => e.textContent);
  const engine = (await api('/api/game', { start: 'tsoro:8', moves: ['B2='] })).body;
  assert(after === engine.position, 'position after B2=');
  await boardTurn(page);
  assert((await moveCount(page)) === 2, 'two moves');
  await page.click('#btn-undo');
  await idle(page);
  assert((await moveCount(page)) === 1, 'undo takes back one move');
  assert((await page.$eval('#position-text', (e) => e.textContent)) === after, 'undo restores the position');
  await page.keyboard.press('Control+y');
  await idle(page);
  assert((await moveCount(page)) === 2, 'redo');
  // Buttons have names for screen readers.
  const unnamed = await page.$$eval('button', (bs) => bs.filter((b) => !b.hidden && !b.textContent.trim() && !b.getAttribute('aria-label')).length);
  assert(unnamed === 0, 'every button has a name');
  await closeClean(page);
});

test('bonus picks: Tsoro up to K holes then done, Nsolo with a stone counter', async (browser) => {
  const page = await open(browser, '/play?ruleset=tsoro:6&mode=two');
  await idle(page);
  // The position editor: paste a position where South's B5 captures a1 and b1.
  await page.click('#btn-editor');
  const pos = 'tsoro:6 2*4,0,2/0*5,3/0*6/0*4,2,0 S';
  await page.fill('#editor-text', pos);
  assert((await page.locator('#editor-totals').textContent()).includes('15'), 'totals shown');
  await page.fill('#edit-B-0', '99');
  assert((await page.locator('#editor-totals').getAttribute('class')).includes('bad'), 'too many stones flagged');
  await page.fill('#edit-B-0', '0');
  await page.click('#editor-apply');
  await page.waitForFunction((p) => document.getElementById('position-text').textContent === p, pos);
  await idle(page);
  await page.click('#board g.hole[data-hole=B5]');
  await idle(page);
  assert((await phase(page)) === 'bonus', 'bonus after the capture');
  assert((await page.locator('#prompt').textContent()).includes('2'), 'up to 2 holes');
  assert((await page.locator('#board g.hole[data-hole=a1]').getAttribute('data-count')) === '0', 'a1 captured');
  assert((await page.locator('#board g.hole[data-hole=b1]').getAttribute('data-count')) === '0', 'b1 captured too');
  await page.click('#board g.hole[data-hole=b4]');
  await idle(page);
  assert((await phase(page)) === 'bonus', 'one more hole may be taken');
  await page.click('#btn-done');
  await idle(page);
  assert((await page.locator('#moves .move').first().textContent()) === 'B5xb4', 'token B5xb4');

  await page.goto(`${base}/play?ruleset=nsolo:8&mode=two`);
  await idle(page);
  await page.click('#board g.hole[data-hole=B1]');
  await idle(page);
  assert((await page.locator('#prompt').textContent()).includes('Take 2 more'), 'counter 2');
  await page.click('#board g.hole[data-hole=b3]');
  await idle(page);
  assert((await page.locator('#prompt').textContent()).includes('Take 1 more'), 'counter 1');
  await page.click('#board g.hole[data-hole=b3]');
  await idle(page);
  assert((await page.locator('#moves .move').first().textContent()) === 'B1xb3:2', 'token B1xb3:2');
  await page.screenshot({ path: join(out, 'nsolo-8-after-bonus.png') });
  await closeClean(page);
});

test('save a record, load it back, copy the position, hint', async (browser) => {
  const page = await open(browser, '/play?ruleset=tsoro:8&mode=two');
  await idle(page);
  for (let i = 0; i < 3; i++) {
    await boardTurn(page, { last: true });
  }
  const moves = await page.$$eval('#moves .move', (ms) => ms.map((m) => m.textContent));
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#btn-download')]);
  const file = join(out, 'record.txt');
  await download.saveAs(file);
  const text = readFileSync(file, 'utf8');
  assert(text.includes('[Ruleset "tsoro:8"]'), 'record ruleset tag');
  assert(text.includes(`1. ${moves[0]} ${moves[1]}`), 'record movetext');
  await page.click('#btn-new');
  await idle(page);
  assert((await moveCount(page)) === 0, 'new game');
  await page.setInputFiles('#record-file', file);
  await page.waitForFunction((n) => document.getElementById('play').dataset.moves === String(n), moves.length);
  const back = await page.$$eval('#moves .move', (ms) => ms.map((m) => m.textContent));
  assert(JSON.stringify(back) === JSON.stringify(moves), `loaded moves ${back}`);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  await page.click('#btn-copy');
  await page.waitForFunction(() => document.getElementById('tool-message').textContent.length > 0);
  const pos = await page.$eval('#position-text', (e) => e.textContent);
  const clip = await page.evaluate(() => navigator.clipboard.readText().catch(() => null));
  if (clip !== null) assert(clip === pos, 'clipboard holds the position');
  await page.click('#btn-hint');
  await page.waitForFunction(() => document.getElementById('hint').textContent.length > 0);
  assert((await page.locator('#board g.hole.hint').count()) === 1, 'hint hole marked');
  await closeClean(page);
});

test('illegal requests change nothing and answer 4xx', async () => {
  const r = await fetch(`${base}/api/game`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ start: 'tsoro:8', apply: ['sow A1'] }),
  });
  assert(r.status === 422, `status ${r.status}`);
  const body = await r.json();
  assert(body.error === 'illegal' && body.message.includes('not legal'), `error body ${JSON.stringify(body)}`);
});

for (const [size, game] of [
  [8, 'tsoro:8'],
  [21, 'tsoro:21'],
  [36, 'nsolo:36'],
]) {
  for (const [device, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ]) {
    test(`screenshot 4x${size} ${device}: counts legible`, async (browser) => {
      const page = await open(browser, `/play?ruleset=${game}&mode=two`, { viewport });
      await idle(page);
      await page.check('#labels');
      // Smallest rendered count text: at least 10 CSS pixels high.
      const h = await page.$$eval('#board text.count', (ts) =>
        Math.min(...ts.filter((t) => t.textContent).map((t) => t.getBoundingClientRect().height)),
      );
      assert(h >= 10, `count text ${h.toFixed(1)}px high`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert(overflow <= 1, `the page itself does not scroll sideways (${overflow}px)`);
      await page.screenshot({ path: join(out, `board-4x${size}-${device}.png`), fullPage: device === 'phone' });
      await closeClean(page);
    });
  }
}

await runTests(tests, await launchChromium(), only);
