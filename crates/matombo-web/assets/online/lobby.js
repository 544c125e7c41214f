// The lobby: open challenges and games in progress, pushed live by the lobby WebSocket
// (docs/api.md, "The lobby WebSocket"); create, accept, cancel; quick pairing; the
// player's identity (a secret kept in this browser, a display name, a transfer code).
// Without the lobby (a server that has none) the form still makes a link game.
import './mine.js';
import { isolate } from './names.js';
import { writeRoom } from './stored.js';
import { $, fill } from '../js/page.js';
const words = JSON.parse($('ui-words').textContent);
const lang = document.documentElement.lang || 'en';
const SECRET_KEY = 'matombo-player-secret';
const ID_KEY = 'matombo-player-id';
const NAME_KEY = 'matombo-online-name';
// Quick pairing: one button per rating group (docs/api.md), with a clock of 5 minutes and
// 5 seconds a turn.
const QUICK = [
  ['tsoro', 21],
  ['tsoro', 8],
  ['nsolo', 8],
  ['nsolo', 24],
];
const QUICK_CLOCK = { initial_ms: 300000, increment_ms: 5000 };

const get = (k) => {
  try {
    return localStorage.getItem(k);
  } catch (_) {
    return null;
  }
};
const put = (k, v) => {
  try {
    localStorage.setItem(k, v);
  } catch (_) {
    /* storage may be unavailable */
  }
};

/** The player secret: 40 letters and digits from the browser's random source, made once. */
function secret() {
  let s = get(SECRET_KEY);
  if (s && /^[A-Za-z0-9]{32,64}$/.test(s)) return s;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = crypto.getRandomValues(new Uint8Array(40));
  s = [...bytes].map((b) => alphabet[b % 62]).join('');
  put(SECRET_KEY, s);
  return s;
}

let ws = null;
let me = null;
let seeking = null;
let retry = 500;
let lobbyOk = false;
let watchOnly = false;
let triedWatching = false;
const challenges = new Map();
const games = new Map();
const pendingChallenge = new URLSearchParams(location.search).get('challenge');

// ---- formatting -------------------------------------------------------------------

const gameNames = Object.fromEntries([...$('create-game').options].map((o) => [o.value, o.textContent]));

function rulesetText(c) {
  let t = `${gameNames[c.game] || c.game} 4 × ${c.size}`;
  if (c.game === 'tsoro' && (c.heads !== 2 || c.bonus !== 2)) t += ` · ${words.heads} ${c.heads} · ${words.bonus_holes} ${c.bonus}`;
  return t;
}

function clockText(clock) {
  if (!clock) return words.no_clock;
  if (clock.days_per_turn) return fill(words.days_each, { n: clock.days_per_turn });
  return `${Math.round(clock.initial_ms / 60000)} + ${Math.round(clock.increment_ms / 1000)}`;
}

/** A rating as "1500? ±350": the question mark says provisional. */
function ratingText(r) {
  if (!r || r.rating == null) return '–';
  const mark = r.provisional ? words.provisional_mark : '';
  return `${Math.round(r.rating)}${mark} ±${Math.round(r.rd)}`;
}

function playerName(p) {
  if (!p) return '?';
  return isolate(p.name || fill(words.anonymous_player, { id: (p.id || '').slice(0, 4) }));
}

function cell(tr, text, cls) {
  const td = document.createElement('td');
  td.textContent = text;
  if (cls) td.className = cls;
  tr.append(td);
  return td;
}

function button(text, onClick, cls = '') {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  if (cls) b.className = cls;
  b.addEventListener('click', onClick);
  return b;
}

// ---- lists ------------------------------------------------------------------------

function renderChallenges() {
  const tbody = $('challenges').querySelector('tbody');
  tbody.replaceChildren();
  const list = [...challenges.values()].sort((a, b) => a.created - b.created);
  for (const c of list) {
    const mine = me && c.by && c.by.id === me.id;
    const tr = document.createElement('tr');
    tr.dataset.id = c.id;
    tr.classList.toggle('mine', !!mine);
    cell(tr, `${rulesetText(c)}${c.rated ? '' : ` · ${words.unrated}`}${c.open ? '' : ` · ${words.link_only}`}`);
    cell(tr, clockText(c.clock));
    cell(tr, playerName(c.by));
    cell(tr, ratingText(c.by), c.by && c.by.provisional ? 'provisional' : '');
    const td = cell(tr, '');
    if (mine) {
      td.append(button(words.cancel, () => send({ type: 'cancel', id: c.id }), 'cancel'));
      if (c.link) {
        const a = document.createElement('a');
        a.href = c.link;
        a.textContent = words.challenge_link;
        td.append(' ', a);
      }
    } else {
      td.append(button(words.accept, () => send({ type: 'accept', id: c.id }), 'primary accept'));
    }
    tbody.append(tr);
  }
  $('no-challenges').hidden = list.length > 0;
  $('challenges').hidden = list.length === 0;
}

function renderGames() {
  const ul = $('live-games');
  ul.replaceChildren();
  for (const g of games.values()) {
    const li = document.createElement('li');
    li.dataset.id = g.id;
    const who = document.createElement('span');
    who.textContent = `${playerName(g.south)} – ${playerName(g.north)}`;
    const what = document.createElement('span');
    what.className = 'muted';
    what.textContent = `${g.ruleset} · ${clockText(g.clock)}${g.rated ? '' : ` · ${words.unrated}`}`;
    const a = document.createElement('a');
    a.href = `/online/game/${encodeURIComponent(g.id)}?lang=${lang}`;
    a.textContent = words.watch;
    li.append(who, what, a);
    ul.append(li);
  }
  $('no-live').hidden = games.size > 0;
}

function renderMe() {
  if (!me) {
    if (!watchOnly) $('identity-info').textContent = '';
    return;
  }
  const ratings = Object.entries(me.ratings || {})
    .map(([g, r]) => `${words[`group_${g.replace('-', '_')}`] || g}: ${ratingText(r)}`)
    .join(' · ');
  $('identity-info').textContent = `${playerName(me)}${ratings ? ` — ${ratings}` : ''}`;
  if (me.name && document.activeElement !== $('player-name')) $('player-name').value = me.name;
  put(ID_KEY, me.id);
  $('my-games').href = `/online/player?id=${encodeURIComponent(me.id)}&lang=${lang}`;
}

function renderSeeking() {
  const box = $('quick-status');
  box.replaceChildren();
  for (const b of $('quick-buttons').querySelectorAll('button')) b.disabled = !lobbyOk || !!seeking;
  if (!seeking) return;
  box.append(fill(words.seeking, { game: seeking.ruleset }), ' ');
  box.append(button(words.stop_seeking, () => send({ type: 'unseek' }), 'unseek'));
}

// ---- the lobby connection -------------------------------------------------------------

function send(msg) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
}

function handle(v) {
  switch (v.type) {
    case 'welcome':
      lobbyOk = true;
      me = v.you;
      challenges.clear();
      for (const c of v.challenges || []) challenges.set(c.id, c);
      games.clear();
      for (const g of v.games || []) games.set(g.id, g);
      seeking = v.seeking || null;
      // The server's own rules of rated games (the page's text has the defaults).
      if (v.rated_rules) {
        $('rated-rules').textContent = fill(words.rated_rules, {
          turns: v.rated_rules.min_turns_each,
          games: v.rated_rules.per_pair_per_day,
        });
      }
      $('lobby-status').textContent = '';
      // A name typed while the socket was opening reached no one: send it now.
      {
        const typed = (get(NAME_KEY) || '').trim();
        if (me && typed && me.name !== typed) send({ type: 'name', name: typed });
      }
      if (pendingChallenge) offerInvitedChallenge();
      break;
    case 'you':
      me = v.player;
      break;
    case 'challenge_added':
      challenges.set(v.challenge.id, v.challenge);
      break;
    case 'challenge_removed':
      challenges.delete(v.id);
      break;
    case 'game_added':
      games.set(v.game.id, v.game);
      break;
    case 'game_removed':
      games.delete(v.id);
      break;
    case 'seeking':
      seeking = v.seek;
      break;
    case 'matched':
      // Our seat in the new room: its token kept here, then the room.
      put(`matombo-online-${v.room}`, JSON.stringify({ token: v.token, side: v.side }));
      location.href = v.links.seat;
      return;
    case 'transfer_code':
      $('transfer-code').textContent = v.code;
      $('transfer-message').textContent = fill(words.transfer_expires, {
        time: new Date(v.expires).toLocaleTimeString(lang, { hour: '2-digit', minute: '2-digit' }),
      });
      return;
    case 'error':
      if (v.error === 'bad_code') $('transfer-message').textContent = v.message;
      else $('error').textContent = v.message;
      return;
    default:
      return;
  }
  renderMe();
  renderChallenges();
  renderGames();
  renderSeeking();
}

function connect(extra = {}) {
  const proto = location.protocol === 'https:' ? 'wss' : 'ws';
  const socket = new WebSocket(`${proto}://${location.host}/api/online/lobby/ws`);
  ws = socket;
  let welcomed = false;
  socket.onopen = () => {
    // Refused an identity (e.g. too many new players from one address): watch the lists.
    /** @type {Record<string, any>} */
    const hello = watchOnly ? { type: 'hello' } : { type: 'hello', player: secret(), ...extra };
    const name = get(NAME_KEY);
    if (name && !hello.name) hello.name = name;
    socket.send(JSON.stringify(hello));
  };
  socket.onmessage = (m) => {
    let v;
    try {
      v = JSON.parse(m.data);
    } catch (_) {
      return;
    }
    if (v.type === 'welcome') {
      welcomed = true;
      retry = 500;
    } else if (v.type === 'error' && !welcomed && !watchOnly) {
      watchOnly = true;
      $('identity-info').textContent = v.message;
    }
    handle(v);
  };
  socket.onclose = (e) => {
    if (ws !== socket) return;
    if (!welcomed && watchOnly && !triedWatching) {
      triedWatching = true;
      connect();
      return;
    }
    if (!welcomed && !lobbyOk) {
      // No lobby on this server: the form makes link games, nothing is listed.
      $('lobby-status').textContent = words.lobby_unavailable;
      renderMe();
      renderSeeking();
      return;
    }
    lobbyOk = false;
    $('lobby-status').textContent = words.reconnecting;
    renderSeeking();
    // 1012: the server restarts (or drains for another node): try again at once.
    if (e.code === 1012) retry = 100;
    setTimeout(() => ws === socket && connect(), retry);
    retry = Math.min(retry * 2, 10000);
  };
}

/** Opened with `?challenge=<id>` (a link-only challenge): one click accepts it. */
function offerInvitedChallenge() {
  if ($('invited')) return;
  const p = document.createElement('p');
  p.id = 'invited';
  p.className = 'panel';
  p.append(words.invited_challenge, ' ', button(words.accept, () => send({ type: 'accept', id: pendingChallenge }), 'primary'));
  $('lobby').querySelector('.lead').after(p);
}

// ---- the forms ----------------------------------------------------------------------

function fillSizes() {
  const opt = $('create-game').selectedOptions[0];
  const select = $('create-size');
  select.replaceChildren();
  for (const n of opt.dataset.sizes.split(',')) {
    const o = document.createElement('option');
    o.value = n;
    o.textContent = `4 × ${n}`;
    o.selected = n === opt.dataset.default;
    select.append(o);
  }
  for (const e of document.querySelectorAll('.tsoro-only')) e.hidden = opt.value !== 'tsoro';
}
$('create-game').addEventListener('change', fillSizes);
fillSizes();

/** A team game's own fields show only when one is chosen (and vote time only for votes). */
function showTeamFields() {
  const mode = $('create-teams').value;
  for (const e of document.querySelectorAll('#create .team-only')) e.hidden = !mode;
  for (const e of document.querySelectorAll('#create .vote-only')) e.hidden = mode !== 'vote';
}
$('create-teams').addEventListener('change', showTeamFields);
showTeamFields();

function formRuleset(f) {
  const game = f.get('game');
  let r = `${game}:${f.get('size')}`;
  if (game === 'tsoro') {
    if (f.get('heads') !== '2') r += `,heads=${f.get('heads')}`;
    if (f.get('bonus') !== '2') r += `,bonus=${f.get('bonus')}`;
  }
  return r;
}

$('create').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  $('error').textContent = '';
  const f = new FormData($('create'));
  const ruleset = formRuleset(f);
  const minutes = Number(f.get('minutes') || 0);
  const days = Number(f.get('days') || 0);
  // Days a turn (a correspondence game) rather than minutes, when chosen.
  const clock = days
    ? { days_per_turn: days }
    : minutes > 0
      ? { initial_ms: Math.round(minutes * 60000), increment_ms: Math.round(Number(f.get('increment') || 0) * 1000) }
      : null;
  const open = f.get('open') === 'open';
  const mode = f.get('teams');
  /** @type {Record<string, any> | null} */
  let teams = null;
  if (mode) {
    teams = { mode };
    if (mode === 'vote') teams.vote_ms = Math.round(Number(f.get('vote_s') || 30) * 1000);
    // Sent only when asked for: a server without public team games refuses the field.
    if (f.get('public') === 'on') teams.public = true;
  }
  // Team games are made as rooms with links to join each side (the lobby's challenges
  // are for two people).
  if (lobbyOk && !teams) {
    const msg = { type: 'challenge', ruleset, side: f.get('side'), rated: f.get('rated') === 'on', open };
    if (clock) msg.clock = clock;
    send(msg);
    return;
  }
  // A team game, or without the lobby: a room with links to share (unrated).
  const name = (get(NAME_KEY) || '').trim();
  /** @type {Record<string, any>} */
  const body = { ruleset, side: f.get('side'), name };
  if (clock) body.clock = clock;
  if (teams) body.teams = teams;
  try {
    const r = await fetch('/api/online/rooms', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const v = await r.json();
    if (!r.ok) {
      $('error').textContent = v.message || words.create_failed;
      return;
    }
    writeRoom(v.id, { token: v.token, side: v.side, invite: v.invite, invites: v.invites, member: v.member, name });
    location.href = `/online/game/${v.id}?lang=${lang}#seat=${v.token}`;
  } catch (e) {
    $('error').textContent = `${words.create_failed}: ${e}`;
  }
});

$('name-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const name = $('player-name').value.trim().slice(0, 24);
  put(NAME_KEY, name);
  if (lobbyOk && name) send({ type: 'name', name });
  else renderMe();
});
$('player-name').value = get(NAME_KEY) || '';

$('btn-transfer-show').addEventListener('click', () => send({ type: 'transfer_code' }));
$('transfer-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const code = $('transfer-input').value.trim().toUpperCase();
  if (!code) return;
  // The identity moves to a fresh secret of this browser.
  try {
    localStorage.removeItem(SECRET_KEY);
  } catch (_) {
    /* a fresh one is made anyway */
  }
  const old = ws;
  ws = null;
  if (old) old.close();
  lobbyOk = false;
  connect({ transfer: code });
});

for (const [game, n] of QUICK) {
  const b = button(`${gameNames[game] || game} 4 × ${n}`, () => send({ type: 'seek', ruleset: `${game}:${n}`, clock: QUICK_CLOCK, rated: true }), 'quick');
  b.dataset.ruleset = `${game}:${n}`;
  $('quick-buttons').append(b);
}

renderChallenges();
renderGames();
renderSeeking();
connect();
