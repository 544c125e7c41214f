// What this browser keeps of its online games: one entry a room (`matombo-online-<id>`:
// the seat's or member's token, side, name, invitation codes, muted senders). The tokens
// never leave the browser except in a room's `hello`.

const PREFIX = 'matombo-online-';
// Other keys under the same prefix that are not rooms.
const NOT_ROOMS = new Set(['name']);

/** A room's entry (an empty object when there is none or storage is unavailable). */
export function readRoom(/** @type {string} */ id) {
  try {
    return JSON.parse(localStorage.getItem(PREFIX + id) || '{}') || {};
  } catch (_) {
    return {};
  }
}

export function writeRoom(/** @type {string} */ id, /** @type {Record<string, any>} */ entry) {
  try {
    localStorage.setItem(PREFIX + id, JSON.stringify(entry));
  } catch (_) {
    /* storage may be unavailable: the seat link still works */
  }
}

/** Every room this browser holds a seat or a membership in: `[id, entry]`. */
export function storedRooms() {
  /** @type {[string, Record<string, any>][]} */
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      if (!k || !k.startsWith(PREFIX)) continue;
      const id = k.slice(PREFIX.length);
      if (NOT_ROOMS.has(id) || !/^[A-Za-z0-9_-]{1,64}$/.test(id)) continue;
      const entry = readRoom(id);
      if (entry.token) out.push([id, entry]);
    }
  } catch (_) {
    /* no storage: no games */
  }
  return out;
}
