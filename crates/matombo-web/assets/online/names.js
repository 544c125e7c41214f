// Names that cannot deceive (issue 42): a person's name is shown isolated from the text
// around it, so that right-to-left letters in it cannot reorder what follows.

/** A name for a text that holds more than the name: between FSI and PDI (plain text's <bdi>). */
export function isolate(name) {
  return `\u2068${name}\u2069`;
}

/** A <bdi> element holding a name (as text, never as HTML). */
export function nameElement(name) {
  const b = document.createElement('bdi');
  b.textContent = name;
  return b;
}
