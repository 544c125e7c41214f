// Online play in headless Chromium: two browser contexts (two people) play each other
// through the invitation link, a third watches. Usage: node online.test.mjs http://127.0.0.1:PORT/
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const base = (process.argv[2] || 'http://127.0.0.1:8080/').replace(/\/$/, '');
const out = join(dirname(fileURLToPath(import.meta.url)), 'out');
mkdirSync(out, { recursive: true });
const TURNS = Number(process.env.ONLINE_TURNS || 8);

function assert(cond, msg) {
  if (!cond) throw new Error(`assertion failed: ${msg}`);
}

async function person(browser, path, name) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  await context.addInitScript(() => localStorage.setItem('matombo-speed', '4'));
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('dialog', (d) => d.accept(name));
  if (path) await page.goto(base + path);
  return page;
}

const ply = (page) => page.$eval('#status', (s) => Number(s.dataset.ply || -1));
const counts = (page) => page.$$eval('#board g.hole', (gs) => gs.map((g) => g.dataset.count).join(','));

/** Plays one whole turn on `page`: clicks the first legal hole or button until it is sent. */
async function playTurn(page) {
  const before = await ply(page);
  for (let i = 0; i < 200; i++) {
    await page.waitForFunction((p) => {
      const s = document.getElementById('status');
      return s.dataset.offer === 'yes' || Number(s.dataset.ply) > p;
    }, before);
    if ((await ply(page)) > before) return;
    const hole = await page.$('#board g.hole.legal, #board g.hole.takeable');
    if (hole) await hole.click();
    else await page.click('#choices button:not(:last-child), #choices button:only-child');
    await page.waitForTimeout(30);
  }
  throw new Error('turn did not complete');
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
let failed = false;
try {
  // Alice creates a game as South with a clock.
  const alice = await person(browser, '/online/', 'Alice');
  await alice.fill('input[name=ruleset]', 'tsoro:8');
  await alice.selectOption('select[name=side]', 'south');
  await alice.fill('input[name=name]', 'Alice');
  await alice.fill('input[name=minutes]', '10');
  await alice.click('button[type=submit]');
  await alice.waitForURL(/\/online\/game\/\w+#seat=/);
  const invite = await alice.inputValue('#invite-link');
  const watch = await alice.inputValue('#watch-link');
  assert(invite.includes('#invite='), `invitation link ${invite}`);
  assert(!watch.includes('#'), `watch link has no secret: ${watch}`);

  // Bob opens the invitation link in another browser context; Carol watches.
  const bob = await person(browser, null, 'Bob');
  await bob.goto(invite);
  await bob.waitForURL(/#seat=/);
  const carol = await person(browser, null, 'Carol');
  await carol.goto(watch);
  await carol.waitForFunction(() => document.getElementById('status').textContent.includes('watching'));
  await alice.waitForFunction(() => document.getElementById('status').textContent.includes('Your turn'));
  await alice.waitForFunction(() => document.getElementById('north-online').textContent.includes('online'));

  for (let t = 0; t < TURNS; t++) {
    const [mover, other] = t % 2 === 0 ? [alice, bob] : [bob, alice];
    await playTurn(mover);
    for (const p of [mover, other, carol]) {
      await p.waitForFunction((n) => Number(document.getElementById('status').dataset.ply) === n, t + 1);
    }
    // All three boards show the same counts once the animation is over.
    await other.waitForFunction(() => !document.querySelector('#board svg.animating'));
    await carol.waitForFunction(() => !document.querySelector('#board svg.animating'));
    const [a, b, c] = [await counts(alice), await counts(bob), await counts(carol)];
    assert(a === b && b === c, `boards agree after turn ${t + 1}`);
  }
  // A spectator cannot play: no hole is offered to Carol.
  assert((await carol.$$('#board g.hole.legal')).length === 0, 'nothing to click for a spectator');
  // Bob reloads the page: the seat is kept and the game continues where it was.
  await bob.reload();
  await bob.waitForFunction((n) => Number(document.getElementById('status').dataset.ply) === n, TURNS);
  assert(!(await bob.textContent('#status')).includes('watching'), 'Bob still holds his seat');
  await alice.screenshot({ path: join(out, 'online-alice.png') });
  await carol.screenshot({ path: join(out, 'online-watcher.png') });
  for (const p of [alice, bob, carol]) assert(p.errors.length === 0, `page errors: ${p.errors}`);
  console.log(`ok - two browsers played ${TURNS} turns online, watched by a third`);
} catch (e) {
  failed = true;
  console.log(`not ok - online play: ${e.stack || e}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
