// The board page's address: the start it asks for, the shared line it opens, the link to
// the position shown (kept in the address bar, "Copy link") and the Review game link.
import { request } from '../engine.js';
import { $, fill, message, selectText } from '../page.js';
import { gameAt, page, params, root, words } from './state.js';
import { continuation, lineTree, nodeAt } from './tree.js';

/**
 * The start the address asks for (position, ruleset, or game and size). A page shown at
 * another address than it was made for (a static site's one board page, the offline copy
 * of another board) takes that start from the engine and retitles itself.
 */
export async function adoptAddress() {
  const asked = params.get('start') || params.get('position') || params.get('ruleset');
  const g = params.get('game');
  if (!asked && g !== 'tsoro' && g !== 'nsolo') return;
  let state;
  try {
    // A game and its options: the engine names the variant.
    const variant = { game: g };
    for (const key of g === 'tsoro' ? ['size', 'heads', 'bonus'] : ['size']) {
      if (params.get(key)) variant[key] = Number(params.get(key));
    }
    const start = asked || (await request('/api/ruleset', variant)).name;
    state = await request('/api/game', { start });
  } catch (_) {
    return; // a bad address keeps the page's own start
  }
  if (state.position === root.dataset.start) return;
  const info = state.ruleset;
  const names = JSON.parse(root.dataset.names || '{}');
  root.dataset.start = state.position;
  root.dataset.game = info.game;
  const title = document.querySelector('.play-title');
  title.firstChild.textContent = `${names[info.game] || info.game} `;
  title.querySelector('.ruleset').textContent = info.name;
  document.title = `${names[info.game] || info.game} ${info.name} – matombo`;
  const rules = new URL(root.dataset.rules.replace('GAME', info.game), location.href);
  rules.searchParams.set('size', String(info.n));
  $('rules-link').href = rules.href;
}

/**
 * The line a shared link carries, in the links the review page writes too (docs/review.md,
 * "Links"): `ruleset=R` for the standard start or `position=POS` for another (adoptAddress
 * reads them), `moves=T1 T2 …` (tokens separated by spaces, or commas), `turn=N` the
 * position after the first N turns (default 0), `resigned=S|N` after the last turn.
 */
export function linkLine() {
  const m = params.get('moves');
  if (!m || !m.trim()) return null;
  const moves = m.split(/[\s,]+/).filter(Boolean);
  const asked = Number.parseInt(params.get('turn') ?? '', 10);
  const turn = Number.isFinite(asked) ? Math.max(0, Math.min(asked, moves.length)) : 0;
  const r = params.get('resigned');
  return { moves, turn, resigned: r === 'S' || r === 'N' ? r : null };
}

// The standard start of each ruleset seen, to write `ruleset` rather than `position`.
const standardStarts = new Map();

function standardStart(name) {
  if (!standardStarts.has(name)) {
    standardStarts.set(name, null);
    request('/api/game', { start: name })
      .then((st) => {
        standardStarts.set(name, st.position);
        if (page.state) updateAddress();
      })
      .catch(() => {});
  }
  return standardStarts.get(name);
}

/** The address of the position shown: the start, the line shown and the turn looked at. */
function linkHere() {
  const { game } = page;
  const q = new URLSearchParams();
  const name = page.state.ruleset.name;
  if (standardStart(name) === game.start) q.set('ruleset', name);
  else q.set('position', game.start);
  // The line shown (a variation if one is looked at), to its end; other lines are left out.
  const line = [...game.moves, ...continuation()];
  if (line.length) {
    q.set('moves', line.join(' '));
    q.set('turn', String(game.moves.length));
  }
  if (game.resigned && !continuation().length) q.set('resigned', game.resigned);
  // The page's language, and the analysis budget asked for (tests ask for a small one).
  for (const keep of ['lang', 'analyse_ms']) if (params.get(keep)) q.set(keep, params.get(keep));
  return `${location.origin}${location.pathname}?${q}`;
}

/** Keeps the address bar on the position shown, so that it can be shared at any time. */
export function updateAddress() {
  const url = linkHere();
  if (url !== location.href) history.replaceState(history.state, '', url);
}

/**
 * Opens the line of a shared link. The same line in this tab's stored game (a reload) keeps
 * that game and its settings; another line opens on the analysis board. A line that cannot
 * be played is refused with a message and the page starts afresh.
 * @param {{ moves: string[], turn: number, resigned: string | null }} link
 */
export async function openLink(link) {
  const { game } = page;
  if (game.start === root.dataset.start && nodeAt(link.moves)) {
    const at = link.moves.slice(0, link.turn);
    if (at.join(' ') !== game.moves.join(' ')) {
      game.moves = at;
      game.pending = [];
      game.resigned = null;
    }
    return;
  }
  try {
    await request('/api/game', { start: root.dataset.start, moves: link.moves });
  } catch (e) {
    message(fill(words.link_bad, { error: e.message }), 'error');
    page.game = gameAt(root.dataset.start);
    page.tree = { kids: [] };
    return;
  }
  const end = link.turn === link.moves.length;
  page.game = { ...gameAt(root.dataset.start), moves: link.moves.slice(0, link.turn), resigned: end ? link.resigned : null };
  page.tree = lineTree(link.moves);
  // The analysis board analyses from the start (play.js turns it on).
  page.settings.mode = 'analysis';
}

/** "Copy link": the address of the position shown (the address bar holds the same). */
export function copyLinkButton() {
  const b = document.createElement('button');
  b.type = 'button';
  b.id = 'btn-copy-link';
  b.textContent = words.copy_link;
  b.addEventListener('click', copyLink);
  $('btn-copy').after(b);
  const line = document.createElement('p');
  line.className = 'position-line link-line';
  line.innerHTML = '<code id="link-text"></code>';
  $('position-text').parentElement.after(line);
}

async function copyLink() {
  const url = linkHere();
  $('link-text').textContent = url;
  try {
    await navigator.clipboard.writeText(url);
    message(words.link_copied, 'ok');
  } catch (_) {
    selectText($('link-text'));
    message(words.copy_link_by_hand, 'ok');
  }
}

/**
 * Hook of the review page (review.js, docs/review.md "Links"): "Review game" opens the game
 * so far there, its address made when the link is used.
 */
export function reviewLink() {
  for (const kind of ['pointerdown', 'focus', 'click']) {
    $('review-link').addEventListener(kind, (e) => {
      const { game } = page;
      const url = new URL(e.currentTarget.getAttribute('href'), location.href);
      url.searchParams.set('position', game.start);
      if (game.moves.length) url.searchParams.set('moves', game.moves.join(' '));
      else url.searchParams.delete('moves');
      if (game.resigned) url.searchParams.set('resigned', game.resigned);
      else url.searchParams.delete('resigned');
      e.currentTarget.href = url.href;
    });
  }
}
