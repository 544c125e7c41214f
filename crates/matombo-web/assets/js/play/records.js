// The board page's records: the game saved as a record (RULES.md §6.5), a record loaded,
// and the position copied as text.
import { request } from '../engine.js';
import { $, downloadText, message, selectText, sideWord } from '../page.js';
import { cancelAi, load } from './game.js';
import { gameAt, page, words } from './state.js';
import { lineTree } from './tree.js';

export async function download() {
  const { game, settings } = page;
  const tag = (side) =>
    settings.mode === 'ai' ? (side === settings.human ? words.you : `matombo (${settings.level})`) : sideWord(side);
  const d = new Date();
  const date = `${d.getFullYear()}.${String(d.getMonth() + 1).padStart(2, '0')}.${String(d.getDate()).padStart(2, '0')}`;
  try {
    const body = { start: game.start, moves: game.moves, tags: { South: tag('South'), North: tag('North'), Date: date } };
    if (game.resigned) body.resigned = game.resigned;
    const { record } = await request('/api/record/export', body);
    downloadText(record, `matombo-${page.state.ruleset.name.replace(/[^a-z0-9]+/gi, '-')}.txt`);
  } catch (e) {
    message(e.message, 'error');
  }
}

export async function loadRecord(/** @type {File} */ file) {
  try {
    const text = await file.text();
    const st = await request('/api/record/import', { text });
    cancelAi();
    page.generation++;
    page.game = { ...gameAt(st.start), moves: st.moves, resigned: st.resigned || null };
    page.tree = lineTree(st.moves);
    // Watch or continue the loaded game as two people; the settings can switch to the AI.
    message(`${words.record_loaded}: ${st.moves.length}`, 'ok');
    load();
  } catch (e) {
    message(e.message, 'error');
  }
}

export async function copyPosition() {
  try {
    await navigator.clipboard.writeText(page.state.position);
    message(words.copied, 'ok');
  } catch (_) {
    selectText($('position-text'));
    message(words.copy_by_hand, 'ok');
  }
}
