// The rules page: draws the start diagram from the engine's start position, which the
// server placed in the figure's data attributes.
import { Board } from './board.js';

const words = JSON.parse(document.getElementById('ui-words').textContent);

for (const fig of document.querySelectorAll('figure.start-diagram')) {
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
