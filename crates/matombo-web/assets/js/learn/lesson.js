// A lesson page: the demonstration plays its turns through the engine on a small board;
// then each task is played on the real board, one decision at a time through the engine
// (engine.js `request`, the same answers as POST /api/game). After each of the learner's
// steps (the start, each head choice, each bonus pick or `done`) the task's goal is compared with the
// engine's answers (goal.js): met, the task is solved; the turn over without it, the turn is
// refused and the board set back, with what happened and a hint. Nothing here decides a
// rule: the holes offered, the head choice and the bonus picks allowed are the engine's.
import { Board } from '../board.js';
import { request } from '../engine.js';
import { describe, meets } from './goal.js';
import * as progress from './progress.js';
import { showTurn } from '../task-board.js';
import { TurnController } from '../turn.js';

import { $, fill } from '../page.js';
const words = JSON.parse($('ui-words').textContent);
const data = JSON.parse($('lesson-data').textContent);
const say = data.words;
const root = $('lesson');
const speed = Number(localStorage.getItem('matombo-speed') ?? 2);
const sleep = (ms) => new Promise((r) => setTimeout(r, speed >= 4 ? ms / 4 : ms));
const sideWord = (s) => (s === 'north' ? words.north : words.south);

/** A board for the ruleset `info` (the engine's), with row letters and hole numbers shown. */
function makeBoard(host, info, interactive) {
  const board = new Board(host, { n: info.n, heads: info.head_holes, words, labels: true, interactive });
  board.setSpeed(speed);
  return board;
}

// ---------------------------------------------------------------- the demonstration

let demoBoard = null;
let demoRun = 0;

async function playDemo() {
  const run = ++demoRun;
  const demo = data.demo;
  if (demoBoard && demoBoard.animating) demoBoard.skip();
  root.dataset.demo = 'playing';
  $('btn-demo').disabled = true;
  let state = await request('/api/game', { start: demo.position });
  if (!demoBoard) demoBoard = makeBoard($('demo-board'), state.ruleset, false);
  demoBoard.setRows(state.rows);
  demoBoard.setMarks({ hint: demo.mark || null });
  $('demo-move').textContent = '';
  await sleep(700);
  for (let i = 0; i < demo.moves.length && run === demoRun; i++) {
    const mover = state.to_move;
    state = await request('/api/game', { start: demo.position, moves: demo.moves.slice(0, i), token: demo.moves[i] });
    $('demo-move').textContent = fill(say.demo_move, { side: sideWord(mover), move: demo.moves[i] });
    // The start hole is where the engine's first lap was lifted from.
    demoBoard.setMarks({ hint: demo.mark || null, last: state.events.length ? [state.events[0].from] : [] });
    await demoBoard.animate(state.events, mover === 'north' ? 'North' : 'South');
    if (run !== demoRun) return;
    demoBoard.setRows(state.rows);
    await sleep(900);
  }
  if (run === demoRun) {
    root.dataset.demo = 'done';
    $('btn-demo').disabled = false;
  }
}

// ---------------------------------------------------------------- the tasks

let board = null;
let boardKey = '';
let index = 0; // the task shown
let task = null;
let state = null; // the engine's last answer for the task
let seen = null; // the learner's steps so far: decisions, events, last answer
let busy = false;
let solved = false;

// The learner's turn, one engine answer per step (turn.js).
const turn = new TurnController((b) => request('/api/game', b));

function feedback(text, kind) {
  $('feedback').textContent = text;
  $('feedback').dataset.kind = kind || '';
}

/** Shows the task's hint and outlines the solution's start (its first lap, as the engine sows it). */
async function showHint() {
  $('hint').hidden = false;
  $('hint').textContent = `${say.hint_label} ${task.hint}`;
  const played = await request('/api/game', { start: task.position, moves: task.moves || [], token: task.solution });
  if (board && !solved && !busy) board.setMarks({ hint: played.events[0].from });
}

async function loadTask(i, keepFeedback = false) {
  root.dataset.state = 'busy';
  index = i;
  task = data.tasks[i];
  seen = { decisions: [], events: [], state: null };
  solved = false;
  state = await turn.begin({ start: task.position, moves: task.moves || [] });
  seen.state = state;
  const key = `${state.ruleset.n}|${state.ruleset.head_holes.join(',')}`;
  if (!board || key !== boardKey) {
    board = makeBoard($('task-board'), state.ruleset, true);
    boardKey = key;
    board.onClick = onHole;
  }
  board.setMarks({});
  if (!keepFeedback) {
    feedback('');
    $('hint').hidden = true;
  }
  $('task-prompt').textContent = task.prompt;
  $('task-count').textContent = `· ${fill(say.task_k_of_n, { k: i + 1, n: data.tasks.length })}`;
  await render();
}

async function render() {
  // In the bonus the engine has taken the picks made (in any order) out of the rows and
  // offers the holes that may still be picked.
  showTurn(board, state, { open: !busy && !solved, bonus: state.phase === 'bonus' && !solved, words });
  $('btn-next-task').hidden = !solved || index + 1 >= data.tasks.length;
  $('btn-retry').disabled = busy;
  $('btn-hint').disabled = solved;
  const done = progress.solved(data.id);
  for (const li of document.querySelectorAll('#task-steps li')) {
    const i = Number(li.dataset.task);
    li.classList.toggle('done', done.includes(i));
    li.classList.toggle('current', i === index);
  }
  $('lesson-done').hidden = done.length < data.tasks.length;
  root.dataset.task = String(index);
  root.dataset.phase = state.phase;
  root.dataset.state = busy ? 'busy' : solved ? 'solved' : 'ready';
}

/** Sends one step of the learner's turn, animates it, then checks the goal. */
async function step(decisions, already = false) {
  if ((busy && !already) || solved) return;
  busy = true;
  root.dataset.state = 'busy';
  board.setMarks({});
  await render();
  let next;
  try {
    ({ next } = await turn.apply(decisions));
  } catch (e) {
    busy = false;
    feedback(`${words.illegal}: ${e.message}`, 'wrong');
    await render();
    return;
  }
  // A bonus pick is shown at once (as on the board page); sowings are animated.
  if (decisions[0].startsWith('take')) board.setRows(next.rows);
  else await board.animate(next.events, 'South');
  board.setMarks({});
  seen = { decisions: [...seen.decisions, ...decisions], events: [...seen.events, ...next.events], state: next };
  state = next;
  if (meets(task.goal, seen)) {
    solved = true;
    busy = false;
    progress.mark(data.id, index);
    feedback(`${say.correct} ${describe(seen, say, fill)}`, 'right');
    await render();
    const after = $('btn-next-task').hidden ? $('lesson-done').querySelector('a') : $('btn-next-task');
    if (after) after.focus();
    return;
  }
  if (next.played.length) {
    // The turn is over without the goal: it is refused and the board set back.
    feedback(`${say.not_quite} ${describe(seen, say, fill)} ${say.set_back}`, 'wrong');
    root.dataset.state = 'refused';
    board.setRows(next.rows);
    await sleep(1200);
    busy = false;
    await loadTask(index, true);
    await showHint();
    root.dataset.refused = String(Number(root.dataset.refused || 0) + 1);
    return;
  }
  busy = false;
  await render();
}

async function onHole(label) {
  if (busy || solved) return;
  // Each bonus pick is one step, in any order; the engine ends the bonus when it is whole.
  const decision = turn.decisionFor(label);
  if (decision) return step([decision]);
}

$('btn-continue').addEventListener('click', () => step(['continue']));
$('btn-stop').addEventListener('click', () => step(['stop']));
$('btn-done').addEventListener('click', () => step(['done']));
$('btn-hint').addEventListener('click', showHint);
$('btn-retry').addEventListener('click', () => !busy && loadTask(index));
$('btn-next-task').addEventListener('click', () => loadTask(index + 1));
$('btn-demo').addEventListener('click', playDemo);

// The first task not yet solved (all solved: the first again, to practise).
const done = progress.solved(data.id);
const first = data.tasks.findIndex((_, i) => !done.includes(i));
await loadTask(first < 0 ? 0 : first);
playDemo();
