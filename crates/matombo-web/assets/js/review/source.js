// The review page's game: read from a link, a record or an archived online game, and
// replayed turn by turn in the engine with the turn controller (turn.js), as the board page
// plays its turns: each position's board and where each turn's sowing ended.
import { request } from '../engine.js';
import { $, fill, uiWords } from '../page.js';
import { startHole, TurnController } from '../turn.js';

const words = uiWords();
const ask = (body) => request('/api/game', body);

/**
 * A game to review: its start, turns, resignation ('S' / 'N' / null), tags ([[k, v]]),
 * ruleset, outcome, whether the start is the ruleset's own, every position's board, and
 * `ends`: `${turns before}:${token}` → the hole that turn's sowing ended in.
 * @typedef {{ start: string, moves: string[], resigned: string | null, tags: string[][], info: any, outcome: any,
 *   standard: boolean, positions: { rows: import('../wire.js').Rows, toMove: string, position: string }[],
 *   ends: Map<string, string> }} ReviewGame
 */

/** The hole a turn's sowing ended in: its last lap's, or its start if it sowed none. */
const endHole = (token, events) => {
  const laps = events.filter((e) => e.type === 'lap');
  return laps.length ? laps[laps.length - 1].last : startHole(token);
};

/**
 * Replays a game in the engine: every position's board, the ruleset, the outcome.
 * @returns {Promise<ReviewGame>}
 */
async function readGame({ start, moves, resigned = null, tags = [] }) {
  const r = resigned ? (/^s/i.test(resigned) ? 'S' : 'N') : null;
  // The whole game first: a turn that is not legal is refused with its number.
  const end = await ask({ start, moves, ...(r ? { resigned: r } : {}) });
  const turns = new TurnController(ask);
  let s = await turns.begin({ start: end.start });
  const positions = [];
  const ends = new Map();
  for (const token of end.moves) {
    positions.push({ rows: s.rows, toMove: s.to_move, position: s.position });
    const before = s.moves.length;
    s = (await turns.play(token)).next;
    ends.set(`${before}:${token}`, endHole(token, s.events));
  }
  positions.push({ rows: end.rows, toMove: end.to_move, position: end.position });
  const standard = (await ask({ start: end.ruleset.name })).position === end.start;
  return { start: end.start, moves: end.moves, resigned: r, tags, info: end.ruleset, outcome: end.outcome, standard, positions, ends };
}

/**
 * The hole the sowing of `token`, played after the first `at` turns, ended in (the engine
 * asked once).
 * @param {ReviewGame} game
 * @param {number} at
 * @param {string} token
 */
export async function endOf(game, at, token) {
  const key = `${at}:${token}`;
  if (!game.ends.has(key)) {
    const turns = new TurnController(ask);
    await turns.begin({ start: game.start, moves: game.moves.slice(0, at) });
    game.ends.set(key, endHole(token, (await turns.play(token)).next.events));
  }
  return game.ends.get(key);
}

/** The game a record holds (refused with the reader's line and column). */
export async function gameOfRecord(/** @type {string} */ text) {
  if (!text.trim()) throw new Error(words.review_no_game);
  let a;
  try {
    a = await request('/api/record/import', { text });
  } catch (e) {
    throw new Error(fill(words.review_bad_record, { message: e.message }));
  }
  return readGame({ start: a.start, moves: a.moves, resigned: a.resigned, tags: a.tags });
}

/** An online game's id, from the id itself or any link to the game. */
function onlineId(text) {
  const m = text.trim().match(/([A-Za-z0-9]{1,32})\/?(?:[?#].*)?$/);
  return m ? m[1] : null;
}

/** The record of an archived online game, from the server that holds it. */
export async function onlineRecord(/** @type {string} */ text) {
  const id = onlineId(text);
  if (!id) throw new Error(fill(words.review_online_failed, { id: text.trim(), message: '?' }));
  let r;
  try {
    r = await fetch(`/api/online/rooms/${id}/record`);
  } catch (e) {
    throw new Error(fill(words.review_online_failed, { id, message: e.message }));
  }
  if (!r.ok) {
    const body = await r.json().catch(() => ({}));
    throw new Error(fill(words.review_online_failed, { id, message: body.message || r.status }));
  }
  return r.text();
}

/** The game an address names (docs/review.md, "Links"), or null if it names none. */
export async function gameOfAddress(/** @type {URLSearchParams} */ params) {
  const start = params.get('position') || params.get('ruleset');
  if (start) {
    const moves = (params.get('moves') || '').split(/\s+/).filter(Boolean);
    try {
      return await readGame({ start, moves, resigned: params.get('resigned') });
    } catch (e) {
      throw new Error(fill(words.review_bad_link, { message: e.message }));
    }
  }
  if (params.get('online')) {
    if ($('online-id')) $('online-id').value = params.get('online');
    return gameOfRecord(await onlineRecord(params.get('online')));
  }
  return null;
}
