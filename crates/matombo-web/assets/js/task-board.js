// The turn being built on a task's board, the same on a lesson's page and a puzzle's: the
// holes and buttons the engine's state offers, and the prompt. What is legal is the
// engine's (`state`); this only shows it.
import { $, fill } from './page.js';
import { bonusPrompt } from './turn.js';

/**
 * Shows `state` (the engine's, mid-turn) on `board`: its rows, the holes that may be
 * clicked while `open`, the bonus picks made, the head choice's buttons, Done and the prompt.
 * @param {import('./board.js').Board} board
 * @param {any} state
 * @param {{ open: boolean, bonus: boolean, words: Record<string, any> }} how `open`: the
 *   player may act now; `bonus`: the bonus is shown (its holes offered, its picks marked)
 */
export function showTurn(board, state, { open, bonus, words }) {
  board.setRows(state.rows);
  board.setClickable(open && (bonus || state.phase === 'start') ? state.clickable : [], bonus ? 'take' : 'start');
  if (bonus) board.setMarks({ picked: state.picks || [] });
  const head = open && state.phase === 'head';
  $('btn-continue').hidden = $('btn-stop').hidden = !head;
  $('btn-continue').disabled = !state.legal.includes('continue');
  $('btn-stop').disabled = !state.legal.includes('stop');
  // Tsoro's bonus may be cut short; Nsolo's must be taken whole.
  $('btn-done').hidden = !(open && bonus && state.ruleset.game === 'tsoro');
  let prompt = '';
  if (head) prompt = fill(words.head_choice, { hole: state.head });
  else if (open && bonus) prompt = bonusPrompt(state, words, fill);
  else if (open) prompt = words.choose_start;
  $('prompt').textContent = prompt;
}
