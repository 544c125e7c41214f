// The turn controller: builds one turn from clicks through the engine (the board page, the
// online room and the lessons use it). The engine decides everything (which holes may be
// started or picked, the head choice, bonus picks in any order, the canonical token); this
// module only keeps the decisions made so far and asks the engine again after each one.
// Events (an EventTarget): `state` (detail: the engine's state after a step or a reload),
// `complete` (detail: { token, state }: the turn is whole, recorded canonically).

/** @typedef {import('./wire.js').GameState} GameState */
/** @typedef {import('./wire.js').GameEvent} GameEvent */
/** @typedef {import('./wire.js').GameRequest} GameRequest */
/** @typedef {import('./wire.js').Rows} Rows */

/**
 * What a turn did, for its marks and its replay.
 * @typedef {{ ply: number, before: Rows, events: GameEvent[], mover: string, path: string[] }} TurnEffect
 */

/**
 * The result of one step.
 * @typedef {{ next: GameState, mover: string, completed: string | null, pickOnly: boolean }} Step
 */

/** The holes a turn's laps sowed into, each once, in order (the engine's lap paths). */
export function pathOf(/** @type {GameEvent[]} */ events) {
  return [...new Set(events.flatMap((e) => (e.type === 'lap' && e.path ? e.path : [])))];
}

/** The start hole of a turn's token (`B2+xb3` → `B2`). */
export function startHole(/** @type {string} */ token) {
  const m = token.match(/^[AaBb]\d+/);
  return m ? m[0] : '';
}

/**
 * On a screen taller than wide, a board of `n` columns is turned when its pits would be
 * under 40 CSS pixels across (a pit is 50 of a hole's 60 units; the margins take 68 units).
 * @param {HTMLElement} scroll the board's scrolling box
 * @param {number} n
 */
export function portraitWanted(scroll, n) {
  const width = scroll.clientWidth || window.innerWidth;
  return window.innerHeight > window.innerWidth && (width / (n + 68 / 60)) * (50 / 60) < 40;
}

/** The stones on a side's two rows. */
export function stoneTotal(/** @type {Rows} */ rows, /** @type {string} */ side) {
  const south = side === 'south' || side === 'South';
  return (south ? ['A', 'B'] : ['a', 'b']).reduce((t, r) => t + rows[r].reduce((a, b) => a + b, 0), 0);
}

/**
 * The prompt of a bonus (how many holes may or must still be picked).
 * @param {GameState} state
 * @param {Record<string, string>} words
 * @param {(t: string, v: Record<string, any>) => string} fill
 */
export function bonusPrompt(state, words, fill) {
  const left = state.left || 0;
  if (state.ruleset.game === 'tsoro') return left === 1 ? words.take_up_to_one : fill(words.take_up_to, { n: left });
  return left === 1 ? words.take_one_more : fill(words.take_n_more, { n: left });
}

export class TurnController extends EventTarget {
  /**
   * @param {(body: GameRequest) => Promise<GameState>} ask the engine (`POST /api/game`)
   */
  constructor(ask) {
    super();
    this.ask = ask;
    /** @type {GameRequest} the position the turn is built from (start, moves, resigned) */
    this.base = { start: '' };
    /** @type {string[]} the decisions of the turn so far */
    this.pending = [];
    /** @type {GameState | null} */
    this.state = null;
  }

  /**
   * Starts (or resumes, with decisions already made) a turn at a position.
   * @param {GameRequest} base
   * @param {string[]} [pending]
   */
  async begin(base, pending = []) {
    const state = await this.ask({ ...base, pending });
    this.base = { ...base };
    delete this.base.pending;
    this.pending = [...pending];
    this.state = state;
    this.emit('state', state);
    return state;
  }

  /**
   * The decision a click on hole `label` makes now, if the engine allows one.
   * @param {string} label
   * @returns {string | null}
   */
  decisionFor(label) {
    const s = this.state;
    if (!s || s.outcome) return null;
    if (s.phase === 'start' && s.legal.includes(`sow ${label}`)) return `sow ${label}`;
    if (s.phase === 'bonus' && s.legal.includes(`take ${label}`)) return `take ${label}`;
    return null;
  }

  /**
   * Takes decisions (a start, `continue` / `stop`, bonus picks in any order, `done`).
   * Throws the engine's error for an illegal one, and changes nothing then.
   * @param {string[]} decisions
   * @returns {Promise<Step>}
   */
  async apply(decisions) {
    return this.step({ pending: this.pending, apply: decisions });
  }

  /**
   * Plays a whole turn given by its token (the computer's, a hint's) at the turn's start.
   * @param {string} token
   * @returns {Promise<Step>}
   */
  async play(token) {
    return this.step({ token });
  }

  /**
   * @param {Partial<GameRequest>} extra
   * @returns {Promise<Step>}
   */
  async step(extra) {
    const before = /** @type {GameState} */ (this.state);
    const next = await this.ask({ ...this.base, ...extra });
    const completed = next.moves.length > before.moves.length ? next.moves[before.moves.length] : null;
    const pickOnly = before.phase === 'bonus' && next.phase === 'bonus' && !completed;
    this.state = next;
    if (completed) {
      // The turn is whole: the next one is built from the position after it.
      this.base = { ...this.base, moves: next.moves };
      this.pending = [];
      this.emit('complete', { token: completed, state: next });
    } else {
      this.pending = next.pending || [];
    }
    this.emit('state', next);
    return { next, mover: before.to_move, completed, pickOnly };
  }

  /** Whether a bonus pick of the turn being built can be taken back. */
  canUndoPick() {
    return !!(this.state && this.state.phase === 'bonus' && (this.state.picks || []).length);
  }

  /** Takes back the last bonus pick. */
  async undoPick() {
    if (!this.canUndoPick()) return this.state;
    return this.begin(this.base, this.pending.slice(0, -1));
  }

  /** Starts the turn again from its beginning. */
  async restart() {
    return this.begin(this.base, []);
  }

  /**
   * What turn `moves[moves.length - 1]` did, from the engine.
   * @param {GameRequest} base the start (and anything else but moves)
   * @param {string[]} moves the game's turns up to and with that turn
   * @returns {Promise<TurnEffect>}
   */
  async effectOf(base, moves) {
    const earlier = moves.slice(0, -1);
    const before = await this.ask({ ...base, moves: earlier });
    const after = await this.ask({ ...base, moves: earlier, token: moves[moves.length - 1] });
    return { ply: earlier.length, before: before.rows, events: after.events, mover: before.to_move, path: pathOf(after.events) };
  }

  /**
   * @param {string} type
   * @param {any} detail
   */
  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}
