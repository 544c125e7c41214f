// Online play in headless Chromium: people in separate browser contexts meet through the
// lobby or an invitation link, play, and watch. Usage: node online.test.mjs http://127.0.0.1:PORT/
// (run.sh does this). ONLINE_TURNS sets how many turns the room test plays (default 8).
import { join } from 'node:path';
import { assert, base, counts, launchChromium, out, playTurn, ply, runTests } from './harness.mjs';

const TURNS = Number(process.env.ONLINE_TURNS || 8);
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const tests = [];
const test = (name, fn) => tests.push({ name, fn });

async function api(path, body) {
  const r = await fetch(base + path, {
    method: body ? 'POST' : 'GET',
    headers: { 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.status, body: await r.json().catch(() => null) };
}

/** A room made through the HTTP API; the creator plays `side`. */
async function room(ruleset, side = 'south', extra = {}) {
  const r = await api('/api/online/rooms', { ruleset, side, name: 'Alice', ...extra });
  assert(r.status === 201, `room created: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A person: a browser context of their own, fast animations, errors and dialogs recorded. */
async function person(browser, { viewport = DESKTOP, lang = 'en' } = {}) {
  const context = await browser.newContext({
    viewport,
    deviceScaleFactor: viewport === PHONE ? 2 : 1,
    isMobile: viewport === PHONE,
    hasTouch: viewport === PHONE,
    locale: lang,
  });
  await context.addInitScript(() => localStorage.setItem('matombo-speed', '4'));
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  // The pages never use the browser's prompt(), confirm() or alert().
  page.on('dialog', (d) => {
    page.errors.push(`dialog: ${d.type()} ${d.message()}`);
    d.dismiss();
  });
  return page;
}

const settled = (page) => page.waitForFunction(() => !document.querySelector('#board svg.animating') && document.getElementById('room').dataset.busy === 'false');
const noErrors = (...pages) => pages.forEach((p) => assert(p.errors.length === 0, `page errors: ${p.errors}`));

/** Vertical centre of a hole on the screen. */
const holeY = (page, label) => page.$eval(`#board g.hole[data-hole="${label}"]`, (g) => {
  const r = g.getBoundingClientRect();
  return r.top + r.height / 2;
});

const overflow = (page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

test('room: two people by invitation, a third watches; North sees its own rows nearest; move list; side bars; in-page resign', async (browser) => {
  const r = await room('tsoro:8', 'south', { clock: { initial_ms: 600000, increment_ms: 0 } });
  const alice = await person(browser);
  await alice.goto(`${base}/online/game/${r.id}#seat=${r.token}`);
  await alice.waitForFunction(() => document.getElementById('room').dataset.you === 'south');
  const bob = await person(browser);
  await bob.goto(`${base}/online/game/${r.id}#invite=${r.invite}`);
  // The name is asked on the page, not by prompt(); markup in it stays text.
  await bob.waitForSelector('#claim:not([hidden])');
  await bob.fill('#claim-name', '<b>Bob</b>');
  await bob.click('#btn-claim');
  await bob.waitForFunction(() => document.getElementById('room').dataset.you === 'north');
  assert(bob.url().includes('#seat='), `Bob's seat link kept: ${bob.url()}`);
  const carol = await person(browser);
  await carol.goto(`${base}/online/game/${r.id}`);
  await carol.waitForFunction(() => document.getElementById('status').textContent.includes('watching'));
  await alice.waitForFunction(() => document.getElementById('status').textContent.includes('Your turn'));
  await alice.waitForFunction(() => document.getElementById('side-north').textContent.includes('<b>Bob</b>'));
  assert((await alice.$$('#side-north b')).length === 0, 'a name is never read as markup');

  // Each player's own rows nearest: South's B row below b for Alice, above it for Bob.
  assert((await holeY(alice, 'B1')) > (await holeY(alice, 'b1')), "Alice's rows at the bottom");
  assert((await holeY(bob, 'b1')) > (await holeY(bob, 'B1')), "Bob (North) has his rows at the bottom");
  const barOrder = (page) => page.evaluate(() => {
    const y = (id) => document.getElementById(id).getBoundingClientRect().top;
    return y('side-north') < y('board-scroll') && y('side-south') > y('board-scroll') ? 'north-above' : y('side-south') < y('board-scroll') ? 'south-above' : 'other';
  });
  assert((await barOrder(alice)) === 'north-above', "Alice's opponent's bar above the board");
  assert((await barOrder(bob)) === 'south-above', "Bob's opponent's bar above the board");

  let afterFirst = null;
  for (let t = 0; t < TURNS; t++) {
    const [mover, waiting] = t % 2 === 0 ? [alice, bob] : [bob, alice];
    await playTurn(mover);
    for (const p of [mover, waiting, carol]) await p.waitForFunction((n) => Number(document.getElementById('room').dataset.ply) === n, t + 1);
    for (const p of [alice, bob, carol]) await settled(p);
    const [a, b, c] = [await counts(alice), await counts(bob), await counts(carol)];
    assert(a === b && b === c, `boards agree after turn ${t + 1}`);
    if (t === 0) afterFirst = c;
    // The side bars' totals are the stones on each side's rows.
    const totals = await carol.evaluate(() => {
      const sum = (rows) => [...document.querySelectorAll('#board g.hole')].filter((g) => rows.includes(g.dataset.hole[0])).reduce((s, g) => s + Number(g.querySelector('.count').textContent || 0), 0);
      return [Number(document.getElementById('side-south').dataset.total), sum('AB'), Number(document.getElementById('side-north').dataset.total), sum('ab')];
    });
    assert(totals[0] === totals[1] && totals[2] === totals[3], `side totals ${totals}`);
    // The last turn's start hole stays marked.
    assert((await carol.$$('#board g.hole.last')).length === 1, 'the last turn is marked');
  }
  assert((await carol.$$('#board g.hole.legal')).length === 0, 'nothing to click for a spectator');

  // The move list during the game: one button a turn; a click shows the game after it.
  const listed = await carol.$$eval('#moves button.move', (bs) => bs.length);
  assert(listed === TURNS, `${listed} turns listed`);
  await carol.click('#moves button.move[data-ply="1"]');
  await carol.waitForSelector('#btn-live:not([hidden])');
  assert((await counts(carol)) === afterFirst, 'the list shows the game after turn 1');
  await carol.click('#btn-live');
  await carol.waitForSelector('#btn-live[hidden]', { state: 'attached' });

  // Replay of the last turn ends on the position now.
  const now = await counts(alice);
  await alice.click('#btn-replay');
  await settled(alice);
  assert((await counts(alice)) === now, 'replay ends where the game is');

  // Bob reloads: the seat is kept and the game goes on where it was.
  await bob.reload();
  await bob.waitForFunction((n) => Number(document.getElementById('room').dataset.ply) === n && document.getElementById('room').dataset.you === 'north', TURNS);

  await alice.screenshot({ path: join(out, 'online-room-1280-south.png') });
  await bob.screenshot({ path: join(out, 'online-room-1280-north.png') });
  await carol.screenshot({ path: join(out, 'online-room-1280-watcher.png') });

  // Resign, confirmed on the page.
  await alice.click('#btn-resign');
  await alice.waitForSelector('#resign-confirm:not([hidden])');
  await alice.click('#btn-resign-no');
  assert(await alice.$eval('#resign-confirm', (e) => e.hidden), 'Keep playing closes the question');
  await alice.click('#btn-resign');
  await alice.click('#btn-resign-yes');
  await alice.waitForSelector('#banner:not([hidden])');
  await bob.waitForSelector('#banner:not([hidden])');
  assert((await alice.textContent('#banner')).includes('You lose'), 'Alice lost');
  assert((await bob.textContent('#banner')).includes('You win'), 'Bob won');
  noErrors(alice, bob, carol);
});

test('room: a game with no turn played is aborted by a player', async (browser) => {
  const r = await room('tsoro:8');
  const alice = await person(browser);
  await alice.goto(`${base}/online/game/${r.id}#seat=${r.token}`);
  await alice.waitForFunction(() => document.getElementById('room').dataset.you === 'south');
  const state = await api(`/api/online/rooms/${r.id}`);
  if (!('rated' in state.body)) {
    console.log('     (skipped: this server has no abort)');
    return;
  }
  const bob = await person(browser);
  await bob.goto(`${base}/online/game/${r.id}#invite=${r.invite}`);
  await bob.click('#btn-claim');
  await bob.waitForFunction(() => document.getElementById('room').dataset.you === 'north');
  await alice.waitForSelector('#btn-abort:not([hidden])');
  await alice.click('#btn-abort');
  await bob.waitForFunction(() => document.getElementById('status').textContent.includes('closed'));
  assert(await bob.$eval('#btn-resign', (b) => b.hidden), 'nothing to resign in a closed game');
  assert((await bob.$$('#board g.hole.legal')).length === 0, 'no turn in a closed game');
  noErrors(alice, bob);
});

test('room: a wrong room link says no such game', async (browser) => {
  const page = await person(browser);
  await page.goto(`${base}/online/game/NoSuchRoom42`);
  await page.waitForSelector('#missing:not([hidden])', { timeout: 5000 });
  assert((await page.textContent('#status')).includes('No such game'), 'the status says so');
  const malformed = await person(browser);
  await malformed.goto(`${base}/online/game/not-a-room!`);
  await malformed.waitForSelector('#missing:not([hidden])', { timeout: 5000 });
  noErrors(page, malformed);
});

test('room: nsolo:36 on a 390 px phone, portrait board, no sideways scrolling; North turned too', async (browser) => {
  const r = await room('nsolo:36', 'north');
  const phone = await person(browser, { viewport: PHONE });
  await phone.goto(`${base}/online/game/${r.id}#seat=${r.token}`);
  await phone.waitForFunction(() => document.getElementById('room').dataset.you === 'north');
  await phone.waitForSelector('#board svg.board');
  assert((await phone.$eval('#room', (e) => e.dataset.orientation)) === 'portrait', 'portrait on a phone');
  const over = await overflow(phone);
  assert(over <= 0, `page wider than the phone by ${over} px`);
  const holes = await phone.$$eval('#board g.hole .pit', (ps) => ps.map((p) => p.getBoundingClientRect()));
  assert(holes.every((h) => h.left >= 0 && h.right <= 390), 'every hole inside the screen');
  assert(holes.every((h) => h.width >= 40), `holes at least 40 px (${Math.min(...holes.map((h) => h.width))})`);
  await phone.screenshot({ path: join(out, 'online-room-390-nsolo36-north.png') });
  const watcher = await person(browser, { viewport: PHONE });
  await watcher.goto(`${base}/online/game/${r.id}`);
  await watcher.waitForSelector('#board svg.board');
  assert((await overflow(watcher)) <= 0, 'no overflow for a spectator');
  for (const path of ['/online/', '/online/archive', '/online/leaderboard']) {
    await watcher.goto(base + path);
    await watcher.waitForLoadState('networkidle');
    const o = await overflow(watcher);
    assert(o <= 0, `${path} wider than the phone by ${o} px`);
  }
  await watcher.goto(`${base}/online/`);
  await watcher.screenshot({ path: join(out, 'online-lobby-390.png'), fullPage: true });
  noErrors(phone, watcher);
});

test('online pages: site header, language switch in four languages, links from the other pages', async (browser) => {
  const page = await person(browser);
  for (const path of ['/', '/play', '/rules/tsoro', '/rules/nsolo']) {
    await page.goto(base + path);
    const href = await page.$eval('#nav-online', (a) => a.getAttribute('href'));
    assert(href.startsWith('/online'), `${path} links to online play (${href})`);
  }
  await page.click('#nav-online');
  await page.waitForURL(/\/online/);
  const r = await room('tsoro:8');
  const expect = { en: 'Online game', fi: 'Verkkopeli', da: 'Onlineparti', bn: 'অনলাইন খেলা' };
  for (const lang of ['fi', 'da', 'bn', 'en']) {
    for (const path of ['/online/', '/online/archive', '/online/leaderboard', `/online/game/${r.id}`]) {
      await page.goto(`${base}${path}${path.includes('?') ? '&' : '?'}lang=${lang}`);
      assert((await page.getAttribute('html', 'lang')) === lang, `${path} in ${lang}`);
      assert((await page.$$('header.site nav.langs a')).length === 4, `${path}: the language switch`);
    }
    // The room's words come from the same language.
    await page.waitForFunction((w) => document.getElementById('title').textContent.length > 0 && document.title.includes(w), expect[lang]);
  }
  // The switch itself: from Finnish to Bengali on the lobby.
  await page.goto(`${base}/online/?lang=fi`);
  await page.click('header.site nav.langs a[hreflang=bn]');
  await page.waitForFunction(() => document.documentElement.lang === 'bn');
  assert((await page.textContent('h1')).includes('অনলাইনে'), 'the lobby in Bengali');
  await page.screenshot({ path: join(out, 'online-lobby-1280-bn.png') });
  noErrors(page);
});

test('lobby: two people meet through an open challenge, play, chat (markup shown as text), a third watches, rematch, ratings', async (browser) => {
  const groups = await api('/api/online/groups');
  if (groups.status !== 200) {
    console.log('     (skipped: this server has no lobby)');
    return;
  }
  const alice = await person(browser);
  await alice.goto(`${base}/online/`);
  await alice.fill('#player-name', 'Alice');
  await alice.click('#name-form button');
  const bob = await person(browser);
  await bob.goto(`${base}/online/`);
  await bob.waitForFunction(() => document.getElementById('lobby-status').textContent === '');
  const carol = await person(browser);
  await carol.goto(`${base}/online/`);
  await alice.waitForFunction(() => document.getElementById('lobby-status').textContent === '');
  // The rules of rated games, with the numbers the lobby's welcome gives (issue 37).
  const rules = await alice.textContent('#rated-rules');
  assert(/\b2\b/.test(rules) && /\b3\b/.test(rules), `the rated games' rules: ${rules}`);
  await alice.selectOption('#create-game', 'tsoro');
  await alice.selectOption('#create-size', '8');
  await alice.selectOption('select[name=side]', 'south');
  await alice.click('#btn-create');
  // Bob's list shows Alice's challenge without a reload; one click accepts it.
  await bob.waitForSelector('#challenges tr button.accept');
  assert((await bob.textContent('#challenges')).includes('Alice'), "Alice's challenge listed");
  await alice.screenshot({ path: join(out, 'online-lobby-1280.png'), fullPage: true });
  await bob.click('#challenges tr button.accept');
  await alice.waitForURL(/\/online\/game\/\w+/);
  await bob.waitForURL(/\/online\/game\/\w+/);
  await alice.waitForFunction(() => document.getElementById('room').dataset.you === 'south');
  await bob.waitForFunction(() => document.getElementById('room').dataset.you === 'north');
  await playTurn(alice);
  await bob.waitForFunction(() => Number(document.getElementById('room').dataset.ply) === 1);
  await playTurn(bob);
  await alice.waitForFunction(() => Number(document.getElementById('room').dataset.ply) === 2);
  // Chat between the players: markup arrives as text.
  await alice.fill('#chat-players input', '<img src=x onerror=alert(1)> good luck');
  await alice.click('#chat-players button[type=submit]');
  await bob.waitForFunction(() => document.getElementById('chat-log-players').textContent.includes('good luck'));
  assert((await bob.$$('#chat-log-players img')).length === 0, 'no markup interpreted');
  assert((await bob.textContent('#chat-log-players')).includes('<img src=x'), 'the text as written');
  assert((await bob.textContent('#chat-log-players strong')) === 'Alice', "the line carries Alice's lobby name");

  // A third person watches from the lobby's list of games in progress; spectators chat apart.
  await carol.waitForSelector('#live-games li a');
  await carol.click('#live-games li a');
  // The predicate below reads the room: wait for the lobby to be left first.
  await carol.waitForURL(/\/online\/game\/\w+/);
  await carol.waitForFunction(() => Number(document.getElementById('room').dataset.ply) === 2 && !document.getElementById('room').dataset.you);
  assert(await carol.$eval('#chat-players', (e) => e.hidden), "the players' chat is not a spectator's");
  await carol.fill('#chat-spectators input', 'nice opening');
  await carol.click('#chat-spectators button[type=submit]');
  await carol.waitForFunction(() => document.getElementById('chat-log-spectators').textContent.includes('nice opening'));
  await alice.waitForTimeout(300);
  assert(!(await alice.textContent('#chat-log-players')).includes('nice opening'), "spectators' lines stay with spectators");
  await bob.screenshot({ path: join(out, 'online-room-1280-chat.png') });

  // A second turn each: a rated game counts once each side has played two.
  await playTurn(alice);
  await bob.waitForFunction(() => Number(document.getElementById('room').dataset.ply) === 3);
  await playTurn(bob);
  await alice.waitForFunction(() => Number(document.getElementById('room').dataset.ply) === 4);
  // The game ends (Bob resigns, confirmed on the page); a rematch, colours swapped.
  await bob.click('#btn-resign');
  await bob.click('#btn-resign-yes');
  await alice.waitForSelector('#btn-rematch:not([hidden])');
  await alice.click('#btn-rematch');
  await bob.waitForFunction(() => document.getElementById('rematch-status').textContent.length > 0);
  const first = alice.url();
  await bob.click('#btn-rematch');
  await alice.waitForFunction((u) => location.href !== u && document.getElementById('room')?.dataset.you === 'north', first);
  await bob.waitForFunction(() => document.getElementById('room')?.dataset.you === 'south');
  // Both players' ratings moved off the start after the rated game.
  await alice.goto(`${base}/online/player`);
  await alice.waitForFunction(() => document.querySelectorAll('#ratings li').length > 0);
  const rating = await alice.textContent('#ratings');
  assert(/\d/.test(rating) && !rating.includes('1500?'), `Alice's rating after a win: ${rating}`);
  // The leaderboard of the group lists both, with their deviation.
  await alice.goto(`${base}/online/leaderboard?group=tsoro-small`);
  await alice.waitForFunction(() => document.querySelectorAll('#board-table tbody tr').length >= 2);
  assert((await alice.textContent('#board-table')).includes('±'), 'ratings shown with their deviation');
  // Both have one rated game: provisional, under the heading of provisional ratings.
  const head = await alice.$$eval('#board-table tbody tr', (rows) => rows.map((r) => r.className));
  assert(head[0] === 'provisional-head', `provisional players listed apart: ${head}`);
  noErrors(alice, bob, carol);
});

test('lobby in Bengali: a challenge accepted, a turn each, the room in Bengali', async (browser) => {
  const groups = await api('/api/online/groups');
  if (groups.status !== 200) {
    console.log('     (skipped: this server has no lobby)');
    return;
  }
  const rudo = await person(browser, { lang: 'bn' });
  await rudo.goto(`${base}/online/?lang=bn`);
  const tendai = await person(browser, { lang: 'bn' });
  await tendai.goto(`${base}/online/?lang=bn`);
  for (const p of [rudo, tendai]) await p.waitForFunction(() => document.getElementById('lobby-status').textContent === '');
  await rudo.selectOption('#create-game', 'nsolo');
  await rudo.selectOption('#create-size', '8');
  await rudo.selectOption('select[name=side]', 'south');
  await rudo.click('#btn-create');
  // The newest challenge is the last row (a failed test before may have left one).
  await tendai.waitForSelector('#challenges tr button.accept');
  await tendai.click('#challenges tbody tr:last-child button.accept');
  await rudo.waitForFunction(() => document.getElementById('room')?.dataset.you === 'south');
  await tendai.waitForFunction(() => document.getElementById('room')?.dataset.you === 'north');
  assert((await rudo.getAttribute('html', 'lang')) === 'bn', 'the room in Bengali');
  await rudo.waitForFunction(() => document.getElementById('status').textContent.includes('আপনার'));
  await playTurn(rudo);
  await tendai.waitForFunction(() => Number(document.getElementById('room').dataset.ply) === 1);
  await playTurn(tendai);
  await rudo.waitForFunction(() => Number(document.getElementById('room').dataset.ply) === 2);
  await settled(rudo);
  await rudo.screenshot({ path: join(out, 'online-room-1280-bn.png') });
  noErrors(rudo, tendai);
});

const browser = await launchChromium();
await runTests(tests, browser, process.env.E2E_ONLY || '');
