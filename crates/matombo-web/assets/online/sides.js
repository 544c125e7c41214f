// The room page's text around the board: each side's bar (name, presence, clock, stones,
// the to-move mark), the result's banner and the move list. `c` is the page's state now.
import { showClocks } from './clock.js';
import { isolate } from './names.js';
import { bonusPrompt, stoneTotal } from '../js/turn.js';
import { $, fill } from '../js/page.js';

/**
 * @typedef {object} Shown
 * @property {any} room the server's state
 * @property {any} view the engine's state of the game now
 * @property {any} presence
 * @property {false | 'closed' | 'missing'} ended
 * @property {boolean} busy
 * @property {number | null} at the turn looked at
 * @property {Record<string, string>} words
 * @property {() => boolean} seated
 * @property {(s: string) => string} sideWord
 * @property {(n: number) => void} lookAt
 * @property {{ ply: number, token: string } | null} sent our turn, sent and not yet confirmed
 * @property {'turn' | 'vote' | 'propose'} kind what our turn is sent as
 */

const other = (s) => (s === 'north' ? 'south' : 'north');

/** The status line, the prompt of the turn being built and its buttons. */
export function renderStatus(/** @type {Shown} */ c, mine) {
  let status;
  let prompt = '';
  const cont = $('btn-continue');
  const stop = $('btn-stop');
  const done = $('btn-done');
  cont.hidden = stop.hidden = done.hidden = true;
  if (c.room.outcome) status = c.words.game_over;
  else if (c.ended === 'closed') status = c.words.game_closed;
  else if (!c.seated()) status = c.words.waiting_opponent;
  else if (c.sent) status = c.words.turn_sent;
  else if (c.room.you && c.room.you === c.view.to_move)
    status = c.kind === 'vote' ? c.words.your_turn_vote : c.kind === 'propose' ? c.words.your_turn_propose : c.words.your_turn;
  else status = fill(c.words.to_move, { side: sideName(c, c.view.to_move) });
  if (!c.room.you && !c.ended) status += ` · ${c.words.watching}`;
  if (mine) {
    if (c.view.phase === 'start') prompt = c.words.choose_start;
    else if (c.view.phase === 'head') {
      prompt = fill(c.words.head_choice, { hole: c.view.head });
      cont.hidden = stop.hidden = false;
      cont.disabled = !c.view.legal.includes('continue');
      stop.disabled = !c.view.legal.includes('stop');
    } else if (c.view.phase === 'bonus') {
      prompt = bonusPrompt(c.view, c.words, fill);
      done.hidden = c.view.ruleset.game !== 'tsoro';
    }
  }
  if (c.at !== null) prompt = fill(c.words.looking_at, { n: c.at, total: c.room.moves.length });
  $('status').textContent = status;
  $('prompt').textContent = prompt;
  $('decision-bar').classList.toggle('active', !!prompt);
}

/** A side's name: the seat's chosen name, else the side's. */
export function sideName(/** @type {Shown} */ c, side) {
  const seat = c.room.seats[side];
  if (seat.name) return isolate(seat.name);
  return seat.taken ? c.sideWord(side) : c.words.free_seat;
}

/** Each side's name (and "you"), presence, clock, stone total and the to-move marker. */
export function renderSides(/** @type {Shown} */ c, rows, looking) {
  for (const side of ['north', 'south']) {
    const bar = $(`side-${side}`);
    const total = stoneTotal(rows, side);
    const toMove = !c.room.outcome && !c.ended && !looking && c.seated() && c.view.to_move === side;
    // Presence only for a taken seat (a free one is simply free).
    const p = c.room.seats[side].taken && c.presence && c.presence[side];
    const fields = [
      sideName(c, side),
      c.room.you === side ? c.words.you : c.sideWord(side),
      total === 1 ? c.words.side_stone_one : fill(c.words.side_stones, { n: total }),
      toMove ? c.words.to_move_mark : '',
      p ? (p.online ? c.words.online_now : c.words.offline_now) : '',
    ];
    if (bar.dataset.fields === JSON.stringify(fields)) continue;
    bar.dataset.fields = JSON.stringify(fields);
    bar.dataset.total = String(total);
    bar.classList.toggle('to-move', toMove);
    bar.classList.toggle('mine', c.room.you === side);
    bar.replaceChildren();
    const span = (cls, text) => {
      const e = document.createElement(cls === 'side-name' ? 'strong' : 'span');
      e.className = cls;
      e.textContent = text;
      bar.append(e);
      return e;
    };
    span('side-name', fields[0]);
    span('side-which', fields[1]);
    if (p) span(`presence ${p.online ? 'on' : 'off'}`, fields[4]);
    span('side-total', fields[2]);
    const clock = span('clock', '');
    clock.id = `${side}-clock`;
    span('side-mark', fields[3]);
  }
  showClocks();
}

export function renderBanner(/** @type {Shown} */ c) {
  const banner = $('banner');
  const o = c.room.outcome;
  if (!o) {
    banner.hidden = true;
    return;
  }
  const head = !o.winner
    ? c.words.draw
    : c.room.you
      ? o.winner === c.room.you
        ? c.words.you_win
        : c.words.you_lose
      : fill(c.words.wins, { side: sideName(c, o.winner) });
  const loser = o.winner ? sideName(c, other(o.winner)) : '';
  const reason =
    {
      no_legal_move: fill(c.words.reason_no_moves, { side: loser }),
      resignation: fill(c.words.reason_resign, { side: loser }),
      repetition: c.words.reason_repetition,
      time_forfeit: fill(c.words.reason_time, { side: loser }),
    }[o.termination] || o.text;
  const strong = document.createElement('strong');
  strong.textContent = head;
  banner.replaceChildren(strong, document.createTextNode(` — ${reason} (${o.result})`));
  banner.dataset.result = o.result;
  banner.dataset.termination = o.termination;
  banner.hidden = false;
}

/** The moves so far, each a button that shows the game after it (as on /play). */
export function renderMoves(/** @type {Shown} */ c) {
  const list = $('moves');
  const current = c.at === null ? c.room.moves.length : c.at;
  const sig = JSON.stringify([c.room.moves, current, c.busy]);
  if (list.dataset.sig === sig) return;
  list.dataset.sig = sig;
  list.replaceChildren();
  let li = null;
  let number = 1;
  // The engine names the first mover; turns alternate.
  const first = c.view.start_to_move;
  c.room.moves.forEach((t, i) => {
    const side = i % 2 === 0 ? first : other(first);
    if (!li || side === 'south') {
      li = document.createElement('li');
      li.value = number;
      if (i === 0 && side === 'north') li.append('… ');
      list.append(li);
    }
    const b = document.createElement('button');
    b.type = 'button';
    b.className = `move${i === current - 1 ? ' current' : ''}${i >= current ? ' future' : ''}`;
    b.textContent = t;
    b.dataset.ply = String(i + 1);
    b.disabled = c.busy;
    if (i === current - 1) b.setAttribute('aria-current', 'step');
    b.addEventListener('click', () => c.lookAt(i + 1));
    li.append(b, ' ');
    if (side === 'north') number += 1;
  });
  if (c.at === null) list.parentElement.scrollTop = list.parentElement.scrollHeight;
  $('nav-first').disabled = $('nav-prev').disabled = c.busy || current === 0;
  $('nav-next').disabled = $('nav-last').disabled = c.busy || c.at === null;
}

