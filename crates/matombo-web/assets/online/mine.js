// The lobby's lists of games this browser plays in ("Your games": every room it holds a
// seat or a team membership in, its side's turn first, the page's title counting them) and
// of public team games to join (`GET /api/online/teams`; absent on a server without it).
import { fmtClock, fmtDeadline } from './clock.js';
import { isolate } from './names.js';
import { storedRooms } from './stored.js';
import { $, fill } from '../js/page.js';

const words = JSON.parse($('ui-words').textContent);
const lang = document.documentElement.lang || 'en';
const title = document.title;
const REFRESH_MS = 15000;

/** @type {Map<string, { state: any, side: string | null, at: number }>} */
const rooms = new Map();

/** The side this browser plays in a room: kept with the seat, else the member's roster. */
function sideOf(/** @type {any} */ state, /** @type {Record<string, any>} */ entry) {
  if (entry.side === 'south' || entry.side === 'north') return entry.side;
  if (state.teams && entry.member) {
    for (const side of ['south', 'north']) if (state.teams[side].members.some((m) => m.member === entry.member)) return side;
  }
  return null;
}

const waiting = (/** @type {{ state: any, side: string | null }} */ g) =>
  !!g.side && !g.state.outcome && g.state.seats.south.taken && g.state.seats.north.taken && g.state.to_move === g.side;

/** The time the side to move has left, as the room shows it (a deadline for days a turn). */
function timeLeft(/** @type {{ state: any, at: number }} */ g) {
  const c = g.state.clock;
  if (!c) return '';
  if (c.days_per_turn) return c.deadline ? fmtDeadline(c.deadline) : fill(words.days_each, { n: c.days_per_turn });
  const side = g.state.to_move;
  let ms = c[`${side}_ms`];
  if (typeof ms !== 'number') return '';
  if (c.running === side) ms -= Date.now() - g.at;
  return fill(words.time_left, { time: fmtClock(ms) });
}

async function refresh() {
  const stored = storedRooms();
  await Promise.all(
    stored.map(async ([id, entry]) => {
      try {
        const r = await fetch(`/api/online/rooms/${encodeURIComponent(id)}`);
        // Gone (expired, closed) or finished: off the list.
        if (!r.ok) return rooms.delete(id);
        const state = await r.json();
        if (state.outcome) return rooms.delete(id);
        rooms.set(id, { state, side: sideOf(state, entry), at: Date.now() });
      } catch (_) {
        /* the network: keep what was shown */
      }
    }),
  );
  const ids = new Set(stored.map(([id]) => id));
  for (const id of rooms.keys()) if (!ids.has(id)) rooms.delete(id);
  render();
}

function render() {
  const ul = $('your-games');
  const list = [...rooms.entries()].sort(([, a], [, b]) => Number(waiting(b)) - Number(waiting(a)) || b.state.created - a.state.created);
  ul.replaceChildren();
  let mine = 0;
  for (const [id, g] of list) {
    const li = document.createElement('li');
    li.dataset.id = id;
    const turn = waiting(g);
    if (turn) mine += 1;
    li.classList.toggle('your-turn', turn);
    const names = document.createElement('span');
    const seat = (/** @type {string} */ s) => g.state.seats[s].name ? isolate(g.state.seats[s].name) : s === 'north' ? words.north : words.south;
    names.textContent = `${seat('south')} – ${seat('north')}`;
    const what = document.createElement('span');
    what.className = 'muted';
    what.textContent = `${g.state.ruleset}${g.state.teams ? ` · ${words.team_game}` : ''}`;
    const status = document.createElement('strong');
    status.className = 'turn-status';
    status.textContent = turn ? words.your_turn : g.state.seats.north.taken && g.state.seats.south.taken ? words.their_turn : words.waiting_opponent;
    const left = document.createElement('span');
    left.className = 'time-left';
    left.textContent = timeLeft(g);
    const a = document.createElement('a');
    a.href = `/online/game/${encodeURIComponent(id)}?lang=${lang}`;
    a.textContent = words.open_game;
    li.append(names, what, status, left, a);
    ul.append(li);
  }
  $('no-your-games').hidden = list.length > 0;
  $('your-games-panel').dataset.waiting = String(mine);
  document.title = mine ? `(${mine}) ${title}` : title;
}

// ---- public team games ----------------------------------------------------------------

function clockText(/** @type {any} */ c) {
  if (!c) return words.no_clock;
  if (c.days_per_turn) return fill(words.days_each, { n: c.days_per_turn });
  return `${Math.round(c.initial_ms / 60000)} + ${Math.round(c.increment_ms / 1000)}`;
}

/** A join link of the server's, in this page's language. */
function joinHref(/** @type {string} */ link) {
  const [path, hash] = link.split('#');
  return `${path}?lang=${lang}${hash ? `#${hash}` : ''}`;
}

async function refreshPublic() {
  let games;
  try {
    const r = await fetch('/api/online/teams');
    if (!r.ok) return;
    games = (await r.json()).games;
  } catch (_) {
    return;
  }
  if (!Array.isArray(games)) return;
  $('public-teams-panel').hidden = false;
  const ul = $('public-teams');
  ul.replaceChildren();
  for (const g of games) {
    const li = document.createElement('li');
    li.dataset.id = g.id;
    const what = document.createElement('span');
    const mode = words[`team_mode_${g.mode}`] || g.mode;
    what.textContent = `${g.ruleset} · ${mode} · ${clockText(g.clock)}${g.creator ? ` · ${isolate(g.creator)}` : ''}`;
    li.append(what);
    for (const side of ['south', 'north']) {
      const s = g[side];
      if (!s) continue;
      const span = document.createElement('span');
      span.className = 'muted';
      span.textContent = `${side === 'north' ? words.north : words.south}: ${fill(words.members_n, { n: s.members })}`;
      li.append(span);
      if (s.join) {
        const a = document.createElement('a');
        a.href = joinHref(s.join);
        a.className = `join-${side}`;
        a.textContent = fill(words.join_side, { side: side === 'north' ? words.north : words.south });
        li.append(a);
      }
    }
    ul.append(li);
  }
  $('no-public-teams').hidden = games.length > 0;
}

refresh();
refreshPublic();
setInterval(refresh, REFRESH_MS);
setInterval(refreshPublic, REFRESH_MS);
// The time left counts down between refreshes (only its text changes: links stay put).
setInterval(() => {
  for (const li of $('your-games').children) {
    const g = rooms.get(li.dataset.id);
    if (g) li.querySelector('.time-left').textContent = timeLeft(g);
  }
}, 1000);
// Another tab took a seat or joined a team: the list follows at once.
window.addEventListener('storage', () => refresh());
