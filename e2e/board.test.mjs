// Play on the board as a new user meets it, in headless Chromium at phone (390x844) and
// desktop (1280x800) sizes: portrait boards, sound, bonus picks in any order (board page and
// online), the clickable move list, the hint and head marks. Screenshots of each case go to
// e2e/out/board-*.png. (Who is who, the catalogue and the themes: board-look.test.mjs.)
// Usage: node board.test.mjs http://127.0.0.1:PORT/   (run.sh does this)
import { join } from 'node:path';
import { apiOk as api, assert, base, boardTurn, closeClean, DESKTOP, idle, launchChromium, moveCount, open, out, phase, PHONE, runTests, SIZES, tap } from './harness.mjs';

const only = process.env.BOARD_ONLY || '';

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

const moveList = (page) => page.$$eval('#moves .move:not(.future):not(.partial)', (ms) => ms.map((m) => m.textContent));
const takeable = (page) => page.$$eval('#board g.hole.takeable', (gs) => gs.map((g) => g.dataset.hole));

/** Canonical order of the opponent's holes for a bonus (RULES.md §6.3). */
function bonusOrder(mover, n) {
  const [outer, inner] = mover === 'North' ? ['B', 'A'] : ['b', 'a'];
  const out = [];
  for (const row of [outer, inner]) for (let k = 1; k <= n; k++) out.push(`${row}${k}`);
  return out;
}

// ---- Item 1: portrait boards on phones -------------------------------------------------

/** Every hole's box on screen. */
const holeBoxes = (page) =>
  page.$$eval('#board g.hole', (gs) =>
    gs.map((g) => {
      const r = g.querySelector('.pit').getBoundingClientRect();
      return { hole: g.dataset.hole, left: r.left, right: r.right, width: r.width, top: r.top };
    }),
  );

for (const ruleset of ['tsoro:21', 'nsolo:36', 'tsoro:6']) {
  test(`portrait on a phone for ${ruleset}: holes inside the screen and at least 40 px; landscape on a desktop`, async (browser) => {
    const phone = await open(browser, `/play?ruleset=${ruleset}&mode=two`, { viewport: PHONE });
    await idle(phone);
    const n = Number(ruleset.split(':')[1]);
    const want = n > 6 ? 'portrait' : 'landscape';
    assert((await phone.$eval('#board svg', (s) => s.dataset.orientation)) === want, `${want} on the phone`);
    const boxes = await holeBoxes(phone);
    for (const b of boxes) {
      assert(b.left >= 0 && b.right <= PHONE.width, `${b.hole} inside the screen (${b.left}..${b.right})`);
      assert(b.width >= 40, `${b.hole} ${b.width.toFixed(1)} px`);
    }
    const scrollX = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert(scrollX <= 0, `the page does not scroll sideways (${scrollX})`);
    if (want === 'portrait') {
      // Columns b a A B left to right; South's holes from 1 at the bottom up to N.
      const at = Object.fromEntries(boxes.map((b) => [b.hole, b]));
      assert(at.b1.left < at.a1.left && at.a1.left < at.A1.left && at.A1.left < at.B1.left, 'columns b a A B');
      assert(at.B1.top > at[`B${n}`].top, 'B1 below BN');
    }
    await phone.screenshot({ path: join(out, `board-portrait-${ruleset.replace(':', '-')}-phone.png`), fullPage: true });
    assert(!phone.errors.length, phone.errors.join('\n'));
    await phone.context().close();
    const desk = await open(browser, `/play?ruleset=${ruleset}&mode=two`, { viewport: DESKTOP });
    await idle(desk);
    assert((await desk.$eval('#board svg', (s) => s.dataset.orientation)) === 'landscape', 'landscape on the desktop');
    await desk.screenshot({ path: join(out, `board-landscape-${ruleset.replace(':', '-')}-desktop.png`) });
    await desk.context().close();
  });
}

test('portrait tsoro:21 on a phone: a game by tapping through a head choice and a capture with bonus picks', async (browser) => {
  // The first start whose lap ends on an occupied head, found with the engine.
  const start = await api('/api/game', { start: 'tsoro:21' });
  let head = null;
  for (const d of start.legal) {
    const st = await api('/api/game', { start: 'tsoro:21', moves: [], pending: [], apply: [d] });
    if (st.phase === 'head') {
      head = d.split(' ')[1];
      break;
    }
  }
  assert(head, 'a start that reaches a head');
  const page = await open(browser, '/play?ruleset=tsoro:21&mode=two', { viewport: PHONE });
  await idle(page);
  await page.locator(`#board g.hole[data-hole=${head}]`).tap();
  await idle(page);
  assert((await phase(page)) === 'head', 'the head choice');
  await page.screenshot({ path: join(out, 'board-portrait-head-choice.png') });
  await page.locator('#btn-stop').tap();
  await idle(page);
  assert((await moveCount(page)) === 1, 'one turn');
  // The capture: the position editor's start with a capture for South.
  await page.goto(`${base}/play?position=${encodeURIComponent(TSORO21)}&mode=two`);
  await idle(page);
  assert((await page.$eval('#board svg', (s) => s.dataset.orientation)) === 'portrait', 'portrait');
  await page.locator('#board g.hole[data-hole=B20]').tap();
  await idle(page);
  await page.locator('#board g.hole[data-hole=b21]').tap();
  await page.screenshot({ path: join(out, 'board-portrait-bonus.png') });
  await page.locator('#board g.hole[data-hole=b3]').tap();
  await idle(page);
  assert(JSON.stringify(await moveList(page)) === '["B20xb3xb21"]', `token ${await moveList(page)}`);
  await closeClean(page);
});

test('portrait keyboard: the arrows follow the turned board', async (browser) => {
  const page = await open(browser, '/play?ruleset=tsoro:21&mode=two', { viewport: PHONE });
  await idle(page);
  await page.locator('#board g.hole[data-hole=B1]').focus();
  await page.keyboard.press('ArrowUp');
  const up = await page.evaluate(() => document.activeElement.getAttribute('data-hole'));
  assert(up === 'B2', `ArrowUp from B1 goes to ${up}`);
  await page.keyboard.press('ArrowDown');
  assert((await page.evaluate(() => document.activeElement.getAttribute('data-hole'))) === 'B1', 'ArrowDown back');
  await page.context().close();
});

for (const [device, viewport] of SIZES) {
  test(`playing North against the computer: North's rows and name nearest the player (${device})`, async (browser) => {
    const page = await open(browser, '/play?ruleset=tsoro:8&side=N&level=beginner', { viewport });
    await page.waitForFunction(() => document.getElementById('play').dataset.moves === '1');
    await idle(page);
    const at = Object.fromEntries((await holeBoxes(page)).map((b) => [b.hole, b]));
    if (device === 'phone') {
      assert((await page.$eval('#board svg', (s) => s.dataset.orientation)) === 'portrait', 'portrait');
      assert(at.b1.left > at.B1.left, "North's outer row on the right, where South's is for South");
      assert(at.b1.top > at.b8.top, 'b1 at the bottom');
    } else {
      assert(at.b1.top > at.B1.top, "North's rows below");
      assert(at.b1.left < at.b8.left, 'b1 at the left, as North sees his rows');
    }
    const board = await page.$eval('#board svg', (s) => s.getBoundingClientRect().bottom);
    const north = await page.$eval('#side-north', (s) => s.getBoundingClientRect().top);
    assert(north > board, "North's bar (You) below the board");
    assert((await page.$eval('#side-north', (s) => s.dataset.name)) === 'You', 'North is You');
    const legal = await page.$$eval('#board g.hole.legal', (gs) => gs.map((g) => g.dataset.hole));
    assert(legal.length && legal.every((h) => /^[ab]/.test(h)), `North's holes to click: ${legal}`);
    await page.locator(`#board g.hole[data-hole=${legal[0]}]`).click();
    await idle(page);
    await page.screenshot({ path: join(out, `board-north-nearest-${device}.png`), fullPage: device === 'phone' });
    await closeClean(page);
  });
}

// ---- Item 3: sound ---------------------------------------------------------------------

test('sound: none before a gesture, tones per stone and capture after, mute remembered', async (browser) => {
  const context = await browser.newContext({ viewport: DESKTOP });
  // Count the tones the page starts, with the real Web Audio underneath.
  await context.addInitScript(() => {
    localStorage.setItem('matombo-speed', '1');
    window.__tones = 0;
    window.__contexts = 0;
    const Real = window.AudioContext;
    window.AudioContext = class extends Real {
      constructor(...a) {
        super(...a);
        window.__contexts++;
      }
      createOscillator() {
        const o = super.createOscillator();
        const start = o.start.bind(o);
        o.start = (...a) => {
          window.__tones++;
          return start(...a);
        };
        return o;
      }
    };
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${base}/play?position=${encodeURIComponent(TSORO21)}&mode=two`);
  await idle(page);
  assert((await page.evaluate(() => window.__contexts)) === 0, 'no audio before a gesture');
  assert((await page.getAttribute('#btn-sound', 'aria-pressed')) === 'true', 'sound on by default');
  await tap(page, 'B20');
  await idle(page);
  const tones = await page.evaluate(() => window.__tones);
  assert((await page.evaluate(() => window.__contexts)) === 1, 'audio after the first click');
  assert(tones >= 3, `a tone per stone and a capture (${tones})`);
  await page.click('#btn-sound');
  assert((await page.getAttribute('#btn-sound', 'aria-pressed')) === 'false', 'muted');
  await tap(page, 'b21');
  await tap(page, 'b5');
  await idle(page);
  assert((await page.evaluate(() => window.__tones)) === tones, 'no tone when muted');
  await page.reload();
  await idle(page);
  assert((await page.getAttribute('#btn-sound', 'aria-pressed')) === 'false', 'the mute is remembered');
  assert(!errors.length, errors.join('\n'));
  await context.close();
});

// ---- Item 6: bugs -------------------------------------------------------------------

// South's B20 sows into B21 and the empty A21, which faces a1 (3 stones): a1 and b1 are
// captured, and up to two more of North's holes may be taken, the heads b20 and b21 among them.
const TSORO21 = 'tsoro:21 2*19,0,2/0*20,3/0*21/0*19,2,0 S';

for (const [device, viewport] of SIZES) {
  test(`Tsoro 4x21 bonus: the head b21 first, then b5, recorded B20xb5xb21 (${device})`, async (browser) => {
    const page = await open(browser, `/play?position=${encodeURIComponent(TSORO21)}&mode=two`, { viewport });
    await idle(page);
    assert((await page.$eval('#position-text', (e) => e.textContent)) === TSORO21, 'the position from the address');
    await tap(page, 'B20');
    await idle(page);
    assert((await phase(page)) === 'bonus', 'bonus after the capture');
    assert((await page.textContent('#prompt')).includes('Take up to 2 holes'), await page.textContent('#prompt'));
    await tap(page, 'b21');
    await idle(page);
    assert((await phase(page)) === 'bonus', 'the head first does not end the turn');
    assert((await page.textContent('#prompt')).includes('Take up to 1 hole'), await page.textContent('#prompt'));
    const offered = await takeable(page);
    assert(offered.includes('b5') && offered.includes('b3') && !offered.includes('b21'), `offered ${offered}`);
    assert((await page.getAttribute('#board g.hole[data-hole=b21]', 'class')).includes('picked'), 'b21 marked picked');
    assert((await page.getAttribute('#board g.hole[data-hole=b21]', 'data-count')) === '0', 'b21 shown taken');
    await page.screenshot({ path: join(out, `board-bonus-any-order-${device}.png`) });
    await tap(page, 'b5');
    await idle(page);
    assert(JSON.stringify(await moveList(page)) === '["B20xb5xb21"]', `token ${await moveList(page)}`);
    const engine = await api('/api/game', { start: TSORO21, moves: ['B20xb5xb21'] });
    assert((await page.$eval('#position-text', (e) => e.textContent)) === engine.position, 'the engine position');
    await closeClean(page);
  });
}

test('Tsoro bonus: one pick then Done, and Undo takes a pick back', async (browser) => {
  const page = await open(browser, `/play?position=${encodeURIComponent(TSORO21)}&mode=two`);
  await idle(page);
  await tap(page, 'B20');
  await idle(page);
  await tap(page, 'b21');
  await page.click('#btn-undo');
  await idle(page);
  assert((await phase(page)) === 'bonus' && (await takeable(page)).includes('b21'), 'the pick taken back');
  await tap(page, 'b20');
  await page.click('#btn-done');
  await idle(page);
  assert(JSON.stringify(await moveList(page)) === '["B20xb20"]', `token ${await moveList(page)}`);
  await closeClean(page);
});

test('Nsolo bonus: the last hole in canonical order first, then the first, recorded in order', async (browser) => {
  const page = await open(browser, '/play?ruleset=nsolo:8&mode=two');
  await idle(page);
  await tap(page, 'B1');
  await idle(page);
  assert((await page.textContent('#prompt')).includes('Take 2 more stones'), await page.textContent('#prompt'));
  const order = bonusOrder('South', 8);
  const offered = (await takeable(page)).sort((x, y) => order.indexOf(x) - order.indexOf(y));
  const [first, last] = [offered[0], offered[offered.length - 1]];
  await tap(page, last);
  await idle(page);
  assert((await page.textContent('#prompt')).includes('Take 1 more stone'), await page.textContent('#prompt'));
  assert((await takeable(page)).includes(first), `${first} still offered after ${last}`);
  await tap(page, first);
  await idle(page);
  const [token] = await moveList(page);
  assert(token === `B1x${first}x${last}`, `token ${token}`);
  await api('/api/game', { start: 'nsolo:8', moves: [token] });
  await closeClean(page);
});

test('online: bonus picks in any order, the canonical token sent', async (browser) => {
  const made = await api('/api/online/rooms', { ruleset: 'nsolo:8', side: 'south', name: 'Alice' });
  const alice = await open(browser, `/online/game/${made.id}#seat=${made.token}`);
  const bob = await open(browser, `/online/game/${made.id}#invite=${made.invite}`);
  await bob.waitForSelector('#claim:not([hidden])');
  await bob.fill('#claim-name', 'Bob');
  await bob.click('#btn-claim');
  await bob.waitForURL(/#seat=/);
  await alice.waitForFunction(() => document.getElementById('room').dataset.offer === 'yes');
  await tap(alice, 'B1');
  await alice.waitForSelector('#board g.hole.takeable');
  await alice.waitForFunction(() => !document.querySelector('#board svg.animating'));
  const order = bonusOrder('South', 8);
  const offered = (await takeable(alice)).sort((x, y) => order.indexOf(x) - order.indexOf(y));
  const [first, last] = [offered[0], offered[offered.length - 1]];
  await tap(alice, last);
  assert((await takeable(alice)).includes(first), `${first} still offered after ${last}`);
  await alice.screenshot({ path: join(out, 'board-online-bonus.png') });
  await tap(alice, first);
  await bob.waitForFunction(() => Number(document.getElementById('room').dataset.ply) === 1);
  const id = new URL(alice.url()).pathname.split('/').pop();
  const record = await (await fetch(`${base}/api/online/rooms/${id}/record`)).text();
  assert(record.includes(`1. B1x${first}x${last}`), `record: ${record}`);
  // The online pages ask for resources of their own (e.g. an icon) the server may lack: only
  // script errors count here.
  for (const p of [alice, bob]) {
    const scriptErrors = p.errors.filter((e) => !e.startsWith('Failed to load resource'));
    assert(!scriptErrors.length, scriptErrors.join('\n'));
  }
  await alice.context().close();
  await bob.context().close();
});

test('the move list is clickable: any turn, back and forward', async (browser) => {
  const page = await open(browser, '/play?ruleset=tsoro:8&mode=two');
  await idle(page);
  for (let t = 0; t < 3; t++) {
    await boardTurn(page);
  }
  const all = await moveList(page);
  assert(all.length === 3, `three turns ${all}`);
  const third = await page.$eval('#position-text', (e) => e.textContent);
  await page.click('#moves button.move[data-ply="1"]');
  await idle(page);
  assert((await moveCount(page)) === 1, 'the game after turn 1');
  const engine = await api('/api/game', { start: 'tsoro:8', moves: all.slice(0, 1) });
  assert((await page.$eval('#position-text', (e) => e.textContent)) === engine.position, 'position after turn 1');
  assert((await page.locator('#moves button.move.future').count()) === 2, 'later turns shown to step forward');
  await page.screenshot({ path: join(out, 'board-move-list.png') });
  await page.click('#moves button.move[data-ply="3"]');
  await idle(page);
  assert((await moveCount(page)) === 3, 'forward to turn 3');
  assert((await page.$eval('#position-text', (e) => e.textContent)) === third, 'position after turn 3');
  await closeClean(page);
});

/** Parses `rgb(r, g, b)` / `rgba(...)`. */
function rgb(css) {
  const m = css.match(/rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)/);
  if (!m) throw new Error(`not a colour: ${css}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

test('the head prompt names a hole the board labels; the hint ring is not a head ring', async (browser) => {
  const page = await open(browser, '/play?ruleset=tsoro:8&mode=two');
  await idle(page);
  await tap(page, 'B2');
  await idle(page);
  assert((await phase(page)) === 'head', 'lap ended on the head');
  const prompt = await page.textContent('#prompt');
  const named = prompt.match(/\b[AaBb]\d+\b/)[0];
  const tag = await page.$eval(`#board g.hole[data-hole=${named}] .hole-tag`, (t) => ({
    display: getComputedStyle(t).display,
    text: t.textContent,
  }));
  assert(tag.display !== 'none' && tag.text === named, `the board labels ${named}: ${JSON.stringify(tag)}`);
  await page.screenshot({ path: join(out, 'board-head-prompt.png') });
  await page.click('#btn-stop');
  await idle(page);
  await page.click('#btn-hint');
  await page.waitForSelector('#board g.hole.hint');
  const head = rgb(await page.$eval('#board g.hole.head .pit', (c) => getComputedStyle(c).stroke));
  const hint = rgb(await page.$eval('#board g.hole.hint .ring', (c) => getComputedStyle(c).stroke));
  const distance = Math.hypot(head[0] - hint[0], head[1] - hint[1], head[2] - hint[2]);
  assert(distance > 150, `hint ${hint} too close to head ${head} (${distance.toFixed(0)})`);
  await page.screenshot({ path: join(out, 'board-hint.png') });
  await closeClean(page);
});

// ---- Runner ---------------------------------------------------------------------------

await runTests(tests, await launchChromium(), only);
