// The archive: finished games, newest first, each replayable and downloadable.
import { cell } from '../js/page.js';
const words = JSON.parse(document.getElementById('ui-words').textContent);
const lang = document.documentElement.lang || 'en';
const tbody = document.querySelector('#games tbody');
const more = document.getElementById('more');
let offset = 0;
const LIMIT = 50;

function link(href, text) {
  const a = document.createElement('a');
  a.href = href;
  a.textContent = text;
  return a;
}

async function load() {
  const r = await fetch(`/api/online/archive?limit=${LIMIT}&offset=${offset}`);
  const v = await r.json();
  for (const g of v.games) {
    const tr = document.createElement('tr');
    cell(tr, new Date(g.finished).toLocaleString(lang));
    cell(tr, g.ruleset);
    cell(tr, g.south || '?');
    cell(tr, g.north || '?');
    cell(tr, `${g.result} (${words[`termination_${g.termination}`] || (g.termination || '').replaceAll('_', ' ')})`);
    cell(tr, String(g.turns));
    cell(tr, '').append(
      link(`/online/game/${encodeURIComponent(g.id)}`, words.replay),
      ' · ',
      link(`/api/online/rooms/${encodeURIComponent(g.id)}/record`, words.record),
    );
    tbody.appendChild(tr);
  }
  offset += v.games.length;
  more.hidden = v.games.length < LIMIT;
}
more.addEventListener('click', load);
load();
