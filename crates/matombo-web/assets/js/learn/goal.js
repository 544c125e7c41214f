// A lesson task's goal, checked against what the engine answered for the learner's steps
// (docs/lessons.md): `seen` holds the decisions sent, the events the engine reported for
// them, and its last answer. No rule is decided here: laps, captures, the board and the
// outcome are the engine's; this only compares them with the goal's data.
// tests/lessons.rs checks every task with the same conditions.

/** The holes the laps ended in, in order. */
function lapEnds(seen) {
  return seen.events.filter((e) => e.type === 'lap').map((e) => e.last);
}

/** The capture events. */
function captures(seen) {
  return seen.events.filter((e) => e.type === 'capture');
}

function count(rows, hole) {
  return rows[hole[0]][Number(hole.slice(1)) - 1];
}

/** True when every condition of `goal` holds for `seen`. */
export function meets(goal, seen) {
  const ends = lapEnds(seen);
  const caught = captures(seen);
  const outcome = seen.state && seen.state.outcome;
  const checks = {
    start: (h) => seen.decisions[0] === `sow ${h}`,
    ends: (h) => ends[ends.length - 1] === h,
    laps_min: (n) => ends.length >= n,
    stop: (s) => seen.decisions.includes('stop') === s,
    capture: (holes) => holes.every((h) => caught.some((c) => c.hole === h)),
    stones_min: (n) => caught.reduce((s, c) => s + c.stones, 0) >= n,
    empty: (holes) => holes.every((h) => count(seen.state.rows, h) === 0),
    winner: (side) => !!outcome && outcome.winner === side,
    draw: (d) => (!!outcome && !outcome.winner) === d,
  };
  return Object.entries(goal).every(([key, value]) => {
    if (!(key in checks)) throw new Error(`unknown goal ${key}`);
    return checks[key](value);
  });
}

/** What happened, in words: where the last stone fell and what was captured. */
export function describe(seen, say, fill) {
  const ends = lapEnds(seen);
  const holes = [...new Set(captures(seen).map((c) => c.hole))];
  const parts = [];
  if (ends.length) parts.push(fill(say.last_stone_in, { hole: ends[ends.length - 1] }));
  parts.push(holes.length ? fill(say.captured_from, { holes: holes.join(', ') }) : say.nothing_captured);
  return parts.join(' ');
}
