// The online room's clocks: the server's times, counted down in the page between its messages.
import { $ } from '../js/page.js';

/** @type {({ south_ms: number, north_ms: number, running: string | null, at: number, [k: string]: any }) | null} */
let clockBase = null;

/** `m:ss`, rounded up (a clock at 0.4 s still shows 0:01). */
function fmtClock(/** @type {number} */ ms) {
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
    let ms = clockBase[`${side}_ms`];
    if (clockBase.running === side) ms -= performance.now() - clockBase.at;
    e.hidden = false;
    e.textContent = fmtClock(ms);
    e.classList.toggle('running', clockBase.running === side);
    e.classList.toggle('low', ms < 10000);
  }
}
setInterval(showClocks, 250);

/**
 * Starts showing the server's clock (`{south_ms, north_ms, running}`, or null: untimed).
 * @param {{ south_ms: number, north_ms: number, running: string | null } | null} c
 */
export function setClock(c) {
  clockBase = c ? { ...c, at: performance.now() } : null;
  showClocks();
}
