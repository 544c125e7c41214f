// The board page's view: the board, the side bars, the decision bar, the result banner and
// the buttons' states, drawn from page.state; the last turn's marks and its replay.
import { Board } from '../board.js';
import { $, fill, sideWord } from '../page.js';
import { sound } from '../sound.js';
import { bonusPrompt, portraitWanted, startHole, stoneTotal } from '../turn.js';
import { updateAnalysis } from './analysis.js';
import { updateAddress } from './links.js';
import { renderMoves } from './moves.js';
import { humanToDecide, page, pageSide, root, save, turn, words } from './state.js';
import { continuation } from './tree.js';

// What the board was drawn for (size, heads, orientation, flip): another draws it anew.
let boardKey = '';
/** @typedef {{ hole: (label: string) => void, again: () => void }} ViewHandlers */
// The game's answers to a click on a hole and on "Play again" (play.js sets them).
/** @type {ViewHandlers} */
const handlers = { hole: () => {}, again: () => {} };

/**
 * Sets what clicks on the board and on "Play again" do, and redraws the board when a
 * phone is turned over.
 * @param {ViewHandlers} on
 */
export function initView(on) {
  Object.assign(handlers, on);
  window.addEventListener('resize', () => {
    const { state, board } = page;
    if (state && !page.busy && board && !board.animating && boardKey.split('|')[2] !== String(portraitWanted($('board-scroll'), state.ruleset.n))) {
      render();
    }
  });
}

function ensureBoard(info) {
  const portrait = portraitWanted($('board-scroll'), info.n);
  // A person playing North against the computer has North's rows nearest.
  const flip = page.settings.mode === 'ai' && page.settings.human === 'North';
  const key = `${info.n}|${info.head_holes.join(',')}|${portrait}|${flip}`;
  if (page.board && key === boardKey) return;
  boardKey = key;
  const board = new Board($('board'), {
    n: info.n,
    heads: info.head_holes,
    words,
    labels: $('labels').checked,
    portrait,
    flip,
  });
  page.board = board;
  root.dataset.orientation = portrait ? 'portrait' : 'landscape';
  // The side bars follow: the far side's above the board, the near side's below.
  const [far, near] = flip ? ['side-south', 'side-north'] : ['side-north', 'side-south'];
  $('board-scroll').before($(far));
  $('board-scroll').after($(near));
  $(far).dataset.place = 'far';
  $(near).dataset.place = 'near';
  // The side bars' CSS aligns them with the board's columns in portrait.
  root.style.setProperty('--board-max', board.element.style.maxWidth);
  board.setSpeed($('speed').value);
  board.onClick = (label) => handlers.hole(label);
  board.onSound = (kind, ms) => sound.play(kind, ms);
  root.dataset.n = String(info.n);
  root.classList.toggle('wide', info.n > 21);
}

export function render() {
  const { state, game, settings, busy, thinking, hint, lastTurn } = page;
  ensureBoard(state.ruleset);
  const { board } = page;
  const mine = humanToDecide() && !busy && !thinking;
  const picking = mine && state.phase === 'bonus';
  // The engine takes the picks made (in any order) out of the rows and offers the holes left.
  board.setRows(state.rows);
  board.setClickable(mine ? state.clickable : [], state.phase === 'bonus' ? 'take' : 'start');
  const lastStart = state.moves.length ? [startHole(state.moves[state.moves.length - 1])] : [];
  // The last turn's start and path stay marked until the next turn is under way.
  const known = lastTurn && lastTurn.key === lastTurnKey() ? lastTurn : null;
  if (state.moves.length && !known && !busy) learnLastTurn();
  const marking = !game.pending.length && !busy;
  const picks = state.picks || [];
  board.setMarks({
    last: marking ? lastStart : [],
    path: marking && known ? known.path : [],
    hint: hint && hint.at === state.moves.length ? hint.hole : null,
    picked: picking ? picks : [],
    named: mine && state.phase === 'head' ? state.head : null,
  });

  // Status and the decision bar.
  let status = '';
  let prompt = '';
  const cont = $('btn-continue');
  const stop = $('btn-stop');
  const done = $('btn-done');
  cont.hidden = stop.hidden = done.hidden = true;
  if (state.outcome) {
    status = '';
  } else if (!humanToDecide()) {
    status = fill(words.to_move, { side: sideWord(state.to_move) });
  } else {
    const who = settings.mode === 'ai' ? words.your_turn : fill(words.to_move, { side: sideWord(state.to_move) });
    status = who;
    if (state.phase === 'start') {
      prompt = state.clickable.some((h) => h) ? words.choose_start : '';
    } else if (state.phase === 'head') {
      prompt = fill(words.head_choice, { hole: state.head });
      cont.hidden = stop.hidden = false;
      cont.disabled = !state.legal.includes('continue') || busy;
      stop.disabled = !state.legal.includes('stop') || busy;
    } else if (state.phase === 'bonus') {
      prompt = bonusPrompt(state, words, fill);
      if (state.ruleset.game === 'tsoro') {
        done.hidden = false;
        done.disabled = busy;
      }
    }
  }
  $('status').textContent = status;
  renderSides();
  $('prompt').textContent = prompt;
  $('decision-bar').classList.toggle('active', !!prompt);
  $('decision-bar').dataset.phase = state.outcome ? 'over' : state.phase;
  renderBanner();
  renderMoves();

  $('position-text').textContent = state.position;
  $('btn-undo').disabled = !(game.moves.length || game.pending.length || game.resigned);
  $('btn-redo').disabled = !continuation().length;
  $('btn-resign').disabled = !!state.outcome || !humanToDecide() || game.pending.length > 0 || settings.mode === 'analysis';
  $('btn-hint').disabled = !!state.outcome || !humanToDecide();
  $('btn-skip').disabled = !busy;
  $('btn-replay').disabled = busy || thinking || !state.moves.length || game.pending.length > 0;
  $('thinking').hidden = !thinking;
  for (const input of document.querySelectorAll('input[name=mode]')) input.checked = input.value === settings.mode;
  // A choice not yet applied by New game stays shown.
  $('human-side').value = $('human-side').dataset.chosen || (settings.human === 'South' ? 'S' : 'N');
  $('level').value = settings.level;
  document.querySelector('.ai-options').hidden = settings.mode !== 'ai';
  $('play-on').hidden = settings.mode === 'ai';
  $('btn-play-on').disabled = !!state.outcome || busy;
  root.dataset.phase = state.outcome ? 'over' : state.phase;
  root.dataset.toMove = pageSide(state.to_move);
  root.dataset.moves = String(state.moves.length);
  root.dataset.busy = busy || thinking ? 'true' : 'false';
  root.dataset.mode = settings.mode;
  save();
  if (!busy) {
    updateAddress();
    updateAnalysis();
  }
}

/** The result banner, shown when the game is over. */
function renderBanner() {
  const banner = $('banner');
  const o = page.state.outcome;
  if (!o) {
    banner.hidden = true;
    return;
  }
  const { settings } = page;
  // Against the computer the banner speaks to the player.
  const head = !o.winner
    ? words.draw
    : settings.mode === 'ai'
      ? pageSide(o.winner) === settings.human
        ? words.you_win
        : words.you_lose
      : fill(words.wins, { side: sideWord(o.winner) });
  const loser = o.winner ? sideWord(pageSide(o.winner) === 'South' ? 'North' : 'South') : '';
  const reason =
    o.termination === 'no_legal_move'
      ? fill(words.reason_no_moves, { side: loser })
      : o.termination === 'resignation'
        ? fill(words.reason_resign, { side: loser })
        : o.termination === 'repetition'
          ? words.reason_repetition
          : o.text;
  banner.innerHTML = '';
  const strong = document.createElement('strong');
  strong.textContent = head;
  const again = document.createElement('button');
  again.type = 'button';
  again.id = 'btn-again';
  again.textContent = words.play_again;
  again.addEventListener('click', () => handlers.again());
  banner.append(strong, document.createTextNode(` — ${reason} (${o.result}) `), again);
  banner.dataset.result = o.result;
  banner.dataset.termination = o.termination;
  banner.hidden = false;
}

/** Who plays a side, as the side bars name it. */
function sideName(side) {
  const { settings } = page;
  if (settings.mode !== 'ai') return sideWord(side);
  if (side === settings.human) return words.you;
  return fill(words.computer_level, { level: words[`level_${settings.level}`] || settings.level });
}

/** Each side's name, stone total and a to-move marker, beside the board. */
function renderSides() {
  const { state } = page;
  for (const side of ['North', 'South']) {
    const bar = $(`side-${side.toLowerCase()}`);
    const total = stoneTotal(state.rows, side);
    const toMove = !state.outcome && pageSide(state.to_move) === side;
    const name = sideName(side);
    if (bar.dataset.name === name && bar.dataset.total === String(total) && bar.dataset.toMove === String(toMove)) continue;
    bar.dataset.name = name;
    bar.dataset.total = String(total);
    bar.dataset.toMove = String(toMove);
    bar.classList.toggle('to-move', toMove);
    bar.innerHTML = '';
    const who = document.createElement('strong');
    who.className = 'side-name';
    who.textContent = name;
    const where = document.createElement('span');
    where.className = 'side-which';
    where.textContent = page.settings.mode === 'ai' ? sideWord(side) : '';
    const count = document.createElement('span');
    count.className = 'side-total';
    count.textContent = total === 1 ? words.side_stone_one : fill(words.side_stones, { n: total });
    const mark = document.createElement('span');
    mark.className = 'side-mark';
    mark.textContent = toMove ? words.to_move_mark : '';
    bar.append(who, where, count, mark);
  }
}

export const lastTurnKey = () => JSON.stringify([page.game.start, page.game.moves]);

/** Asks the engine what the last turn did (after a load, an undo or a click in the list). */
async function learnLastTurn() {
  const key = lastTurnKey();
  if (page.lastTurn && page.lastTurn.key === key) return;
  page.lastTurn = { key, pending: true, path: [] };
  try {
    const t = await turn.effectOf({ start: page.game.start }, page.game.moves);
    if (lastTurnKey() !== key) return;
    page.lastTurn = { key, before: t.before, events: t.events, mover: pageSide(t.mover), path: t.path };
    if (page.state && !page.busy) render();
  } catch (_) {
    /* marks are an aid; the game goes on without them */
  }
}

/** Plays the last turn's animation again from the position before it. */
export async function replayLast() {
  if (page.busy || page.thinking || !page.state.moves.length || page.game.pending.length) return;
  if (!page.lastTurn || page.lastTurn.key !== lastTurnKey() || !page.lastTurn.events) await learnLastTurn();
  const t = page.lastTurn;
  if (!t || !t.events || page.busy) return;
  page.busy = true;
  const gen = page.generation;
  render();
  $('btn-skip').disabled = false;
  page.board.setRows(t.before);
  await page.board.animate(t.events, t.mover);
  page.busy = false;
  if (gen === page.generation) render();
}
