// The online room's clocks: the server's times, counted down in the page between its messages.
import { $, fill } from '../js/page.js';

/** The page's words (every online page carries them). */
let cached = null;
const words = () => cached || (cached = JSON.parse(($('ui-words') || { textContent: '{}' }).textContent));

/** Time left as "2 d 5 h", "3 h 20 min" or "12 min" (a correspondence clock's scale). */
export function fmtLeft(/** @type {number} */ ms) {
  const w = words();
  const min = Math.max(0, Math.floor(ms / 60000));
  const d = Math.floor(min / 1440);
  const h = Math.floor((min % 1440) / 60);
  if (d > 0) return fill(w.left_days, { d, h });
  if (h > 0) return fill(w.left_hours, { h, m: min % 60 });
  return fill(w.left_minutes, { m: min });
}

/** A correspondence clock's deadline: its date and time, and the time left. */
export function fmtDeadline(/** @type {number} */ deadline) {
  const lang = document.documentElement.lang || 'en';
  const date = new Date(deadline).toLocaleString(lang, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
  return fill(words().deadline_at, { date, left: fmtLeft(deadline - Date.now()) });
}

/** @type {({ south_ms: number, north_ms: number, running: string | null, at: number, days_per_turn?: number, deadline?: number | null, [k: string]: any }) | null} */
let clockBase = null;

/** `m:ss`, rounded up (a clock at 0.4 s still shows 0:01). */
export function fmtClock(/** @type {number} */ ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, '0')}`;
}

/** Writes both clocks into the side bars (`south-clock`, `north-clock`). */
export function showClocks() {
  for (const side of ['south', 'north']) {
    const e = $(`${side}-clock`);
    if (!e) continue;
    if (!clockBase) {
      e.textContent = '';
      e.hidden = true;
      continue;
    }
    // A correspondence clock (days a turn): the deadline of the side to move.
    if (clockBase.days_per_turn) {
      e.hidden = false;
      // The deadline is the turn's now: the running side's (both, if the server names none).
      const running = clockBase.deadline && (clockBase.running == null || clockBase.running === side);
      e.textContent = running ? fmtDeadline(clockBase.deadline) : fill(words().days_each, { n: clockBase.days_per_turn });
      e.classList.toggle('running', !!running);
      e.classList.toggle('low', !!running && clockBase.deadline - Date.now() < 3600000);
      continue;
    }
    let ms = clockBase[`${side}_ms`];
    if (clockBase.running === side) ms -= performance.now() - clockBase.at;
    e.hidden = false;
    e.textContent = fmtClock(ms);
    e.classList.toggle('running', clockBase.running === side);
    e.classList.toggle('low', ms < 10000);
  }
}
setInterval(() => clockBase && showClocks(), 250);

/**
 * Starts showing the server's clock (`{south_ms, north_ms, running}`, or null: untimed).
 * @param {{ south_ms: number, north_ms: number, running: string | null } | null} c
 */
export function setClock(c) {
  clockBase = c ? { ...c, at: performance.now() } : null;
  showClocks();
}
