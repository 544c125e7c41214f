// Exact results from the server's endgame tables (`matombo serve --egtb DIR`). The board's
// engine runs in the page and has no tables (they are hundreds of megabytes), so the page
// asks the server: GET /api/egtb lists the rulesets it holds, POST /api/egtb/probe answers
// "win in N", "loss in N" or "draw" for the side to move. Offline, or from a server
// without tables, the list is empty and nothing is ever shown.

let listPromise = null;
const answers = new Map();
const MAX_CACHED = 200;

/** The server's tables, [{ruleset, stones}], fetched once ([] when there is no server). */
export function tables() {
  if (!listPromise) {
    listPromise = fetch('/api/egtb', { headers: { accept: 'application/json' } })
      .then((r) => (r.ok ? r.json() : { tables: [] }))
      .then((j) => (Array.isArray(j.tables) ? j.tables : []))
      .catch(() => []);
  }
  return listPromise;
}

/**
 * The tables' answer for the position after `moves` from `start` ({value, distance, text,
 * to_move, best}), or null when the server has no value for it.
 */
export async function probe(start, moves) {
  if (!(await tables()).length) return null;
  const key = JSON.stringify([start, moves]);
  if (answers.has(key)) return answers.get(key);
  let answer = null;
  try {
    const r = await fetch('/api/egtb/probe', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ start, moves }),
    });
    if (r.ok) {
      const a = await r.json();
      if (a.value) answer = a;
    }
  } catch (_) {
    return null; // not cached: the network may come back
  }
  if (answers.size >= MAX_CACHED) answers.delete(answers.keys().next().value);
  answers.set(key, answer);
  return answer;
}

/** "Endgame tables: win in 7" in the page's language, for the side to move. */
export function describe(a, words) {
  const fill = (t) => t.replace('{n}', String(a.distance));
  if (a.value === 'win') return fill(words.egtb_win);
  if (a.value === 'loss') return fill(words.egtb_loss);
  return words.egtb_draw;
}

/**
 * Adds the tables' result to `el`'s text (e.g. the hint) when the server knows it, unless
 * the text has changed meanwhile (the position moved on).
 */
export async function noteExact(el, start, moves, words) {
  const before = el.textContent;
  const a = await probe(start, moves);
  if (a && el.textContent === before) el.textContent = `${before} · ${describe(a, words)}`;
}

let shown = 0;

/**
 * Shows the tables' result in a line of its own at the end of `panel` (made on first use,
 * id "egtb-result"), emptied at once and filled when the server answers.
 */
export async function showExact(panel, start, moves, words) {
  let line = panel.querySelector('#egtb-result');
  if (!line) {
    line = document.createElement('p');
    line.id = 'egtb-result';
    line.className = 'egtb-result';
    line.setAttribute('aria-live', 'polite');
    panel.append(line);
  }
  line.textContent = '';
  const mine = ++shown;
  const a = await probe(start, moves);
  if (a && mine === shown) line.textContent = describe(a, words);
}

/** Empties the line showExact made (analysis switched off). */
export function clearExact(panel) {
  shown++;
  const line = panel.querySelector('#egtb-result');
  if (line) line.textContent = '';
}
