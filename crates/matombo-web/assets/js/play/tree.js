// The tree of lines played on the board page (page.tree, described in state.js).
import { page } from './state.js';

/** A tree holding one line. */
export function lineTree(/** @type {string[]} */ moves) {
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
export function nodeAt(/** @type {string[]} */ moves) {
  let n = page.tree;
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
 * @param {string[]} moves
 */
export function addLine(moves, promote = false) {
  let n = page.tree;
  for (const t of moves) {
    let i = n.kids.findIndex((k) => k.t === t);
    if (i < 0) i = n.kids.push({ t, kids: [] }) - 1;
    if (promote && i > 0) n.kids.unshift(...n.kids.splice(i, 1));
    n = n.kids[promote ? 0 : i];
  }
}

/** The turns after `moves` along their line (first children to the end). */
export function continuation(moves = page.game.moves) {
  const out = [];
  let n = nodeAt(moves);
  while (n && n.kids.length) {
    n = n.kids[0];
    out.push(n.t);
  }
  return out;
}

/** How many turns of `moves` lie on the main line. */
export function onMainLine(/** @type {string[]} */ moves) {
  let n = page.tree;
  let k = 0;
  while (k < moves.length && n.kids.length && n.kids[0].t === moves[k]) {
    n = n.kids[0];
    k++;
  }
  return k;
}
