// The leaderboard of a rating group (docs/api.md): best rating first, the rating deviation
// beside it, provisional ratings marked; the server lists them after the established ones,
// under a heading row of their own (issue 37: a farmed rating does not lead the board).
import { nameElement } from './names.js';
import { $, cell } from '../js/page.js';
const words = JSON.parse($('ui-words').textContent);
const lang = document.documentElement.lang || 'en';
const params = new URLSearchParams(location.search);

const groupName = (g) => words[`group_${g.replace('-', '_')}`] || g;

async function show(group) {
  for (const b of $('groups').querySelectorAll('button')) b.setAttribute('aria-selected', String(b.dataset.group === group));
  const url = new URL(location.href);
  url.searchParams.set('group', group);
  history.replaceState(null, '', url);
  const tbody = $('board-table').querySelector('tbody');
  tbody.replaceChildren();
  const r = await fetch(`/api/online/leaderboard/${encodeURIComponent(group)}?limit=100`);
  if (!r.ok) {
    $('empty').hidden = false;
    return;
  }
  const v = await r.json();
  let heading = false;
  for (const p of v.players) {
    if (p.provisional && !heading) {
      heading = true;
      const tr = document.createElement('tr');
      tr.className = 'provisional-head';
      const th = document.createElement('th');
      th.colSpan = 4;
      th.scope = 'rowgroup';
      th.textContent = words.provisional_players;
      tr.append(th);
      tbody.append(tr);
    }
    const tr = document.createElement('tr');
    cell(tr, String(p.rank));
    const who = cell(tr, '');
    const a = document.createElement('a');
    a.href = `/online/player?id=${encodeURIComponent(p.id)}&lang=${lang}`;
    a.append(nameElement(p.name || p.id));
    who.append(a);
    cell(tr, `${Math.round(p.rating)}${p.provisional ? words.provisional_mark : ''} ±${Math.round(p.rd)}`, p.provisional ? 'provisional' : '');
    cell(tr, String(p.games));
    tbody.append(tr);
  }
  $('empty').hidden = v.players.length > 0;
}

async function start() {
  let groups = [];
  try {
    const r = await fetch('/api/online/groups');
    if (r.ok) groups = await r.json();
  } catch (_) {
    /* no ratings on this server */
  }
  if (!groups.length) {
    $('empty').hidden = false;
    return;
  }
  for (const g of groups) {
    const b = document.createElement('button');
    b.type = 'button';
    b.role = 'tab';
    b.dataset.group = g.group;
    b.textContent = groupName(g.group);
    b.addEventListener('click', () => show(g.group));
    $('groups').append(b);
  }
  const wanted = params.get('group');
  show(groups.some((g) => g.group === wanted) ? wanted : groups[0].group);
}
start();
