// The engine in the page against the native engine: seeded games played decision by
// decision through the served WebAssembly module (in Node) and through the server's JSON
// API (native Rust), comparing every answer whole: positions, boards, legal decisions
// (head choices, Tsoro bonus picks, Nsolo stone-by-stone bonus), events and outcomes.
// Usage: node engine-parity.test.mjs http://127.0.0.1:PORT/   (run.sh does this)
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { base, request } from './harness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const assets = join(root, 'crates/matombo-web/assets');
// The page's own glue, loaded as the browser loads it.
const glue = readFileSync(join(assets, 'js/wasm.js'), 'utf8');
const { instantiate } = await import(`data:text/javascript,${encodeURIComponent(glue)}`);
const call = await instantiate(await WebAssembly.compile(readFileSync(join(assets, 'wasm/matombo.wasm'))));

async function native(path, body) {
  const r = await request(base + path, body);
  const j = await r.json();
  return r.ok ? { ok: j } : { error: j.error, message: j.message, status: r.status };
}

function wasm(op, body) {
  try {
    return { ok: call(op, body) };
  } catch (e) {
    return { error: e.code, message: e.message, status: e.status };
  }
}

// A small seeded generator (mulberry32), so that a failure can be replayed.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let passed = 0;
let failed = 0;
function check(name, ok, detail = '') {
  if (ok) {
    passed++;
    console.log(`ok - ${name}`);
  } else {
    failed++;
    console.log(`not ok - ${name}${detail ? `\n  ${detail}` : ''}`);
  }
}

async function same(path, op, body, what) {
  const [n, w] = [await native(path, body), wasm(op, body)];
  if (!isDeepStrictEqual(n, w)) {
    throw new Error(`${what}: native ${JSON.stringify(n).slice(0, 400)}\n  wasm ${JSON.stringify(w).slice(0, 400)}`);
  }
  return n;
}

const RULESETS = [
  'tsoro:6',
  'tsoro:8',
  'tsoro:8,heads=1,bonus=3',
  'tsoro:12,heads=0,bonus=0',
  'tsoro:21',
  'nsolo:8',
  'nsolo:13',
  'nsolo:36',
];
const GAMES = 3;
const MAX_DECISIONS = 160;

for (const ruleset of RULESETS) {
  const seen = { head: 0, bonus: 0, over: 0 };
  let decisions = 0;
  try {
    for (let g = 0; g < GAMES; g++) {
      const random = rng(1000 * g + ruleset.length);
      let game = { start: ruleset, moves: [], pending: [] };
      let state = (await same('/api/game', 'game', game, `${ruleset} start`)).ok;
      for (let i = 0; i < MAX_DECISIONS && state.phase !== 'over'; i++) {
        seen[state.phase] = (seen[state.phase] || 0) + 1;
        const d = state.legal[Math.floor(random() * state.legal.length)];
        state = (await same('/api/game', 'game', { ...game, apply: [d] }, `${ruleset} game ${g} after ${d}`)).ok;
        game = { start: ruleset, moves: state.moves, pending: state.pending };
        decisions++;
      }
      if (state.phase === 'over') seen.over++;
      // The record of the game, written and read back, by both.
      const exp = await same('/api/record/export', 'export', { start: ruleset, moves: game.moves, tags: { Event: 'parity' } }, `${ruleset} export`);
      await same('/api/record/import', 'import', { text: exp.ok.record }, `${ruleset} import`);
    }
    // A refused request is refused alike.
    await same('/api/game', 'game', { start: ruleset, apply: ['sow A1', 'sow A1'] }, `${ruleset} illegal`);
    check(`${ruleset}: ${decisions} decisions agree (head ${seen.head}, bonus ${seen.bonus}, games over ${seen.over})`, true);
  } catch (e) {
    check(`${ruleset}: native and wasm agree`, false, e.message);
  }
}

// The decision kinds that matter were met somewhere: a head choice, bonus picks of both games.
const bonusGames = await (async () => {
  const kinds = new Set();
  for (const ruleset of ['tsoro:8', 'nsolo:8']) {
    const random = rng(7);
    let game = { start: ruleset, moves: [], pending: [] };
    for (let i = 0; i < 400; i++) {
      const s = wasm('game', game).ok;
      if (s.phase === 'over') break;
      kinds.add(`${s.ruleset.game}:${s.phase}`);
      const d = s.legal[Math.floor(random() * s.legal.length)];
      const next = wasm('game', { ...game, apply: [d] }).ok;
      game = { start: ruleset, moves: next.moves, pending: next.pending };
    }
  }
  return kinds;
})();
check(
  `the walks met head choices and both games' bonus picks (${[...bonusGames].join(', ')})`,
  bonusGames.has('tsoro:head') && bonusGames.has('tsoro:bonus') && bonusGames.has('nsolo:bonus'),
);

for (const [body, status] of [
  [{ start: 'tsoro:5' }, 400],
  [{ start: 'tsoro:8', moves: ['B2'] }, 422],
  [{ start: 'tsoro:8', apply: ['sow b2'] }, 422],
]) {
  const n = await native('/api/game', body);
  const w = wasm('game', body);
  check(`refusal ${JSON.stringify(body)} is ${status} in both`, n.status === status && isDeepStrictEqual(n, w), JSON.stringify([n, w]));
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
