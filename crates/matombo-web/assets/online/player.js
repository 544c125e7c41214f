// A player's ratings and game history (the visitor's own, or `?id=`'s).
import { isolate, nameElement } from './names.js';
import { $, cell, fill } from '../js/page.js';
const words = JSON.parse($('ui-words').textContent);
const lang = document.documentElement.lang || 'en';

const groupName = (g) => words[`group_${g.replace('-', '_')}`] || g;
const rating = (r) => (r ? `${Math.round(r.rating)}${r.provisional ? words.provisional_mark : ''} ±${Math.round(r.rd)}` : '–');

async function start() {
  let id = new URLSearchParams(location.search).get('id');
  try {
    id = id || localStorage.getItem('matombo-player-id');
  } catch (_) {
    /* no stored identity */
  }
  if (!id) {
    $('empty').hidden = false;
    return;
  }
  const r = await fetch(`/api/online/players/${encodeURIComponent(id)}`);
  if (!r.ok) {
    $('empty').hidden = false;
    return;
  }
  const p = await r.json();
  $('player-title').replaceChildren(nameElement(p.name || fill(words.anonymous_player, { id: p.id.slice(0, 4) })));
  for (const [g, v] of Object.entries(p.ratings || {})) {
    const li = document.createElement('li');
    li.textContent = `${groupName(g)}: ${rating(v)} · ${fill(words.n_games, { n: v.games })}`;
    $('ratings').append(li);
  }
  const tbody = $('games').querySelector('tbody');
  for (const g of p.games || []) {
    const tr = document.createElement('tr');
    cell(tr, g.finished ? new Date(g.finished).toLocaleString(lang) : '');
    cell(tr, g.ruleset);
    cell(tr, g.opponent ? isolate(g.opponent.name || g.opponent.id) : '?');
    const change = g.before && g.after ? ` ${Math.round(g.before.rating)} → ${Math.round(g.after.rating)}` : '';
    cell(tr, `${g.result}${g.rated ? change : ` · ${words.unrated}`}`);
    const a = document.createElement('a');
    a.href = `/online/game/${encodeURIComponent(g.room)}`;
    a.textContent = words.replay;
    cell(tr, '').append(a);
    tbody.append(tr);
  }
  $('empty').hidden = (p.games || []).length > 0;
}
start();
