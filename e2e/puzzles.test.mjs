// The puzzles in real Chromium: a puzzle solved by clicking the proved line (the page
// playing the defence), one failed at once by another start, the solution shown, the
// ratings kept in the browser, Bengali on a phone 390 px wide, and an online identity's
// rating kept and rated by the server.
// Usage: node puzzles.test.mjs http://127.0.0.1:PORT/ (run.sh does this).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assert, base, launchChromium, out, ownServer, runTests } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const ui = JSON.parse(readFileSync(join(here, '..', 'crates/matombo-web/assets/content/ui.json'), 'utf8'));
const puzzles = readFileSync(join(here, '..', 'crates/matombo-web/assets/content/puzzles.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));

const tests = [];
const test = (name, fn) => tests.push({ name, fn });
const PHONE = { width: 390, height: 844 };

async function open(browser, url, { viewport = { width: 1280, height: 900 }, lang = 'en' } = {}) {
  const context = await browser.newContext({ viewport, isMobile: viewport === PHONE, hasTouch: viewport === PHONE, locale: lang });
  await context.addInitScript(() => localStorage.setItem('matombo-speed', '4'));
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && page.errors.push(m.text()));
  await page.goto(url);
  return page;
}

async function settled(page) {
  await page.waitForFunction(() => ['ready', 'solved', 'failed'].includes(document.getElementById('puzzles')?.dataset.state), null, {
    timeout: 30000,
  });
  return page.evaluate(() => document.getElementById('puzzles').dataset.state);
}

const hole = (page, label) => page.locator(`#task-board g.hole[data-hole="${label}"]`);

/** Plays one turn token by clicking: its start, its head marks, its bonus picks. */
async function playToken(page, token) {
  const m = /^([A-Za-z]\d+)([+=]*)(.*)$/.exec(token);
  await hole(page, m[1]).click();
  let state = await settled(page);
  for (const mark of m[2]) {
    if (state !== 'ready') return state;
    await page.click(mark === '+' ? '#btn-continue' : '#btn-stop');
    state = await settled(page);
  }
  for (const [, h, times] of m[3].matchAll(/x([A-Za-z]\d+)(?::(\d+))?/g)) {
    for (let i = 0; i < Number(times || 1); i++) {
      if (state !== 'ready') return state;
      await hole(page, h).click();
      state = await settled(page);
    }
  }
  if (state === 'ready' && (await page.isVisible('#btn-done'))) {
    await page.click('#btn-done');
    state = await settled(page);
  }
  return state;
}

// The longest line of the shipped puzzles of a small board: the defence is played too.
const long = puzzles
  .filter((p) => /^(tsoro|nsolo):[68] /.test(p.position))
  .sort((a, b) => b.solution.length - a.solution.length)[0];

test('a puzzle solved by clicking its proved line, the defence played by the page', async (browser) => {
  const page = await open(browser, `${base}/puzzles/${long.id}`);
  assert((await settled(page)) === 'ready', 'ready');
  assert((await page.getAttribute('#puzzles', 'data-puzzle')) === long.id, 'the puzzle asked for');
  let state = 'ready';
  for (let i = 0; i < long.solution.length; i += 2) {
    state = await playToken(page, long.solution[i]);
    if (i + 1 < long.solution.length) assert(state === 'ready', `after ${long.solution[i]}: ${state}`);
  }
  assert(state === 'solved', `solved (${state})`);
  assert((await page.textContent('#feedback')).startsWith(ui.en.puzzle_right), 'right');
  const kept = await page.evaluate(() => JSON.parse(localStorage.getItem('matombo-puzzles')));
  assert(kept.done[long.id] === 1 && kept.player.r > 1500, `rating up: ${JSON.stringify(kept.player)}`);
  await page.screenshot({ path: join(out, 'puzzle-solved.png'), fullPage: true });
  assert(!page.errors.length, page.errors.join('\n'));
  await page.context().close();
});

test('a puzzle failed at once by another start, then its solution shown', async (browser) => {
  // The first long puzzle whose first position has another legal start than the solution's.
  const page = await open(browser, `${base}/puzzles/${long.id}`);
  let other = null;
  let p = long;
  for (const cand of puzzles.filter((q) => /^(tsoro|nsolo):[68] /.test(q.position)).sort((a, b) => b.solution.length - a.solution.length).slice(0, 20)) {
    p = cand;
    await page.goto(`${base}/puzzles/${p.id}`);
    await settled(page);
    const start = /^[A-Za-z]\d+/.exec(p.solution[0])[0];
    other = await page.evaluate((s) => [...document.querySelectorAll('#task-board g.hole.legal')].map((h) => h.dataset.hole).find((h) => h !== s), start);
    if (other) break;
  }
  assert(other, 'another legal start');
  await hole(page, other).click();
  assert((await settled(page)) === 'failed', 'failed');
  assert((await page.textContent('#feedback')).startsWith(ui.en.puzzle_wrong), 'wrong');
  const kept = await page.evaluate(() => JSON.parse(localStorage.getItem('matombo-puzzles')));
  assert(kept.done[p.id] === 0 && kept.player.r < 1500, 'rating down');
  await page.click('#btn-solution');
  await page.waitForFunction(() => !document.getElementById('solution').hidden);
  assert((await page.textContent('#solution')).includes(p.solution.join(' ')), 'the solution');
  // The line is played on the board; Next puzzle waits for it.
  await page.waitForFunction(() => document.getElementById('puzzles').dataset.state !== 'busy', null, { timeout: 60000 });
  await page.click('#btn-next');
  await page.waitForFunction((id) => document.getElementById('puzzles').dataset.puzzle !== id, p.id);
  assert(!page.errors.length, page.errors.join('\n'));
  await page.context().close();
});

test('Bengali on a phone 390 px wide: the words, a Bengali font, no sideways scroll; the daily puzzle', async (browser) => {
  const page = await open(browser, `${base}/?lang=bn`, { viewport: PHONE, lang: 'bn' });
  await page.click('#daily-puzzle');
  await page.waitForURL(/puzzles/);
  await settled(page);
  assert((await page.textContent('h1')) === ui.bn.puzzles, 'the title in Bengali');
  assert((await page.textContent('#task-prompt')) === ui.bn.find_the_win, 'the prompt in Bengali');
  const widths = await page.evaluate(() => {
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = getComputedStyle(document.querySelector('h1')).font;
    return ['ধ', 'াঁ', 'ক', 'ম'].map((c) => ctx.measureText(c).width);
  });
  assert(new Set(widths).size > 1, `Bengali glyphs drawn: ${widths}`);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert(wide <= 390 + 1, `no sideways scroll: ${wide}`);
  await page.screenshot({ path: join(out, 'puzzles-bn-phone.png'), fullPage: true });
  assert(!page.errors.length, page.errors.join('\n'));
  await page.context().close();
});

test('an online identity: the server rates the attempt, its rating shown survives a reload without the browser\'s puzzles', async (browser) => {
  // A server of its own: the shared one's budget of new identities an hour per address
  // (10) is spent by the online tests before this one.
  const server = await ownServer('puzzles');
  const site = server.url;
  try {
    // The identity made by the lobby page, as a player makes it.
    const page = await open(browser, `${site}/online/`);
    await page.waitForFunction(() => localStorage.getItem('matombo-player-id'), null, { timeout: 30000 });
    const secret = await page.evaluate(() => localStorage.getItem('matombo-player-secret'));
    const serverRating = async () => {
      const r = await fetch(`${site}/api/online/puzzles/rating`, { headers: { Authorization: `Bearer ${secret}` } });
      assert(r.ok, `GET rating: ${r.status}`);
      return r.json();
    };
    assert((await serverRating()).attempts === 0, 'a fresh identity');
    await page.goto(`${site}/puzzles/${long.id}`);
    assert((await settled(page)) === 'ready', 'ready');
    assert((await page.getAttribute('#puzzles', 'data-rating-source')) === 'server', 'the server\'s rating');
    const shown = async () => Number((await page.textContent('#player-rating')).match(/\d+/)[0]);
    assert((await page.textContent('#player-rating')).startsWith(ui.en.your_online_rating.split('{')[0]), 'the online rating named');
    assert((await shown()) === 1500, 'the start rating');
    let state = 'ready';
    for (let i = 0; i < long.solution.length; i += 2) state = await playToken(page, long.solution[i]);
    assert(state === 'solved', `solved (${state})`);
    await page.waitForFunction((id) => document.getElementById('puzzles').dataset.rated === id, long.id);
    const after = await serverRating();
    assert(after.attempts === 1 && after.solved === 1 && after.rating > 1500, `rated up on the server: ${JSON.stringify(after)}`);
    assert((await shown()) === Math.round(after.rating), `the server's rating shown: ${await shown()} vs ${after.rating}`);
    const kept = await page.evaluate(() => JSON.parse(localStorage.getItem('matombo-puzzles')));
    assert(kept.player.r === 1500, 'the browser\'s own rating is left alone');
    // This browser's puzzles forgotten: the rating is still the identity's.
    await page.evaluate(() => localStorage.removeItem('matombo-puzzles'));
    await page.reload();
    await settled(page);
    assert((await page.getAttribute('#puzzles', 'data-rating-source')) === 'server', 'still the server\'s');
    assert((await shown()) === Math.round(after.rating), `after the reload: ${await shown()}`);
    assert(!page.errors.length, page.errors.join('\n'));
    await page.context().close();
  } finally {
    await server.stop();
  }
});

await runTests(tests, await launchChromium(), process.env.E2E_ONLY || '');
