// The rules page: draws the start diagram from the engine's start position, which the
// server placed in the figure's data attributes. Shown at an address asking for another
// variant (a static site's page, the offline copy of another size), it asks the engine in
// the page for that variant's start and redraws.
import { Board } from './board.js';
import { request } from './engine.js';

const words = JSON.parse(document.getElementById('ui-words').textContent);
const params = new URLSearchParams(location.search);
const fill = (t, v) => t.replace(/\{(\w+)\}/g, (m, k) => (k in v ? v[k] : m));

/** The ruleset the address asks for (size, heads, bonus), or null. */
function asked(game) {
  const size = params.get('size');
  if (!size) return null;
  if (game === 'nsolo') return `nsolo:${size}`;
  let name = `tsoro:${size}`;
  for (const key of ['heads', 'bonus']) {
    const v = params.get(key);
    if (v && v !== '2') name += `,${key}=${v}`;
  }
  return name;
}

async function adapt(fig) {
  const name = asked(fig.dataset.game);
  if (!name || name === fig.dataset.ruleset) return;
  const state = await request('/api/game', { start: name });
  const info = state.ruleset;
  fig.dataset.ruleset = info.name;
  fig.dataset.position = state.position;
  fig.dataset.rows = JSON.stringify(state.rows);
  fig.dataset.info = JSON.stringify(info);
  fig.dataset.holes = String(4 * info.n);
  fig.dataset.stones = String(info.total_stones);
  const caption = fig.querySelector('figcaption');
  caption.textContent = `${fill(words.start_diagram, { n: info.n, holes: 4 * info.n, stones: info.total_stones })} `;
  const code = document.createElement('code');
  code.textContent = state.position;
  caption.append(code);
  for (const [key, value] of [['size', info.n], ['heads', info.heads], ['bonus', info.bonus]]) {
    const select = document.getElementById(`${info.game}-${key}`);
    if (select) select.value = String(value);
  }
  const play = document.getElementById('play-link');
  if (play) {
    const url = new URL(play.href);
    url.searchParams.set('ruleset', info.name);
    play.href = url.href;
  }
}

for (const fig of document.querySelectorAll('figure.start-diagram')) {
  try {
    await adapt(fig);
  } catch (_) {
    /* a bad address keeps the page's own diagram */
  }
  const info = JSON.parse(fig.dataset.info);
  const board = new Board(fig.querySelector('.board-host'), {
    n: info.n,
    heads: info.head_holes,
    words: { ...words, board_label: fig.querySelector('figcaption').textContent },
    interactive: false,
    labels: true,
  });
  board.setRows(JSON.parse(fig.dataset.rows));
}

// Changing the variant redraws the diagram at once.
for (const form of document.querySelectorAll('form.variant')) {
  for (const select of form.querySelectorAll('select')) select.addEventListener('change', () => form.submit());
}
