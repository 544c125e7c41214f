// The online game page: plays or watches one room over WebSocket. The server is the
// authority: this page only shows the state it sends, offers the legal decisions the
// server lists (POST /api/online/decisions) and animates turns as they arrive.
import { Board, bonusTargets, rowsAfterPicks, sortPicks } from '/static/js/board.js';

const id = location.pathname.split('/').pop();
const key = `matombo-online-${id}`;
const $ = (x) => document.getElementById(x);
const cap = (side) => (side === 'north' ? 'North' : 'South');
const saved = JSON.parse(localStorage.getItem(key) || '{}');

let state = null; // last full state from the server, kept up to date with turns
let board = null;
let ws = null;
let you = null;
let building = null; // decisions of the turn being built
let clockBase = null; // {south_ms, north_ms, running, at}
let retry = 500;
let queue = Promise.resolve(); // server messages are handled one after the other

function setError(t) { $('error').textContent = t || ''; }

/** Rows {b,a,A,B} (index = hole number - 1) from a position string (RULES.md §6.2). */
function rowsOf(position) {
  const [, rows] = position.split(' ');
  const expand = (s) => s.split(',').flatMap((c) => {
    const [v, k] = c.split('*');
    return Array(Number(k || 1)).fill(Number(v));
  });
  const [b, a, A, B] = rows.split('/').map(expand);
  return { b: b.reverse(), a: a.reverse(), A, B };
}

function rulesetInfo(name) {
  const [game, rest = ''] = name.split(':');
  const parts = rest.split(',');
  const n = Number(parts[0]) || (game === 'tsoro' ? 21 : 8);
  let heads = game === 'tsoro' ? 2 : 0;
  let bonus = game === 'tsoro' ? 2 : 0;
  for (const p of parts.slice(1)) if (p.startsWith('heads=')) heads = Number(p.slice(6));
  for (const p of parts.slice(1)) if (p.startsWith('bonus=')) bonus = Number(p.slice(6));
  const h = [];
  if (heads >= 2) h.push(`B${n - 1}`, `b${n - 1}`);
  if (heads >= 1) h.push(`B${n}`, `b${n}`);
  return { game, n, heads: h, bonus };
}

function fmtClock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, '0')}`;
}

function showClocks() {
  for (const side of ['south', 'north']) {
    const e = $(`${side}-clock`);
    if (!clockBase) { e.textContent = ''; continue; }
    let ms = clockBase[`${side}_ms`];
    if (clockBase.running === side) ms -= performance.now() - clockBase.at;
    e.textContent = fmtClock(ms);
    e.classList.toggle('running', clockBase.running === side);
    e.classList.toggle('low', ms < 10000);
  }
}
setInterval(showClocks, 200);

function setClock(c) {
  clockBase = c ? { ...c, at: performance.now() } : null;
  showClocks();
}

function showStatus() {
  if (!state) return;
  const o = state.outcome;
  let t;
  if (o) t = `Game over: ${o.text} (${o.result}).`;
  else if (!state.seats.south.taken || !state.seats.north.taken) t = 'Waiting for the opponent to open the invitation link.';
  else if (you === state.to_move) t = 'Your turn.';
  else t = `${state.to_move === 'south' ? 'South' : 'North'} to move.`;
  if (!you) t += ' You are watching.';
  $('status').textContent = t;
  $('resign').hidden = !you || !!o;
  $('south-name').textContent = state.seats.south.name || (state.seats.south.taken ? 'South' : '(free seat)');
  $('north-name').textContent = state.seats.north.name || (state.seats.north.taken ? 'North' : '(free seat)');
  $('replay').hidden = !o;
}

function ensureBoard() {
  if (board) return;
  const info = rulesetInfo(state.ruleset);
  board = new Board($('board'), { n: info.n, heads: info.heads, labels: info.n <= 12, interactive: true });
  board.onClick = (label) => (building && building.picks ? pick(label) : choose(building && building.byHole[label]));
  const speed = localStorage.getItem('matombo-speed');
  if (speed !== null) board.setSpeed(Number(speed));
  $('title').textContent = `Online game: ${state.ruleset}`;
}

async function decisions(position, body) {
  const r = await fetch('/api/online/decisions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ position, ...body }) });
  const v = await r.json();
  if (!r.ok) throw new Error(v.message || 'request failed');
  return v;
}

/** Offers the next decisions of our turn: holes to click, buttons for the others. */
/** Data for scripts and tests: turns played, and whether a choice is offered to us. */
function mark(offering) {
  $('status').dataset.ply = state ? String(state.ply) : '';
  $('status').dataset.offer = offering ? 'yes' : 'no';
}

async function offer() {
  mark(false);
  $('choices').replaceChildren();
  if (!board) return;
  board.setClickable([], null);
  if (!state || state.outcome || you !== state.to_move || !state.seats.south.taken || !state.seats.north.taken) { building = null; return; }
  if (!building) building = { list: [], events: 0 };
  const v = await decisions(state.position, { decisions: building.list });
  // Animate what the last decision did.
  const fresh = v.events.slice(building.events);
  building.events = v.events.length;
  if (fresh.length) await board.animate(fresh, cap(you));
  if (!v.complete && building.closeBonus) {
    // Fewer Tsoro picks than allowed: the bonus is closed with "done".
    building.closeBonus = false;
    building.list.push('done');
    return offer();
  }
  if (v.decisions.some((d) => d.startsWith('take '))) return offerPicks(v);
  if (v.complete) {
    const ply = state.ply;
    building = null;
    send({ type: 'turn', ply, move: v.token });
    $('status').textContent = `Sent ${v.token}…`;
    return;
  }
  building.byHole = {};
  const holes = [];
  let kind = null;
  for (const d of v.decisions) {
    const [verb, hole] = d.split(' ');
    if (hole) { building.byHole[hole] = d; holes.push(hole); kind = verb === 'sow' ? 'start' : 'take'; } else {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = { continue: 'Continue sowing', stop: 'Stop here', done: 'Done taking' }[verb] || verb;
      b.addEventListener('click', () => choose(d));
      $('choices').appendChild(b);
    }
  }
  board.setClickable(holes, kind);
  mark(true);
  if (building.list.length) {
    const undo = document.createElement('button');
    undo.type = 'button';
    undo.textContent = 'Start the turn again';
    undo.addEventListener('click', () => { building = null; board.setRows(rowsOf(state.position)); offer(); });
    $('choices').appendChild(undo);
  }
}

/**
 * The bonus: holes are picked in any order here and sent in canonical order once the bonus
 * is complete (RULES.md §6.4). Tsoro allows `bonus` whole holes; Nsolo as many stones as the
 * capture took.
 */
function offerPicks(v) {
  if (!building.picks) {
    const info = rulesetInfo(state.ruleset);
    const capture = v.events.find((e) => e.type === 'capture');
    building.picks = [];
    building.game = info.game;
    building.rows = board.counts();
    building.left = info.game === 'tsoro' ? info.bonus : capture ? capture.stones : 0;
  }
  const b = building;
  const targets = bonusTargets({ game: b.game, rows: b.rows, mover: cap(you), left: b.left, picks: b.picks });
  if (!targets.length) return finishPicks();
  board.setRows(rowsAfterPicks(b.rows, b.picks, b.game));
  board.setClickable(targets, 'take');
  board.setMarks({ picked: b.picks });
  $('choices').replaceChildren();
  const note = document.createElement('span');
  const left = b.left - b.picks.length;
  note.textContent = b.game === 'tsoro' ? `Take up to ${left} hole${left === 1 ? '' : 's'}.` : `Take ${left} more stone${left === 1 ? '' : 's'}.`;
  $('choices').appendChild(note);
  if (b.game === 'tsoro') {
    const done = document.createElement('button');
    done.type = 'button';
    done.textContent = 'Done taking';
    done.addEventListener('click', () => finishPicks());
    $('choices').appendChild(done);
  }
  const undo = document.createElement('button');
  undo.type = 'button';
  undo.textContent = 'Start the turn again';
  undo.addEventListener('click', () => { building = null; board.setRows(rowsOf(state.position)); board.setMarks({}); offer(); });
  $('choices').appendChild(undo);
  mark(true);
}

function pick(label) {
  if (!building || !building.picks || board.animating) return;
  building.picks.push(label);
  offerPicks(null);
}

function finishPicks() {
  const b = building;
  if (!b || !b.picks) return;
  b.list.push(...sortPicks(b.picks, cap(you), b.rows.B.length).map((h) => `take ${h}`));
  b.closeBonus = b.game === 'tsoro';
  b.picks = null;
  board.setRows(b.rows);
  board.setMarks({});
  offer().catch((e) => setError(e.message));
}

function choose(d) {
  if (!d || !building || board.animating) return;
  building.list.push(d);
  offer().catch((e) => setError(e.message));
}

function send(msg) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
}

async function onState(v) {
  state = v;
  you = v.you;
  building = null;
  ensureBoard();
  board.setRows(rowsOf(v.position));
  setClock(v.clock);
  showStatus();
  if (v.outcome) await setupReplay();
  await offer();
}

async function onTurn(v) {
  if (!state) return;
  if (v.ply < state.ply) return; // already shown (our state came after it)
  if (v.ply > state.ply) { send({ type: 'sync' }); return; }
  const before = state.position;
  const mine = v.side === you;
  state.ply = v.ply + 1;
  state.moves.push(v.move);
  state.position = v.position;
  state.to_move = v.position.trim().endsWith('S') ? 'south' : 'north';
  state.outcome = v.outcome;
  setClock(v.clock);
  if (!mine) {
    // The opponent's sowing, animated as it arrives.
    try {
      const ev = await decisions(before, { token: v.move });
      await board.animate(ev.events, cap(v.side));
    } catch (e) { /* the final position below is what counts */ }
  }
  board.setRows(rowsOf(v.position));
  board.setMarks({ last: [v.move.match(/^[abAB]\d+/)[0]] });
  showStatus();
  if (v.outcome) await setupReplay();
  await offer();
}

let closed = false;
async function handle(v) {
  switch (v.type) {
    case 'state': return onState(v);
    case 'turn': return onTurn(v);
    case 'seats':
      if (state) { state.seats = v.seats; setClock(v.clock); showStatus(); await offer(); }
      return;
    case 'end':
      if (state) { state.outcome = v.outcome; setClock(v.clock); showStatus(); await setupReplay(); await offer(); }
      return;
    case 'presence':
      for (const side of ['south', 'north']) {
        const p = v[side];
        $(`${side}-online`).textContent = p.online ? `● online${p.online > 1 ? ` ×${p.online}` : ''}${p.names.filter(Boolean).length ? ` (${p.names.filter(Boolean).join(', ')})` : ''}` : '○ offline';
      }
      $('spectators').textContent = `${v.spectators} watching`;
      return;
    case 'closed':
      // The server closed the game unfinished (never claimed, or abandoned): no reconnecting.
      closed = true;
      $('status').textContent = v.message;
      return;
    case 'error':
      setError(v.message);
      if (v.error === 'bad_token') localStorage.removeItem(key);
      return;
    default:
  }
}

function connect(token) {
  const proto = location.protocol === 'https:' ? 'wss' : 'ws';
  ws = new WebSocket(`${proto}://${location.host}/api/online/rooms/${id}/ws`);
  ws.onopen = () => {
    retry = 500;
    const hello = { type: 'hello' };
    if (token) hello.token = token;
    if (saved.name) hello.name = saved.name;
    ws.send(JSON.stringify(hello));
  };
  ws.onmessage = (m) => {
    const v = JSON.parse(m.data);
    queue = queue.then(() => handle(v)).catch((e) => setError(e.message));
  };
  ws.onclose = () => {
    if (closed) return;
    $('status').textContent = 'Connection lost; reconnecting…';
    setTimeout(() => connect(token), retry);
    retry = Math.min(retry * 2, 10000);
  };
}

// Replay of a finished game, turn by turn.
let replay = null;
async function setupReplay() {
  if (replay) return;
  const r = await fetch(`/api/online/rooms/${id}?positions=1`);
  const v = await r.json();
  replay = { positions: v.positions, moves: v.moves, i: v.positions.length - 1 };
  showReplay();
}
function showReplay() {
  const { positions, moves, i } = replay;
  board.setRows(rowsOf(positions[i]));
  $('replay-ply').textContent = i === 0 ? 'start' : `turn ${i}/${moves.length}: ${moves[i - 1]}`;
}
for (const [b, f] of [['first', () => 0], ['prev', (i) => i - 1], ['next', (i) => i + 1], ['last', () => Infinity]]) {
  $(b).addEventListener('click', () => {
    if (!replay) return;
    replay.i = Math.max(0, Math.min(replay.positions.length - 1, f(replay.i)));
    showReplay();
  });
}

$('resign').addEventListener('click', () => { if (confirm('Resign this game?')) send({ type: 'resign' }); });
$('record').href = `/api/online/rooms/${id}/record`;
$('watch-link').value = `${location.origin}/online/game/${id}`;

async function start() {
  const hash = new URLSearchParams(location.hash.slice(1));
  let token = hash.get('seat') || saved.token || null;
  const invite = hash.get('invite');
  if (invite && !hash.get('seat')) {
    const name = (prompt('Your name (optional):') || '').trim().slice(0, 40);
    const r = await fetch(`/api/online/rooms/${id}/claim`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ invite, name }) });
    const v = await r.json();
    if (r.ok) {
      token = v.token;
      saved.name = name;
    } else {
      setError(`${v.message}`);
    }
  }
  if (token) {
    saved.token = token;
    localStorage.setItem(key, JSON.stringify(saved));
    // The secret stays in the fragment (never sent to the server in a URL, never logged).
    history.replaceState(null, '', `#seat=${token}`);
    $('links').hidden = false;
    $('seat-link').value = `${location.origin}/online/game/${id}#seat=${token}`;
    if (saved.invite) $('invite-link').value = `${location.origin}/online/game/${id}#invite=${saved.invite}`;
    else $('invite-link').parentElement.hidden = true;
  }
  connect(token);
}
start();
