// The puzzles page: the learner plays the solver's turns (South), one decision at a time
// through the engine (engine.js `request`, the same answers as POST /api/game), and the
// page plays the defence from the proved solution. A turn is judged as soon as it leaves
// the solution (another start hole, another head choice) or ends: right when it is the
// solution's token. Ratings (Glicko-2, glicko.js) of the player and of each puzzle, the
// puzzles done and the streak are kept in this browser (localStorage); when the browser
// holds an online identity (the lobby's secret), the player's rating is the server's, which
// rates each attempt (online.js). Nothing here
// decides a rule: the holes offered, the head choices and the bonus picks are the engine's.
import { Board } from '../board.js';
import { request } from '../engine.js';
import { $, fill } from '../page.js';
import { showTurn } from '../task-board.js';
import { startHole, TurnController } from '../turn.js';
import * as glicko from './glicko.js';
import { fetchRating, onlineSecret, postAttempt } from './online.js';

const words = JSON.parse($('ui-words').textContent);
const data = JSON.parse($('puzzles-data').textContent);
const all = data.puzzles;
const root = $('puzzles');
const speed = Number(localStorage.getItem('matombo-speed') ?? 2);
const sleep = (ms) => new Promise((r) => setTimeout(r, speed >= 4 ? ms / 4 : ms));
const KEY = 'matombo-puzzles';

function loadStore() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || '{}');
    if (v && typeof v === 'object') return { player: v.player || glicko.fresh(), ratings: v.ratings || {}, done: v.done || {}, streak: v.streak || 0 };
  } catch (_) {
    /* unreadable: start again */
  }
  return { player: glicko.fresh(), ratings: {}, done: {}, streak: 0 };
}
const store = loadStore();
function save() {
  try {
    localStorage.setItem(KEY, JSON.stringify(store));
  } catch (_) {
    /* private mode: nothing kept */
  }
}

const secret = onlineSecret();
/** The online identity's rating, from the server; null: this browser's rating is shown. */
let online = secret ? await fetchRating(secret) : null;
root.dataset.ratingSource = online ? 'server' : 'local';
/** The player's rating now, the server's or this browser's. */
const playerRating = () => (online ? online.rating : store.player.r);

const ratingOf = (p) => store.ratings[p.id] || { ...glicko.fresh(p.rating), rd: 200 };

let board = null;
let boardKey = '';
let puzzle = null;
let ply = 0; // the solver's turn being asked: an even index into the solution
/** The learner's turn, built through the engine. */
const turn = new TurnController((b) => request('/api/game', b));
/** @type {import('../wire.js').GameState} */
let state;
let busy = false;
let over = false; // solved or failed

const params = new URLSearchParams(location.search);

/** The puzzle of the day: the same for everyone on a given UTC date. */
function daily() {
  const day = Math.floor(Date.now() / 86400000);
  return all[(day * 7919) % all.length];
}

/** The next puzzle: not done yet, of the theme chosen, rated nearest the player. */
function pickNext() {
  const theme = $('theme').value;
  let pool = all.filter((p) => !(p.id in store.done) && (!theme || p.themes.includes(theme)) && p.id !== puzzle?.id);
  if (!pool.length) pool = all.filter((p) => (!theme || p.themes.includes(theme)) && p.id !== puzzle?.id);
  const target = $('streak-mode').checked ? 900 + 60 * store.streak : playerRating();
  pool.sort((a, b) => Math.abs(ratingOf(a).r - target) - Math.abs(ratingOf(b).r - target));
  const near = pool.slice(0, 8);
  return near[Math.floor(Math.random() * near.length)];
}

function feedback(text, kind) {
  $('feedback').textContent = text;
  $('feedback').dataset.kind = kind || '';
}

function show() {
  const mine = online ? words.your_online_rating : words.your_rating;
  $('player-rating').textContent = fill(mine, { r: Math.round(playerRating()) });
  $('puzzle-rating').textContent = fill(words.puzzle_rating, { r: Math.round(ratingOf(puzzle).r) });
  $('streak').textContent = fill(words.streak_n, { n: store.streak });
}

async function loadPuzzle(p) {
  puzzle = p;
  ply = 0;
  over = false;
  root.dataset.puzzle = p.id;
  $('solution').hidden = true;
  feedback('');
  const n = p.solution.length;
  $('puzzle-title').textContent = `${fill(words.win_in, { n })} · ${p.themes.map((t) => words[`theme_${t}`] || t).join(', ')}`;
  $('task-prompt').textContent = words.find_the_win;
  const link = location.pathname.startsWith('/puzzles') ? `/puzzles/${p.id}${location.search.includes('lang=') ? `?lang=${params.get('lang')}` : ''}` : `?id=${p.id}`;
  $('puzzle-link').href = link;
  $('puzzle-link').textContent = `#${p.id}`;
  await ask();
  show();
}

/** Sets up the solver's turn at `ply`. */
async function ask() {
  state = await turn.begin({ start: puzzle.position, moves: puzzle.solution.slice(0, ply) });
  const key = `${state.ruleset.n}|${state.ruleset.head_holes.join(',')}`;
  if (!board || key !== boardKey) {
    $('task-board').textContent = '';
    board = new Board($('task-board'), { n: state.ruleset.n, heads: state.ruleset.head_holes, words, labels: true, interactive: true });
    board.setSpeed(speed);
    board.onClick = onHole;
    boardKey = key;
  }
  board.setMarks({});
  render();
}

function render() {
  showTurn(board, state, { open: !busy && !over, bonus: state.phase === 'bonus', words });
  root.dataset.state = busy ? 'busy' : over ? root.dataset.result : 'ready';
}

/**
 * Whether the turn begun can still become the solution's `want`: the same start hole, and
 * the head choices made so far (the engine's `+` / `=` marks of its partial token) a prefix
 * of the solution's. Bonus picks are judged when the turn is whole (any order is the same).
 * @param {string} partial the engine's token of the turn so far
 * @param {string} want the solution's token
 */
function onTrack(partial, want) {
  const marks = (/** @type {string} */ t) => t.slice(startHole(t).length).match(/^[+=]*/)?.[0] || '';
  return startHole(partial) === startHole(want) && marks(want).startsWith(marks(partial));
}

function rate(score) {
  const pr = ratingOf(puzzle);
  const player = online ? { r: online.rating, rd: online.rd, vol: online.volatility } : store.player;
  if (!online) store.player = glicko.update(player, pr, score);
  store.ratings[puzzle.id] = glicko.update(pr, player, 1 - score);
  if (online) rateOnline(puzzle.id, score === 1);
  store.done[puzzle.id] = score;
  store.streak = score ? store.streak + 1 : 0;
  save();
  show();
}

/**
 * Posts the attempt; the server's answer is the rating shown (an earlier attempt at the
 * same puzzle counted: said so, the rating unchanged).
 * @param {string} id
 * @param {boolean} solved
 */
async function rateOnline(id, solved) {
  const a = await postAttempt(secret, id, solved);
  if (!a) return;
  online = a.rating;
  root.dataset.ratingSource = 'server';
  show();
  if (!a.counted && puzzle?.id === id) feedback(`${$('feedback').textContent} ${words.attempt_not_counted}`, $('feedback').dataset.kind);
  root.dataset.rated = id;
}

async function fail() {
  over = true;
  root.dataset.result = 'failed';
  feedback(`${words.puzzle_wrong} ${words.puzzle_failed}`, 'wrong');
  rate(0);
  await sleep(900);
  state = await turn.begin({ start: puzzle.position, moves: puzzle.solution.slice(0, ply) });
  render();
}

async function step(decisions) {
  if (busy || over) return;
  busy = true;
  render();
  let next;
  let completed;
  try {
    ({ next, completed } = await turn.apply(decisions));
  } catch (e) {
    busy = false;
    feedback(`${words.illegal}: ${e instanceof Error ? e.message : e}`, 'wrong');
    render();
    return;
  }
  if (decisions[0].startsWith('take')) board.setRows(next.rows);
  else await board.animate(next.events, 'South');
  state = next;
  const want = puzzle.solution[ply];
  if (completed) {
    busy = false;
    if (completed !== want) return fail();
    ply += 1;
    if (ply >= puzzle.solution.length) {
      over = true;
      root.dataset.result = 'solved';
      feedback(`${words.puzzle_right} ${words.puzzle_solved}`, 'right');
      rate(1);
      render();
      $('btn-next').focus();
      return;
    }
    // The defence, from the solution.
    feedback(`${words.puzzle_right} ${fill(words.defence_plays, { move: puzzle.solution[ply] })}`, 'right');
    busy = true;
    render();
    await sleep(500);
    const reply = await request('/api/game', { start: puzzle.position, moves: puzzle.solution.slice(0, ply), token: puzzle.solution[ply] });
    await board.animate(reply.events, 'North');
    ply += 1;
    busy = false;
    await ask();
    return;
  }
  busy = false;
  if (next.partial && !onTrack(next.partial, want)) return fail();
  render();
}

async function onHole(label) {
  if (busy || over) return;
  const decision = turn.decisionFor(label);
  if (decision) return step([decision]);
}

async function showSolution() {
  if (busy) return;
  if (!over) {
    over = true;
    root.dataset.result = 'failed';
    rate(0);
  }
  $('solution').hidden = false;
  $('solution').textContent = `${words.solution_label} ${puzzle.solution.join(' ')}`;
  busy = true;
  render();
  let s = await request('/api/game', { start: puzzle.position });
  board.setRows(s.rows);
  for (let i = 0; i < puzzle.solution.length; i++) {
    await sleep(400);
    s = await request('/api/game', { start: puzzle.position, moves: puzzle.solution.slice(0, i), token: puzzle.solution[i] });
    await board.animate(s.events, i % 2 ? 'North' : 'South');
    board.setRows(s.rows);
  }
  busy = false;
  state = s;
  render();
}

$('btn-continue').addEventListener('click', () => step(['continue']));
$('btn-stop').addEventListener('click', () => step(['stop']));
$('btn-done').addEventListener('click', () => step(['done']));
$('btn-solution').addEventListener('click', showSolution);
$('btn-next').addEventListener('click', () => !busy && loadPuzzle(pickNext()));
$('theme').addEventListener('change', () => !busy && loadPuzzle(pickNext()));
$('streak-mode').addEventListener('change', () => {
  store.streak = 0;
  save();
  if (!busy) loadPuzzle(pickNext());
});

const wanted = data.id || params.get('id');
const first = (wanted && all.find((p) => p.id === wanted)) || (params.get('daily') ? daily() : null) || pickNext();
await loadPuzzle(first);
