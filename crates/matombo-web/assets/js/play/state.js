// The board page's shared state: one object, `page`, read by every module of the page.
// Who writes what: the game flow (game.js) the game, the tree, the engine's state, `busy`,
// `thinking`, the hint and the generation; the view (view.js) the board and the last turn's
// marks; opening a link (links.js), loading a record (records.js) and the tab's stored game
// (play.js) replace the game and its tree. The other modules keep their own state private.
import { request } from '../engine.js';
import { $, uiWords } from '../page.js';
import { TurnController } from '../turn.js';

export const words = uiWords();
export const root = $('play');
export const params = new URLSearchParams(location.search);

/** A game at `start` with no turn played yet. */
export const gameAt = (/** @type {string} */ start) => ({ start, moves: [], pending: [], resigned: null });

// 'ai': against the computer; 'two': two people on this device; 'analysis': the analysis
// board, where a person plays both sides and the computer never replies.
const MODES = ['ai', 'two', 'analysis'];

export const page = {
  // The game: its start, the turns to the position shown, the decisions of the turn being
  // built, and a resignation ('S' / 'N') after the last turn.
  game: gameAt(root.dataset.start),
  // Every line played from the start, a tree of turns: each node { t: token, kids: [...] }. A
  // node's first child continues its line, the others are variations branching there; the
  // root's first line is the main line. The position shown (game.moves) is always a path in it.
  tree: { kids: [] },
  settings: {
    mode: MODES.includes(params.get('mode')) ? params.get('mode') : 'ai',
    human: params.get('side') === 'N' ? 'North' : 'South',
    level: params.get('level') || 'easy',
  },
  // The engine's answer for the position shown (with the turn being built).
  state: null,
  board: null,
  // A turn is being sent or animated; the computer is thinking.
  busy: false,
  thinking: false,
  // { hole, at }: the hint shown, for the position after `at` turns.
  hint: null,
  // Bumped by New game and by loading a game: a reply for an older game is dropped.
  generation: 0,
  // The last complete turn: what it did, for its marks and for "Replay last turn".
  // { key, before (rows), events, mover, path (holes sown into) } or null while unknown.
  lastTurn: null,
};

// The turn being built: the engine's answers to each click (turn.js).
export const turn = new TurnController((body) => request('/api/game', body));

// The engine writes sides as the JSON API does, "south" / "north"; this page says "South" / "North".
export const pageSide = (side) => (side === 'south' ? 'South' : side === 'north' ? 'North' : side);

/** The side that plays turn `ply` (0-based) of this game: the engine names the first mover; turns alternate. */
export function moverAt(/** @type {number} */ ply) {
  const first = pageSide(page.state.start_to_move);
  return ply % 2 === 0 ? first : first === 'South' ? 'North' : 'South';
}

/** Whether a search ended because it was stopped (engine.js's Stopped), not failed. */
export const stopped = (e) => e && e.name === 'AbortError';

/** Whether the person (not the computer) decides now. */
export const humanToDecide = () =>
  page.state && !page.state.outcome && (page.settings.mode !== 'ai' || pageSide(page.state.to_move) === page.settings.human);

// The tab's game is kept across reloads and language switches, under the page's start.
export const storeKey = () => `matombo-play:${root.dataset.start}`;

export function save() {
  try {
    sessionStorage.setItem(storeKey(), JSON.stringify({ game: page.game, settings: page.settings, tree: page.tree }));
  } catch (_) {
    /* storage may be unavailable */
  }
}
