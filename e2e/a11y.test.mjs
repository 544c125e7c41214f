// Accessibility: axe-core (npm, e2e/package.json) on every page kind of the site, in English
// and in Bengali, on a desktop and on a phone. A serious or critical finding fails the test;
// lesser ones are printed. Usage: node a11y.test.mjs http://127.0.0.1:PORT/
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { assert, base, launchChromium, runTests } from './harness.mjs';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const browser = await launchChromium();
const tests = [];
const test = (name, fn) => tests.push({ name, fn });

/** Every kind of page the server renders (a room's page needs a room: made below). */
const PAGES = [
  '/',
  '/rules/tsoro?size=8',
  '/rules/nsolo',
  '/play?ruleset=nsolo:8',
  '/play?ruleset=tsoro:21',
  '/review?ruleset=tsoro:6&moves=B1%3D',
  '/learn',
  '/learn/sowing',
  '/puzzles',
  '/online/',
  '/online/archive',
  '/online/leaderboard',
];

/** axe's serious and critical findings on `page` (its page is loaded and settled). */
async function findings(page, path) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    // @ts-ignore axe is the script just evaluated
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  for (const v of result.filter((v) => v.impact !== 'serious' && v.impact !== 'critical'))
    console.log(`     ${path} (${v.impact}) ${v.id}: ${v.help} — ${v.nodes.join(', ')}`);
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

async function check(viewport, lang) {
  // The site's Content-Security-Policy allows no injected script: axe is let in for the test.
  const context = await browser.newContext({ viewport, bypassCSP: true });
  const page = await context.newPage();
  const bad = [];
  const room = await fetch(`${base}/api/online/rooms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ ruleset: 'tsoro:8', side: 'south', name: 'Rudo' }),
  }).then((r) => r.json());
  // A team game seen by its captain (rosters with his controls, the team's chat, marks).
  const post = (path, body) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: base }, body: JSON.stringify(body) }).then((r) => r.json());
  const teamRoom = await post('/api/online/rooms', { ruleset: 'nsolo:8', side: 'south', name: 'Rudo', teams: { mode: 'vote', vote_ms: 20000 } });
  await post(`/api/online/rooms/${teamRoom.id}/join`, { invite: teamRoom.invites.south, name: 'Chipo' });
  await post(`/api/online/rooms/${teamRoom.id}/join`, { invite: teamRoom.invites.north, name: 'Tendai' });
  for (const path of [...PAGES, `/online/game/${room.id}`, `/online/game/${teamRoom.id}#seat=${teamRoom.token}`]) {
    const [where, hash] = path.split('#');
    const url = `${base}${where}${where.includes('?') ? '&' : '?'}lang=${lang}${hash ? `#${hash}` : ''}`;
    await page.goto(url);
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(300);
    for (const v of await findings(page, `${path} (${lang})`)) bad.push(`${path} (${lang}): ${v.impact} ${v.id}: ${v.help} — ${v.nodes.join(', ')}`);
  }
  await context.close();
  assert(!bad.length, `axe-core findings:\n${bad.join('\n')}`);
}

test('axe-core: no serious or critical finding on any page, desktop, English', () => check({ width: 1280, height: 900 }, 'en'));
test('axe-core: no serious or critical finding on any page, phone, Bengali', () => check({ width: 390, height: 844 }, 'bn'));

await runTests(tests, browser, process.env.E2E_ONLY || '');
