// The board page: a game against the AI or between two people on one device, or the
// analysis board. The engine in the page (engine.js: matombo's Rust rules and search in
// WebAssembly) replays the game and decides everything, as the server's JSON API would;
// nothing here needs the server once the page is loaded. This module starts the page and
// wires its controls; the jobs are the modules under play/ (state.js describes the state
// they share).
import { $, message } from './page.js';
import { soundButton } from './sound.js';
import { analysisModeChoice, analysisPanel, setAnalysing } from './play/analysis.js';
import { initEditor } from './play/editor.js';
import { decide, finishPicks, goToMoves, load, maybeAi, newGame, onHole, playLine, playOn, redoMove, resign, setMode, showHint, toMainLine, undo } from './play/game.js';
import { initKeys } from './play/keys.js';
import { adoptAddress, copyLinkButton, linkLine, openLink, reviewLink } from './play/links.js';
import { mainLineButton } from './play/moves.js';
import { copyPosition, download, loadRecord } from './play/records.js';
import { gameAt, page, root, save, storeKey, words } from './play/state.js';
import { addLine, lineTree, nodeAt } from './play/tree.js';
import { initView, render, replayLast } from './play/view.js';

await adoptAddress();

// Restore the game of this tab (kept across reloads and language switches).
page.game = gameAt(root.dataset.start);
try {
  const saved = JSON.parse(sessionStorage.getItem(storeKey()) || 'null');
  if (saved && saved.game && saved.settings) {
    page.game = saved.game;
    page.settings = saved.settings;
    // An entry from before the tree kept the undone turns as a redo list.
    page.tree = saved.tree || lineTree([...page.game.moves, ...[...(saved.redo || [])].reverse()]);
    if (!nodeAt(page.game.moves)) addLine(page.game.moves);
  }
} catch (_) {
  /* a damaged entry is ignored */
}

initView({ hole: onHole, again: () => newGame(root.dataset.start) });
analysisPanel({ line: playLine, playOn });
analysisModeChoice();
// Sound (sound.js, shared with the online room): the toggle after Replay.
soundButton($('btn-replay'), words.sound);

$('btn-continue').addEventListener('click', () => decide('continue'));
$('btn-stop').addEventListener('click', () => decide('stop'));
$('btn-done').addEventListener('click', finishPicks);
$('btn-undo').addEventListener('click', undo);
$('btn-redo').addEventListener('click', redoMove);
$('btn-new').addEventListener('click', () => newGame(root.dataset.start));
$('btn-hint').addEventListener('click', showHint);
$('btn-resign').addEventListener('click', resign);
$('btn-download').addEventListener('click', download);
$('btn-copy').addEventListener('click', copyPosition);
copyLinkButton();
initEditor();
$('btn-skip').addEventListener('click', () => page.board && page.board.skip());
$('btn-replay').addEventListener('click', replayLast);
$('record-file').addEventListener('change', (e) => {
  if (e.target.files[0]) loadRecord(e.target.files[0]);
  e.target.value = '';
});
$('speed').addEventListener('input', (e) => {
  page.board && page.board.setSpeed(e.target.value);
  localStorage.setItem('matombo-speed', e.target.value);
});
$('labels').addEventListener('change', (e) => {
  page.board && page.board.setLabels(e.target.checked);
  localStorage.setItem('matombo-labels', e.target.checked ? '1' : '0');
});
for (const input of document.querySelectorAll('input[name=mode]')) {
  input.addEventListener('change', () => {
    setMode(input.value);
    render();
    maybeAi();
  });
}
$('human-side').addEventListener('change', (e) => {
  // Applied by New game (newGame reads the choice); the game in progress goes on as it was.
  e.target.dataset.chosen = e.target.value;
  message(words.side_at_new_game, 'ok');
});
$('level').addEventListener('change', (e) => {
  page.settings.level = e.target.value;
  save();
});
// A turn in the move list shows the position after it (each button carries its line).
$('moves').addEventListener('click', (e) => {
  const b = e.target.closest('button.move');
  if (b) goToMoves(b.dataset.line.split(' '));
});
initKeys();

$('speed').value = localStorage.getItem('matombo-speed') ?? '2';
$('labels').checked = localStorage.getItem('matombo-labels') === '1';
reviewLink();

const link = linkLine();
if (link) await openLink(link);
mainLineButton().addEventListener('click', toMainLine);
await load();
if (page.settings.mode === 'analysis') setAnalysing(true);
