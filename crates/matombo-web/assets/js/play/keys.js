// The board page's keys: undo and redo, Escape to skip an animation, and the move list's
// arrows, Home and End anywhere but on the board and in fields.
import { goToMoves, redoMove, stepBack, stepOn, undo } from './game.js';
import { page } from './state.js';
import { continuation } from './tree.js';

const moveKeys = {
  ArrowLeft: stepBack,
  ArrowRight: stepOn,
  Home: () => goToMoves([]),
  End: () => goToMoves([...page.game.moves, ...continuation()]),
};

export function initKeys() {
  document.addEventListener('keydown', (e) => {
    if (e.target.closest && e.target.closest('input, textarea, select, dialog')) return;
    if ((e.ctrlKey || e.metaKey) && e.key === 'z') {
      e.preventDefault();
      undo();
    } else if ((e.ctrlKey || e.metaKey) && (e.key === 'y' || (e.shiftKey && e.key === 'Z'))) {
      e.preventDefault();
      redoMove();
    } else if (e.key === 'Escape' && page.busy) {
      page.board.skip();
    } else if (!e.ctrlKey && !e.metaKey && !e.altKey && !e.shiftKey && !e.defaultPrevented && moveKeys[e.key]) {
      // The move list's keys work anywhere on the page but on the board, whose arrows move
      // between its holes while one of them has the focus (Tab or a click elsewhere leaves it).
      if (e.target.closest && e.target.closest('#board')) return;
      e.preventDefault();
      moveKeys[e.key]();
    }
  });
}
