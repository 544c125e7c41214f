// The online game room: plays or watches one room over its WebSocket. The server is the
// authority (it checks every turn, keeps the clock and says how the game ended); the page's
// engine (engine.js: matombo's own rules in WebAssembly) replays the moves the server sends
// to draw the board, offers the decisions of a turn being built and gives each turn's
// sowing for its animation, so that this page never reads positions or rulesets itself.
import { setClock, showClocks } from './clock.js';
import { isolate, nameElement } from './names.js';
import { Board } from '../js/board.js';
import { request } from '../js/engine.js';
import { sound, soundButton } from '../js/sound.js';
import { bonusPrompt, portraitWanted, startHole, stoneTotal, TurnController } from '../js/turn.js';

import { $, fill } from '../js/page.js';
const words = JSON.parse($('ui-words').textContent);
const root = $('room');
const id = root.dataset.room;
const key = `matombo-online-${id}`;
const NAME_KEY = 'matombo-online-name';
const Side = (s) => (s === 'north' ? 'North' : 'South'); // board.js writes sides capitalised
const other = (s) => (s === 'north' ? 'south' : 'north');
const sideWord = (s) => (s === 'north' ? words.north : words.south);

function readSaved() {
  try {
    return JSON.parse(localStorage.getItem(key) || '{}') || {};
  } catch (_) {
    return {};
  }
}
const saved = readSaved();
function store() {
  try {
    localStorage.setItem(key, JSON.stringify(saved));
  } catch (_) {
    /* storage may be unavailable: the seat link still works */
  }
}

let room = null; // the server's state: start, moves, seats, clock, outcome, you, …
let view = null; // the engine's state of the game now (with our turn's decisions so far)
let pending = []; // decisions of our turn so far
let sent = null; // {ply, token}: our turn, sent and not yet confirmed
let busy = false; // an animation or an engine request is under way
let at = null; // the turn looked at in the move list (null: the game now)
let looked = null; // the engine's state after `at` turns
let lastTurn = null; // {ply, before, events, mover, path}: for its marks and its replay
let presence = null;
let board = null;
let boardKey = '';
let ws = null;
let token = null;
let retry = 500;
let stateSeen = false;
/** @type {false | 'closed' | 'missing'} */
let ended = false; // the room takes no more connections (closed, missing)
let queue = Promise.resolve();
const muted = new Set(saved.muted || []);

const game = (body) => request('/api/game', { start: room.start, ...body });
// Our turn being built, one engine answer per click (turn.js); `view` is its state.
const turn = new TurnController((body) => request('/api/game', body));
/** The game now, as the engine sees it: a new turn begins there. */
const begin = () => turn.begin({ start: room.start, moves: room.moves });

function setError(t) {
  $('error').textContent = t || '';
}

// ---- the board ------------------------------------------------------------------

function ensureBoard() {
  const info = view.ruleset;
  const portrait = portraitWanted($('board-scroll'), info.n);
  // A player of North sees the board from North's seat: his own rows nearest.
  const flip = room.you === 'north';
  const k = `${info.n}|${info.head_holes.join(',')}|${portrait}|${flip}`;
  if (board && k === boardKey) return;
  boardKey = k;
  board = new Board($('board'), { n: info.n, heads: info.head_holes, words, labels: $('labels').checked, portrait, flip });
  board.setSpeed($('speed').value);
  board.onClick = onHole;
  board.onSound = (kind, ms) => sound.play(kind, ms);
  root.dataset.orientation = portrait ? 'portrait' : 'landscape';
  root.dataset.flip = String(flip);
  root.classList.toggle('wide', info.n > 21);
  // The far side's bar above the board, the near side's below.
  const [far, near] = flip ? ['side-south', 'side-north'] : ['side-north', 'side-south'];
  $('board-scroll').before($(far));
  $('board-scroll').after($(near));
  const title = $('title');
  title.firstChild.textContent = `${JSON.parse(root.dataset.names || '{}')[info.game] || info.game} `;
  $('ruleset').textContent = info.name;
  const rules = new URL($('rules-link').href);
  rules.pathname = `/rules/${info.game}`;
  rules.searchParams.set('size', String(info.n));
  $('rules-link').href = rules.href;
  $('rules-link').hidden = false;
}

// Chat, abort and rematch came with the lobby; a server without them sends no `rated`.
const lobbyServer = () => room && 'rated' in room;
const seated = () => room && room.seats.south.taken && room.seats.north.taken;
const myTurn = () =>
  room && view && !room.outcome && !ended && room.you && room.you === view.to_move && seated() && !sent && at === null;

// ---- drawing ----------------------------------------------------------------------

function render() {
  if (!room || !view) return;
  ensureBoard();
  const mine = myTurn() && !busy;
  const looking = at !== null && looked;
  const picking = mine && view.phase === 'bonus';
  const shown = looking ? looked : view;
  // The engine takes the picks made (in any order) out of the rows and offers the holes left.
  board.setRows(shown.rows);
  board.setClickable(mine ? view.clickable : [], view.phase === 'bonus' ? 'take' : 'start');
  const moves = looking ? room.moves.slice(0, at) : room.moves;
  const marking = !pending.length && !busy && moves.length;
  const known = lastTurn && lastTurn.ply === moves.length - 1 ? lastTurn : null;
  board.setMarks({
    last: marking ? [startHole(moves[moves.length - 1])] : [],
    path: marking && known ? known.path : [],
    picked: picking ? view.picks : [],
    named: mine && view.phase === 'head' ? view.head : null,
  });
  renderStatus(mine);
  renderSides(shown.rows, looking);
  renderMoves();
  renderBanner();
  const over = !!room.outcome || ended;
  $('btn-resign').hidden = !room.you || over || !seated();
  $('btn-abort').hidden = !lobbyServer() || !room.you || over || room.moves.length > 0;
  $('btn-rematch').hidden = !lobbyServer() || !room.you || !room.outcome || ended === 'missing';
  if ($('btn-resign').hidden) $('resign-confirm').hidden = true;
  $('btn-skip').disabled = !busy;
  $('btn-replay').disabled = busy || !room.moves.length || !!pending.length || at !== null;
  $('btn-live').hidden = at === null;
  $('btn-restart').hidden = !mine || !pending.length;
  root.dataset.ply = String(room.moves.length);
  root.dataset.offer = mine ? 'yes' : 'no';
  root.dataset.phase = room.outcome ? 'over' : view.phase;
  root.dataset.you = room.you || '';
  root.dataset.busy = String(busy);
}

function renderStatus(mine) {
  let status;
  let prompt = '';
  const cont = $('btn-continue');
  const stop = $('btn-stop');
  const done = $('btn-done');
  cont.hidden = stop.hidden = done.hidden = true;
  if (room.outcome) status = words.game_over;
  else if (ended === 'closed') status = words.game_closed;
  else if (!seated()) status = words.waiting_opponent;
  else if (sent) status = words.turn_sent;
  else if (room.you && room.you === view.to_move) status = words.your_turn;
  else status = fill(words.to_move, { side: sideName(view.to_move) });
  if (!room.you && !ended) status += ` · ${words.watching}`;
  if (mine) {
    if (view.phase === 'start') prompt = words.choose_start;
    else if (view.phase === 'head') {
      prompt = fill(words.head_choice, { hole: view.head });
      cont.hidden = stop.hidden = false;
      cont.disabled = !view.legal.includes('continue');
      stop.disabled = !view.legal.includes('stop');
    } else if (view.phase === 'bonus') {
      prompt = bonusPrompt(view, words, fill);
      done.hidden = view.ruleset.game !== 'tsoro';
    }
  }
  if (at !== null) prompt = fill(words.looking_at, { n: at, total: room.moves.length });
  $('status').textContent = status;
  $('prompt').textContent = prompt;
  $('decision-bar').classList.toggle('active', !!prompt);
}

/** A side's name: the seat's chosen name, else the side's. */
function sideName(side) {
  const seat = room.seats[side];
  if (seat.name) return isolate(seat.name);
  return seat.taken ? sideWord(side) : words.free_seat;
}

/** Each side's name (and "you"), presence, clock, stone total and the to-move marker. */
function renderSides(rows, looking) {
  for (const side of ['north', 'south']) {
    const bar = $(`side-${side}`);
    const total = stoneTotal(rows, side);
    const toMove = !room.outcome && !ended && !looking && seated() && view.to_move === side;
    // Presence only for a taken seat (a free one is simply free).
    const p = room.seats[side].taken && presence && presence[side];
    const fields = [
      sideName(side),
      room.you === side ? words.you : sideWord(side),
      total === 1 ? words.side_stone_one : fill(words.side_stones, { n: total }),
      toMove ? words.to_move_mark : '',
      p ? (p.online ? words.online_now : words.offline_now) : '',
    ];
    if (bar.dataset.fields === JSON.stringify(fields)) continue;
    bar.dataset.fields = JSON.stringify(fields);
    bar.dataset.total = String(total);
    bar.classList.toggle('to-move', toMove);
    bar.classList.toggle('mine', room.you === side);
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

function renderBanner() {
  const banner = $('banner');
  const o = room.outcome;
  if (!o) {
    banner.hidden = true;
    return;
  }
  const head = !o.winner
    ? words.draw
    : room.you
      ? o.winner === room.you
        ? words.you_win
        : words.you_lose
      : fill(words.wins, { side: sideName(o.winner) });
  const loser = o.winner ? sideName(other(o.winner)) : '';
  const reason =
    {
      no_legal_move: fill(words.reason_no_moves, { side: loser }),
      resignation: fill(words.reason_resign, { side: loser }),
      repetition: words.reason_repetition,
      time_forfeit: fill(words.reason_time, { side: loser }),
    }[o.termination] || o.text;
  const strong = document.createElement('strong');
  strong.textContent = head;
  banner.replaceChildren(strong, document.createTextNode(` — ${reason} (${o.result})`));
  banner.dataset.result = o.result;
  banner.dataset.termination = o.termination;
  banner.hidden = false;
}

/** The moves so far, each a button that shows the game after it (as on /play). */
function renderMoves() {
  const list = $('moves');
  const current = at === null ? room.moves.length : at;
  const sig = JSON.stringify([room.moves, current, busy]);
  if (list.dataset.sig === sig) return;
  list.dataset.sig = sig;
  list.replaceChildren();
  let li = null;
  let number = 1;
  // The engine names the first mover; turns alternate.
  const first = view.start_to_move;
  room.moves.forEach((t, i) => {
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
    b.disabled = busy;
    if (i === current - 1) b.setAttribute('aria-current', 'step');
    b.addEventListener('click', () => lookAt(i + 1));
    li.append(b, ' ');
    if (side === 'north') number += 1;
  });
  if (at === null) list.parentElement.scrollTop = list.parentElement.scrollHeight;
  $('nav-first').disabled = $('nav-prev').disabled = busy || current === 0;
  $('nav-next').disabled = $('nav-last').disabled = busy || at === null;
}

/** Shows the game after `n` turns (the move list, the arrows); the game now at the end. */
async function lookAt(n) {
  if (busy || !room) return;
  n = Math.max(0, Math.min(room.moves.length, n));
  if (n === room.moves.length) {
    at = null;
    looked = null;
  } else {
    looked = await game({ moves: room.moves.slice(0, n) });
    at = n;
  }
  render();
}

// ---- playing ----------------------------------------------------------------------

/**
 * Applies decisions of our turn in the engine, animates them, and sends the turn once whole.
 * A bonus pick that leaves the bonus open is shown at once (the engine took it out of the rows).
 */
async function decide(list) {
  if (!myTurn() || busy) return;
  busy = true;
  setError('');
  const mover = view.to_move;
  render();
  let next;
  let pickOnly;
  let completed;
  try {
    ({ next, pickOnly, completed } = await turn.apply(list));
  } catch (e) {
    busy = false;
    setError(`${words.illegal}: ${e.message}`);
    render();
    return;
  }
  if (!pickOnly) await board.animate(next.events, Side(mover));
  busy = false;
  if (completed) {
    const ply = room.moves.length;
    const move = completed;
    sent = { ply, token: move };
    pending = [];
    view = next;
    send({ type: 'turn', ply, move });
  } else {
    pending = next.pending;
    view = next;
  }
  render();
}

function onHole(label) {
  if (!myTurn() || busy) return;
  const decision = turn.decisionFor(label);
  if (decision) decide([decision]);
}

/** Ends a Tsoro bonus early: the engine records the picks made in canonical order. */
function finishPicks() {
  if (!myTurn() || busy || view.phase !== 'bonus') return;
  decide(['done']);
}

/** Starts our turn again from its beginning (nothing was sent yet). */
async function restartTurn() {
  if (busy || !myTurn()) return;
  pending = [];
  view = await turn.restart();
  render();
}

/** What the last turn did (for its marks and "Replay last turn"), from the engine. */
async function learnLastTurn() {
  const n = room.moves.length;
  if (!n || (lastTurn && lastTurn.ply === n - 1)) return;
  const effect = await turn.effectOf({ start: room.start }, room.moves.slice(0, n));
  if (room.moves.length !== n) return;
  lastTurn = effect;
}

async function replayLast() {
  if (busy || !room || !room.moves.length || pending.length || at !== null) return;
  await learnLastTurn();
  if (!lastTurn || busy) return;
  busy = true;
  render();
  board.setRows(lastTurn.before);
  await board.animate(lastTurn.events, Side(lastTurn.mover));
  busy = false;
  render();
}

// ---- the server's messages -----------------------------------------------------------

async function onState(v) {
  const first = !room;
  room = v;
  if (v.you) saved.side = v.you;
  pending = [];
  sent = null;
  at = null;
  looked = null;
  view = await begin();
  setClock(v.clock);
  stateSeen = true;
  $('missing').hidden = true;
  if (v.outcome) ended = ended || false;
  await learnLastTurn().catch(() => {});
  render();
  if (first) showLinks();
}

async function onTurn(v) {
  if (!room) return;
  if (v.ply < room.moves.length) return; // shown already (our state came after it)
  if (v.ply > room.moves.length) {
    send({ type: 'sync' });
    return;
  }
  const ours = sent && sent.ply === v.ply && sent.token === v.move;
  const effect = await turn.effectOf({ start: room.start }, [...room.moves, v.move]);
  if (!ours) {
    // The opponent's turn (or ours from another tab), animated as it arrives.
    pending = [];
    at = null;
    looked = null;
    busy = true;
    render();
    board.setRows(effect.before);
    await board.animate(effect.events, Side(v.side));
    busy = false;
  }
  sent = null;
  room.moves.push(v.move);
  room.ply = room.moves.length;
  room.position = v.position;
  setClock(v.clock);
  lastTurn = { ...effect, mover: v.side };
  view = await begin();
  if (v.outcome && !room.outcome) sound.play('end');
  room.outcome = v.outcome;
  render();
}

function onPresence(v) {
  presence = v;
  const names = (side) => v[side].names.filter(Boolean);
  $('spectators').textContent = fill(words.spectators, { n: v.spectators });
  $('side-south').dataset.online = String(v.south.online);
  $('side-north').dataset.online = String(v.north.online);
  // Names of the seats from who is connected, for rooms whose seats carry none.
  for (const side of ['south', 'north']) if (room && !room.seats[side].name && names(side).length) room.seats[side].name = names(side)[0];
  render();
}

/** A chat line, always as text (a name or a line is never read as markup). */
function onChat(v) {
  const list = $(`chat-log-${v.channel === 'players' ? 'players' : 'spectators'}`);
  if (!list || muted.has(v.from)) return;
  const li = document.createElement('li');
  li.dataset.from = v.from;
  const who = document.createElement('strong');
  if (v.name) who.replaceChildren(nameElement(v.name));
  else who.textContent = v.from === 'south' || v.from === 'north' ? sideWord(v.from) : words.spectator;
  const text = document.createElement('span');
  text.className = 'chat-text';
  text.textContent = v.text;
  li.append(who, ': ', text);
  const mine = (room && room.you && v.from === room.you) || v.mine;
  if (!mine) {
    const mute = document.createElement('button');
    mute.type = 'button';
    mute.className = 'mute';
    mute.textContent = words.mute;
    mute.title = fill(words.mute_who, { name: who.textContent });
    mute.addEventListener('click', () => {
      muted.add(v.from);
      saved.muted = [...muted];
      store();
      send({ type: 'mute', from: v.from });
      for (const e of list.querySelectorAll('li')) if (e.dataset.from === v.from) e.remove();
    });
    li.append(' ', mute);
  }
  list.append(li);
  while (list.children.length > 200) list.firstElementChild.remove();
  list.scrollTop = list.scrollHeight;
}

function onRematchReady(v) {
  if (v.token) {
    try {
      localStorage.setItem(`matombo-online-${v.room}`, JSON.stringify({ token: v.token, side: v.side }));
    } catch (_) {
      /* the seat link below carries the token */
    }
  }
  location.href = v.links && v.links.seat && v.token ? v.links.seat : `/online/game/${v.room}`;
}

async function handle(v) {
  switch (v.type) {
    case 'state':
      return onState(v);
    case 'turn':
      return onTurn(v);
    case 'seats':
      if (room) {
        room.seats = v.seats;
        setClock(v.clock);
        render();
      }
      return;
    case 'end':
      if (room) {
        if (!room.outcome) sound.play('end');
        room.outcome = v.outcome;
        sent = null;
        setClock(v.clock);
        render();
      }
      return;
    case 'presence':
      return onPresence(v);
    case 'chat':
      return onChat(v);
    case 'rematch':
      $('rematch-status').textContent =
        room && v.offered_by === room.you ? words.rematch_offered : fill(words.rematch_offer_from, { side: sideName(v.offered_by) });
      if (room && room.you && v.offered_by !== room.you) $('btn-rematch').textContent = words.rematch_accept;
      return;
    case 'rematch_ready':
      return onRematchReady(v);
    case 'closed':
      // Closed unfinished (never claimed, abandoned, aborted): no reconnecting.
      ended = 'closed';
      $('status').textContent = v.message;
      if (room) render();
      $('status').textContent = `${words.game_closed} ${v.message || ''}`.trim();
      return;
    case 'error':
      if (v.error === 'not_found' && !stateSeen) return showMissing();
      setError(v.message);
      if (v.error === 'bad_token') {
        delete saved.token;
        store();
      }
      if (sent) {
        // Our turn was refused: the server's state is what counts.
        sent = null;
        send({ type: 'sync' });
      }
      return;
    default:
  }
}

// ---- connection ---------------------------------------------------------------------

function send(msg) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
}

function connect() {
  const proto = location.protocol === 'https:' ? 'wss' : 'ws';
  const socket = new WebSocket(`${proto}://${location.host}/api/online/rooms/${id}/ws`);
  ws = socket;
  socket.onopen = () => {
    retry = 500;
    const hello = { type: 'hello' };
    if (token) hello.token = token;
    // The name given for this seat, else the one chosen in the lobby.
    const name = saved.name || localStorage.getItem(NAME_KEY);
    if (name) hello.name = name;
    socket.send(JSON.stringify(hello));
    for (const from of muted) socket.send(JSON.stringify({ type: 'mute', from }));
  };
  socket.onmessage = (m) => {
    let v;
    try {
      v = JSON.parse(m.data);
    } catch (_) {
      return;
    }
    queue = queue.then(() => handle(v)).catch((e) => setError(e.message));
  };
  socket.onclose = async (e) => {
    if (ws !== socket || ended) return;
    if (e.code === 4404) return showMissing();
    if (e.code === 4410) {
      ended = 'closed';
      if (room) render();
      return;
    }
    // No state ever came: the room may not exist (a wrong link).
    if (!stateSeen && (await roomMissing())) return showMissing();
    $('status').textContent = words.reconnecting;
    // 1012: the server restarts (or drains for another node): try again at once.
    if (e.code === 1012) retry = 100;
    setTimeout(() => {
      if (ws === socket && !ended) connect();
    }, retry);
    retry = Math.min(retry * 2, 10000);
  };
}

/** True when the server says the room does not exist (a 404, not a network failure). */
async function roomMissing() {
  if (!id) return true;
  try {
    const r = await fetch(`/api/online/rooms/${id}`);
    return r.status === 404;
  } catch (_) {
    return false;
  }
}

function showMissing() {
  ended = 'missing';
  if (ws) ws.close();
  $('missing').hidden = false;
  $('status').textContent = words.no_such_game;
  root.dataset.missing = 'true';
  for (const e of document.querySelectorAll('.board-column > :not(.status-bar):not(#missing), .side-panel')) e.hidden = true;
}

function showLinks() {
  $('watch-link').value = `${location.origin}/online/game/${id}`;
  if (token) {
    $('seat-row').hidden = false;
    $('seat-link').value = `${location.origin}/online/game/${id}#seat=${token}`;
    if (saved.invite && room && !seated()) {
      $('invite-row').hidden = false;
      $('invite-link').value = `${location.origin}/online/game/${id}#invite=${saved.invite}`;
    }
  }
  $('chat-players').hidden = !lobbyServer() || !room.you;
  $('chat-spectators').hidden = !lobbyServer() || !!room.you;
}

/** Takes the free seat with the invitation: the name is asked on the page. */
function offerClaim(invite) {
  const form = $('claim');
  form.hidden = false;
  $('claim-name').value = localStorage.getItem(NAME_KEY) || '';
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const name = $('claim-name').value.trim().slice(0, 40);
    $('btn-claim').disabled = true;
    try {
      const r = await fetch(`/api/online/rooms/${id}/claim`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ invite, name }),
      });
      const v = await r.json();
      if (!r.ok) {
        setError(v.message);
        $('btn-claim').disabled = false;
        return;
      }
      form.hidden = true;
      saved.name = name;
      if (name) localStorage.setItem(NAME_KEY, name);
      adoptToken(v.token);
      // The spectator's connection makes way for the player's.
      const old = ws;
      ws = null;
      if (old) old.close();
      room = null;
      stateSeen = false;
      connect();
    } catch (e) {
      setError(e.message);
      $('btn-claim').disabled = false;
    }
  });
}

function adoptToken(t) {
  token = t;
  saved.token = t;
  store();
  // The secret stays in the fragment (never sent to the server in a URL, never logged).
  history.replaceState(null, '', `#seat=${t}`);
  showLinks();
}

// ---- wiring ---------------------------------------------------------------------------

$('btn-continue').addEventListener('click', () => decide(['continue']));
$('btn-stop').addEventListener('click', () => decide(['stop']));
$('btn-done').addEventListener('click', finishPicks);
$('btn-restart').addEventListener('click', restartTurn);
$('btn-live').addEventListener('click', () => lookAt(Infinity));
$('btn-skip').addEventListener('click', () => board && board.skip());
$('btn-replay').addEventListener('click', replayLast);
const shownTurns = () => (at === null ? room.moves.length : at);
$('nav-first').addEventListener('click', () => room && lookAt(0));
$('nav-prev').addEventListener('click', () => room && lookAt(shownTurns() - 1));
$('nav-next').addEventListener('click', () => room && lookAt(shownTurns() + 1));
$('nav-last').addEventListener('click', () => room && lookAt(Infinity));
$('btn-resign').addEventListener('click', () => {
  $('resign-confirm').hidden = false;
  $('btn-resign-no').focus();
});
$('btn-resign-no').addEventListener('click', () => {
  $('resign-confirm').hidden = true;
});
$('btn-resign-yes').addEventListener('click', () => {
  $('resign-confirm').hidden = true;
  send({ type: 'resign' });
});
$('btn-abort').addEventListener('click', () => send({ type: 'abort' }));
$('btn-rematch').addEventListener('click', () => send({ type: 'rematch' }));
for (const form of document.querySelectorAll('.chat-form')) {
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const input = form.querySelector('input');
    const text = input.value.trim();
    if (!text) return;
    send({ type: 'chat', text });
    input.value = '';
  });
}
for (const input of ['invite-link', 'seat-link', 'watch-link']) $(input).addEventListener('focus', (e) => e.target.select());
$('speed').addEventListener('input', (e) => {
  if (board) board.setSpeed(e.target.value);
  localStorage.setItem('matombo-speed', e.target.value);
});
$('labels').addEventListener('change', (e) => {
  if (board) board.setLabels(e.target.checked);
  localStorage.setItem('matombo-labels', e.target.checked ? '1' : '0');
});
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && busy && board) board.skip();
});
// A phone turned over: the board is drawn again in the orientation that fits.
window.addEventListener('resize', () => {
  if (view && board && !busy && boardKey.split('|')[2] !== String(portraitWanted($('board-scroll'), view.ruleset.n))) render();
});
soundButton($('btn-replay'), words.sound);
$('speed').value = localStorage.getItem('matombo-speed') ?? '2';
$('labels').checked = localStorage.getItem('matombo-labels') === '1';
$('record').href = `/api/online/rooms/${id}/record`;

async function start() {
  if (!id || (await roomMissing())) {
    showMissing();
    return;
  }
  const hash = new URLSearchParams(location.hash.slice(1));
  token = hash.get('seat') || saved.token || null;
  const invite = hash.get('invite');
  if (token) adoptToken(token);
  else if (invite) offerClaim(invite);
  connect();
}
start();
