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
