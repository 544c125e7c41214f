// The catalogue: each card shows the start position of the chosen variant, drawn from the
// engine's start position (the engine in the page, asked what POST /api/game would answer).
import { Board } from './board.js';
import { request } from './engine.js';

const words = JSON.parse(document.getElementById('ui-words').textContent);

function rulesetOf(form) {
  const game = form.querySelector('input[name=game]').value;
  const size = form.querySelector('select[name=size]').value;
  if (game === 'nsolo') return `nsolo:${size}`;
  const heads = form.querySelector('select[name=heads]').value;
  const bonus = form.querySelector('select[name=bonus]').value;
  let name = `tsoro:${size}`;
  if (heads !== '2') name += `,heads=${heads}`;
  if (bonus !== '2') name += `,bonus=${bonus}`;
  return name;
}

async function draw(card) {
  const form = card.querySelector('form.variant');
  const art = card.querySelector('.card-art');
  const name = rulesetOf(form);
  art.dataset.ruleset = name;
  try {
    const state = await request('/api/game', { start: name });
    if (art.dataset.ruleset !== name) return;
    const board = new Board(art, { n: state.ruleset.n, heads: state.ruleset.head_holes, words, interactive: false });
    board.setRows(state.rows);
    const link = card.querySelector('a[id^=rules-]');
    const url = new URL(link.href);
    url.searchParams.set('size', String(state.ruleset.n));
    if (state.ruleset.game === 'tsoro') {
      url.searchParams.set('heads', String(state.ruleset.heads));
      url.searchParams.set('bonus', String(state.ruleset.bonus));
    }
    link.href = url.pathname + url.search;
  } catch (_) {
    /* the art is decoration; the form still works */
  }
}

for (const card of document.querySelectorAll('article.card')) {
  draw(card);
  for (const select of card.querySelectorAll('select')) select.addEventListener('change', () => draw(card));
}
