// The review page's graph: positions 0..T left to right, South's clipped score up
// (docs/review.md), one point per turn coloured by its class, a cursor at the position shown.
import { $, fill, uiWords } from '../page.js';

const words = uiWords();
const SVG = 'http://www.w3.org/2000/svg';
const G = { w: 400, h: 170, left: 30, right: 8, top: 10, bottom: 10 };
/** The x of position `i` in a game of `turns` turns. */
const xOf = (i, turns) => G.left + (i * (G.w - G.left - G.right)) / Math.max(1, turns);

function svg(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.append(e);
  return e;
}

/**
 * Draws the graph of a game of `turns` turns, the cursor at position `at`.
 * @param {any} answer the `review` answer for the scores so far, or null
 * @param {number} turns
 * @param {number} at
 * @param {(j: number) => string} title what the point of turn `j` (1-based) says
 */
export function renderGraph(answer, turns, at, title) {
  const host = $('graph');
  host.textContent = '';
  const clip = answer ? answer.thresholds.clip : 2000;
  const mid = G.top + (G.h - G.top - G.bottom) / 2;
  const half = (G.h - G.top - G.bottom) / 2;
  const yOf = (v) => mid - (Math.max(-clip, Math.min(clip, v)) / clip) * half;
  const caption = fill(words.graph_caption, { clip: clip / 100 });
  $('graph-caption').textContent = caption;
  const root = svg('svg', { viewBox: `0 0 ${G.w} ${G.h}`, class: 'eval-graph', role: 'group', 'aria-label': caption }, host);
  svg('rect', { x: G.left, y: G.top, width: G.w - G.left - G.right, height: 2 * half, class: 'graph-bg' }, root);
  for (const [v, text] of [
    [clip, `+${clip / 100}`],
    [0, '0'],
    [-clip, `−${clip / 100}`],
  ]) {
    svg('line', { x1: G.left, x2: G.w - G.right, y1: yOf(v), y2: yOf(v), class: v ? 'graph-edge' : 'graph-zero' }, root);
    svg('text', { x: G.left - 5, y: yOf(v) + 4, class: 'graph-label' }, root).textContent = text;
  }
  // Not scored yet: no value.
  const values = answer ? answer.positions.map((p) => p.graph) : [];
  // South's advantage shaded down to the zero line, runs of scored positions joined.
  let d = '';
  let area = '';
  let run = [];
  const flush = () => {
    if (!run.length) return;
    d += run.map(([x, y], k) => `${k ? 'L' : 'M'} ${x.toFixed(1)} ${y.toFixed(1)}`).join(' ') + ' ';
    area += `M ${run[0][0].toFixed(1)} ${mid} ` + run.map(([x, y]) => `L ${x.toFixed(1)} ${y.toFixed(1)}`).join(' ') + ` L ${run[run.length - 1][0].toFixed(1)} ${mid} Z `;
    run = [];
  };
  for (let i = 0; i <= turns; i++) {
    if (values[i] == null) flush();
    else run.push([xOf(i, turns), yOf(values[i])]);
  }
  flush();
  if (area) svg('path', { d: area, class: 'graph-area' }, root);
  if (d) svg('path', { d, class: 'graph-line' }, root);
  svg('line', { x1: xOf(at, turns), x2: xOf(at, turns), y1: G.top, y2: G.h - G.bottom, class: 'graph-cursor' }, root);
  // One point per turn, at the position it led to, coloured by the turn's class.
  for (let j = 1; j <= turns; j++) {
    if (values[j] == null) continue;
    const t = answer.turns[j - 1];
    const proven = answer.positions[j].mate != null;
    const c = svg(
      'circle',
      {
        cx: xOf(j, turns).toFixed(1),
        cy: yOf(values[j]).toFixed(1),
        r: t.class ? 4 : 2.5,
        class: `graph-point${t.class ? ` ${t.class}` : ''}${proven ? ' proven' : ''}`,
        'data-turn': String(j),
      },
      root,
    );
    svg('title', {}, c).textContent = title(j);
  }
}

/** Moves the graph's cursor to position `at`. */
export function moveCursor(/** @type {number} */ at, /** @type {number} */ turns) {
  const cursor = $('graph').querySelector('.graph-cursor');
  if (cursor) {
    const x = xOf(at, turns);
    cursor.setAttribute('x1', x);
    cursor.setAttribute('x2', x);
  }
}

/**
 * The position a click on the graph points at: a point's, or the nearest (null off the graph).
 * @param {MouseEvent} e
 * @param {number} turns
 */
export function clickedPosition(e, turns) {
  const el = /** @type {Element} */ (e.target).closest('[data-turn]');
  if (el) return Number(el.getAttribute('data-turn'));
  const s = $('graph').querySelector('svg');
  if (!s) return null;
  const box = s.getBoundingClientRect();
  const x = ((e.clientX - box.left) / box.width) * G.w;
  const step = (G.w - G.left - G.right) / Math.max(1, turns);
  return Math.round((x - G.left) / step);
}
