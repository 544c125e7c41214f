// The puzzle rating of this browser's online identity (docs/api.md, "Puzzle ratings"): the
// lobby keeps the identity's secret in localStorage; with it, the server rates each attempt
// and keeps the rating. Without one, on the static site or offline, the page keeps its
// own rating in this browser (puzzles.js).

const SECRET_KEY = 'matombo-player-secret';

/**
 * The lobby's player secret, when the page is served by a matombo server (the static
 * site's pages are `puzzles-{lang}.html`); else null.
 * @returns {string | null}
 */
export function onlineSecret() {
  if (!location.pathname.startsWith('/puzzles')) return null;
  try {
    const s = localStorage.getItem(SECRET_KEY);
    return s && /^[A-Za-z0-9]{32,64}$/.test(s) ? s : null;
  } catch (_) {
    return null;
  }
}

/**
 * A JSON request with the secret; null when the server cannot be reached or refuses.
 * @param {string} secret
 * @param {string} path
 * @param {object} [body]
 */
async function call(secret, path, body) {
  try {
    const init = {
      method: body ? 'POST' : 'GET',
      headers: { Authorization: `Bearer ${secret}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    };
    const r = await fetch(path, init);
    return r.ok ? await r.json() : null;
  } catch (_) {
    return null;
  }
}

/**
 * The identity's rating on the server.
 * @param {string} secret
 * @returns {Promise<import('../wire.js').PuzzleRating | null>}
 */
export function fetchRating(secret) {
  return call(secret, '/api/online/puzzles/rating');
}

/**
 * Posts an attempt; the server rates it (the first attempt at a puzzle counts).
 * @param {string} secret
 * @param {string} id the puzzle
 * @param {boolean} solved
 * @returns {Promise<import('../wire.js').AttemptAnswer | null>}
 */
export function postAttempt(secret, id, solved) {
  return call(secret, `/api/online/puzzles/${encodeURIComponent(id)}/attempt`, { solved });
}
