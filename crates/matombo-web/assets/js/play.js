// The board page: a game against the AI or between two people on one device. The engine
// in the page (engine.js: matombo's Rust rules and search in WebAssembly) replays the game
// and decides everything, as the server's JSON API would; this page only shows it. Nothing
// here needs the server once the page is loaded.
import { Board } from './board.js';
import { randomSeed, request, Searcher } from './engine.js';
// Endgame tables (issue 28): exact results from the server, when it has tables.
import { clearExact, noteExact, showExact } from './egtb.js';
import { sound, soundButton } from './sound.js';
import { bonusPrompt, pathOf, portraitWanted, startHole, stoneTotal, TurnController } from './turn.js';

const words = JSON.parse(document.getElementById('ui-words').textContent);
const root = document.getElementById('play');
import { $, fill } from './page.js';
const sideWord = (side) => (side === 'South' || side === 'south' || side === 'S' ? words.south : words.north);
// The engine writes sides as the JSON API does, "south" / "north"; this page says "South" / "North".
const pageSide = (side) => (side === 'south' ? 'South' : side === 'north' ? 'North' : side);
/** The side that plays turn `ply` (0-based) of this game: the engine names the first mover; turns alternate. */
const moverAt = (ply) => {
  const first = pageSide(state.start_to_move);
  return ply % 2 === 0 ? first : first === 'South' ? 'North' : 'South';
};

const params = new URLSearchParams(location.search);
await adoptAddress();
const storeKey = `matombo-play:${root.dataset.start}`;

let game = { start: root.dataset.start, moves: [], pending: [], resigned: null };
// Every line played from the start, a tree of turns: each node { t: token, kids: [...] }. A
// node's first child continues its line, the others are variations branching there; the
// root's first line is the main line. The position shown (game.moves) is always a path in it.
let tree = { kids: [] };
// 'ai': against the computer; 'two': two people on this device; 'analysis': the analysis
// board, where a person plays both sides and the computer never replies.
const MODES = ['ai', 'two', 'analysis'];
let settings = {
  mode: MODES.includes(params.get('mode')) ? params.get('mode') : 'ai',
  human: params.get('side') === 'N' ? 'North' : 'South',
  level: params.get('level') || 'easy',
};
let state = null;
let board = null;
let boardKey = '';
let busy = false;
let thinking = false;
let aiSeq = 0;
let hint = null;
// A shared link opened on the analysis board starts the analysis.
let analyseAtOpen = false;
// Bumped by New game and by loading a game: a reply for an older game is dropped.
let generation = 0;
// The last complete turn: what it did, for its marks and for "Replay last turn".
// { key, before (rows), events, mover, path (holes sown into) } or null while unknown.
let lastTurn = null;

// Restore the game of this tab (kept across reloads and language switches).
try {
  const saved = JSON.parse(sessionStorage.getItem(storeKey) || 'null');
  if (saved && saved.game && saved.settings) {
    game = saved.game;
    settings = saved.settings;
    // An entry from before the tree kept the undone turns as a redo list.
    tree = saved.tree || lineTree([...game.moves, ...[...(saved.redo || [])].reverse()]);
    if (!nodeAt(game.moves)) addLine(game.moves);
  }
} catch (_) {
  /* a damaged entry is ignored */
}

/**
 * The start the address asks for (position, ruleset, or game and size). A page shown at
 * another address than it was made for (a static site's one board page, the offline copy
 * of another board) takes that start from the engine and retitles itself.
 */
async function adoptAddress() {
  const asked = params.get('start') || params.get('position') || params.get('ruleset');
  const g = params.get('game');
  if (!asked && g !== 'tsoro' && g !== 'nsolo') return;
  let state;
  try {
    // A game and its options: the engine names the variant.
    const variant = { game: g };
    for (const key of g === 'tsoro' ? ['size', 'heads', 'bonus'] : ['size']) {
      if (params.get(key)) variant[key] = Number(params.get(key));
    }
    const start = asked || (await request('/api/ruleset', variant)).name;
    state = await request('/api/game', { start });
  } catch (_) {
    return; // a bad address keeps the page's own start
  }
  if (state.position === root.dataset.start) return;
  const info = state.ruleset;
  const names = JSON.parse(root.dataset.names || '{}');
  root.dataset.start = state.position;
  root.dataset.game = info.game;
  const title = document.querySelector('.play-title');
  title.firstChild.textContent = `${names[info.game] || info.game} `;
  title.querySelector('.ruleset').textContent = info.name;
  document.title = `${names[info.game] || info.game} ${info.name} – matombo`;
  const rules = new URL(root.dataset.rules.replace('GAME', info.game), location.href);
  rules.searchParams.set('size', String(info.n));
  $('rules-link').href = rules.href;
}

function save() {
  try {
    sessionStorage.setItem(storeKey, JSON.stringify({ game, settings, tree }));
  } catch (_) {
    /* storage may be unavailable */
  }
}

// ---- The tree of lines ---------------------------------------------------------

/** A tree holding one line. */
function lineTree(moves) {
  const root = { kids: [] };
  let n = root;
  for (const t of moves) {
    const k = { t, kids: [] };
    n.kids.push(k);
    n = k;
  }
  return root;
}

/** The node reached by `moves` from the start, or null when that line is not in the tree. */
function nodeAt(moves) {
  let n = tree;
  for (const t of moves) {
    n = n.kids.find((k) => k.t === t);
    if (!n) return null;
  }
  return n;
}

/**
 * Makes `moves` a line of the tree. A turn not yet there becomes a variation (the last
 * child); with `promote`, every turn of the line becomes its position's first child, so
 * that the line is the one continued (a game's turns after a take-back: the line taken back
 * stays, as a variation).
 */
function addLine(moves, promote = false) {
  let n = tree;
  for (const t of moves) {
    let i = n.kids.findIndex((k) => k.t === t);
    if (i < 0) i = n.kids.push({ t, kids: [] }) - 1;
    if (promote && i > 0) n.kids.unshift(...n.kids.splice(i, 1));
    n = n.kids[promote ? 0 : i];
  }
}

/** The turns after `moves` along their line (first children to the end). */
function continuation(moves = game.moves) {
  const out = [];
  let n = nodeAt(moves);
  while (n && n.kids.length) {
    n = n.kids[0];
    out.push(n.t);
  }
  return out;
}

/** How many turns of `moves` lie on the main line. */
function onMainLine(moves) {
  let n = tree;
  let k = 0;
  while (k < moves.length && n.kids.length && n.kids[0].t === moves[k]) {
    n = n.kids[0];
    k++;
  }
  return k;
}

// ---- Shareable links ---------------------------------------------------------------

/**
 * The line a shared link carries, in the links the review page writes too (docs/review.md,
 * "Links"): `ruleset=R` for the standard start or `position=POS` for another (adoptAddress
 * reads them), `moves=T1 T2 …` (tokens separated by spaces, or commas), `turn=N` the
 * position after the first N turns (default 0), `resigned=S|N` after the last turn.
 */
function linkLine() {
  const m = params.get('moves');
  if (!m || !m.trim()) return null;
  const moves = m.split(/[\s,]+/).filter(Boolean);
  const asked = Number.parseInt(params.get('turn') ?? '', 10);
  const turn = Number.isFinite(asked) ? Math.max(0, Math.min(asked, moves.length)) : 0;
  const r = params.get('resigned');
  return { moves, turn, resigned: r === 'S' || r === 'N' ? r : null };
}

// The standard start of each ruleset seen, to write `ruleset` rather than `position`.
const standardStarts = new Map();

function standardStart(name) {
  if (!standardStarts.has(name)) {
    standardStarts.set(name, null);
    request('/api/game', { start: name })
      .then((st) => {
        standardStarts.set(name, st.position);
        if (state) updateAddress();
      })
      .catch(() => {});
  }
  return standardStarts.get(name);
}

/** The address of the position shown: the start, the line shown and the turn looked at. */
function linkHere() {
  const q = new URLSearchParams();
  const name = state.ruleset.name;
  if (standardStart(name) === game.start) q.set('ruleset', name);
  else q.set('position', game.start);
  // The line shown (a variation if one is looked at), to its end; other lines are left out.
  const line = [...game.moves, ...continuation()];
  if (line.length) {
    q.set('moves', line.join(' '));
    q.set('turn', String(game.moves.length));
  }
  if (game.resigned && !continuation().length) q.set('resigned', game.resigned);
  // The page's language, and the analysis budget asked for (tests ask for a small one).
  for (const keep of ['lang', 'analyse_ms']) if (params.get(keep)) q.set(keep, params.get(keep));
  return `${location.origin}${location.pathname}?${q}`;
}

/** Keeps the address bar on the position shown, so that it can be shared at any time. */
function updateAddress() {
  const url = linkHere();
  if (url !== location.href) history.replaceState(history.state, '', url);
}

/**
 * Opens the line of a shared link. The same line in this tab's stored game (a reload) keeps
 * that game and its settings; another line opens on the analysis board. A line that cannot
 * be played is refused with a message and the page starts afresh.
 */
async function openLink(link) {
  if (game.start === root.dataset.start && nodeAt(link.moves)) {
    const at = link.moves.slice(0, link.turn);
    if (at.join(' ') !== game.moves.join(' ')) {
      game.moves = at;
      game.pending = [];
      game.resigned = null;
    }
    return;
  }
  try {
    await request('/api/game', { start: root.dataset.start, moves: link.moves });
  } catch (e) {
    message(fill(words.link_bad, { error: e.message }), 'error');
    game = { start: root.dataset.start, moves: [], pending: [], resigned: null };
    tree = { kids: [] };
    return;
  }
  const end = link.turn === link.moves.length;
  game = { start: root.dataset.start, moves: link.moves.slice(0, link.turn), pending: [], resigned: end ? link.resigned : null };
  tree = lineTree(link.moves);
  settings.mode = 'analysis';
  analyseAtOpen = true;
}

// The computer's turns and hints; and the analysis, which runs beside them.
const aiSearcher = new Searcher();
const analysisSearcher = new Searcher();
// Started now, while the page's files can be fetched, so that a search needs no network.
aiSearcher.start().catch(() => {});
analysisSearcher.start().catch(() => {});

/** What `POST path` of the JSON API answers, from the engine in the page. */
async function api(path, body) {
  if (path === '/api/ai') return aiSearcher.run('ai', { ...body, seed: randomSeed() });
  return request(path, body);
}

const stopped = (e) => e && e.name === 'AbortError';

/** The position the turn is built from (the game's start, turns and resignation). */
function gameBody() {
  /** @type {import('./wire.js').GameRequest} */
  const body = { start: game.start, moves: game.moves };
  if (game.resigned) body.resigned = game.resigned;
  return body;
}

// The turn being built: the engine's answers to each click (turn.js).
const turn = new TurnController((body) => request('/api/game', body));

function message(text, kind = '') {
  const m = $('tool-message');
  m.textContent = text;
  m.className = `tool-message ${kind}`;
}

function ensureBoard(info) {
  const portrait = portraitWanted($('board-scroll'), info.n);
  // A person playing North against the computer has North's rows nearest.
  const flip = settings.mode === 'ai' && settings.human === 'North';
  const key = `${info.n}|${info.head_holes.join(',')}|${portrait}|${flip}`;
  if (board && key === boardKey) return;
  boardKey = key;
  board = new Board($('board'), {
    n: info.n,
    heads: info.head_holes,
    words,
    labels: $('labels').checked,
    portrait,
    flip,
  });
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
  board.onClick = onHole;
  board.onSound = (kind, ms) => sound.play(kind, ms);
  root.dataset.n = String(info.n);
  root.classList.toggle('wide', info.n > 21);
}

const humanToDecide = () =>
  state && !state.outcome && (settings.mode !== 'ai' || pageSide(state.to_move) === settings.human);

function render() {
  ensureBoard(state.ruleset);
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

  // Result banner.
  const banner = $('banner');
  if (state.outcome) {
    const o = state.outcome;
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
    again.addEventListener('click', () => newGame(root.dataset.start));
    banner.append(strong, document.createTextNode(` — ${reason} (${o.result}) `), again);
    banner.dataset.result = o.result;
    banner.dataset.termination = o.termination;
    banner.hidden = false;
  } else {
    banner.hidden = true;
  }

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

/** The number of the move a turn belongs to (South's and North's turn make one move). */
function moveNumber(ply, side) {
  const first = tree.kids.length ? moverAt(0) : side;
  return first === 'South' ? Math.floor(ply / 2) + 1 : Math.floor((ply + 1) / 2) + 1;
}

/**
 * The move list in RULES.md notation: the main line a move number a row, each variation in
 * brackets after the turn it replaces, nested as deep as it goes. Every turn is a button
 * that shows the position after it; turns not on the way to the position shown are grey.
 */
function renderMoves() {
  const list = $('moves');
  list.innerHTML = '';
  const here = game.moves;
  const button = (node, moves, main) => {
    const b = document.createElement('button');
    b.type = 'button';
    const ply = moves.length - 1;
    const on = ply < here.length && here[ply] === node.t && moves.every((t, i) => here[i] === t);
    const current = on && ply === here.length - 1;
    b.className = `move${on ? '' : ' future'}${current ? ' current' : ''}${main ? '' : ' variation-move'}`;
    b.textContent = node.t;
    if (main) b.dataset.ply = String(moves.length);
    b.dataset.line = moves.join(' ');
    b.disabled = busy;
    if (current) b.setAttribute('aria-current', 'step');
    b.addEventListener('click', () => goToMoves(moves));
    return b;
  };
  const number = (ply, side) => document.createTextNode(`${moveNumber(ply, side)}${side === 'South' ? '.' : '…'} `);
  // A variation: `first`, played after `moves` instead of the turn shown before it, and its line.
  const variation = (moves, first) => {
    const span = document.createElement('span');
    span.className = 'variation';
    span.append(document.createTextNode('('));
    let parent = null;
    let node = first;
    let line = [...moves, first.t];
    let numbered = false;
    for (;;) {
      const side = moverAt(line.length - 1);
      if (!numbered || side === 'South') span.append(number(line.length - 1, side));
      numbered = true;
      span.append(button(node, line, false));
      // The first turn's alternatives are the caller's; later ones follow their turn.
      for (const alt of parent ? parent.kids.slice(1) : []) {
        span.append(document.createTextNode(' '), variation(line.slice(0, -1), alt));
        numbered = false;
      }
      if (!node.kids.length) break;
      span.append(document.createTextNode(' '));
      parent = node;
      node = node.kids[0];
      line = [...line, node.t];
    }
    span.append(document.createTextNode(')'));
    return span;
  };
  let li = null;
  let node = tree;
  let moves = [];
  let afterVariation = false;
  while (node.kids.length) {
    const kid = node.kids[0];
    const side = moverAt(moves.length);
    moves = [...moves, kid.t];
    if (!li || side === 'South') {
      li = document.createElement('li');
      li.value = moveNumber(moves.length - 1, side);
      if (side === 'North') li.append(document.createTextNode('… '));
      list.append(li);
    } else if (afterVariation) {
      li.append(document.createTextNode('… '));
    }
    li.append(button(kid, moves, true), document.createTextNode(' '));
    afterVariation = node.kids.length > 1;
    for (const alt of node.kids.slice(1)) li.append(variation(moves.slice(0, -1), alt), document.createTextNode(' '));
    node = kid;
  }
  const partial = state.partial && state.pending.length ? state.partial : null;
  if (partial) {
    const span = document.createElement('span');
    span.className = 'move partial';
    span.textContent = `${partial}…`;
    (li || list.appendChild(document.createElement('li'))).append(span);
  }
  // The turn shown kept in view inside the list's panel (never scrolling the page).
  const panel = list.parentElement;
  const current = list.querySelector('.move.current');
  if (current) {
    const p = panel.getBoundingClientRect();
    const c = current.getBoundingClientRect();
    if (c.top < p.top) panel.scrollTop -= p.top - c.top;
    else if (c.bottom > p.bottom) panel.scrollTop += c.bottom - p.bottom;
  } else if (!here.length) panel.scrollTop = 0;
  // Back to the main line: shown while the position is off it.
  const off = onMainLine(here) < here.length;
  mainLineButton().hidden = !off;
  mainLineButton().disabled = busy;
}

/** Who plays a side, as the side bars name it. */
function sideName(side) {
  if (settings.mode !== 'ai') return sideWord(side);
  if (side === settings.human) return words.you;
  return fill(words.computer_level, { level: words[`level_${settings.level}`] || settings.level });
}

/** Each side's name, stone total and a to-move marker, beside the board. */
function renderSides() {
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
    where.textContent = settings.mode === 'ai' ? sideWord(side) : '';
    const count = document.createElement('span');
    count.className = 'side-total';
    count.textContent = total === 1 ? words.side_stone_one : fill(words.side_stones, { n: total });
    const mark = document.createElement('span');
    mark.className = 'side-mark';
    mark.textContent = toMove ? words.to_move_mark : '';
    bar.append(who, where, count, mark);
  }
}

const lastTurnKey = () => JSON.stringify([game.start, game.moves]);

/** Asks the engine what the last turn did (after a load, an undo or a click in the list). */
async function learnLastTurn() {
  const key = lastTurnKey();
  if (lastTurn && lastTurn.key === key) return;
  lastTurn = { key, pending: true, path: [] };
  try {
    const t = await turn.effectOf({ start: game.start }, game.moves);
    if (lastTurnKey() !== key) return;
    lastTurn = { key, before: t.before, events: t.events, mover: pageSide(t.mover), path: t.path };
    if (state && !busy) render();
  } catch (_) {
    /* marks are an aid; the game goes on without them */
  }
}

/** Plays the last turn's animation again from the position before it. */
async function replayLast() {
  if (busy || thinking || !state.moves.length || game.pending.length) return;
  if (!lastTurn || lastTurn.key !== lastTurnKey() || !lastTurn.events) await learnLastTurn();
  const t = lastTurn;
  if (!t || !t.events || busy) return;
  busy = true;
  const gen = generation;
  render();
  $('btn-skip').disabled = false;
  board.setRows(t.before);
  await board.animate(t.events, t.mover);
  busy = false;
  if (gen === generation) render();
}

async function load() {
  // Tests and assistive tools read this: the board is not settled until the reply is shown.
  root.dataset.busy = 'true';
  try {
    state = await turn.begin(gameBody(), game.pending);
  } catch (e) {
    // A stored game that no longer loads: start afresh rather than show nothing.
    message(e.message, 'error');
    game = { start: root.dataset.start, moves: [], pending: [], resigned: null };
    tree = { kids: [] };
    state = await turn.begin(gameBody());
  }
  render();
  maybeAi();
}

/**
 * Sends decisions (or a whole turn) to the engine, animates what happened, shows the result.
 * A bonus pick that leaves the bonus open is shown at once: the engine has taken it out of
 * the rows.
 */
async function send(decisions, token) {
  if (busy) return;
  // Read before the buttons are disabled (which drops their focus).
  const keyboard = document.activeElement && document.querySelector('.board-column').contains(document.activeElement);
  busy = true;
  const mover = pageSide(state.to_move);
  const gen = generation;
  render();
  let next;
  let pickOnly;
  try {
    ({ next, pickOnly } = await (token ? turn.play(token) : turn.apply(decisions)));
  } catch (e) {
    busy = false;
    message(`${words.illegal}: ${e.message}`, 'error');
    render();
    return;
  }
  $('btn-skip').disabled = false;
  if (!pickOnly) await board.animate(next.events, mover);
  if (gen !== generation) {
    // New game (or a loaded game) while this turn was animating: it belongs to the old game.
    busy = false;
    render();
    return;
  }
  if (next.moves.length === state.moves.length + 1) {
    // A turn played from an earlier position branches: on the analysis board into a
    // variation, in a game into the line now played (the old one stays as a variation).
    addLine(next.moves, settings.mode !== 'analysis');
    // A turn completed: its events (this request's, plus any of its decisions sent before)
    // are learnt again from the engine when a part of the turn was sent earlier.
    lastTurn = game.pending.length
      ? null
      : { key: JSON.stringify([game.start, next.moves]), before: state.rows, events: next.events, mover, path: pathOf(next.events) };
  }
  if (next.outcome && !state.outcome) sound.play('end');
  state = next;
  game.moves = next.moves;
  game.pending = next.pending;
  busy = false;
  render();
  if (keyboard) keepFocus();
  maybeAi();
}

/** Keyboard play: after a decision, focus goes to where the next one is made. */
function keepFocus() {
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

function decide(decision) {
  hint = null;
  $('hint').textContent = '';
  message('');
  send([decision]);
}

/** Ends a Tsoro bonus early: the engine records the picks made in canonical order. */
function finishPicks() {
  if (!humanToDecide() || busy || state.phase !== 'bonus') return;
  decide('done');
}

function onHole(label) {
  if (!humanToDecide() || busy) return;
  const decision = turn.decisionFor(label);
  if (decision) decide(decision);
}

async function maybeAi() {
  if (settings.mode !== 'ai' || !state || state.outcome || busy || thinking) return;
  if (pageSide(state.to_move) === settings.human || state.phase !== 'start') return;
  const seq = ++aiSeq;
  thinking = true;
  render();
  let answer;
  try {
    answer = await api('/api/ai', { start: game.start, moves: game.moves, level: settings.level });
  } catch (e) {
    thinking = false;
    if (seq === aiSeq && !stopped(e)) message(e.message, 'error');
    render();
    return;
  }
  thinking = false;
  // An undo, a new game or a change of side while the AI thought makes its answer stale.
  if (seq !== aiSeq || game.pending.length || pageSide(state.to_move) === settings.human) {
    render();
    return;
  }
  await send([], answer.token);
}

function cancelAi() {
  aiSeq++;
  thinking = false;
  aiSearcher.stop();
}

function undo() {
  if (busy) return;
  cancelAi();
  hint = null;
  $('hint').textContent = '';
  message('');
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

function redoMove() {
  const next = continuation();
  if (busy || !next.length) return;
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
 */
function goToMoves(moves) {
  if (busy || !nodeAt(moves)) return;
  const at = [...moves];
  if (settings.mode === 'ai') {
    const next = continuation(at);
    while (next.length && moverAt(at.length) !== settings.human) at.push(next.shift());
  }
  if (at.join(' ') === game.moves.join(' ') && !game.pending.length) return;
  cancelAi();
  hint = null;
  $('hint').textContent = '';
  message('');
  game.moves = at;
  game.pending = [];
  game.resigned = null;
  load();
}

/** The move list's keys: one turn back or on along the line, its start or its end. */
function stepBack() {
  if (game.pending.length || game.resigned) undo();
  else if (game.moves.length) {
    if (settings.mode === 'ai') undo();
    else goToMoves(game.moves.slice(0, -1));
  }
}

function stepOn() {
  const next = continuation();
  if (next.length) goToMoves([...game.moves, next[0]]);
}

/** Back to the main line, where the line shown left it. */
function toMainLine() {
  goToMoves(game.moves.slice(0, onMainLine(game.moves)));
}

function mainLineButton() {
  let b = $('btn-main-line');
  if (b) return b;
  b = document.createElement('button');
  b.type = 'button';
  b.id = 'btn-main-line';
  b.hidden = true;
  b.textContent = words.main_line;
  b.addEventListener('click', toMainLine);
  const help = document.createElement('p');
  help.className = 'keys-help';
  help.id = 'moves-keys';
  help.textContent = words.moves_keys;
  $('moves').after(b, help);
  return b;
}

function newGame(start = game.start) {
  cancelAi();
  generation++;
  if (busy) board.skip();
  // "You play" takes effect here, not in the game in progress.
  const chosen = $('human-side').dataset.chosen;
  if (chosen) settings.human = chosen === 'N' ? 'North' : 'South';
  delete $('human-side').dataset.chosen;
  game = { start, moves: [], pending: [], resigned: null };
  tree = { kids: [] };
  hint = null;
  $('hint').textContent = '';
  message('');
  load();
}

async function showHint() {
  if (!humanToDecide() || busy) return;
  try {
    const a = await api('/api/ai', { start: game.start, moves: game.moves, level: 'medium' });
    hint = { hole: startHole(a.token), at: game.moves.length };
    $('hint').textContent = fill(words.hint_is, { move: a.token });
    // Endgame tables (egtb.js): "· Endgame tables: win in 7" when the server knows.
    noteExact($('hint'), game.start, game.moves, words);
    render();
  } catch (e) {
    if (!stopped(e)) message(e.message, 'error');
  }
}

async function resign() {
  if (!humanToDecide() || busy || game.pending.length) return;
  cancelAi();
  game.resigned = pageSide(state.to_move) === 'South' ? 'S' : 'N';
  load();
}

async function download() {
  const tag = (side) =>
    settings.mode === 'ai' ? (side === settings.human ? words.you : `matombo (${settings.level})`) : sideWord(side);
  const d = new Date();
  const date = `${d.getFullYear()}.${String(d.getMonth() + 1).padStart(2, '0')}.${String(d.getDate()).padStart(2, '0')}`;
  try {
    const body = { start: game.start, moves: game.moves, tags: { South: tag('South'), North: tag('North'), Date: date } };
    if (game.resigned) body.resigned = game.resigned;
    const { record } = await api('/api/record/export', body);
    const blob = new Blob([record], { type: 'text/plain' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `matombo-${state.ruleset.name.replace(/[^a-z0-9]+/gi, '-')}.txt`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 5000);
  } catch (e) {
    message(e.message, 'error');
  }
}

async function loadRecord(file) {
  try {
    const text = await file.text();
    const st = await api('/api/record/import', { text });
    cancelAi();
    generation++;
    game = { start: st.start, moves: st.moves, pending: [], resigned: st.resigned || null };
    tree = lineTree(st.moves);
    // Watch or continue the loaded game as two people; the settings can switch to the AI.
    message(`${words.record_loaded}: ${st.moves.length}`, 'ok');
    load();
  } catch (e) {
    message(e.message, 'error');
  }
}

/** "Copy link": the address of the position shown (the address bar holds the same). */
function copyLinkButton() {
  const b = document.createElement('button');
  b.type = 'button';
  b.id = 'btn-copy-link';
  b.textContent = words.copy_link;
  b.addEventListener('click', copyLink);
  $('btn-copy').after(b);
  const line = document.createElement('p');
  line.className = 'position-line link-line';
  line.innerHTML = '<code id="link-text"></code>';
  $('position-text').parentElement.after(line);
}

async function copyLink() {
  const url = linkHere();
  $('link-text').textContent = url;
  try {
    await navigator.clipboard.writeText(url);
    message(words.link_copied, 'ok');
  } catch (_) {
    // No clipboard permission: select the link so that it can be copied by hand.
    const r = document.createRange();
    r.selectNodeContents($('link-text'));
    const s = getSelection();
    s.removeAllRanges();
    s.addRange(r);
    message(words.copy_link_by_hand, 'ok');
  }
}

async function copyPosition() {
  const text = state.position;
  try {
    await navigator.clipboard.writeText(text);
    message(words.copied, 'ok');
  } catch (_) {
    // No clipboard permission: select the text so that it can be copied by hand.
    const r = document.createRange();
    r.selectNodeContents($('position-text'));
    const s = getSelection();
    s.removeAllRanges();
    s.addRange(r);
    message(words.copy_by_hand, 'ok');
  }
}

// ---- Position editor -------------------------------------------------------------

const EDIT_ROWS = ['b', 'a', 'A', 'B'];

/** The editor's grid, rows b, a, A, B as South sees them (as the notation writes them). */
function editorGrid() {
  return EDIT_ROWS.map((r) => Array.from({ length: state.ruleset.n }, (_, c) => Number($(`edit-${r}-${c}`).value) || 0));
}

/**
 * The grid or the text changed: the engine reads it (`/api/setup`); the other one, the
 * stone totals and the Apply button follow its answer. `from` is 'grid' or 'text'.
 */
async function editorChanged(from) {
  let setup = null;
  let error = '';
  try {
    setup =
      from === 'text'
        ? await api('/api/setup', { text: $('editor-text').value })
        : await api('/api/setup', { ruleset: state.ruleset.name, grid: editorGrid(), side: $('editor-side').value });
  } catch (e) {
    if (from === 'text') return;
    error = e.message;
  }
  const fits = setup && setup.ruleset.name === state.ruleset.name;
  if (fits && from === 'text') {
    EDIT_ROWS.forEach((r, i) => setup.grid[i].forEach((v, c) => ($(`edit-${r}-${c}`).value = v)));
    $('editor-side').value = setup.side === 'north' ? 'N' : 'S';
  }
  if (setup && from === 'grid') $('editor-text').value = setup.text;
  const ok = !!setup && !setup.problem;
  const max = setup ? setup.ruleset.total_stones : state.ruleset.total_stones;
  const t = $('editor-totals');
  if (!setup) t.textContent = error;
  else if (setup.stones > max) t.textContent = fill(words.totals_bad, { n: setup.stones, max });
  else t.textContent = ok ? `${words.totals_ok}: ${setup.stones} / ${max}` : setup.problem;
  t.className = `totals ${ok ? 'ok' : 'bad'}`;
  $('editor-apply').disabled = !ok;
}

function openEditor() {
  const n = state.ruleset.n;
  const grid = $('editor-grid');
  grid.innerHTML = '';
  grid.style.gridTemplateColumns = `2em repeat(${n}, minmax(2.6em, 1fr))`;
  EDIT_ROWS.forEach((r) => {
    const letter = document.createElement('span');
    letter.className = 'row-letter';
    letter.textContent = r;
    grid.append(letter);
    for (let c = 0; c < n; c++) {
      // Columns left to right as South sees the board: North's rows run N..1.
      const number = r === 'b' || r === 'a' ? n - c : c + 1;
      const input = document.createElement('input');
      input.type = 'number';
      input.min = '0';
      input.max = String(state.ruleset.total_stones);
      input.id = `edit-${r}-${c}`;
      input.setAttribute('aria-label', `${r}${number}`);
      input.addEventListener('input', () => editorChanged('grid'));
      grid.append(input);
    }
  });
  $('editor-text').value = state.position;
  $('editor-error').textContent = '';
  editorChanged('text');
  $('editor').showModal();
}

async function applyEditor() {
  const text = $('editor-text').value.trim();
  try {
    const st = await api('/api/game', { start: text });
    $('editor').close();
    newGame(st.start);
  } catch (e) {
    $('editor-error').textContent = e.message;
  }
}

// ---- Analysis ------------------------------------------------------------------

let analysing = false;
let analysisKey = '';
// The turns of an analysis line shown.
const PV_SHOWN = 10;
// The lines shown, for a click on one of them.
let analysisShown = null;

/** The analysis panel, made here so that the page's markup stays the server's. */
function analysisPanel() {
  let panel = $('analysis');
  if (panel) return panel;
  const make = (tag, props = {}) => Object.assign(document.createElement(tag), props);
  panel = make('section', { className: 'panel analysis', id: 'analysis' });
  panel.setAttribute('aria-labelledby', 'analysis-title');
  const h = make('h2', { id: 'analysis-title', textContent: words.analysis });
  const toggle = make('button', { type: 'button', id: 'btn-analyse', textContent: words.analyse });
  toggle.setAttribute('aria-pressed', 'false');
  toggle.addEventListener('click', () => setAnalysing(!analysing));
  const info = make('p', { id: 'analysis-info', className: 'analysis-info' });
  info.setAttribute('aria-live', 'polite');
  // Which way the scores point, said once above the lines.
  const view = make('p', { id: 'analysis-view', className: 'analysis-view', textContent: words.analysis_view, hidden: true });
  const lines = make('ol', { id: 'analysis-lines', className: 'analysis-lines' });
  // Play on against the computer from the position shown, as the side chosen.
  const on = make('div', { className: 'play-on', id: 'play-on' });
  const side = make('select', { id: 'play-on-side' });
  side.append(make('option', { value: 'S', textContent: words.south }), make('option', { value: 'N', textContent: words.north }));
  const label = make('label', { textContent: `${words.you_play} ` });
  label.append(side);
  const go = make('button', { type: 'button', id: 'btn-play-on', textContent: words.play_on });
  go.addEventListener('click', () => playOn(side.value === 'N' ? 'North' : 'South'));
  on.append(label, go);
  panel.append(h, toggle, info, view, lines, on);
  document.querySelector('.panel.actions').after(panel);
  return panel;
}

function setAnalysing(on) {
  analysing = on;
  analysisKey = '';
  analysisShown = null;
  analysisSearcher.stop();
  $('btn-analyse').setAttribute('aria-pressed', String(on));
  $('btn-analyse').textContent = on ? words.analyse_stop : words.analyse;
  $('analysis-view').hidden = !on;
  if (!on) {
    $('analysis-info').textContent = '';
    $('analysis-lines').innerHTML = '';
    root.dataset.analysis = 'off';
    clearExact($('analysis')); // endgame tables (egtb.js)
  }
  updateAnalysis();
}

/** A score for South, as the annotations of RULES.md §6.5 write it: +1.25, #7, #-7. */
function southScore(line, toMove) {
  if (line.mate !== null && line.mate !== undefined) {
    const n = pageSide(toMove) === 'South' ? line.mate : -line.mate;
    return `#${n}`;
  }
  const v = line.south / 100;
  return `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(2)}`;
}

function showAnalysis(a, done) {
  const list = $('analysis-lines');
  list.innerHTML = '';
  analysisShown = { moves: [...game.moves], lines: a.lines };
  a.lines.forEach((line, i) => {
    const li = document.createElement('li');
    li.className = 'analysis-line';
    li.dataset.line = String(i);
    // The score plays the whole line on the board; a turn of it, the line up to that turn.
    const score = document.createElement('button');
    score.type = 'button';
    score.className = 'score';
    score.textContent = southScore(line, a.to_move);
    score.title = words.play_line;
    score.addEventListener('click', () => playLine(i, line.pv.length));
    const depth = document.createElement('span');
    depth.className = 'line-depth';
    depth.textContent = fill(words.analysis_line_depth, { depth: a.depth });
    const pv = document.createElement('span');
    pv.className = 'pv';
    // Long lines are cut after PV_SHOWN turns (the score still plays them whole).
    line.pv.slice(0, PV_SHOWN).forEach((t, k) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'pv-move';
      b.textContent = t;
      b.addEventListener('click', () => playLine(i, k + 1));
      pv.append(b, document.createTextNode(' '));
    });
    if (line.pv.length > PV_SHOWN) pv.append(document.createTextNode('…'));
    li.append(score, document.createTextNode(' '), depth, document.createTextNode(' '), pv);
    list.append(li);
  });
  const nps = a.ms > 0 ? Math.round((a.nodes * 1000) / a.ms) : 0;
  $('analysis-info').textContent = fill(words.analysis_depth, { depth: a.depth, nodes: a.nodes, nps });
  root.dataset.analysis = done ? 'done' : 'running';
  root.dataset.analysisDepth = String(a.depth);
  root.dataset.analysisLines = String(a.lines.length);
}

/**
 * Plays the first `count` turns of an analysis line from the position it was made for, as a
 * variation in the tree. Against the computer this turns the page into the analysis board,
 * so that the computer does not answer turns that are only being looked at.
 */
async function playLine(i, count) {
  const shown = analysisShown;
  if (!shown || busy || shown.moves.join(' ') !== game.moves.join(' ')) return;
  const moves = [...shown.moves, ...shown.lines[i].pv.slice(0, count)];
  try {
    // Checked before the tree takes it: a line that does not replay changes nothing.
    await api('/api/game', { start: game.start, moves });
  } catch (e) {
    message(e.message, 'error');
    return;
  }
  if (settings.mode === 'ai') {
    setMode('analysis');
    message(words.now_analysis_board, 'ok');
  }
  addLine(moves);
  goToMoves(moves);
}

/**
 * Continues a real game against the computer from the position shown, the person playing
 * `side`. The game keeps its turns so far; the other lines are dropped (it is a game now).
 */
function playOn(side) {
  if (busy) return;
  settings.human = side;
  delete $('human-side').dataset.chosen;
  tree = lineTree(game.moves);
  game.pending = [];
  game.resigned = null;
  generation++;
  setMode('ai');
  if (analysing) setAnalysing(false);
  message(fill(words.played_on, { side: sideWord(side) }), 'ok');
  load();
}

/** Analyses the position after the last complete turn, again whenever it changes. */
function updateAnalysis() {
  if (!analysing || !state) return;
  const key = JSON.stringify([game.start, game.moves, game.resigned]);
  if (key === analysisKey) return;
  analysisKey = key;
  analysisShown = null;
  analysisSearcher.stop();
  $('analysis-lines').innerHTML = '';
  root.dataset.analysisLines = '0';
  // Endgame tables (egtb.js): the exact result under the lines, when the server knows.
  if (state.outcome) clearExact($('analysis'));
  else showExact($('analysis'), game.start, [...game.moves], words);
  if (state.outcome) {
    $('analysis-info').textContent = words.analysis_over;
    root.dataset.analysis = 'done';
    return;
  }
  $('analysis-info').textContent = words.thinking;
  root.dataset.analysis = 'running';
  // A page (or a test) may ask for a smaller budget with `analyse_ms` in the address.
  const ms = Number(params.get('analyse_ms')) || 30000;
  const body = { start: game.start, moves: [...game.moves], lines: 3, time_ms: ms };
  analysisSearcher
    .run('analyse', body, (a) => key === analysisKey && showAnalysis(a, false))
    .then((a) => key === analysisKey && showAnalysis(a, true))
    .catch((e) => {
      if (!stopped(e) && key === analysisKey) $('analysis-info').textContent = e.message;
    });
}

analysisPanel();

// ---- Modes -----------------------------------------------------------------------

/** The analysis board is a third choice beside the two kinds of game. */
function analysisModeChoice() {
  if (document.querySelector('input[name=mode][value=analysis]')) return;
  const label = document.createElement('label');
  label.className = 'check';
  const input = document.createElement('input');
  input.type = 'radio';
  input.name = 'mode';
  input.value = 'analysis';
  label.append(input, document.createTextNode(` ${words.mode_analysis}`));
  const two = document.querySelector('input[name=mode][value=two]').closest('label');
  two.after(label);
}
analysisModeChoice();

function setMode(mode) {
  settings.mode = mode;
  cancelAi();
  // The analysis board analyses from the start; leaving it, the analysis stays as chosen.
  if (mode === 'analysis' && !analysing) setAnalysing(true);
}

// Sound (sound.js, shared with the online room): the toggle after Replay.
soundButton($('btn-replay'), words.sound);

// ---- Wiring --------------------------------------------------------------------

$('btn-continue').addEventListener('click', () => decide('continue'));
$('btn-stop').addEventListener('click', () => decide('stop'));
$('btn-done').addEventListener('click', finishPicks);
$('btn-undo').addEventListener('click', undo);
$('btn-redo').addEventListener('click', redoMove);
$('btn-new').addEventListener('click', () => newGame(root.dataset.start));
$('btn-hint').addEventListener('click', showHint);
$('btn-resign').addEventListener('click', resign);
$('btn-download').addEventListener('click', download);
$('btn-copy').addEventListener('click', copyPosition);
copyLinkButton();
$('btn-editor').addEventListener('click', openEditor);
$('btn-skip').addEventListener('click', () => board && board.skip());
$('btn-replay').addEventListener('click', replayLast);
// A phone turned over: the board is drawn again in the orientation that fits.
window.addEventListener('resize', () => {
  if (state && !busy && board && !board.animating && boardKey.split('|')[2] !== String(portraitWanted($('board-scroll'), state.ruleset.n))) {
    render();
  }
});
$('record-file').addEventListener('change', (e) => {
  if (e.target.files[0]) loadRecord(e.target.files[0]);
  e.target.value = '';
});
$('editor-apply').addEventListener('click', applyEditor);
$('editor-cancel').addEventListener('click', () => $('editor').close());
$('editor-side').addEventListener('change', () => editorChanged('grid'));
// Text that cannot be read yet (being typed) changes nothing; Apply says what is wrong.
$('editor-text').addEventListener('input', () => editorChanged('text'));
$('speed').addEventListener('input', (e) => {
  board && board.setSpeed(e.target.value);
  localStorage.setItem('matombo-speed', e.target.value);
});
$('labels').addEventListener('change', (e) => {
  board && board.setLabels(e.target.checked);
  localStorage.setItem('matombo-labels', e.target.checked ? '1' : '0');
});
for (const input of document.querySelectorAll('input[name=mode]')) {
  input.addEventListener('change', () => {
    setMode(input.value);
    render();
    maybeAi();
  });
}
$('human-side').addEventListener('change', (e) => {
  // Applied by New game (newGame reads the choice); the game in progress goes on as it was.
  e.target.dataset.chosen = e.target.value;
  message(words.side_at_new_game, 'ok');
});
$('level').addEventListener('change', (e) => {
  settings.level = e.target.value;
  save();
});
const moveKeys = {
  ArrowLeft: stepBack,
  ArrowRight: stepOn,
  Home: () => goToMoves([]),
  End: () => goToMoves([...game.moves, ...continuation()]),
};
document.addEventListener('keydown', (e) => {
  if (e.target.closest && e.target.closest('input, textarea, select, dialog')) return;
  if ((e.ctrlKey || e.metaKey) && e.key === 'z') {
    e.preventDefault();
    undo();
  } else if ((e.ctrlKey || e.metaKey) && (e.key === 'y' || (e.shiftKey && e.key === 'Z'))) {
    e.preventDefault();
    redoMove();
  } else if (e.key === 'Escape' && busy) {
    board.skip();
  } else if (!e.ctrlKey && !e.metaKey && !e.altKey && !e.shiftKey && !e.defaultPrevented && moveKeys[e.key]) {
    // The move list's keys work anywhere on the page but on the board, whose arrows move
    // between its holes while one of them has the focus (Tab or a click elsewhere leaves it).
    if (e.target.closest && e.target.closest('#board')) return;
    e.preventDefault();
    moveKeys[e.key]();
  }
});

$('speed').value = localStorage.getItem('matombo-speed') ?? '2';
$('labels').checked = localStorage.getItem('matombo-labels') === '1';
// Hook of the review page (review.js, docs/review.md "Links"): "Review game" opens the game
// so far there, its address made when the link is used.
for (const kind of ['pointerdown', 'focus', 'click']) {
  $('review-link').addEventListener(kind, (e) => {
    const url = new URL(e.currentTarget.getAttribute('href'), location.href);
    url.searchParams.set('position', game.start);
    if (game.moves.length) url.searchParams.set('moves', game.moves.join(' '));
    else url.searchParams.delete('moves');
    if (game.resigned) url.searchParams.set('resigned', game.resigned);
    else url.searchParams.delete('resigned');
    e.currentTarget.href = url.href;
  });
}

const link = linkLine();
if (link) await openLink(link);
mainLineButton();
await load();
if (analyseAtOpen || settings.mode === 'analysis') setAnalysing(true);
