// Team play in headless Chromium (issue 42): four people in four browser contexts, two a
// side, on a 4 × 8 Nsolo game in vote mode made and joined through the pages' own forms;
// they vote by playing on the board, talk in their team's chat and mark holes. What one
// side's team says, marks and votes never reaches the other side's pages.
// Usage: node teams.test.mjs http://127.0.0.1:PORT/ (run.sh does this).
import { join } from 'node:path';
import { assert, base, launchChromium, out, ply, runTests } from './harness.mjs';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const tests = [];
const test = (name, fn) => tests.push({ name, fn });

/** A person: a browser context of their own, fast animations, errors recorded. */
async function person(browser, { viewport = DESKTOP, lang = 'en' } = {}) {
  const phone = viewport === PHONE;
  const context = await browser.newContext({ viewport, deviceScaleFactor: phone ? 2 : 1, isMobile: phone, hasTouch: phone, locale: lang });
  await context.addInitScript(() => localStorage.setItem('matombo-speed', '4'));
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('dialog', (d) => {
    page.errors.push(`dialog: ${d.type()} ${d.message()}`);
    d.dismiss();
  });
  return page;
}

const noErrors = (...pages) => pages.forEach((p) => assert(p.errors.length === 0, `page errors: ${p.errors}`));
const room = (page) => page.$eval('#room', (r) => ({ ...r.dataset }));

/** Joins a side's team through its link: the name asked on the page, then the member's room. */
async function joinTeam(page, link, name, lang = 'en') {
  const url = new URL(link);
  url.searchParams.set('lang', lang);
  await page.goto(url.href);
  await page.waitForSelector('#claim:not([hidden])');
  await page.fill('#claim-name', name);
  await page.click('#btn-claim');
  await page.waitForFunction(() => document.getElementById('room').dataset.you !== '' && !!document.getElementById('room').dataset.you);
  assert(page.url().includes('#seat='), `the member's token kept in the link: ${page.url()}`);
}

/** Builds a whole turn on the board; in vote mode it goes to the server as this member's vote. */
async function vote(page) {
  const before = await ply(page);
  for (let i = 0; i < 100; i++) {
    await page.waitForFunction((p) => {
      const r = document.getElementById('room');
      return (r.dataset.offer === 'yes' && r.dataset.busy === 'false') || Number(r.dataset.ply) > p;
    }, before);
    const r = await room(page);
    if (Number(r.ply) > before || r.vote.startsWith(`${before}:`)) return r.vote.split(':')[1];
    const hole = await page.$('#board g.hole.legal, #board g.hole.takeable');
    if (hole) await hole.click();
    else {
      const b = await page.$('#btn-continue:not([hidden]):not(:disabled), #btn-stop:not([hidden]):not(:disabled), #btn-done:not([hidden])');
      if (b) await b.click();
    }
    await page.waitForTimeout(30);
  }
  throw new Error('no vote was sent');
}

test('teams: four people, two a side, vote mode through the board; team chat, marks and tallies stay on their side', async (browser) => {
  const alice = await person(browser);
  await alice.goto(`${base}/online/?lang=en`);
  await alice.fill('#player-name', 'Alice');
  await alice.click('#name-form button[type=submit]');
  // The game made on the lobby's form: Nsolo 4 × 8, South, the team votes (20 s).
  await alice.selectOption('#create-game', 'nsolo');
  await alice.selectOption('#create-size', '8');
  await alice.selectOption('select[name=side]', 'south');
  await alice.selectOption('#create-teams', 'vote');
  assert(await alice.isVisible('#create-vote-s'), 'the vote time asked for a vote-mode game');
  await alice.fill('#create-vote-s', '20');
  await alice.click('#btn-create');
  await alice.waitForFunction(() => document.getElementById('room')?.dataset.you === 'south');
  await alice.waitForSelector('#join-north-row:not([hidden])');
  const southLink = await alice.inputValue('#join-south-link');
  const northLink = await alice.inputValue('#join-north-link');
  assert(southLink.includes('#join=') && northLink.includes('#join=') && southLink !== northLink, `join links: ${southLink} ${northLink}`);

  // Bea joins South on a phone, Carl and Dilip (in Bengali) North.
  const bea = await person(browser, { viewport: PHONE });
  await joinTeam(bea, southLink, 'Bea');
  const carl = await person(browser);
  await joinTeam(carl, northLink, '<i>Carl</i>');
  const dilip = await person(browser, { lang: 'bn' });
  await joinTeam(dilip, northLink, 'দিলীপ', 'bn');
  assert((await dilip.getAttribute('html', 'lang')) === 'bn', 'the room in Bengali');
  const everyone = [alice, bea, carl, dilip];
  const south = [alice, bea];
  const north = [carl, dilip];
  for (const p of south) assert((await room(p)).you === 'south', 'a South member');
  for (const p of north) assert((await room(p)).you === 'north', 'a North member');

  // Both rosters on every page: names as text (isolated), the captains marked, all online.
  for (const p of everyone) {
    await p.waitForFunction(() => document.querySelectorAll('#roster-south li').length === 2 && document.querySelectorAll('#roster-north li').length === 2);
    await p.waitForFunction(() => document.querySelectorAll('#team-panel .dot.on').length === 4);
  }
  assert((await alice.textContent('#roster-north')).includes('<i>Carl</i>'), 'a name shown as text');
  assert((await alice.$$('#roster-north i')).length === 0, 'a name is never markup');
  assert((await alice.$$('#roster-south bdi')).length === 2, 'names isolated in <bdi>');
  assert((await alice.textContent('#roster-south li:first-child')).includes('★'), 'Alice, the creator, is South’s captain');
  assert((await alice.$$('#roster-south button')).length === 2, "the captain's controls for Bea: make captain, remove");
  assert((await bea.$$('#roster-south button')).length === 0, 'no controls for a member who is not captain');
  assert((await carl.$$('#roster-south button')).length === 0, 'no controls over the other side');

  // South's turn: Alice votes on the board; Bea sees the tally on the start hole, North nothing.
  await alice.waitForFunction(() => document.getElementById('status').textContent.includes('vote'));
  const aliceVote = await vote(alice);
  assert(aliceVote, 'Alice voted');
  await bea.waitForFunction(() => document.getElementById('vote-status').dataset.voted === '1');
  await bea.waitForSelector('#board g.hole .badge');
  const badge = await bea.$eval('#board g.hole .badge', (b) => ({ hole: b.closest('g.hole').dataset.hole, n: b.textContent }));
  assert(badge.n === '1' && aliceVote.startsWith(badge.hole), `the tally on the start hole: ${JSON.stringify(badge)} for ${aliceVote}`);
  assert((await bea.textContent('#vote-status')).includes('1 of 2'), `the vote's line: ${await bea.textContent('#vote-status')}`);
  assert((await ply(alice)) === 0, 'one vote of two plays nothing yet');

  // South's team chat and marks: on Bea's page, never on North's.
  await alice.fill('#chat-team input', 'south plan <b>B1</b>');
  await alice.click('#chat-team button[type=submit]');
  await bea.waitForFunction(() => document.getElementById('chat-log-team').textContent.includes('south plan <b>B1</b>'));
  assert((await bea.$$('#chat-log-team b')).length === 0, 'a chat line is never markup');
  await alice.click('#btn-mark');
  await alice.click('#board g.hole[data-hole="B1"]');
  await alice.click('#board g.hole[data-hole="a3"]');
  await bea.waitForFunction(() => document.getElementById('room').dataset.teamMarks === 'B1,a3');
  assert((await bea.$$('#board g.hole.team-mark')).length === 2, 'the marks drawn on Bea’s board');
  await alice.click('#btn-mark');

  // Bea votes: both connected members voted, so the turn is played for everyone.
  await vote(bea);
  for (const p of everyone) await p.waitForFunction(() => Number(document.getElementById('room').dataset.ply) === 1);

  // North's turn: Carl then Dilip vote; South sees nothing of it until the turn comes.
  await vote(carl);
  await dilip.waitForFunction(() => document.getElementById('vote-status').dataset.voted === '1');
  await vote(dilip);
  for (const p of everyone) await p.waitForFunction(() => Number(document.getElementById('room').dataset.ply) === 2);
  // A third turn: Bea votes first this time.
  await vote(bea);
  await vote(alice);
  for (const p of everyone) await p.waitForFunction(() => Number(document.getElementById('room').dataset.ply) === 3);

  // A couple of seconds for anything misrouted to arrive, then: North saw none of South's.
  await carl.waitForTimeout(2000);
  for (const p of north) {
    const text = await p.textContent('body');
    assert(!text.includes('south plan'), "South's team chat never on a North page");
    assert((await p.$$('#board g.hole.team-mark')).length === 0, "South's marks never on a North page");
    assert((await room(p)).teamMarks === '', 'no marks for North');
  }
  for (const p of south) assert(!(await p.textContent('#chat-log-players')).includes('south plan'), 'the team line is not in the players’ chat');

  // The phone: no sideways scrolling in portrait.
  const overflow = await bea.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert(overflow <= 0, `Bea's page scrolls sideways by ${overflow} px`);
  await bea.screenshot({ path: join(out, 'teams-room-390.png'), fullPage: true });
  await alice.screenshot({ path: join(out, 'teams-room-1280.png'), fullPage: true });
  await dilip.screenshot({ path: join(out, 'teams-room-1280-bn.png'), fullPage: true });

  // "Your games" on the lobby: the game listed, North's turn counted in the title.
  await carl.goto(`${base}/online/?lang=en`);
  await carl.waitForFunction(() => document.querySelectorAll('#your-games li').length === 1);
  await carl.waitForFunction(() => document.title.startsWith('(1) '));
  assert((await carl.textContent('#your-games li')).includes('Your turn'), 'North is to move');
  noErrors(...everyone);
});

test('teams: a public team game with days a turn, listed in the lobby, joined from the list; its deadline shown', async (browser) => {
  const rudo = await person(browser);
  await rudo.goto(`${base}/online/?lang=en`);
  await rudo.selectOption('#create-game', 'nsolo');
  await rudo.selectOption('#create-size', '8');
  await rudo.selectOption('select[name=side]', 'south');
  await rudo.selectOption('#create-days', '3');
  await rudo.selectOption('#create-teams', 'captain');
  await rudo.check('#create-public');
  await rudo.click('#btn-create');
  await rudo.waitForFunction(() => document.getElementById('room')?.dataset.you === 'south');
  const id = await rudo.$eval('#room', (r) => r.dataset.room);
  // Another person finds it in the lobby's list and joins North from there.
  const tendai = await person(browser);
  await tendai.goto(`${base}/online/?lang=en`);
  await tendai.waitForSelector(`#public-teams li[data-id="${id}"] a.join-north`);
  assert((await tendai.textContent(`#public-teams li[data-id="${id}"]`)).includes('3 days a turn'), 'the clock of days a turn in the list');
  await tendai.click(`#public-teams li[data-id="${id}"] a.join-north`);
  await tendai.waitForSelector('#claim:not([hidden])');
  await tendai.fill('#claim-name', 'Tendai');
  await tendai.click('#btn-claim');
  await tendai.waitForFunction(() => document.getElementById('room').dataset.you === 'north');
  // South to move: its deadline (a date and the time left), North's days a turn.
  await rudo.waitForFunction(() => /left/.test(document.getElementById('south-clock')?.textContent || ''));
  assert((await rudo.textContent('#north-clock')).includes('3 days a turn'), 'the waiting side shows its days a turn');
  // The captain plays (captain mode); "Your games" counts the turn for Tendai.
  await tendai.goto(`${base}/online/?lang=en`);
  await tendai.waitForFunction((room) => !!document.querySelector(`#your-games li[data-id="${room}"]`), id);
  assert(/left/.test(await tendai.textContent(`#your-games li[data-id="${id}"] .time-left`)), 'the deadline in "Your games"');
  noErrors(rudo, tendai);
});

const browser = await launchChromium();
await runTests(tests, browser, process.env.E2E_ONLY || '');
