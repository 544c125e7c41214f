// The board page's position editor: a grid of counts and the position's text, each kept in
// step with the other by the engine (`/api/setup`); Apply starts a game there.
import { request } from '../engine.js';
import { $, fill } from '../page.js';
import { newGame } from './game.js';
import { page, words } from './state.js';

const EDIT_ROWS = ['b', 'a', 'A', 'B'];

/** The editor's grid, rows b, a, A, B as South sees them (as the notation writes them). */
function editorGrid() {
  return EDIT_ROWS.map((r) => Array.from({ length: page.state.ruleset.n }, (_, c) => Number($(`edit-${r}-${c}`).value) || 0));
}

/**
 * The grid or the text changed: the engine reads it (`/api/setup`); the other one, the
 * stone totals and the Apply button follow its answer. `from` is 'grid' or 'text'.
 * @param {'grid' | 'text'} from
 */
async function editorChanged(from) {
  let setup = null;
  let error = '';
  try {
    setup =
      from === 'text'
        ? await request('/api/setup', { text: $('editor-text').value })
        : await request('/api/setup', { ruleset: page.state.ruleset.name, grid: editorGrid(), side: $('editor-side').value });
  } catch (e) {
    if (from === 'text') return;
    error = e.message;
  }
  const fits = setup && setup.ruleset.name === page.state.ruleset.name;
  if (fits && from === 'text') {
    EDIT_ROWS.forEach((r, i) => setup.grid[i].forEach((v, c) => ($(`edit-${r}-${c}`).value = v)));
    $('editor-side').value = setup.side === 'north' ? 'N' : 'S';
  }
  if (setup && from === 'grid') $('editor-text').value = setup.text;
  const ok = !!setup && !setup.problem;
  const max = setup ? setup.ruleset.total_stones : page.state.ruleset.total_stones;
  const t = $('editor-totals');
  if (!setup) t.textContent = error;
  else if (setup.stones > max) t.textContent = fill(words.totals_bad, { n: setup.stones, max });
  else t.textContent = ok ? `${words.totals_ok}: ${setup.stones} / ${max}` : setup.problem;
  t.className = `totals ${ok ? 'ok' : 'bad'}`;
  $('editor-apply').disabled = !ok;
}

function openEditor() {
  const { ruleset } = page.state;
  const n = ruleset.n;
  const grid = $('editor-grid');
  grid.innerHTML = '';
  grid.style.gridTemplateColumns = `2em repeat(${n}, minmax(2.6em, 1fr))`;
  EDIT_ROWS.forEach((r) => {
    const letter = document.createElement('span');
    letter.className = 'row-letter';
    letter.textContent = r;
    grid.append(letter);
    for (let c = 0; c < n; c++) {
      // Columns left to right as South sees the board: North's rows run N..1.
      const number = r === 'b' || r === 'a' ? n - c : c + 1;
      const input = document.createElement('input');
      input.type = 'number';
      input.min = '0';
      input.max = String(ruleset.total_stones);
      input.id = `edit-${r}-${c}`;
      input.setAttribute('aria-label', `${r}${number}`);
      input.addEventListener('input', () => editorChanged('grid'));
      grid.append(input);
    }
  });
  $('editor-text').value = page.state.position;
  $('editor-error').textContent = '';
  editorChanged('text');
  $('editor').showModal();
}

async function applyEditor() {
  const text = $('editor-text').value.trim();
  try {
    const st = await request('/api/game', { start: text });
    $('editor').close();
    newGame(st.start);
  } catch (e) {
    $('editor-error').textContent = e.message;
  }
}

/** The editor's buttons and fields. */
export function initEditor() {
  $('btn-editor').addEventListener('click', openEditor);
  $('editor-apply').addEventListener('click', applyEditor);
  $('editor-cancel').addEventListener('click', () => $('editor').close());
  $('editor-side').addEventListener('change', () => editorChanged('grid'));
  // Text that cannot be read yet (being typed) changes nothing; Apply says what is wrong.
  $('editor-text').addEventListener('input', () => editorChanged('text'));
}
