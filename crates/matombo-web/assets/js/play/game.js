// The board page's game: turns sent to the engine through the turn controller and animated,
// the computer's turns and hints, undo and redo, moving about the tree of lines, the modes.
import { noteExact } from '../egtb.js';
import { randomSeed, request, Searcher } from '../engine.js';
import { $, fill, message, sideWord } from '../page.js';
import { sound } from '../sound.js';
import { pathOf, startHole } from '../turn.js';
import { analysing, setAnalysing } from './analysis.js';
import { gameAt, humanToDecide, moverAt, page, pageSide, root, stopped, turn, words } from './state.js';
import { addLine, continuation, lineTree, nodeAt, onMainLine } from './tree.js';
import { render } from './view.js';

// The computer's turns and hints (the analysis has a worker of its own).
const aiSearcher = new Searcher();
// Started now, while the page's files can be fetched, so that a search needs no network.
aiSearcher.start().catch(() => {});
// Bumped by every question to the computer: an answer to an older one is dropped.
let aiSeq = 0;

/** The computer's turn (or a hint) at the position shown, at `level`. */
const askAi = (level) => aiSearcher.run('ai', { start: page.game.start, moves: page.game.moves, level, seed: randomSeed() });

/** The position the turn is built from (the game's start, turns and resignation). */
function gameBody() {
  const { game } = page;
  /** @type {import('../wire.js').GameRequest} */
  const body = { start: game.start, moves: game.moves };
  if (game.resigned) body.resigned = game.resigned;
  return body;
}

/** Asks the engine for the position shown and shows it; the computer moves if it is to. */
export async function load() {
  // Tests and assistive tools read this: the board is not settled until the reply is shown.
  root.dataset.busy = 'true';
  try {
    page.state = await turn.begin(gameBody(), page.game.pending);
  } catch (e) {
    // A stored game that no longer loads: start afresh rather than show nothing.
    message(e.message, 'error');
    page.game = gameAt(root.dataset.start);
    page.tree = { kids: [] };
    page.state = await turn.begin(gameBody());
  }
  render();
  maybeAi();
}

/**
 * Sends decisions (or a whole turn) to the engine, animates what happened, shows the result.
 * A bonus pick that leaves the bonus open is shown at once: the engine has taken it out of
 * the rows.
 * @param {string[]} decisions
 * @param {string} [token]
 */
async function send(decisions, token) {
  if (page.busy) return;
  // Read before the buttons are disabled (which drops their focus).
  const keyboard = document.activeElement && document.querySelector('.board-column').contains(document.activeElement);
  page.busy = true;
  const { state, game } = page;
  const mover = pageSide(state.to_move);
  const gen = page.generation;
  render();
  let next;
  let pickOnly;
  try {
    ({ next, pickOnly } = await (token ? turn.play(token) : turn.apply(decisions)));
  } catch (e) {
    page.busy = false;
    message(`${words.illegal}: ${e.message}`, 'error');
    render();
    return;
  }
  $('btn-skip').disabled = false;
  if (!pickOnly) await page.board.animate(next.events, mover);
  if (gen !== page.generation) {
    // New game (or a loaded game) while this turn was animating: it belongs to the old game.
    page.busy = false;
    render();
    return;
  }
  if (next.moves.length === state.moves.length + 1) {
    // A turn played from an earlier position branches: on the analysis board into a
    // variation, in a game into the line now played (the old one stays as a variation).
    addLine(next.moves, page.settings.mode !== 'analysis');
    // A turn completed: its events (this request's, plus any of its decisions sent before)
    // are learnt again from the engine when a part of the turn was sent earlier.
    page.lastTurn = game.pending.length
      ? null
      : { key: JSON.stringify([game.start, next.moves]), before: state.rows, events: next.events, mover, path: pathOf(next.events) };
  }
  if (next.outcome && !state.outcome) sound.play('end');
  page.state = next;
  game.moves = next.moves;
  game.pending = next.pending;
  page.busy = false;
  render();
  if (keyboard) keepFocus();
  maybeAi();
}

/** Keyboard play: after a decision, focus goes to where the next one is made. */
function keepFocus() {
  const { state, board } = page;
  if (!humanToDecide()) return;
  if (state.phase === 'head') {
    ($('btn-continue').disabled ? $('btn-stop') : $('btn-continue')).focus();
  } else if (state.phase === 'bonus') {
    if (state.clickable.length) board.focus(state.clickable[0]);
    else $('btn-done').focus();
  } else if (state.clickable.length) {
    board.focus(state.clickable[0]);
  }
}

/** The hint and the message go when the position changes. */
function forgetHint() {
  page.hint = null;
  $('hint').textContent = '';
  message('');
}

/** A decision of the person's: a start, `continue`, `stop`, a bonus pick, `done`. */
export function decide(/** @type {string} */ decision) {
  forgetHint();
  send([decision]);
}

/** Ends a Tsoro bonus early: the engine records the picks made in canonical order. */
export function finishPicks() {
  if (!humanToDecide() || page.busy || page.state.phase !== 'bonus') return;
  decide('done');
}

/** A click on a hole of the board. */
export function onHole(/** @type {string} */ label) {
  if (!humanToDecide() || page.busy) return;
  const decision = turn.decisionFor(label);
  if (decision) decide(decision);
}

export async function maybeAi() {
  const { state, settings } = page;
  if (settings.mode !== 'ai' || !state || state.outcome || page.busy || page.thinking) return;
  if (pageSide(state.to_move) === settings.human || state.phase !== 'start') return;
  const seq = ++aiSeq;
  page.thinking = true;
  render();
  let answer;
  try {
    answer = await askAi(settings.level);
  } catch (e) {
    page.thinking = false;
    if (seq === aiSeq && !stopped(e)) message(e.message, 'error');
    render();
    return;
  }
  page.thinking = false;
  // An undo, a new game or a change of side while the AI thought makes its answer stale.
  if (seq !== aiSeq || page.game.pending.length || pageSide(page.state.to_move) === page.settings.human) {
    render();
    return;
  }
  await send([], answer.token);
}

export function cancelAi() {
  aiSeq++;
  page.thinking = false;
  aiSearcher.stop();
}

export function undo() {
  if (page.busy) return;
  cancelAi();
  forgetHint();
  const { game, state, settings } = page;
  if (game.resigned) {
    game.resigned = null;
  } else if (state && state.picks.length) {
    // Bonus picks are taken back first, one by one.
    game.pending.pop();
  } else if (game.pending.length) {
    game.pending = [];
  } else {
    // The turns taken back stay in the tree, to step forward again.
    while (game.moves.length) {
      game.moves.pop();
      // Against the AI, go back to the last position where the person was to move.
      if (settings.mode !== 'ai' || moverAt(game.moves.length) === settings.human) break;
    }
  }
  load();
}

export function redoMove() {
  const { game, settings } = page;
  const next = continuation();
  if (page.busy || !next.length) return;
  cancelAi();
  game.pending = [];
  game.moves.push(next.shift());
  while (settings.mode === 'ai' && next.length && moverAt(game.moves.length) !== settings.human) game.moves.push(next.shift());
  load();
}

/**
 * Shows the position after `moves`, a line of the tree (a click in the move list, a key).
 * Against the computer, a position where it is to move goes on along the line to the
 * person's next turn, as undo does.
 * @param {string[]} moves
 */
export function goToMoves(moves) {
  const { game } = page;
  if (page.busy || !nodeAt(moves)) return;
  const at = [...moves];
  if (page.settings.mode === 'ai') {
    const next = continuation(at);
    while (next.length && moverAt(at.length) !== page.settings.human) at.push(next.shift());
  }
  if (at.join(' ') === game.moves.join(' ') && !game.pending.length) return;
  cancelAi();
  forgetHint();
  game.moves = at;
  game.pending = [];
  game.resigned = null;
  load();
}

/** The move list's keys: one turn back or on along the line, its start or its end. */
export function stepBack() {
  const { game } = page;
  if (game.pending.length || game.resigned) undo();
  else if (game.moves.length) {
    if (page.settings.mode === 'ai') undo();
    else goToMoves(game.moves.slice(0, -1));
  }
}

export function stepOn() {
  const next = continuation();
  if (next.length) goToMoves([...page.game.moves, next[0]]);
}

/** Back to the main line, where the line shown left it. */
export function toMainLine() {
  goToMoves(page.game.moves.slice(0, onMainLine(page.game.moves)));
}

export function newGame(start = page.game.start) {
  cancelAi();
  page.generation++;
  if (page.busy) page.board.skip();
  // "You play" takes effect here, not in the game in progress.
  const chosen = $('human-side').dataset.chosen;
  if (chosen) page.settings.human = chosen === 'N' ? 'North' : 'South';
  delete $('human-side').dataset.chosen;
  page.game = gameAt(start);
  page.tree = { kids: [] };
  forgetHint();
  load();
}

export async function showHint() {
  if (!humanToDecide() || page.busy) return;
  try {
    const a = await askAi('medium');
    page.hint = { hole: startHole(a.token), at: page.game.moves.length };
    $('hint').textContent = fill(words.hint_is, { move: a.token });
    // Endgame tables (egtb.js): "· Endgame tables: win in 7" when the server knows.
    noteExact($('hint'), page.game.start, page.game.moves, words);
    render();
  } catch (e) {
    if (!stopped(e)) message(e.message, 'error');
  }
}

export async function resign() {
  if (!humanToDecide() || page.busy || page.game.pending.length) return;
  cancelAi();
  page.game.resigned = pageSide(page.state.to_move) === 'South' ? 'S' : 'N';
  load();
}

export function setMode(mode) {
  page.settings.mode = mode;
  cancelAi();
  // The analysis board analyses from the start; leaving it, the analysis stays as chosen.
  if (mode === 'analysis' && !analysing) setAnalysing(true);
}

/**
 * Plays a line of the analysis (from the start) as a variation in the tree. Against the
 * computer this turns the page into the analysis board, so that the computer does not
 * answer turns that are only being looked at.
 * @param {string[]} moves
 */
export async function playLine(moves) {
  try {
    // Checked before the tree takes it: a line that does not replay changes nothing.
    await request('/api/game', { start: page.game.start, moves });
  } catch (e) {
    message(e.message, 'error');
    return;
  }
  if (page.settings.mode === 'ai') {
    setMode('analysis');
    message(words.now_analysis_board, 'ok');
  }
  addLine(moves);
  goToMoves(moves);
}

/**
 * Continues a real game against the computer from the position shown, the person playing
 * `side`. The game keeps its turns so far; the other lines are dropped (it is a game now).
 * @param {string} side
 */
export function playOn(side) {
  if (page.busy) return;
  page.settings.human = side;
  delete $('human-side').dataset.chosen;
  page.tree = lineTree(page.game.moves);
  page.game.pending = [];
  page.game.resigned = null;
  page.generation++;
  setMode('ai');
  if (analysing) setAnalysing(false);
  message(fill(words.played_on, { side: sideWord(side) }), 'ok');
  load();
}
