// The archive: finished games, newest first, each replayable and downloadable.
const tbody = document.querySelector('#games tbody');
const more = document.getElementById('more');
let offset = 0;
const LIMIT = 50;

function cell(tr, text) {
  const td = document.createElement('td');
  td.textContent = text;
  tr.appendChild(td);
  return td;
}

async function load() {
  const r = await fetch(`/api/online/archive?limit=${LIMIT}&offset=${offset}`);
  const v = await r.json();
  for (const g of v.games) {
    const tr = document.createElement('tr');
    cell(tr, new Date(g.finished).toLocaleString());
    cell(tr, g.ruleset);
    cell(tr, g.south || '?');
    cell(tr, g.north || '?');
    cell(tr, `${g.result} (${(g.termination || '').replaceAll('_', ' ')})`);
    cell(tr, String(g.turns));
    const td = cell(tr, '');
    const replay = document.createElement('a');
    replay.href = `/online/game/${g.id}`;
    replay.textContent = 'replay';
    const rec = document.createElement('a');
    rec.href = `/api/online/rooms/${g.id}/record`;
    rec.textContent = 'record';
    td.append(replay, ' · ', rec);
    tbody.appendChild(tr);
  }
  offset += v.games.length;
  more.hidden = v.games.length < LIMIT;
}
more.addEventListener('click', load);
load();
