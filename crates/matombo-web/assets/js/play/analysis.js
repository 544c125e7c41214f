// The board page's analysis panel: the engine's best lines for the position shown, searched
// in a worker of its own (beside the computer's turns), and the analysis board's mode.
import { clearExact, showExact } from '../egtb.js';
import { Searcher } from '../engine.js';
import { $, fill } from '../page.js';
import { page, pageSide, params, root, stopped, words } from './state.js';

const searcher = new Searcher();
// Started now, while the page's files can be fetched, so that a search needs no network.
searcher.start().catch(() => {});

/** Whether the analysis is on (the Analyse button). */
export let analysing = false;
let analysisKey = '';
// The turns of an analysis line shown.
const PV_SHOWN = 10;
// The lines shown, for a click on one of them.
let analysisShown = null;

/** @typedef {{ line: (moves: string[]) => void, playOn: (side: string) => void }} AnalysisHandlers */
/** @type {AnalysisHandlers} */
const handlers = { line: () => {}, playOn: () => {} };

/**
 * The analysis panel, made here so that the page's markup stays the server's. `on.line`
 * plays a line (from the start) clicked in it, `on.playOn` plays on against the computer.
 * @param {AnalysisHandlers} on
 */
export function analysisPanel(on) {
  Object.assign(handlers, on);
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
  const onBox = make('div', { className: 'play-on', id: 'play-on' });
  const side = make('select', { id: 'play-on-side' });
  side.append(make('option', { value: 'S', textContent: words.south }), make('option', { value: 'N', textContent: words.north }));
  const label = make('label', { textContent: `${words.you_play} ` });
  label.append(side);
  const go = make('button', { type: 'button', id: 'btn-play-on', textContent: words.play_on });
  go.addEventListener('click', () => handlers.playOn(side.value === 'N' ? 'North' : 'South'));
  onBox.append(label, go);
  panel.append(h, toggle, info, view, lines, onBox);
  document.querySelector('.panel.actions').after(panel);
  return panel;
}

/** The analysis board is a third choice beside the two kinds of game. */
export function analysisModeChoice() {
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

export function setAnalysing(on) {
  analysing = on;
  analysisKey = '';
  analysisShown = null;
  searcher.stop();
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
  analysisShown = { moves: [...page.game.moves], lines: a.lines };
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

/** Plays the first `count` turns of analysis line `i` from the position it was made for. */
function playLine(i, count) {
  const shown = analysisShown;
  if (!shown || page.busy || shown.moves.join(' ') !== page.game.moves.join(' ')) return;
  handlers.line([...shown.moves, ...shown.lines[i].pv.slice(0, count)]);
}

/** Analyses the position after the last complete turn, again whenever it changes. */
export function updateAnalysis() {
  const { game, state } = page;
  if (!analysing || !state) return;
  const key = JSON.stringify([game.start, game.moves, game.resigned]);
  if (key === analysisKey) return;
  analysisKey = key;
  analysisShown = null;
  searcher.stop();
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
  searcher
    .run('analyse', body, (a) => key === analysisKey && showAnalysis(a, false))
    .then((a) => key === analysisKey && showAnalysis(a, true))
    .catch((e) => {
      if (!stopped(e) && key === analysisKey) $('analysis-info').textContent = e.message;
    });
}
