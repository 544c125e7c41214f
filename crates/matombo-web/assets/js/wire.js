// The JSON the engine answers (`POST /api/game`, the same in the page's WebAssembly engine),
// as JSDoc types for the type check (e2e/tsconfig.json). Written from matombo-api's
// state.rs and game.rs; nothing runs here.

/** @typedef {'south' | 'north'} Side */

/**
 * The four rows, each indexed by hole number - 1 (`rows.B[0]` is `B1`).
 * @typedef {{ b: number[], a: number[], A: number[], B: number[], [row: string]: number[] }} Rows
 */

/**
 * @typedef {object} RulesetInfo
 * @property {string} name canonical, e.g. `tsoro:8,heads=1`
 * @property {'tsoro' | 'nsolo' | string} game
 * @property {number} n holes per row
 * @property {number} heads
 * @property {number} bonus
 * @property {number} total_stones
 * @property {string[]} head_holes
 */

/**
 * A lap (stones lifted and sown) or a capture.
 * @typedef {object} GameEvent
 * @property {'lap' | 'capture' | string} type
 * @property {string} [from]
 * @property {number} stones
 * @property {string} [last]
 * @property {string[]} [path]
 * @property {string} [hole]
 */

/**
 * @typedef {object} Outcome
 * @property {Side | null} winner
 * @property {string} termination `no_legal_move`, `repetition`, `resignation` or `time_forfeit`
 * @property {string} result `1-0`, `0-1` or `1/2-1/2`
 * @property {string} text
 */

/**
 * The state of a game after a request.
 * @typedef {object} GameState
 * @property {RulesetInfo} ruleset
 * @property {string} start
 * @property {string[]} moves
 * @property {string[]} pending
 * @property {string} position
 * @property {Rows} rows
 * @property {Side} to_move
 * @property {Side} start_to_move
 * @property {'start' | 'head' | 'bonus' | 'over' | string} phase
 * @property {string | null} head
 * @property {number | null} left
 * @property {string[]} picks
 * @property {string | null} partial
 * @property {string[]} legal
 * @property {string[]} clickable
 * @property {GameEvent[]} events
 * @property {string[]} played
 * @property {{ south: number, north: number }} lost
 * @property {Outcome | null} outcome
 */

/**
 * @typedef {object} GameRequest
 * @property {string} start
 * @property {string[]} [moves]
 * @property {string[]} [pending]
 * @property {string[]} [apply]
 * @property {string} [token]
 * @property {string | null} [resigned]
 */

// ---- online team games (docs/api.md, "Team games"; matombo-api's online.rs) ----------

/**
 * One member of a team as every client sees him (never his token).
 * @typedef {{ member: string, name: string, online: boolean, captain: boolean }} Member
 */

/**
 * A team game's rosters (the state's `teams`, the `teams` message).
 * @typedef {object} Teams
 * @property {'any' | 'captain' | 'vote' | string} mode
 * @property {number | null} vote_ms
 * @property {{ members: Member[] }} south
 * @property {{ members: Member[] }} north
 */

/**
 * The vote in progress on a side's turn, to that side's members (`votes`).
 * @typedef {object} Votes
 * @property {number} ply
 * @property {Record<string, number>} tally votes by turn
 * @property {number} voted members who voted
 * @property {number} members the side's members
 * @property {number} closes_at Unix ms
 */

/**
 * A member's proposal to his team (captain mode, `proposal`).
 * @typedef {{ ply: number, move: string, member: string, name: string }} Proposal
 */

export {};
