/**
 * board.js — the matombo board: an SVG drawing of the four rows, as an ES module.
 *
 * The board never decides legality: the page tells it which holes may be clicked (from
 * the server's `clickable` list) and the board reports clicks.
 *
 *   import { Board, holeLabel } from '/static/js/board.js';
 *
 *   const board = new Board(hostElement, {
 *     n: 8,                          // holes per row (6..36)
 *     heads: ['B7', 'B8', 'b7', 'b8'], // head holes to mark (RulesetInfo.head_holes)
 *     words: {...},                  // optional ui words: hole_label "{label}, {n} stones", head
 *     labels: false,                 // show row letters and hole numbers
 *     interactive: true,             // false: a static diagram (rules page)
 *     portrait: false,               // true: turned a quarter, four columns and N rows (phones)
 *     flip: false,                   // true: turned half, North nearest (a person playing North)
 *   });
 *   board.setRows(rows);             // {b:[...], a:[...], A:[...], B:[...]}, index = hole number - 1
 *   board.setClickable(['B2', 'B3'], 'start');  // highlight + focusable; kind 'start' | 'take' | null
 *   board.onClick = (label) => { ... };        // a click, Enter or Space on a clickable hole
 *   board.onSound = (kind, ms) => { ... };     // 'stone' (one sown; ms between stones) or 'capture'
 *   board.setLabels(true);
 *   board.setSpeed(0..4);            // animation speed, 0 slowest
 *   await board.animate(events, mover);  // events of POST /api/game (a lap carries its path),
 *                                        // from the rows now shown;
 *                                        // resolves when finished or skipped
 *   board.skip();                    // finish the running animation at once
 *   board.animating                  // true while an animation runs
 *   board.setMarks({ last: ['B2'], hint: 'B5', picked: ['b3'], named: 'B7' });
 *                                   // last move start, hint, bonus picks, a hole a prompt names;
 *                                   // path: ['B3', 'B4']: the holes the last turn sowed into
 *   board.setArrows([{ from: 'B2', to: 'A7', kind: 'best' }]);
 *                                   // arrows from a turn's start hole to where its sowing
 *                                   // ended; kind 'played', 'best' or 'same' (the review)
 *   board.counts()                   // the rows now shown (copy)
 *   board.element                    // the <svg>
 *
 * Layout: South sits below. Top to bottom the rows are b, a, A, B; North's rows run from
 * hole N at the left to hole 1 at the right, South's from 1 to N (RULES.md §1).
 * Portrait: the same drawing turned a quarter counter-clockwise, so that left to right the
 * columns are b, a, A, B and South's holes run from 1 at the bottom to N at the top; text
 * is turned back upright.
 */

const SVG = 'http://www.w3.org/2000/svg';
const CELL = 60; // user units per hole
const R = 25; // pit radius
const SIDE = 34; // margin for row letters
const TOP = 26; // margin for hole numbers
const MID = 18; // gap between the players' halves
const ROWS = ['b', 'a', 'A', 'B'];
/** Milliseconds per stone at each speed setting. */
const DELAYS = [420, 220, 110, 45, 12];
/** An animation never takes longer than this, whatever its length: long relays speed up. */
const MAX_ANIMATION_MS = 9000;

/** The label of hole `number` of `row` (`'B'`, 3 → `'B3'`). */
export function holeLabel(row, number) {
  return `${row}${number}`;
}

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (m, k) => (k in values ? values[k] : m));
}

/** Column (0 = left as South sees it) and row index (0 = top) of a hole. */
function place(label, n) {
  const row = label[0];
  const k = Number(label.slice(1));
  const r = ROWS.indexOf(row);
  const col = row === 'b' || row === 'a' ? n - k : k - 1;
  return { r, col };
}

/** Pebble offsets for a count, inside a pit of radius R: a ring around the count. */
function pebbleSpots(count) {
  const shown = Math.min(count, 12);
  const spots = [];
  const ring = shown <= 6 ? R * 0.62 : R * 0.68;
  for (let i = 0; i < shown; i++) {
    const a = -Math.PI / 2 + (i * 2 * Math.PI) / shown + (shown % 2 ? 0 : Math.PI / shown);
    spots.push([ring * Math.cos(a), ring * Math.sin(a)]);
  }
  return spots;
}

export class Board {
  constructor(host, opts) {
    this.host = host;
    this.n = opts.n;
    this.heads = new Set(opts.heads || []);
    this.words = opts.words || {};
    this.interactive = opts.interactive !== false;
    this.labels = !!opts.labels;
    this.portrait = !!opts.portrait;
    this.flip = !!opts.flip;
    this.speed = 2;
    this.rows = { b: [], a: [], A: [], B: [] };
    this.clickable = new Set();
    this.kind = null;
    this.onClick = null;
    this.onSound = null;
    this.animating = false;
    this._skip = false;
    this._wake = null;
    this.holes = new Map();
    this._build();
  }

  _build() {
    const n = this.n;
    const width = SIDE * 2 + n * CELL;
    const height = TOP * 2 + 4 * CELL + MID;
    this.width = width;
    this.height = height;
    this.host.innerHTML = '';
    const svg = el('svg', {
      viewBox: this.portrait ? `0 0 ${height} ${width}` : `0 0 ${width} ${height}`,
      class: `board${this.interactive ? ' interactive' : ''}${this.labels ? ' show-labels' : ''}${this.portrait ? ' portrait' : ''}`,
      role: this.interactive ? 'group' : 'img',
      'aria-label': fill(this.words.board_label || 'board, 4 × {n}', { n }),
      'data-n': String(n),
      'data-orientation': this.portrait ? 'portrait' : 'landscape',
      'data-flip': String(this.flip),
    });
    // Phone to desktop: never narrower than 31 px a hole (counts stay legible; wide boards
    // scroll in their container), never wider than 92 px a hole.
    if (this.portrait) {
      // Four columns fill a phone's width: holes of about 60 px, the board scrolls with the page.
      svg.style.minWidth = `${Math.round((height / CELL) * 44)}px`;
      svg.style.maxWidth = `${Math.round((height / CELL) * 64)}px`;
    } else {
      svg.style.minWidth = `${Math.round((width / CELL) * 31)}px`;
      svg.style.maxWidth = `${Math.round((width / CELL) * 92)}px`;
    }
    const defs = el('defs', {}, svg);
    // The light falls from the top of the screen whichever way the board is turned: the
    // gradients are drawn in the turned group, so their direction is turned back here (each
    // orientation has its own ids, as two boards on one page share the document's ids).
    const lit = this.portrait ? (this.flip ? 'pf' : 'p') : this.flip ? 'f' : '';
    const id = (name) => (lit ? `${name}-${lit}` : name);
    const [x1, y1, x2, y2] = { '': [0, 0, 0, 1], f: [0, 1, 0, 0], p: [1, 0, 0, 0], pf: [0, 0, 1, 0] }[lit];
    const [cx, cy] = { '': [0.5, 0.4], f: [0.5, 0.6], p: [0.6, 0.5], pf: [0.4, 0.5] }[lit];
    const wood = el('linearGradient', { id: id('mtb-wood'), x1, y1, x2, y2 }, defs);
    el('stop', { offset: '0', 'stop-color': '#b07a45' }, wood);
    el('stop', { offset: '0.5', 'stop-color': '#9a6634' }, wood);
    el('stop', { offset: '1', 'stop-color': '#875628' }, wood);
    const pit = el('radialGradient', { id: id('mtb-pit'), cx, cy, r: '0.6' }, defs);
    el('stop', { offset: '0', 'stop-color': '#4a2c14' }, pit);
    el('stop', { offset: '1', 'stop-color': '#6d4321' }, pit);
    const peb = el('radialGradient', { id: 'mtb-pebble', cx: '0.35', cy: '0.35', r: '0.7' }, defs);
    el('stop', { offset: '0', 'stop-color': '#fbf6ea' }, peb);
    el('stop', { offset: '1', 'stop-color': '#b9ab8f' }, peb);

    // Everything is drawn in landscape coordinates inside this group, which turns it in portrait.
    // Flipped, it turns the other way (a half turn more), so that North's rows come nearest.
    const turn = this.portrait
      ? this.flip
        ? `translate(${height} 0) rotate(90)`
        : `translate(0 ${width}) rotate(-90)`
      : this.flip
        ? `rotate(180 ${width / 2} ${height / 2})`
        : '';
    const root = el('g', turn ? { transform: turn } : {}, svg);
    // Text turned back upright, about its own point.
    this.textTurn = this.portrait ? (this.flip ? -90 : 90) : this.flip ? 180 : 0;
    const upright = (x, y) => (this.textTurn ? { transform: `rotate(${this.textTurn} ${x} ${y})` } : {});
    el('rect', { x: 4, y: 4, width: width - 8, height: height - 8, rx: 22, class: 'wood', fill: `url(#${id('mtb-wood')})` }, root);
    // The line between the two players' halves.
    const midY = TOP + 2 * CELL + MID / 2;
    el('line', { x1: SIDE, x2: width - SIDE, y1: midY, y2: midY, class: 'midline' }, root);

    const labelLayer = el('g', { class: 'labels', 'aria-hidden': 'true' }, root);
    const label = (x, y, cls, text) => {
      el('text', { x, y: y + 5, class: cls, ...upright(x, y) }, labelLayer).textContent = text;
    };
    ROWS.forEach((row, r) => {
      const y = this._y(r);
      label(SIDE / 2, y, 'row-letter', row);
      label(width - SIDE / 2, y, 'row-letter', row);
    });
    for (let k = 1; k <= n; k++) {
      // North's numbers above the board, South's below, each from the owner's left.
      const top = place(`b${k}`, n);
      label(this._x(top.col), TOP - 13, 'hole-number', String(k));
      const bottom = place(`B${k}`, n);
      label(this._x(bottom.col), this.height - 15, 'hole-number', String(k));
    }

    this.holeLayer = el('g', { class: 'holes' }, root);
    for (const row of ROWS) {
      for (let k = 1; k <= n; k++) {
        const label = holeLabel(row, k);
        const { r, col } = place(label, n);
        const g = el(
          'g',
          {
            class: `hole${this.heads.has(label) ? ' head' : ''}`,
            'data-hole': label,
            transform: `translate(${this._x(col)} ${this._y(r)})`,
          },
          this.holeLayer,
        );
        if (this.interactive) {
          g.setAttribute('role', 'button');
          g.setAttribute('tabindex', '-1');
          g.setAttribute('aria-disabled', 'true');
        }
        el('circle', { r: R + 3, class: 'ring' }, g);
        el('circle', { r: R, class: 'pit', fill: `url(#${id('mtb-pit')})` }, g);
        if (this.heads.has(label)) {
          // A small crown on the owner's side of the head.
          const dy = row === 'B' ? R + 2 : -R - 2;
          const s = row === 'B' ? 1 : -1;
          el(
            'path',
            {
              class: 'head-mark',
              d: `M -8 ${dy} l 3 ${-5 * s} l 5 ${3 * s} l 5 ${-3 * s} l 3 ${5 * s} z`,
              transform: `translate(0 ${row === 'B' ? 5 : -5})`,
            },
            g,
          );
        }
        const pebbles = el('g', { class: 'pebbles', 'aria-hidden': 'true' }, g);
        const text = this.textTurn ? el('g', { transform: `rotate(${this.textTurn})` }, g) : g;
        // The tag before the count: the visible words in the order of the hole's name
        // ("b1, 2 stones"), as the label-in-name rule of WCAG 2.5.3 wants.
        const tag = el('text', { class: 'hole-tag', y: -R + 11, 'aria-hidden': 'true' }, text);
        tag.textContent = label;
        // A space between the two (SVG draws no text outside <text>): "b1 2", not "b12".
        text.append(document.createTextNode(' '));
        const count = el('text', { class: 'count', y: 6, 'aria-hidden': 'true' }, text);
        const title = el('title', {}, g);
        this.holes.set(label, { g, pebbles, count, title, shown: -1 });
        if (this.interactive) {
          g.addEventListener('click', () => this._activate(label));
          g.addEventListener('keydown', (e) => this._key(e, label));
        }
      }
    }
    this.hand = el('g', { class: 'hand', 'aria-hidden': 'true', visibility: 'hidden' }, root);
    el('circle', { r: 14, class: 'hand-stone' }, this.hand);
    this.handText = el('text', { y: 5, class: 'hand-count', ...upright(0, 0) }, this.hand);
    this.flyLayer = el('g', { class: 'fly', 'aria-hidden': 'true' }, root);
    this.element = svg;
    this.host.appendChild(svg);
  }

  _x(col) {
    return SIDE + col * CELL + CELL / 2;
  }

  _y(r) {
    return TOP + r * CELL + CELL / 2 + (r >= 2 ? MID : 0);
  }

  /** Centre of a hole in user units. */
  center(label) {
    const { r, col } = place(label, this.n);
    return [this._x(col), this._y(r)];
  }

  setRows(rows) {
    this.rows = { b: [...rows.b], a: [...rows.a], A: [...rows.A], B: [...rows.B] };
    for (const row of ROWS) for (let k = 1; k <= this.n; k++) this._draw(holeLabel(row, k));
  }

  counts() {
    return { b: [...this.rows.b], a: [...this.rows.a], A: [...this.rows.A], B: [...this.rows.B] };
  }

  _get(label) {
    return this.rows[label[0]][Number(label.slice(1)) - 1];
  }

  _set(label, v) {
    this.rows[label[0]][Number(label.slice(1)) - 1] = v;
    this._draw(label);
  }

  _draw(label) {
    const h = this.holes.get(label);
    const c = this._get(label) ?? 0;
    const text = fill(this.words.hole_label || '{label}, {n} stones', { label, n: c });
    const full = this.heads.has(label) ? `${text} (${this.words.head || 'head'})` : text;
    if (this.interactive) h.g.setAttribute('aria-label', full);
    h.title.textContent = full;
    h.g.setAttribute('data-count', String(c));
    if (h.shown === c) return;
    h.shown = c;
    h.count.textContent = c > 0 ? String(c) : '';
    h.count.setAttribute('class', `count${c >= 100 ? ' small' : ''}`);
    h.pebbles.innerHTML = '';
    for (const [x, y] of pebbleSpots(c)) {
      el('circle', { cx: x.toFixed(1), cy: y.toFixed(1), r: c > 6 ? 4.2 : 5.2, fill: 'url(#mtb-pebble)' }, h.pebbles);
    }
  }

  /** Highlights the holes that may be clicked now; `kind` styles them ('start' or 'take'). */
  setClickable(labels, kind = 'start') {
    this.clickable = new Set(labels || []);
    this.kind = kind;
    let first = true;
    for (const [label, h] of this.holes) {
      const on = this.clickable.has(label);
      h.g.classList.toggle('legal', on && kind === 'start');
      h.g.classList.toggle('takeable', on && kind === 'take');
      if (this.interactive) {
        h.g.setAttribute('aria-disabled', on ? 'false' : 'true');
        // Roving focus: Tab reaches the board once, arrows move between clickable holes.
        h.g.setAttribute('tabindex', on && first ? '0' : '-1');
      }
      if (on) first = false;
    }
  }

  setLabels(on) {
    this.labels = !!on;
    this.element.classList.toggle('show-labels', this.labels);
  }

  setSpeed(s) {
    this.speed = Math.max(0, Math.min(DELAYS.length - 1, Number(s)));
  }

  /** Outlines holes: `last` (start hole of the last move) and `hint` (the AI's suggestion). */
  setMarks({ last = [], hint = null, picked = [], named = null, path = [], team = [] } = {}) {
    for (const [label, h] of this.holes) {
      // A team's marks (online team games): a dashed violet ring.
      h.g.classList.toggle('team-mark', team.includes(label));
      h.g.classList.toggle('path', path.includes(label));
      // A hole a prompt names shows its label even with labels off.
      h.g.classList.toggle('named', label === named);
      h.g.classList.toggle('last', last.includes(label));
      h.g.classList.toggle('hint', label === hint);
      h.g.classList.toggle('picked', picked.includes(label));
    }
  }

  /**
   * Small numbers beside holes (a team's vote tally on the start holes: `{B2: 3}`); {} removes
   * them. The hole's own label says the count for people who cannot see the badge.
   */
  setBadges(badges = {}) {
    for (const [label, h] of this.holes) {
      const text = badges[label];
      if (h.badge && text === undefined) {
        h.badge.remove();
        h.badge = null;
      } else if (text !== undefined) {
        if (!h.badge) {
          h.badge = el('g', { class: 'badge', transform: `translate(${R - 4} ${-R + 4})`, 'aria-hidden': 'true' }, h.g);
          el('circle', { r: 10 }, h.badge);
          el('text', { y: 4, ...(this.textTurn ? { transform: `rotate(${this.textTurn})` } : {}) }, h.badge);
        }
        h.badge.querySelector('text').textContent = String(text);
      }
    }
  }

  /**
   * Draws arrows over the holes (the review page: the turn played and the engine's best,
   * each from its start hole to the hole its sowing ended in); [] removes them. Added on
   * top of the drawing, so that nothing else of the board changes.
   */
  setArrows(arrows = []) {
    if (!this.arrowLayer) {
      const defs = this.element.querySelector('defs');
      for (const kind of ['played', 'best', 'same']) {
        const m = el('marker', { id: `mtb-arrow-${kind}`, viewBox: '0 0 10 10', refX: '6', refY: '5', markerWidth: '4', markerHeight: '4', orient: 'auto-start-reverse' }, defs);
        el('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: `arrow-head ${kind}` }, m);
      }
      this.arrowLayer = el('g', { class: 'arrows', 'aria-hidden': 'true' }, this.holeLayer.parentNode);
    }
    this.arrowLayer.innerHTML = '';
    for (const { from, to, kind } of arrows) {
      if (!this.holes.has(from) || !this.holes.has(to)) continue;
      const [x1, y1] = this.center(from);
      const [x2, y2] = this.center(to);
      const len = Math.hypot(x2 - x1, y2 - y1);
      if (len < 1) {
        el('circle', { cx: x1, cy: y1, r: R + 6, class: `arrow ${kind}` }, this.arrowLayer);
        continue;
      }
      // Bent a little, the best turn's one way and the played one's the other, so that two
      // arrows between the same holes stay apart; both ends stop inside the pits' rims.
      const bend = (kind === 'played' ? -1 : 1) * Math.min(40, len * 0.18);
      const [ux, uy] = [(x2 - x1) / len, (y2 - y1) / len];
      const [cx, cy] = [(x1 + x2) / 2 - uy * bend, (y1 + y2) / 2 + ux * bend];
      const trim = (x, y, tx, ty, d) => {
        const l = Math.hypot(tx - x, ty - y) || 1;
        return [x + ((tx - x) / l) * d, y + ((ty - y) / l) * d];
      };
      const [sx, sy] = trim(x1, y1, cx, cy, R * 0.55);
      const [ex, ey] = trim(x2, y2, cx, cy, R * 0.75);
      el(
        'path',
        {
          d: `M ${sx.toFixed(1)} ${sy.toFixed(1)} Q ${cx.toFixed(1)} ${cy.toFixed(1)} ${ex.toFixed(1)} ${ey.toFixed(1)}`,
          class: `arrow ${kind}`,
          'marker-end': `url(#mtb-arrow-${kind})`,
          'data-from': from,
          'data-to': to,
        },
        this.arrowLayer,
      );
    }
  }

  _activate(label) {
    if (this.animating || !this.clickable.has(label)) return;
    if (this.onClick) this.onClick(label);
  }

  _key(e, label) {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      this._activate(label);
      return;
    }
    // [rows, columns] of the landscape drawing; in portrait its columns run bottom to top.
    const turned = this.flip ? -1 : 1;
    const moves = this.portrait
      ? { ArrowLeft: [-turned, 0], ArrowRight: [turned, 0], ArrowUp: [0, turned], ArrowDown: [0, -turned] }
      : { ArrowLeft: [0, -turned], ArrowRight: [0, turned], ArrowUp: [-turned, 0], ArrowDown: [turned, 0] };
    const d = moves[e.key];
    if (!d) return;
    e.preventDefault();
    const targets = [...this.clickable];
    if (!targets.length) return;
    const here = place(label, this.n);
    // The nearest clickable hole in the arrow's direction (rows weigh more than columns).
    let best = null;
    let bestScore = Infinity;
    for (const t of targets) {
      if (t === label) continue;
      const p = place(t, this.n);
      const dr = p.r - here.r;
      const dc = p.col - here.col;
      if (d[0] && Math.sign(dr) !== d[0]) continue;
      if (d[1] && (Math.sign(dc) !== d[1] || dr !== 0)) continue;
      const score = Math.abs(dr) * 100 + Math.abs(dc);
      if (score < bestScore) {
        bestScore = score;
        best = t;
      }
    }
    if (!best && d[1]) {
      // Wrap to the next row's clickable holes when a row ends.
      const order = targets.map((t) => [t, place(t, this.n)]).sort((x, y) => x[1].r - y[1].r || x[1].col - y[1].col);
      const i = order.findIndex(([t]) => t === label);
      const j = i < 0 ? 0 : (i + d[1] + order.length) % order.length;
      best = order[j][0];
    }
    if (best) this.focus(best);
  }

  /** Moves keyboard focus to a hole. */
  focus(label) {
    for (const [l, h] of this.holes) h.g.setAttribute('tabindex', l === label ? '0' : '-1');
    this.holes.get(label)?.g.focus();
  }

  skip() {
    this._skip = true;
    if (this._wake) this._wake();
  }

  _sleep(ms) {
    if (this._skip) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this._wake = null;
        resolve();
      }, ms);
      this._wake = () => {
        clearTimeout(t);
        this._wake = null;
        resolve();
      };
    });
  }

  _moveHand(label, inHand) {
    const [x, y] = this.center(label);
    this.hand.setAttribute('transform', `translate(${x} ${y - R * 0.9})`);
    this.handText.textContent = String(inHand);
    this.hand.setAttribute('visibility', inHand > 0 ? 'visible' : 'hidden');
  }

  /** Flies up to eight pebbles from a hole off the board, toward the capturer's side. */
  _fly(label, stones, mover) {
    if (this._skip || typeof this.flyLayer.animate !== 'function') return;
    const [x, y] = this.center(label);
    const toY = mover === 'North' ? -40 : this.height + 40;
    const toX = this.width - 20;
    for (let i = 0; i < Math.min(stones, 8); i++) {
      const p = el('circle', { cx: 0, cy: 0, r: 5, fill: 'url(#mtb-pebble)', class: 'flying' }, this.flyLayer);
      const ox = x + (i % 4) * 5 - 8;
      const oy = y + Math.floor(i / 4) * 5 - 3;
      const anim = p.animate(
        [
          { transform: `translate(${ox}px, ${oy}px)`, opacity: 1 },
          { transform: `translate(${toX}px, ${toY}px)`, opacity: 0 },
        ],
        { duration: 700 + i * 60, easing: 'ease-in', fill: 'forwards' },
      );
      anim.onfinish = () => p.remove();
    }
  }

  /**
   * Plays the events of one request: laps stone by stone, captures leaving the board.
   * `mover` ('South' or 'North') aims the captured stones. Resolves when done or skipped;
   * the page then sets the server's rows, which the animation must match.
   */
  async animate(events, mover = 'South') {
    if (!events || !events.length) return;
    this.animating = true;
    this._skip = false;
    this.element.classList.add('animating');
    let total = 0;
    for (const e of events) total += e.type === 'lap' ? e.stones + 2 : 6;
    const delay = () => Math.min(DELAYS[this.speed], MAX_ANIMATION_MS / Math.max(1, total));
    try {
      for (const e of events) {
        if (this._skip) break;
        if (e.type === 'lap') {
          let hand = e.stones;
          this._set(e.from, this._get(e.from) - e.stones);
          this.holes.get(e.from).g.classList.add('lifted');
          this._moveHand(e.from, hand);
          await this._sleep(delay());
          for (const at of e.path) {
            if (this._skip) break;
            hand -= 1;
            this._set(at, this._get(at) + 1);
            this._moveHand(at, hand);
            this._pulse(at);
            if (this.onSound && !this._skip) this.onSound('stone', delay());
            await this._sleep(delay());
          }
          this.holes.get(e.from).g.classList.remove('lifted');
        } else if (e.type === 'capture') {
          this.holes.get(e.hole).g.classList.add('captured');
          this._fly(e.hole, e.stones, mover);
          if (this.onSound && !this._skip) this.onSound('capture', delay());
          this._set(e.hole, Math.max(0, this._get(e.hole) - e.stones));
          await this._sleep(Math.max(delay() * 3, this._skip ? 0 : 250));
          this.holes.get(e.hole).g.classList.remove('captured');
        }
      }
    } finally {
      this.hand.setAttribute('visibility', 'hidden');
      for (const h of this.holes.values()) h.g.classList.remove('lifted', 'captured', 'pulse');
      this.element.classList.remove('animating');
      this.animating = false;
      this._skip = false;
    }
  }

  _pulse(label) {
    const g = this.holes.get(label).g;
    g.classList.remove('pulse');
    // Restart the CSS animation.
    void g.getBBox;
    g.classList.add('pulse');
  }
}
