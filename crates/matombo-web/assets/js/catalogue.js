// The catalogue: each card shows the start position of the chosen variant, drawn from the
// engine's start position (the engine in the page, asked what POST /api/game would answer).
import { Board } from './board.js';
import { request } from './engine.js';

const words = JSON.parse(document.getElementById('ui-words').textContent);

/** The form's variant as the engine names it (RULES.md §6.1). */
function variantOf(form) {
  const value = (name) => form.querySelector(`[name=${name}]`)?.value;
  const game = value('game');
  const body = { game, size: Number(value('size')) };
  if (game === 'tsoro') Object.assign(body, { heads: Number(value('heads')), bonus: Number(value('bonus')) });
  return body;
}

async function draw(card) {
  const form = card.querySelector('form.variant');
  const art = card.querySelector('.card-art');
  const asked = JSON.stringify(variantOf(form));
  art.dataset.ruleset = asked;
  try {
    const { name } = await request('/api/ruleset', variantOf(form));
    const state = await request('/api/game', { start: name });
    if (art.dataset.ruleset !== asked) return;
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
