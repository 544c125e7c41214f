// A team's shared view of the board (issue 42): the vote in progress on its side's turn
// (the tally on the start holes of the turns voted for, how many voted, when it closes)
// and the holes its members marked. All of it comes from the server, to this side only.
import { startHole } from '../js/turn.js';
import { $, fill } from '../js/page.js';

/** Marks a member may set at once (the server refuses more). */
export const MAX_MARKS = 16;
// Marks are paced like chat on the server (one a second, bursts of two): clicks are
// gathered and sent at most once in this time.
const MARK_PACE = 1100;

/** @typedef {import('../js/wire.js').Votes} Votes */

export class TeamBoard {
  /**
   * @param {Record<string, string>} words
   * @param {(msg: Record<string, any>) => void} send
   * @param {() => void} changed the board and the panel should be drawn again
   */
  constructor(words, send, changed) {
    this.words = words;
    this.send = send;
    this.changed = changed;
    /** @type {Votes | null} */
    this.votes = null;
    /** @type {{ ply: number, move: string } | null} */
    this.myVote = null;
    /** @type {Record<string, string[]>} */
    this.marks = {};
    this.member = '';
    this.marking = false;
    this.moves = -1; // turns played in the game shown
    this.lastSent = 0;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.timer = null;
    setInterval(() => this.renderVotes(), 1000);
  }

  /** From a member's `state`: his id, his team's marks, the vote in progress. */
  fromState(/** @type {any} */ v) {
    this.member = v.member || '';
    if (v.marks && !this.timer) this.marks = { ...v.marks };
    this.votes = v.votes || null;
  }

  onVotes(/** @type {Votes} */ v) {
    this.votes = v;
    this.changed();
  }

  onMarks(/** @type {{ member: string, holes: string[] }} */ v) {
    // Our own marks echoed while newer clicks wait to be sent: ours are newer.
    if (v.member === this.member && this.timer) return;
    this.marks[v.member] = v.holes;
    this.changed();
  }

  /** A turn was played: the vote on it is over. */
  turnPlayed(/** @type {number} */ moves) {
    if (this.votes && this.votes.ply < moves) this.votes = null;
    if (this.myVote && this.myVote.ply < moves) this.myVote = null;
  }

  /** The vote in progress on the game now (`moves` turns played), or null. */
  current(/** @type {number} */ moves) {
    return this.votes && this.votes.ply === moves ? this.votes : null;
  }

  /** The tally on the start holes: `{B2: 3}` (turns that share a start hole add up). */
  badges(/** @type {number} */ moves) {
    /** @type {Record<string, number>} */
    const out = {};
    const v = this.current(moves);
    if (!v) return out;
    for (const [move, n] of Object.entries(v.tally)) {
      const hole = startHole(move);
      out[hole] = (out[hole] || 0) + n;
    }
    return out;
  }

  /** Every hole a member of the team marked. */
  teamMarks() {
    return [...new Set(Object.values(this.marks).flat())];
  }

  mine() {
    return this.marks[this.member] || [];
  }

  /** Mark mode: a click on a hole marks it or takes its mark away. */
  toggle(/** @type {string} */ hole) {
    const mine = this.mine();
    if (mine.includes(hole)) this.marks[this.member] = mine.filter((h) => h !== hole);
    else if (mine.length >= MAX_MARKS) {
      $('team-message').textContent = fill(this.words.marks_full, { n: MAX_MARKS });
      return;
    } else this.marks[this.member] = [...mine, hole];
    $('team-message').textContent = '';
    this.sendMarks();
    this.changed();
  }

  clear() {
    this.marks[this.member] = [];
    this.sendMarks();
    this.changed();
  }

  sendMarks() {
    if (this.timer) return;
    const wait = Math.max(0, this.lastSent + MARK_PACE - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.lastSent = Date.now();
      this.send({ type: 'mark', holes: this.mine() });
    }, wait);
  }

  /** The vote's line in the team panel: how many voted, when it closes, our own vote. */
  renderVotes(/** @type {number | null} */ moves = null) {
    const box = $('vote-status');
    if (!box || box.hidden) return;
    if (moves !== null) this.moves = moves;
    const v = this.current(this.moves);
    const w = this.words;
    const parts = [];
    if (v) {
      const left = Math.max(0, Math.ceil((v.closes_at - Date.now()) / 1000));
      parts.push(fill(w.votes_status, { voted: v.voted, members: v.members, time: fmtSeconds(left) }));
      const tally = Object.entries(v.tally)
        .sort((a, b) => b[1] - a[1])
        .map(([m, n]) => `${m} ${n}`)
        .join(', ');
      if (tally) parts.push(tally);
    } else parts.push(w.no_votes_yet);
    if (this.myVote && this.myVote.ply === this.moves) parts.push(fill(w.your_vote, { move: this.myVote.move }));
    box.textContent = parts.join(' · ');
    box.dataset.voted = v ? String(v.voted) : '0';
  }
}

/** `m:ss` for a number of seconds. */
export function fmtSeconds(/** @type {number} */ s) {
  if (s >= 3600) return `${Math.floor(s / 3600)}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
