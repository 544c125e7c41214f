// The online game room: plays or watches one room over its WebSocket. The server is the
// authority (it checks every turn, keeps the clock and says how the game ended); the page's
// engine (engine.js: matombo's own rules in WebAssembly) replays the moves the server sends
// to draw the board, offers the decisions of a turn being built and gives each turn's
// sowing for its animation, so that this page never reads positions or rulesets itself.
import { setClock, showClocks } from './clock.js';
import { setupChat } from './chat.js';
import { renderBanner, renderMoves, renderSides, renderStatus, sideName as nameOf } from './sides.js';
import { RoomSocket, roomMissing } from './socket.js';
import { readRoom, writeRoom } from './stored.js';
import { TeamBoard } from './tally.js';
import { offerSeat, Rosters } from './teams.js';
import { Board } from '../js/board.js';
import { request } from '../js/engine.js';
import { sound, soundButton } from '../js/sound.js';
import { portraitWanted, startHole, TurnController } from '../js/turn.js';

import { $, fill } from '../js/page.js';
const words = JSON.parse($('ui-words').textContent);
const root = $('room');
const id = root.dataset.room;
const NAME_KEY = 'matombo-online-name';
const Side = (s) => (s === 'north' ? 'North' : 'South'); // board.js writes sides capitalised
const sideWord = (s) => (s === 'north' ? words.north : words.south);

const saved = readRoom(id);
const store = () => writeRoom(id, saved);

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
let token = null;
let stateSeen = false;
/** @type {false | 'closed' | 'missing'} */
let ended = false; // the room takes no more connections (closed, missing)
const muted = new Set(saved.muted || []);
const socket = new RoomSocket(id, {
  hello() {
    const hello = { type: 'hello' };
    if (token) hello.token = token;
    // The name given for this seat, else the one chosen in the lobby.
    const name = saved.name || localStorage.getItem(NAME_KEY);
    if (name) hello.name = name;
    return hello;
  },
  opened: (ws) => {
    for (const from of muted) ws.send(JSON.stringify({ type: 'mute', from }));
  },
  message: (v) => handle(v),
  stopped: () => !!ended,
  seen: () => stateSeen,
  failed: (e) => setError(e.message),
  lost(why) {
    if (why === 'missing') return showMissing();
    if (why === 'closed') {
      ended = 'closed';
      if (room) render();
      return;
    }
    $('status').textContent = words.reconnecting;
  },
});
const send = (msg) => socket.send(msg);
// A team game's rosters and proposals, and its shared view of the board (votes, marks).
const rosters = new Rosters(words, send);
const team = new TeamBoard(words, send, () => render());
const onChat = setupChat({
  words,
  send,
  mine: (v) => (room && room.you && v.from === room.you) || v.mine,
  muted,
  saveMuted() {
    saved.muted = [...muted];
    store();
  },
});

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
  const member = rosters.me();
  // Mark mode: every hole takes a click (a mark for the team), none plays.
  const marking = team.marking && !!member && !busy;
  if (marking) board.setClickable([...board.holes.keys()], 'mark');
  else board.setClickable(mine ? view.clickable : [], view.phase === 'bonus' ? 'take' : 'start');
  const moves = looking ? room.moves.slice(0, at) : room.moves;
  const showLast = !pending.length && !busy && moves.length;
  const known = lastTurn && lastTurn.ply === moves.length - 1 ? lastTurn : null;
  board.setMarks({
    last: showLast ? [startHole(moves[moves.length - 1])] : [],
    path: showLast && known ? known.path : [],
    picked: picking ? view.picks : [],
    named: mine && view.phase === 'head' ? view.head : null,
    team: member ? team.teamMarks() : [],
  });
  board.setBadges(member && !looking && !busy && !pending.length ? team.badges(room.moves.length) : {});
  renderTeam(member);
  const c = shownNow();
  renderStatus(c, mine);
  renderSides(c, shown.rows, looking);
  renderMoves(c);
  renderBanner(c);
  const over = !!room.outcome || ended;
  // In captain and vote mode only the captain resigns, aborts or offers a rematch.
  const acts = !!room.you && (!member || rosters.teams.mode === 'any' || member.captain);
  $('btn-resign').hidden = !acts || over || !seated();
  $('btn-abort').hidden = !lobbyServer() || !acts || over || room.moves.length > 0;
  $('btn-rematch').hidden = !lobbyServer() || !acts || !room.outcome || ended === 'missing' || !!member;
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

/** What the side bars, the banner and the move list are drawn from. */
const shownNow = () => ({ room, view, presence, ended, busy, at, words, seated, sideWord, lookAt, sent, kind: rosters.turnKind() });
const sideName = (side) => nameOf(shownNow(), side);

/** The team panel: rosters, the vote, proposals, the mark controls; the team chat. */
function renderTeam(member) {
  rosters.render(room.moves.length);
  const t = rosters.teams;
  $('chat-team').hidden = !member;
  $('team-tools').hidden = !member;
  if (!t) return;
  // The vote's line while it is our side's turn (the other side's vote is never seen).
  $('vote-status').hidden = !member || t.mode !== 'vote' || !!room.outcome || !view || view.to_move !== member.side;
  team.renderVotes(room.moves.length);
  const b = $('btn-mark');
  b.setAttribute('aria-pressed', String(team.marking));
  b.classList.toggle('active', team.marking);
  $('btn-mark-clear').disabled = !team.mine().length;
  root.dataset.marking = String(team.marking);
  root.dataset.teamMarks = member ? team.teamMarks().sort().join(',') : '';
  root.dataset.vote = team.myVote ? `${team.myVote.ply}:${team.myVote.move}` : '';
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
  const kind = rosters.turnKind();
  if (completed && kind !== 'turn') {
    // A team's member votes, or proposes to his captain: the turn is not played yet, the
    // board goes back to the game now (another vote replaces this one).
    const ply = room.moves.length;
    pending = [];
    if (kind === 'vote') {
      team.myVote = { ply, move: completed };
      send({ type: 'vote', ply, move: completed });
    } else {
      send({ type: 'propose', move: completed });
      $('team-message').textContent = fill(words.proposal_sent, { move: completed });
    }
    view = await begin();
  } else if (completed) {
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
  if (team.marking && rosters.me()) return team.toggle(label);
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
  if (v.you && saved.side !== v.you) {
    saved.side = v.you;
    store();
  }
  rosters.teams = v.teams || null;
  rosters.member = v.member || '';
  team.fromState(v);
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
  team.turnPlayed(room.moves.length);
  rosters.turnPlayed(room.moves.length);
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
  if (v.members) rosters.online = new Set(v.members);
  render();
}

function onRematchReady(v) {
  if (v.token) writeRoom(v.room, { token: v.token, side: v.side });
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
    case 'teams':
      rosters.teams = v.teams;
      return render();
    case 'proposal':
      rosters.onProposal(v);
      return render();
    case 'votes':
      return team.onVotes(v);
    case 'marks':
      return team.onMarks(v);
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

function showMissing() {
  ended = 'missing';
  socket.drop();
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
  // A team game's links to join each side (the creator has both, a member his side's).
  for (const side of ['south', 'north']) {
    const code = saved.invites && saved.invites[side];
    $(`join-${side}-row`).hidden = !code || !room || !!room.outcome;
    if (code) $(`join-${side}-link`).value = `${location.origin}/online/game/${id}#join=${code}`;
  }
  $('chat-players').hidden = !lobbyServer() || !room.you;
  $('chat-spectators').hidden = !lobbyServer() || !!room.you;
}

/** Takes the free seat (`claim`) or joins a team (`join`): the name is asked on the page. */
function offerClaim(kind, code) {
  offerSeat({
    id,
    kind,
    code,
    words,
    name: localStorage.getItem(NAME_KEY) || '',
    error: setError,
    done(v, name) {
      saved.name = name;
      if (name) localStorage.setItem(NAME_KEY, name);
      // A member may pass his side's link on to more of his team.
      if (kind === 'join') saved.invites = { [v.side]: code };
      adoptToken(v.token);
      // The spectator's connection makes way for the player's.
      socket.drop();
      room = null;
      stateSeen = false;
      socket.connect();
    },
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
$('btn-mark').addEventListener('click', () => {
  team.marking = !team.marking;
  render();
});
$('btn-mark-clear').addEventListener('click', () => team.clear());
for (const input of ['invite-link', 'seat-link', 'watch-link', 'join-south-link', 'join-north-link']) $(input).addEventListener('focus', (e) => e.target.select());
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
  if (!id || (await roomMissing(id))) {
    showMissing();
    return;
  }
  const hash = new URLSearchParams(location.hash.slice(1));
  token = hash.get('seat') || saved.token || null;
  const invite = hash.get('invite');
  const join = hash.get('join');
  if (token) adoptToken(token);
  else if (invite) offerClaim('claim', invite);
  else if (join) offerClaim('join', join);
  socket.connect();
}
start();
