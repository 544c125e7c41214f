// Endgame tables on the web, in headless Chromium: a server of this test's own started with
// `serve --egtb DIR` on small tables built here (tsoro:6 without heads or bonus, to 4
// stones, under a second) shows the tables' exact result on the analysis board and on the
// review page, the same as the server's probe; the server run.sh started (no tables) shows
// none. Usage: node egtb.test.mjs http://127.0.0.1:PORT/   (run.sh does this; $MATOMBO_BIN)
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiOk, assert, base, bin, launchChromium, out, ownServer, runTests } from './harness.mjs';

const RULESET = 'tsoro:6,heads=0,bonus=0';
// Four stones: inside the 4-stone tables.
const START = `${RULESET} 0*6/0*4,1,1/0*6/0*4,1,1 S`;

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

/** A server with the tables (built into a fresh directory), its address, and a stop. */
async function serverWithTables() {
  const dir = mkdtempSync(join(tmpdir(), 'matombo-egtb-e2e-'));
  const tables = join(dir, 'egtb');
  execFileSync(bin, ['egtb', 'build', RULESET, '--stones', '4', '--dir', tables, '--threads', '1'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return ownServer('egtb-e2e', ['--egtb', tables]);
}

/** The words the page shows for a probe's answer (ui.json's egtb_win / egtb_loss / egtb_draw). */
function expected(a) {
  if (a.value === 'win') return `Endgame tables: win in ${a.distance}`;
  if (a.value === 'loss') return `Endgame tables: loss in ${a.distance}`;
  return 'Endgame tables: draw';
}

async function open(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.errors = errors;
  await page.goto(url);
  return page;
}

const exactText = (page, scope) =>
  page.waitForFunction((s) => (document.querySelector(`${s} #egtb-result`)?.textContent || '').startsWith('Endgame tables'), scope, {
    timeout: 30000,
  }).then(() => page.$eval(`${scope} #egtb-result`, (e) => e.textContent));

let server = null;

test('the server lists its tables and probes a position in them', async () => {
  server = await serverWithTables();
  const list = await (await fetch(`${server.url}/api/egtb`)).json();
  assert(list.tables.some((t) => t.ruleset === RULESET && t.stones === 4), `tables: ${JSON.stringify(list)}`);
  const a = await apiOk('/api/egtb/probe', { start: START, moves: [] }, server.url);
  assert(['win', 'loss', 'draw'].includes(a.value), `a value: ${JSON.stringify(a)}`);
});

test('the analysis board shows the tables\' result for the position shown', async (browser) => {
  const a = await apiOk('/api/egtb/probe', { start: START, moves: [] }, server.url);
  const turn = a.best[0];
  // A link opens the analysis board (analysing) at its turn: the start, then one turn on.
  const link = (at) => `${server.url}/play?position=${encodeURIComponent(START)}&moves=${encodeURIComponent(turn)}&turn=${at}&analyse_ms=300`;
  const page = await open(browser, link(0));
  const text = await exactText(page, '#analysis');
  assert(text === expected(a), `"${text}" is the probe's "${expected(a)}"`);
  const b = await apiOk('/api/egtb/probe', { start: START, moves: [turn] }, server.url);
  await page.goto(link(1));
  const after = await exactText(page, '#analysis');
  assert(after === expected(b), `after ${turn}: "${after}" is the probe's "${expected(b)}"`);
  await page.screenshot({ path: join(out, 'egtb-analysis.png') });
  assert(page.errors.length === 0, `no page errors: ${page.errors}`);
  await page.context().close();
});

test('the review page shows the tables\' result at each position', async (browser) => {
  const a = await apiOk('/api/egtb/probe', { start: START, moves: [] }, server.url);
  const turn = a.best[0];
  const b = await apiOk('/api/egtb/probe', { start: START, moves: [turn] }, server.url);
  const page = await open(
    browser,
    `${server.url}/review?position=${encodeURIComponent(START)}&moves=${encodeURIComponent(turn)}&turn=0&nodes=20000`,
  );
  await page.waitForFunction(() => document.getElementById('review').dataset.state === 'done', null, { timeout: 60000 });
  const first = await exactText(page, '#turn-info');
  assert(first === expected(a), `at the start: "${first}" is the probe's "${expected(a)}"`);
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.getElementById('review').dataset.turn === '1');
  const second = await exactText(page, '#turn-info');
  assert(second === expected(b), `after ${turn}: "${second}" is the probe's "${expected(b)}"`);
  assert(page.errors.length === 0, `no page errors: ${page.errors}`);
  await page.context().close();
  server.stop();
});

test('a server without tables shows no exact result', async (browser) => {
  const list = await (await fetch(`${base}/api/egtb`)).json();
  assert(list.tables.length === 0, 'the test server has no tables');
  const page = await open(browser, `${base}/play?position=${encodeURIComponent(START)}&moves=B6&turn=0&analyse_ms=300`);
  await page.waitForFunction(() => document.querySelectorAll('#analysis-lines li').length > 0, null, { timeout: 30000 });
  const text = await page.$eval('#analysis', (e) => e.querySelector('#egtb-result')?.textContent || '');
  assert(text === '', `no exact result: "${text}"`);
  await page.context().close();
});

const browser = await launchChromium();
await runTests(tests, browser, process.env.EGTB_ONLY || '');
