// The site offline, in real Chromium: after one visit the service worker has cached the
// catalogue, the rules and the board; the test kills the server, reloads them, and plays.
// It also serves `matombo site` with `python3 -m http.server` and plays a game there, and
// loads every page kind checking that no Content-Security-Policy violation is reported,
// and prints the compressed transfer size of /play's first load.
// Usage: node offline.test.mjs http://127.0.0.1:PORT/ (the address of run.sh's server, used
// for the CSP and size checks; the offline tests start servers of their own, $MATOMBO_BIN).
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assert, bin, idle as boardIdle, launchChromium, newPage as openPage, ownServer, runTests, start } from './harness.mjs';

const shared = (process.argv[2] || '').replace(/\/$/, '');
const only = process.env.E2E_ONLY || '';

const server = () => ownServer('offline');

const browser = await launchChromium();

const newPage = () => openPage(browser, { viewport: { width: 1366, height: 900 } });
const idle = (page) => boardIdle(page, 60000);

const data = (page, key) => page.$eval('#play', (p, k) => p.dataset[k], key);

/** Plays `turns` turns by clicking (the first legal hole, Stop at heads, Done at bonus). */
async function play(page, turns) {
  for (let i = 0; i < 400 && Number(await data(page, 'moves')) < turns && (await data(page, 'phase')) !== 'over'; i++) {
    const phase = await data(page, 'phase');
    if (phase === 'head') await page.click('#btn-stop');
    else if (phase === 'bonus' && !(await page.$('#board g.hole.takeable'))) await page.click('#btn-done');
    else await page.locator('#board g.hole.legal, #board g.hole.takeable').first().click();
    await idle(page);
  }
}

const controlled = (page) => page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60000 });

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

test('offline: after one visit, /, a rules page and /play reload and play with the server gone', async () => {
  const s = await server();
  const page = await newPage();
  await page.goto(`${s.url}/`);
  await controlled(page);
  await s.stop();
  await page.reload();
  await page.locator('#card-tsoro').waitFor();
  await page.waitForFunction(() => document.querySelectorAll('.card-art svg').length === 2);
  // A rules page at an address never visited: the cached page redraws for the size asked.
  await page.goto(`${s.url}/rules/nsolo?size=12`);
  await page.locator('figure.start-diagram svg').waitFor();
  await page.waitForFunction(() => document.querySelectorAll('figure.start-diagram g.hole').length === 48);
  // The board at an address never visited, against the computer.
  await page.goto(`${s.url}/play?ruleset=tsoro:8&level=beginner`);
  await idle(page);
  assert((await page.locator('#board g.hole').count()) === 32, 'a 4x8 board');
  assert((await page.textContent('.play-title .ruleset')) === 'tsoro:8', 'retitled for tsoro:8');
  await play(page, 6);
  assert(Number(await data(page, 'moves')) >= 6, 'six turns played offline');
  const north = await page.$$eval('#moves .move', (ms) => ms.filter((m) => /^[ab]/.test(m.textContent)).length);
  assert(north > 0, 'the computer played');
  assert(!page.errors.length, page.errors.join('\n'));
  await page.context().close();
});

test('a new version replaces the old cache', async () => {
  const s = await server();
  const page = await newPage();
  await page.goto(`${s.url}/`);
  await controlled(page);
  const keys = await page.evaluate(() => caches.keys());
  assert(keys.length === 1 && /^matombo-[0-9a-f]{16}$/.test(keys[0]), `one versioned cache: ${keys}`);
  // An old version's cache (as left by an earlier version of the site) is deleted when the
  // worker of the current version activates.
  await page.evaluate(() => caches.open('matombo-0000000000000000').then((c) => c.put('/old', new Response('x'))));
  await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).unregister());
  const context = page.context();
  await page.close();
  const fresh = await context.newPage();
  await fresh.goto(`${s.url}/`);
  await controlled(fresh);
  const after = await fresh.evaluate(() => caches.keys());
  assert(after.length === 1 && after[0] === keys[0], `only the current cache is left: ${after}`);
  await s.stop();
  await context.close();
});

test('matombo site, served by python3 -m http.server, plays a game', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'matombo-site-')), 'site');
  const made = spawnSync(bin, ['site', dir], { encoding: 'utf8' });
  assert(made.status === 0, `matombo site: ${made.stderr}`);
  const again = spawnSync(bin, ['site', dir], { encoding: 'utf8' });
  assert(again.status !== 0 && /not empty/.test(again.stderr), `a second run refuses: ${again.stderr}`);
  const http = await start('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1'], (b) => {
    const m = b.match(/port (\d+)/);
    return m ? `http://127.0.0.1:${m[1]}` : null;
  }, { cwd: dir });
  try {
    const page = await newPage();
    await page.goto(`${http.url}/index-fi.html`);
    await page.waitForFunction(() => document.querySelectorAll('.card-art svg').length === 2);
    assert((await page.getAttribute('html', 'lang')) === 'fi', 'Finnish catalogue');
    await page.selectOption('#nsolo-size', '8');
    await page.click('#nsolo-submit');
    await page.waitForURL(/play-fi\.html\?/);
    await idle(page);
    assert((await page.locator('#board g.hole').count()) === 32, 'nsolo:8 from the form');
    await page.click('#rules-link');
    await page.waitForURL(/rules-nsolo-fi\.html/);
    await page.waitForFunction(() => document.querySelectorAll('figure.start-diagram g.hole').length === 32);
    await page.goto(`${http.url}/play.html?ruleset=tsoro:6&level=beginner`);
    await idle(page);
    await play(page, 400);
    assert((await data(page, 'phase')) === 'over', 'a whole game on the static site');
    assert(!(await page.$('a[href*="online"]')), 'no link to online play');
    assert(!page.errors.length, page.errors.join('\n'));
    await page.context().close();
  } finally {
    await http.stop();
  }
});

test('every page kind under the Content-Security-Policy: no violation; /play transfer size', async () => {
  assert(shared, 'the address of a running server is given');
  const page = await newPage();
  const violations = [];
  await page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`)),
  );
  page.on('console', (m) => /Content Security Policy|CSP violation/i.test(m.text()) && violations.push(m.text()));
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  let bytes = 0;
  let requests = 0;
  cdp.on('Network.loadingFinished', (e) => {
    bytes += e.encodedDataLength;
    requests++;
  });
  await page.goto(`${shared}/play?ruleset=tsoro:8&mode=two`);
  await idle(page);
  await page.waitForTimeout(1000);
  console.log(`    /play first load: ${bytes} bytes on the wire (compressed), ${requests} requests`);
  for (const path of ['/', '/?lang=bn', '/rules/tsoro?size=8', '/rules/nsolo', '/play?ruleset=nsolo:8', '/online/', '/online/archive', '/review?ruleset=tsoro:6&moves=B1%3D&nodes=2000']) {
    await page.goto(shared + path);
    await page.waitForLoadState('networkidle');
  }
  await page.goto(`${shared}/play?ruleset=tsoro:8&mode=two`);
  await idle(page);
  await page.click('#btn-hint');
  await page.waitForFunction(() => /\S/.test(document.getElementById('hint').textContent), null, { timeout: 30000 });
  assert(!violations.length, violations.join('\n'));
  assert(!page.errors.length, page.errors.join('\n'));
  await page.context().close();
});

await runTests(tests, browser, only);
