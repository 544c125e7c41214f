// Sound for the board pages, as an ES module: short tones made with Web Audio (no files to
// load). A soft tick per stone sown, thinned out when stones come faster than one per
// 45 ms; a low double knock for a capture; a rising figure at the end of a game. Browsers
// allow sound only after a gesture, so the audio context is made at the first click or
// key; the mute choice is kept across visits (the same storage key as /play's).
//
//   import { sound, soundButton } from './sound.js';
//   soundButton(afterElement, words.sound);  // the toggle, placed after an element
//   board.onSound = (kind, ms) => sound.play(kind, ms);
//   sound.play('end');

const KEY = 'matombo-sound';

export const sound = {
  ctx: null,
  on: localStorage.getItem(KEY) !== 'off',
  last: 0,
  button: null,
  wake() {
    if (this.ctx || !this.on) return;
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (Ctx) this.ctx = new Ctx();
  },
  tone(freq, at, length, gain, type = 'sine') {
    const c = this.ctx;
    const o = c.createOscillator();
    const g = c.createGain();
    o.type = type;
    o.frequency.value = freq;
    g.gain.setValueAtTime(gain, c.currentTime + at);
    g.gain.exponentialRampToValueAtTime(0.0001, c.currentTime + at + length);
    o.connect(g).connect(c.destination);
    o.start(c.currentTime + at);
    o.stop(c.currentTime + at + length + 0.02);
  },
  /** `kind`: 'stone' (`ms` between stones), 'capture' or 'end'. */
  play(kind, ms = 100) {
    if (!this.on || !this.ctx) return;
    const now = performance.now();
    if (kind === 'stone') {
      if (now - this.last < 45) return;
      this.last = now;
      this.tone(700 + Math.random() * 250, 0, Math.min(0.08, ms / 1000), 0.05, 'triangle');
    } else if (kind === 'capture') {
      this.tone(180, 0, 0.18, 0.16);
      this.tone(140, 0.09, 0.22, 0.14);
    } else if (kind === 'end') {
      [523, 659, 784].forEach((f, i) => this.tone(f, i * 0.14, 0.3, 0.1));
    }
  },
  /** `gesture`: a click on the toggle, which may start the sound. */
  setOn(on, gesture = false) {
    this.on = on;
    try {
      localStorage.setItem(KEY, on ? 'on' : 'off');
    } catch (_) {
      /* storage may be unavailable */
    }
    if (on && gesture) this.wake();
    if (this.button) this.button.setAttribute('aria-pressed', String(on));
  },
};

/** The sound toggle (`#btn-sound`), placed after `after`, labelled `label`. */
export function soundButton(after, label) {
  const b = document.createElement('button');
  b.type = 'button';
  b.id = 'btn-sound';
  b.textContent = label;
  b.addEventListener('click', () => sound.setOn(!sound.on, true));
  after.after(b);
  sound.button = b;
  sound.setOn(sound.on);
  return b;
}

for (const ev of ['pointerdown', 'keydown']) document.addEventListener(ev, () => sound.wake(), { capture: true });
