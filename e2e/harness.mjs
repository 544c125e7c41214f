// What the browser test files share: the server's address, the output directory, assert,
// JSON requests, servers of a test's own, Chromium and its pages, the runner, and the steps
// of tests on the board page and on an online room's page. Not a test itself (run.sh runs
// *.test.mjs and tests.mjs).
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The address run.sh passed (`node FILE http://127.0.0.1:PORT/`), without its last slash. */
export const base = (process.argv[2] || 'http://127.0.0.1:8080/').replace(/\/$/, '');

/** e2e/out/: screenshots and logs for a person to look at. */
export const out = join(dirname(fileURLToPath(import.meta.url)), 'out');
mkdirSync(out, { recursive: true });

export function assert(cond, msg) {
  if (!cond) throw new Error(`assertion failed: ${msg}`);
}

/** A JSON request to `url`: a POST of `body`, or a GET without one. */
export const request = (url, body) =>
  fetch(url, {
    method: body ? 'POST' : 'GET',
    headers: { 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });

/** A request to run.sh's server (`request`). Resolves to { status, body }. */
export async function api(path, body) {
  const r = await request(base + path, body);
  return { status: r.status, body: await r.json().catch(() => null) };
}

/** A request to a server (run.sh's by default) whose answer must be a success: its JSON body. */
export async function apiOk(path, body, server = base) {
  const r = await request(server + path, body);
  const v = await r.json();
  if (!r.ok) throw new Error(`${path}: ${JSON.stringify(v)}`);
  return v;
}

/** The binary run.sh built, for tests that start (and stop) servers of their own. */
export const bin = process.env.MATOMBO_BIN || join(dirname(fileURLToPath(import.meta.url)), '..', 'target', 'release', 'matombo');

/** Starts `cmd args`, resolves with { url, stop() } once `find(output)` gives the address. */
export function start(cmd, args, find, options = {}) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  return new Promise((resolve, reject) => {
    let buf = '';
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`${cmd} exited (${code}) before it listened: ${buf}`)));
    const seen = (d) => {
      buf += d;
      const url = find(buf);
      if (url)
        resolve({
          url: url.replace(/\/$/, ''),
          stop: () =>
            new Promise((done) => {
              child.removeAllListeners('exit');
              child.on('exit', done);
              child.kill('SIGKILL');
            }),
        });
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
  });
}

/**
 * A `matombo serve` of the test's own on a free port and a fresh database (more
 * arguments in `args`; `binary`, another build); its first line is its address.
 * Resolves to { url, stop() }.
 */
export function ownServer(tag, args = [], binary = bin) {
  const dir = mkdtempSync(join(tmpdir(), `matombo-${tag}-`));
  return start(binary, ['serve', '--host', '127.0.0.1', '--port', '0', '--db', join(dir, 'online.sqlite'), ...args], (b) =>
    b.includes('\n') ? b.split('\n')[0].trim() : null,
  );
}

export const PHONE = { width: 390, height: 844 };

/**
 * A page in a fresh browser context (a phone's when `viewport` is narrower than 500) with the
 * animation speed in localStorage; uncaught errors collect in `page.errors`, and with
 * `consoleErrors` console errors too, with `dialogs` any prompt/confirm/alert (the pages
 * never use them), which is dismissed. `scheme`: the colour scheme (the browser's if unset).
 */
export async function newPage(browser, { viewport, lang = 'en', speed = '4', scheme, acceptDownloads = true, consoleErrors = false, dialogs = false }) {
  const phone = viewport.width < 500;
  const context = await browser.newContext({ viewport, deviceScaleFactor: phone ? 2 : 1, isMobile: phone, hasTouch: phone, acceptDownloads, locale: lang, colorScheme: scheme });
  await context.addInitScript((s) => localStorage.setItem('matombo-speed', s), speed);
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  if (consoleErrors) page.on('console', (m) => m.type() === 'error' && page.errors.push(m.text()));
  if (dialogs)
    page.on('dialog', (d) => {
      page.errors.push(`dialog: ${d.type()} ${d.message()}`);
      d.dismiss();
    });
  return page;
}

// ---- the board page (/play) ---------------------------------------------------------------

/** Waits until the board page is idle (no request, animation or AI search running). */
export async function idle(page, timeout = 30000) {
  await page.waitForFunction(
    () => {
      const p = document.getElementById('play');
      return p && p.dataset.phase && p.dataset.busy === 'false';
    },
    null,
    { timeout },
  );
}

/**
 * Debian's headless Chromium. playwright-core gives every launch a fresh, temporary
 * --user-data-dir of its own (it refuses that flag in `args`), so no state carries over
 * between runs.
 */
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Runs `tests` ({ name, fn(browser) }) whose name contains `only` (all if empty), one
 * after the other, printing `ok`/`FAIL` and a summary; closes `browser` and exits with 1
 * if any failed.
 */
export async function runTests(tests, browser, only = '') {
  let passed = 0;
  let failed = 0;
  for (const t of tests) {
    if (only && !t.name.includes(only)) continue;
    const started = Date.now();
    try {
      await t.fn(browser);
      passed++;
      console.log(`ok   ${t.name} (${Date.now() - started} ms)`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${t.name}\n     ${String(e.stack || e).split('\n').slice(0, 4).join('\n     ')}`);
    }
  }
  await browser.close();
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

/** The board tests' desktop size (board*.test.mjs; their phone is [`PHONE`]). */
export const DESKTOP = { width: 1280, height: 800 };
export const SIZES = [
  ['phone', PHONE],
  ['desktop', DESKTOP],
];

/** A page at `path` (none: left blank) with fast animations, in a fresh context; console errors count. */
export async function open(browser, path, { viewport = DESKTOP, speed = '4', lang = 'en', scheme = 'light' } = {}) {
  const page = await newPage(browser, { viewport, speed, lang, scheme, consoleErrors: true });
  if (path) await page.goto(base + path);
  return page;
}

/** Ends a test's page: no error was collected on it (see [`newPage`]); its context closed. */
export async function closeClean(page) {
  assert(!page.errors.length, page.errors.join('\n'));
  await page.context().close();
}

/** The board page's phase (`move`, `head`, `bonus`, `over`…) and the number of turns it shows. */
export const phase = (page) => page.$eval('#play', (p) => p.dataset.phase);
export const moveCount = async (page) => Number(await page.$eval('#play', (p) => p.dataset.moves));

/** Clicks (taps, on a phone) the hole labelled `hole` on the board page. */
export async function tap(page, hole) {
  await page.locator(`#board g.hole[data-hole=${hole}]`).click();
}

/** Ends a turn begun by a click on the board page: Stop at each head, Done at each bonus pick. */
async function finishTurn(page) {
  for (let ph = await phase(page); ph === 'head' || ph === 'bonus'; ph = await phase(page)) {
    await page.click(ph === 'head' ? '#btn-stop' : '#btn-done');
    await idle(page);
  }
}

/** Plays a whole turn on the board page from its first (or `last`) legal start hole. */
export async function boardTurn(page, { last = false } = {}) {
  const legal = page.locator('#board g.hole.legal');
  await (last ? legal.last() : legal.first()).click();
  await idle(page);
  await finishTurn(page);
}

// ---- an online room's page (/online/game/…) --------------------------------------------

/** The number of turns the room's page has shown. */
export const ply = (page) => page.$eval('#room', (r) => Number(r.dataset.ply || -1));

/** Every hole's label and count on the page's board: equal strings, equal positions. */
export const counts = (page) => page.$$eval('#board g.hole', (gs) => gs.map((g) => `${g.dataset.hole}=${g.querySelector('.count').textContent}`).join(','));

/** Waits until the room offers a click (the page is not busy) or has shown more than `before` turns. */
export const awaitOffer = (page, before) =>
  page.waitForFunction((p) => {
    const r = document.getElementById('room');
    return (r.dataset.offer === 'yes' && r.dataset.busy === 'false') || Number(r.dataset.ply) > p;
  }, before);

/** One click towards a whole turn: a legal (or takeable) hole, else Continue, Stop or Done. */
export async function clickStep(page) {
  const hole = await page.$('#board g.hole.legal, #board g.hole.takeable');
  if (hole) await hole.click();
  else {
    const b = await page.$('#btn-continue:not([hidden]):not(:disabled), #btn-stop:not([hidden]):not(:disabled), #btn-done:not([hidden])');
    if (b) await b.click();
  }
}

/** Plays one whole turn on `page` by clicking legal holes (and buttons) until it is sent. */
export async function playTurn(page) {
  const before = await ply(page);
  for (let i = 0; i < 200; i++) {
    await awaitOffer(page, before);
    if ((await ply(page)) > before) return;
    await clickStep(page);
    await page.waitForTimeout(20);
    if ((await page.$eval('#status', (s) => s.textContent)).includes('Turn sent')) {
      await page.waitForFunction((p) => Number(document.getElementById('room').dataset.ply) > p, before);
      return;
    }
  }
  throw new Error('turn did not complete');
}
