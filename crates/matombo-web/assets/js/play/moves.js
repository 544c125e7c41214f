// The board page's move list: the tree of lines in RULES.md notation. Its buttons carry
// their line (data-line); play.js sends their clicks to the game.
import { $ } from '../page.js';
import { moverAt, page, words } from './state.js';
import { onMainLine } from './tree.js';

/** The number of the move a turn belongs to (South's and North's turn make one move). */
function moveNumber(ply, side) {
  const first = page.tree.kids.length ? moverAt(0) : side;
  return first === 'South' ? Math.floor(ply / 2) + 1 : Math.floor((ply + 1) / 2) + 1;
}

/**
 * The move list in RULES.md notation: the main line a move number a row, each variation in
 * brackets after the turn it replaces, nested as deep as it goes. Every turn is a button
 * that shows the position after it; turns not on the way to the position shown are grey.
 */
export function renderMoves() {
  const list = $('moves');
  list.innerHTML = '';
  const here = page.game.moves;
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
    b.disabled = page.busy;
    if (current) b.setAttribute('aria-current', 'step');
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
  let node = page.tree;
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
  const { state } = page;
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
  mainLineButton().disabled = page.busy;
}

/** "Back to the main line" and the move list's keys, under the list (made once). */
export function mainLineButton() {
  let b = $('btn-main-line');
  if (b) return b;
  b = document.createElement('button');
  b.type = 'button';
  b.id = 'btn-main-line';
  b.hidden = true;
  b.textContent = words.main_line;
  const help = document.createElement('p');
  help.className = 'keys-help';
  help.id = 'moves-keys';
  help.textContent = words.moves_keys;
  $('moves').after(b, help);
  return b;
}
