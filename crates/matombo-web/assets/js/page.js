// Helpers every page's module uses (the board, the review, the lessons, the online pages).

/**
 * The element with this id (typed loosely: pages read inputs' values, forms, links).
 * @type {(id: string) => any}
 */
export const $ = (id) => document.getElementById(id);

/**
 * A translated text with its `{name}` fields filled in.
 * @param {string} text
 * @param {Record<string, any>} values
 */
export const fill = (text, values) => String(text).replace(/\{(\w+)\}/g, (m, k) => (k in values ? values[k] : m));

let words = null;
/**
 * The page's words (ui.json in its language, written into the page by the server), read
 * once however many of the page's modules ask.
 * @returns {Record<string, any>}
 */
export function uiWords() {
  words ??= JSON.parse($('ui-words').textContent);
  return words;
}

/** A side's name in the page's language (South is 'South', 'south' or 'S'). */
export const sideWord = (/** @type {string} */ side) =>
  side === 'South' || side === 'south' || side === 'S' ? uiWords().south : uiWords().north;

/**
 * Says `text` in the page's message line (`#tool-message`).
 * @param {string} text
 * @param {'' | 'ok' | 'error'} [kind]
 */
export function message(text, kind = '') {
  const m = $('tool-message');
  m.textContent = text;
  m.className = `tool-message ${kind}`;
}

/** Selects an element's text: where the clipboard is refused, it is copied by hand. */
export function selectText(/** @type {Node} */ el) {
  const r = document.createRange();
  r.selectNodeContents(el);
  const s = getSelection();
  s.removeAllRanges();
  s.addRange(r);
}

/**
 * Offers `text` (a game record) as a file to save.
 * @param {string} text
 * @param {string} name
 */
export function downloadText(text, name) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  // Not at once: the browser may not have read the file yet.
  setTimeout(() => URL.revokeObjectURL(a.href), 5000);
}
