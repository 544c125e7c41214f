// The lessons in real Chromium: a lesson completed by clicking (holes picked in any order),
// head choices, a wrong turn refused with what happened and a hint, progress kept across
// visits, Bengali text drawn with a Bengali font, a phone 390 px wide, and the lessons
// offline (the service worker, the server killed) and in the static site (`matombo site`).
// Usage: node learn.test.mjs http://127.0.0.1:PORT/ (run.sh does this; the offline and
// static-site tests start servers of their own, $MATOMBO_BIN).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assert, base, bin, launchChromium, newPage, out, ownServer, PHONE, runTests, start } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const learnWords = JSON.parse(readFileSync(join(here, '..', 'crates/matombo-web/assets/content/learn.json'), 'utf8'));
const lessons = JSON.parse(readFileSync(join(here, '..', 'crates/matombo-web/assets/content/lessons.json'), 'utf8')).lessons;

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

async function open(browser, url, { viewport = { width: 1280, height: 900 }, lang = 'en' } = {}) {
  const page = await newPage(browser, { viewport, lang, consoleErrors: true });
  await page.goto(url);
  return page;
}

/** Waits until the task board waits for the learner (or the task is solved). */
async function ready(page, state = 'ready') {
  await page.waitForFunction((s) => document.getElementById('lesson')?.dataset.state === s, state, { timeout: 30000 });
}

const hole = (page, label) => page.locator(`#task-board g.hole[data-hole="${label}"]`);
const count = async (page, label) => Number(await hole(page, label).getAttribute('data-count'));

/** Clicks a hole the engine offers (it must be offered), then waits for the board. */
async function click(page, label, then = 'ready') {
  const h = hole(page, label);
  const cls = await h.getAttribute('class');
  assert(/\b(legal|takeable)\b/.test(cls), `${label} is offered (${cls})`);
  await h.click();
  await ready(page, then);
}

test('a lesson completed by clicking: bonus holes picked in any order, progress kept', async (browser) => {
  const page = await open(browser, `${base}/learn/bonus`);
  await ready(page);
  assert((await page.textContent('#task-prompt')) === learnWords.en.bonus_1, 'the first task');
  // The demonstration plays by itself.
  await page.waitForFunction(() => document.getElementById('lesson').dataset.demo === 'done', null, { timeout: 30000 });
  assert((await page.textContent('#demo-move')).includes('B6xb5'), 'the demonstration says its turn');
  await click(page, 'B6');
  assert((await page.$eval('#lesson', (l) => l.dataset.phase)) === 'bonus', 'the capture offers the bonus');
  // b6 before b2: the engine takes bonus picks in any order.
  await click(page, 'b6');
  assert(await page.locator('#task-board g.hole[data-hole="b6"].picked').count(), 'b6 marked as picked');
  assert(!(await page.locator('#task-board g.hole[data-hole="b6"].takeable').count()), 'b6 cannot be picked twice');
  await click(page, 'b2', 'solved');
  assert((await page.textContent('#feedback')).startsWith(learnWords.en.correct), 'right at once');
  assert((await count(page, 'b2')) === 0 && (await count(page, 'b6')) === 0 && (await count(page, 'b5')) === 3, 'the engine took b2 and b6');
  await page.click('#btn-next-task');
  await ready(page);
  assert((await page.textContent('#task-prompt')) === learnWords.en.bonus_2, 'the second task');
  await click(page, 'B6');
  await click(page, 'b5');
  await click(page, 'b2', 'solved');
  assert(await page.isVisible('#lesson-done'), 'the lesson is complete');
  assert((await page.locator('#task-steps li.done').count()) === 2, 'both tasks marked');
  await page.screenshot({ path: join(out, 'learn-bonus.png'), fullPage: true });
  await page.click('#next-lesson');
  await page.waitForURL(/\/learn\/heads/);
  await ready(page);
  await page.click('#all-lessons');
  await page.waitForURL(/\/learn\?/);
  const item = page.locator('.lesson-item[data-lesson="bonus"]');
  assert(await item.evaluate((e) => e.classList.contains('done')), 'the list marks the lesson done');
  assert((await page.locator('.lesson-item.done').count()) === 1, 'one lesson done');
  assert((await page.locator('.lesson-item').count()) === lessons.length, 'every lesson listed');
  await page.click('#btn-forget');
  assert((await page.locator('.lesson-item.done').count()) === 0, 'progress forgotten');
  assert(!page.errors.length, page.errors.join('\n'));
  await page.context().close();
});

test('a wrong turn is refused with what happened and a hint; then solved', async (browser) => {
  const page = await open(browser, `${base}/learn/capture`);
  await ready(page);
  const before = await count(page, 'A6');
  await hole(page, 'A6').click();
  await page.waitForFunction(() => document.getElementById('lesson').dataset.refused === '1', null, { timeout: 30000 });
  await ready(page);
  const said = await page.textContent('#feedback');
  assert(said.startsWith(learnWords.en.not_quite), `refused: ${said}`);
  assert(said.includes('A4') && said.includes(learnWords.en.nothing_captured), `what happened: ${said}`);
  assert((await count(page, 'A6')) === before, 'the board is set back');
  assert((await page.textContent('#hint')).includes(learnWords.en.capture_1_hint), 'the hint is shown');
  assert(await page.locator('#task-board g.hole[data-hole="B5"].hint').count(), 'the hint marks the start');
  await click(page, 'B5', 'solved');
  assert((await page.textContent('#feedback')).includes('a2'), 'captured from a2');
  // Heads: Stop and Continue are the engine's choice points.
  await page.goto(`${base}/learn/heads`);
  await ready(page);
  await click(page, 'B2');
  assert(await page.isVisible('#btn-stop'), 'a head choice');
  await page.click('#btn-continue');
  await page.waitForFunction(() => document.getElementById('lesson').dataset.refused === '1', null, { timeout: 30000 });
  await ready(page);
  await click(page, 'B2');
  await page.click('#btn-stop');
  await ready(page, 'solved');
  // A bonus cut short with Done: b2 alone is not the task.
  await page.goto(`${base}/learn/bonus`);
  await ready(page);
  await click(page, 'B6');
  await click(page, 'b2');
  await page.click('#btn-done');
  await page.waitForFunction(() => document.getElementById('lesson').dataset.refused === '1', null, { timeout: 30000 });
  await ready(page);
  assert((await page.textContent('#feedback')).includes('b2'), 'the capture of b2 is reported');
  assert((await count(page, 'b2')) === 3, 'the board is set back');
  assert(!page.errors.length, page.errors.join('\n'));
  await page.context().close();
});

test('Bengali: the lesson in Bengali, drawn with a Bengali font', async (browser) => {
  const page = await open(browser, `${base}/learn/board?lang=bn`, { lang: 'bn' });
  await ready(page);
  assert((await page.getAttribute('html', 'lang')) === 'bn', 'lang=bn');
  assert((await page.textContent('h1')) === learnWords.bn.board_title, 'the title');
  assert((await page.textContent('#task-prompt')) === learnWords.bn.board_1, 'the task');
  assert((await page.textContent('#nav-learn')) === 'শিখুন', 'the header link');
  // A missing glyph is drawn as the same box for every letter: Bengali letters must differ
  // in width from that box and from each other.
  const widths = await page.$eval('h1', (h) => {
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = getComputedStyle(h).font;
    return ['ক', 'ি', 'শ', '\u{10FFFD}'].map((c) => ctx.measureText(c).width);
  });
  const box = widths.pop();
  assert(widths.some((w) => Math.abs(w - box) > 0.5) && new Set(widths).size > 1, `Bengali glyphs drawn: ${widths} vs ${box}`);
  await click(page, 'B4', 'solved');
  assert((await page.textContent('#feedback')).startsWith(learnWords.bn.correct), 'right, in Bengali');
  await page.screenshot({ path: join(out, 'learn-bn.png'), fullPage: true });
  assert(!page.errors.length, page.errors.join('\n'));
  await page.context().close();
});

test('phone, 390 px: no sideways scrolling, every hole visible, a task solved by tapping', async (browser) => {
  for (const id of ['nsolo', 'singles']) {
    const page = await open(browser, `${base}/learn/${id}`, { viewport: PHONE });
    await ready(page);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert(wide <= 390, `${id}: the page is ${wide} px wide`);
    const boxes = await page.$$eval('#task-board g.hole', (gs) => gs.map((g) => g.getBoundingClientRect()));
    assert(boxes.every((b) => b.left >= 0 && b.right <= 390 && b.width >= 24), `${id}: every hole on screen, big enough to tap`);
    if (id === 'nsolo') {
      await hole(page, 'A8').tap();
      await ready(page);
      await hole(page, 'b5').tap();
      await ready(page);
      await hole(page, 'b5').tap();
      await ready(page, 'solved');
    }
    await page.screenshot({ path: join(out, `learn-phone-${id}.png`), fullPage: true });
    assert(!page.errors.length, page.errors.join('\n'));
    await page.context().close();
  }
});

test('offline: after one visit to /learn, a lesson never opened loads and plays with the server gone', async (browser) => {
  const s = await ownServer('learn');
  const page = await open(browser, `${s.url}/learn?lang=fi`);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60000 });
  await s.stop();
  await page.goto(`${s.url}/learn/relay?lang=fi`);
  await ready(page);
  assert((await page.textContent('h1')) === learnWords.fi.relay_title, 'the Finnish lesson from the cache');
  await click(page, 'B2', 'solved');
  await page.click('#btn-next-task');
  await ready(page);
  await click(page, 'A3', 'solved');
  assert(await page.isVisible('#lesson-done'), 'completed offline');
  assert(!page.errors.length, page.errors.join('\n'));
  await page.context().close();
});

test('matombo site: the lessons as static files, from the list to a solved task', async (browser) => {
  const dir = join(mkdtempSync(join(tmpdir(), 'matombo-learn-site-')), 'site');
  const made = spawnSync(bin, ['site', dir], { encoding: 'utf8' });
  assert(made.status === 0, `matombo site: ${made.stderr}`);
  const http = await start('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1'], (b) => {
    const m = b.match(/port (\d+)/);
    return m ? `http://127.0.0.1:${m[1]}` : null;
  }, { cwd: dir });
  try {
    const page = await open(browser, `${http.url}/rules-tsoro-da.html`);
    await page.click('#learn-link');
    await page.waitForURL(/learn-da\.html/);
    assert((await page.locator('.lesson-item').count()) === lessons.length, 'the list');
    await page.click('.lesson-item[data-lesson="end"] a');
    await page.waitForURL(/learn-end-da\.html/);
    await ready(page);
    await click(page, 'B6', 'solved');
    assert((await page.textContent('#feedback')).startsWith(learnWords.da.correct), 'right, in Danish');
    assert(!page.errors.length, page.errors.join('\n'));
    await page.context().close();
  } finally {
    await http.stop();
  }
});

await runTests(tests, await launchChromium(), process.env.E2E_ONLY || '');
