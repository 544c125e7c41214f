// The game review page: the engine in the page (engine.js) scores every position of a game,
// one `review_position` search at a time in its worker (so that a progress bar shows and
// Stop ends the review at once), then classifies the turns (`review`) and writes the
// annotated record (`review_record`), the very code of `matombo review` (docs/review.md).
// The game comes from the address (the link scheme of docs/review.md), a pasted or loaded
// record, or an archived online game's record (review/source.js). Nothing here needs the
// server but the last.
import { Board } from './board.js';
import { Searcher } from './engine.js';
// Endgame tables (egtb.js): the exact result of a position, when the server has tables.
import { showExact } from './egtb.js';
import { $, downloadText, fill, message, selectText, sideWord, uiWords } from './page.js';
import { clickedPosition, moveCursor, renderGraph } from './review/graph.js';
import { endOf, gameOfAddress, gameOfRecord, onlineRecord } from './review/source.js';
import { startHole, stoneTotal } from './turn.js';

const words = uiWords();
const root = $('review');
const params = new URLSearchParams(location.search);
const budgetSelect = $('budget');
const DEFAULT_NODES = Number([...budgetSelect.options].find((o) => o.defaultSelected).value);

const searcher = new Searcher();
// Started now, while the page's files can be fetched, so that a review needs no network.
searcher.start().catch(() => {});

/** @type {import('./review/source.js').ReviewGame | null} the game reviewed */
let game = null;
// One entry per position: review_position's answer, or null (not scored, or game over).
let scores = [];
// The `review` answer for the scores so far.
let answer = null;
// The position shown: after `view` turns (0 = the start).
let view = 0;
let board = null;
let running = false;
// Bumped by every new review: answers for an older one are dropped.
let generation = 0;
let nodes = DEFAULT_NODES;

function setError(text) {
  $('review-error').textContent = text;
  root.dataset.state = text ? 'error' : root.dataset.state;
}

// ---- Links ------------------------------------------------------------------------

/**
 * The review's address at position `at`: `ruleset=` (or `position=` for another start),
 * `moves=` (tokens separated by spaces), `resigned=`, `nodes=` (when not the default),
 * `turn=`, and the page's `lang=`.
 */
function linkFor(at) {
  const q = new URLSearchParams();
  if (game.standard) q.set('ruleset', game.info.name);
  else q.set('position', game.start);
  if (game.moves.length) q.set('moves', game.moves.join(' '));
  if (game.resigned) q.set('resigned', game.resigned);
  if (nodes !== DEFAULT_NODES) q.set('nodes', String(nodes));
  q.set('turn', String(at));
  if (params.get('lang')) q.set('lang', params.get('lang'));
  return `${location.pathname}?${q}`;
}

/** The board page's address for the position shown, to play on from it. */
function playLink(at) {
  const url = new URL(root.dataset.play, location.href);
  url.searchParams.set('position', game.positions[at].position);
  return url.href;
}

async function copyLink() {
  const url = new URL(linkFor(view), location.href).href;
  try {
    await navigator.clipboard.writeText(url);
    message(words.review_link_copied, 'ok');
  } catch (_) {
    // No clipboard permission: show the link selected, to be copied by hand.
    const m = $('tool-message');
    m.textContent = url;
    m.className = 'tool-message ok link-text';
    selectText(m);
  }
}

// ---- The review -------------------------------------------------------------------

/** Positions the review searches: all but a last one where the game is over by the rules. */
function scoreable() {
  const over = game.outcome && !game.resigned;
  return game.positions.length - (over ? 1 : 0);
}

function reviewBody(extra = {}) {
  /** @type {Record<string, any>} */
  const body = { start: game.start, moves: game.moves, scores, ...extra };
  if (game.resigned) body.resigned = game.resigned;
  return body;
}

async function classify() {
  answer = await searcher.run('review', reviewBody());
}

async function runReview(at) {
  const g = ++generation;
  running = true;
  scores = game.positions.map(() => null);
  answer = null;
  root.dataset.state = 'reviewing';
  $('review-source').hidden = true;
  $('review-progress').hidden = false;
  $('review-result').hidden = false;
  setupBoard();
  view = Math.max(0, Math.min(game.moves.length, at));
  const total = scoreable();
  const progress = (done) => {
    $('progress').value = done / Math.max(1, total);
    $('progress-text').textContent = fill(words.review_progress, { done, total });
  };
  progress(0);
  render();
  let done = 0;
  let failure = null;
  for (let i = 0; i < total; i++) {
    try {
      const body = { start: game.start, moves: game.moves.slice(0, i), nodes };
      if (i < game.moves.length) body.played = game.moves[i];
      const s = await searcher.run('review_position', body);
      if (g !== generation) return;
      scores[i] = s;
      done++;
      progress(done);
      await classify();
      if (g !== generation) return;
      render();
    } catch (e) {
      if (g !== generation) return;
      if (e.name !== 'AbortError') failure = e;
      break;
    }
  }
  running = false;
  $('review-progress').hidden = true;
  try {
    await classify();
  } catch (e) {
    failure = failure || e;
  }
  if (g !== generation) return;
  root.dataset.state = done === total ? 'done' : 'stopped';
  if (failure) message(failure.message, 'error');
  else if (done < total) message(fill(words.review_stopped, { done, total }), 'ok');
  render();
}

function stop() {
  if (running) searcher.stop();
}

async function downloadRecord() {
  try {
    // The record's own tags are kept; those the writer derives from the game are its own.
    const tags = {};
    for (const [k, v] of game.tags || []) if (!['Ruleset', 'Result', 'Termination', 'Position'].includes(k)) tags[k] = v;
    const { record } = await searcher.run('review_record', reviewBody({ tags }));
    downloadText(record, `matombo-review-${game.info.name.replace(/[^a-z0-9]+/gi, '-')}.txt`);
  } catch (e) {
    message(e.message, 'error');
  }
}

// ---- Showing it -------------------------------------------------------------------

function setupBoard() {
  const info = game.info;
  const names = JSON.parse(root.dataset.names || '{}');
  $('game-title').innerHTML = '';
  $('game-title').append(`${names[info.game] || info.game} `);
  const rs = document.createElement('span');
  rs.className = 'ruleset';
  rs.textContent = info.name;
  $('game-title').append(rs);
  document.title = `${words.review_title}: ${names[info.game] || info.game} ${info.name} – matombo`;
  board = new Board($('board'), {
    n: info.n,
    heads: info.head_holes,
    words,
    interactive: false,
    // Turned on a screen taller than wide when the pits would be under 40 CSS pixels (as
    // on the board page): a pit is 50 of a hole's 60 units, the margins take 68.
    portrait: innerHeight > innerWidth && (Math.min(innerWidth, 1000) / (info.n * 60 + 68)) * 50 < 40,
  });
}

/** Number and text of turn `i` (0-based), as a record writes it: `12. B3` or `12… b4`. */
function turnName(i) {
  const t = answer && answer.turns[i];
  const first = game.positions[0].toMove;
  const number = t ? t.number : first === 'south' ? Math.floor(i / 2) + 1 : Math.ceil(i / 2) + 1;
  const north = game.positions[i].toMove === 'north';
  return `${number}${north ? '…' : '.'} ${game.moves[i]}${(t && t.suffix) || ''}`;
}

/** An evaluation for South: `+1.25`, or who wins in how many turns. */
function evalText(p) {
  if (!p || p.south == null) return words.not_scored;
  if (p.mate != null) {
    if (p.mate === 0) return p.south > 0 ? fill(words.wins, { side: words.south }) : p.south < 0 ? fill(words.wins, { side: words.north }) : words.draw;
    return fill(words.wins_in, { side: p.mate > 0 ? words.south : words.north, n: Math.abs(p.mate) });
  }
  const v = p.south / 100;
  return `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(2)}`;
}

const stones = (hundredths) => (hundredths / 100).toFixed(2);

function classWord(c) {
  return c ? words[`class_${c}`] : '';
}

function render() {
  if (!game || !board) return;
  renderGraph(answer, game.moves.length, view, pointTitle);
  renderSummary();
  renderMoves();
  show(view);
}

/** Goes to the position after `at` turns. */
function go(at) {
  if (!game) return;
  show(Math.max(0, Math.min(game.moves.length, at)));
}

function show(at) {
  view = at;
  root.dataset.turn = String(at);
  const p = game.positions[at];
  board.setRows(p.rows);
  root.dataset.position = p.position;
  for (const side of ['north', 'south']) {
    const bar = $(`side-${side}`);
    const total = stoneTotal(p.rows, side);
    const tag = (game.tags || []).find(([k]) => k.toLowerCase() === side);
    bar.textContent = '';
    const who = document.createElement('strong');
    who.textContent = tag ? `${sideWord(side)} · ${tag[1]}` : sideWord(side);
    const count = document.createElement('span');
    count.className = 'side-total';
    count.textContent = fill(words.side_stones, { n: total });
    const mark = document.createElement('span');
    mark.className = 'side-mark';
    mark.textContent = p.toMove === side && at < game.moves.length ? words.to_move_mark : '';
    bar.append(who, count, mark);
    bar.classList.toggle('to-move', p.toMove === side && at < game.moves.length);
  }
  $('turn-label').textContent = at === 0 ? words.review_start_position : fill(words.review_after, { turn: turnName(at - 1) });
  $('btn-first').disabled = $('btn-prev').disabled = at === 0;
  $('btn-last').disabled = $('btn-next').disabled = at === game.moves.length;
  $('play-link').href = playLink(at);
  renderInfo(at);
  renderMarks(at);
  moveCursor(at, game.moves.length);
  for (const b of $('moves').querySelectorAll('button.move')) b.classList.toggle('current', Number(b.dataset.turn) === at);
  // The list scrolls to the turn by itself: scrollIntoView would move the page on a phone.
  const current = $('moves').querySelector('button.move.current');
  const panel = $('moves').closest('.moves-panel');
  if (current && panel) {
    const top = current.offsetTop - panel.offsetTop;
    if (top < panel.scrollTop || top > panel.scrollTop + panel.clientHeight - current.offsetHeight) {
      panel.scrollTop = top - panel.clientHeight / 2;
    }
  }
  // The address follows the position looked at (replaced, not pushed: Back leaves the page),
  // and so do the language links, which the server wrote without the game.
  const here = linkFor(at);
  history.replaceState(null, '', here);
  for (const a of document.querySelectorAll('nav.langs a[hreflang]')) {
    a.dataset.base ||= a.getAttribute('href');
    const url = new URL(a.dataset.base, location.href);
    const q = new URLSearchParams(here.split('?')[1]);
    q.delete('lang');
    if (url.searchParams.has('lang')) q.set('lang', url.searchParams.get('lang'));
    a.href = `${url.pathname}?${q}`;
  }
}

/** A line of tokens, each in its own <code>. */
function tokens(list) {
  const span = document.createElement('span');
  span.className = 'pv';
  for (const t of list) {
    const c = document.createElement('code');
    c.textContent = t;
    span.append(c, ' ');
  }
  return span;
}

function line(parent, label, ...content) {
  const p = document.createElement('p');
  if (label) {
    const b = document.createElement('strong');
    b.textContent = `${label} `;
    p.append(b);
  }
  p.append(...content);
  parent.append(p);
  return p;
}

function renderInfo(at) {
  const box = $('turn-info');
  box.textContent = '';
  const pos = answer && answer.positions[at];
  line(box, words.evaluation, evalText(pos));
  if (at > 0) {
    const t = answer && answer.turns[at - 1];
    const p = line(box, words.review_last_turn, turnName(at - 1));
    if (t && t.loss != null) {
      p.append(` · ${t.class ? `${classWord(t.class)}, ` : ''}${fill(words.lost_stones, { n: stones(t.loss) })}`);
      if (t.class) p.classList.add(`class-${t.class}`);
      if (t.loss > 0 && t.best && t.best !== game.moves[at - 1]) p.append(` · ${fill(words.best_was, { move: t.best })}`);
    }
  }
  if (at < game.moves.length) {
    const s = scores[at];
    const played = game.moves[at];
    const p = line(box, words.played_turn, played);
    p.classList.add('key-played');
    if (s) {
      const b = line(box, words.best_turn, s.best === played ? `${s.best} (${words.engine_agrees})` : s.best);
      b.classList.add('key-best');
      line(box, words.principal_variation, tokens(s.pv));
      line(box, '', fill(words.search_depth, { depth: s.depth, nodes: s.nodes.toLocaleString() })).className = 'muted';
    } else {
      line(box, '', running ? words.review_scoring : words.not_scored).className = 'muted';
    }
  } else if (game.outcome) {
    const o = game.outcome;
    line(box, '', o.winner ? fill(words.wins, { side: sideWord(o.winner) }) : words.draw);
  }
  if (at < game.moves.length || !game.outcome) showExact(box, game.start, game.moves.slice(0, at), words);
}

async function renderMarks(at) {
  board.setArrows([]);
  board.setMarks({});
  if (at >= game.moves.length) return;
  const played = game.moves[at];
  const best = scores[at] && scores[at].best;
  try {
    const arrows = [];
    const same = best === played;
    arrows.push({ from: startHole(played), to: await endOf(game, at, played), kind: same ? 'same' : 'played' });
    if (best && !same) arrows.push({ from: startHole(best), to: await endOf(game, at, best), kind: 'best' });
    if (view !== at) return;
    board.setArrows(arrows);
    board.setMarks({ last: [startHole(played)], hint: best && !same ? startHole(best) : null });
  } catch (_) {
    /* a position the engine cannot replay is not marked */
  }
}

/** What the graph's point of turn `j` (1-based) says: the turn, the score, its class. */
function pointTitle(j) {
  const t = answer.turns[j - 1];
  return `${turnName(j - 1)}: ${evalText(answer.positions[j])}${t.class ? ` (${classWord(t.class)})` : ''}`;
}

/** The figures of each side, one row a figure (narrow enough for the side panel). */
function renderSummary() {
  const table = $('summary');
  table.textContent = '';
  const head = table.insertRow();
  for (const h of ['', words.south, words.north]) {
    const th = document.createElement('th');
    th.scope = 'col';
    if (h) th.textContent = h;
    else {
      // The corner cell names the table for screen readers.
      const name = document.createElement('span');
      name.className = 'sr-only';
      name.textContent = words.review_summary;
      th.append(name);
    }
    head.append(th);
  }
  const figures = [
    ['accuracy', words.accuracy, (s) => (s.accuracy == null ? '–' : `${s.accuracy.toFixed(1)}%`)],
    ['inaccuracies', words.class_inaccuracy_plural, (s) => s.inaccuracies],
    ['mistakes', words.class_mistake_plural, (s) => s.mistakes],
    ['blunders', words.class_blunder_plural, (s) => s.blunders],
    ['average_loss', words.average_loss, (s) => (s.average_loss == null ? '–' : stones(s.average_loss))],
  ];
  for (const [key, name, value] of figures) {
    const row = table.insertRow();
    row.dataset.key = key;
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = name;
    row.append(th);
    for (const side of ['south', 'north']) {
      const td = row.insertCell();
      td.dataset.key = key;
      td.dataset.side = side;
      td.textContent = answer ? String(value(answer[side])) : '–';
    }
  }
  const th = answer ? answer.thresholds : { inaccuracy: 100, mistake: 300, blunder: 600 };
  $('thresholds').textContent = fill(words.review_thresholds, {
    inaccuracy: th.inaccuracy / 100,
    mistake: th.mistake / 100,
    blunder: th.blunder / 100,
  });
}

function renderMoves() {
  const list = $('moves');
  list.textContent = '';
  const start = document.createElement('li');
  start.className = 'start-item';
  const sb = document.createElement('button');
  sb.type = 'button';
  sb.className = 'move';
  sb.dataset.turn = '0';
  sb.textContent = words.review_start_position;
  start.append(sb);
  list.append(start);
  let li = null;
  for (let i = 0; i < game.moves.length; i++) {
    const t = answer && answer.turns[i];
    const north = game.positions[i].toMove === 'north';
    if (!li || !north) {
      li = document.createElement('li');
      const n = document.createElement('span');
      n.className = 'move-number';
      n.textContent = turnName(i).split(' ')[0];
      li.append(n);
      list.append(li);
    }
    const b = document.createElement('button');
    b.type = 'button';
    b.className = `move${t && t.class ? ` ${t.class}` : ''}`;
    b.dataset.turn = String(i + 1);
    b.textContent = `${game.moves[i]}${(t && t.suffix) || ''}`;
    if (t && t.class) b.title = `${classWord(t.class)}: ${fill(words.lost_stones, { n: stones(t.loss) })}`;
    li.append(b);
    if (north) li = null;
  }
}

// ---- Starting -----------------------------------------------------------------------

async function begin(source) {
  setError('');
  message('');
  const b = $('btn-review');
  b.disabled = true;
  try {
    nodes = Number(budgetSelect.value) || DEFAULT_NODES;
    const g = await source();
    if (!g) return;
    game = g;
    runReview(Number(params.get('turn')) || 0);
  } catch (e) {
    setError(e.message);
  } finally {
    b.disabled = false;
  }
}

function another() {
  generation++;
  stop();
  running = false;
  game = null;
  answer = null;
  root.dataset.state = 'input';
  params.delete('turn');
  $('review-source').hidden = false;
  $('review-progress').hidden = true;
  $('review-result').hidden = true;
  history.replaceState(null, '', `${location.pathname}${params.get('lang') ? `?lang=${params.get('lang')}` : ''}`);
}

$('btn-review').addEventListener('click', () => {
  const online = $('online-id') ? $('online-id').value.trim() : '';
  const text = $('record-text').value;
  params.delete('turn');
  begin(async () => (online && !text.trim() ? gameOfRecord(await onlineRecord(online)) : gameOfRecord(text)));
});
$('record-file').addEventListener('change', async (e) => {
  const file = e.target.files[0];
  e.target.value = '';
  if (!file) return;
  $('record-text').value = await file.text();
  if ($('online-id')) $('online-id').value = '';
});
$('btn-stop').addEventListener('click', stop);
$('btn-first').addEventListener('click', () => go(0));
$('btn-prev').addEventListener('click', () => go(view - 1));
$('btn-next').addEventListener('click', () => go(view + 1));
$('btn-last').addEventListener('click', () => go(Infinity));
$('graph').addEventListener('click', (e) => {
  if (!game) return;
  const at = clickedPosition(e, game.moves.length);
  if (at !== null) go(at);
});
$('moves').addEventListener('click', (e) => {
  const b = e.target.closest('button.move');
  if (b) go(Number(b.dataset.turn));
});
$('btn-download').addEventListener('click', downloadRecord);
$('btn-link').addEventListener('click', copyLink);
$('btn-another').addEventListener('click', another);
document.addEventListener('keydown', (e) => {
  if (!game || $('review-result').hidden || e.altKey || e.ctrlKey || e.metaKey) return;
  if (e.target.closest('input, textarea, select')) return;
  const to = { ArrowLeft: view - 1, ArrowRight: view + 1, Home: 0, End: Infinity }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  go(to);
});

const asked = Number(params.get('nodes'));
if (asked > 0) {
  // A shared link's budget: offered in the list so that the review is the same.
  if (![...budgetSelect.options].some((o) => Number(o.value) === asked)) budgetSelect.add(new Option(asked.toLocaleString(), String(asked)));
  budgetSelect.value = String(asked);
}
begin(() => gameOfAddress(params));
