//! The state of a game as the JSON API answers it: board rows, events for animation, the
//! ruleset as the page needs it, the outcome.

use matombo_core::{Event, GameKind, Hole, Outcome, Position, Row, Ruleset, Side, Termination};
use serde::Serialize;

use crate::SideJson;

/// One thing that happened, for animation.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventJson {
    /// All `stones` lifted from `from` and sown along the mover's track, the last into `last`.
    Lap {
        /// Hole lifted.
        from: String,
        /// Stones sown.
        stones: u16,
        /// Hole of the last stone.
        last: String,
        /// The holes sown into, one per stone in order (the last is `last`).
        path: Vec<String>,
    },
    /// Stones captured from an opponent's hole.
    Capture {
        /// The hole.
        hole: String,
        /// Stones removed.
        stones: u16,
    },
}

impl From<Event> for EventJson {
    fn from(e: Event) -> EventJson {
        match e {
            Event::Lap { from, stones, last, .. } => EventJson::Lap {
                from: from.to_string(),
                stones,
                last: last.to_string(),
                path: e.path().iter().map(|h| h.to_string()).collect(),
            },
            Event::Capture { hole, stones } => EventJson::Capture { hole: hole.to_string(), stones },
        }
    }
}

/// The four rows of a board, each indexed by hole number - 1 (`rows.B[0]` is `B1`).
#[derive(Debug, Serialize)]
#[allow(non_snake_case)]
pub struct Rows {
    /// North's outer row.
    pub b: Vec<u16>,
    /// North's inner row.
    pub a: Vec<u16>,
    /// South's inner row.
    pub A: Vec<u16>,
    /// South's outer row.
    pub B: Vec<u16>,
}

impl Rows {
    /// The rows of a position.
    pub fn of(p: &Position) -> Rows {
        let n = p.ruleset().size() as u8;
        let row = |side, row| (1..=n).map(|k| p.count(Hole::new(side, row, k))).collect();
        Rows {
            b: row(Side::North, Row::Outer),
            a: row(Side::North, Row::Inner),
            A: row(Side::South, Row::Inner),
            B: row(Side::South, Row::Outer),
        }
    }
}

/// The ruleset as the page needs it.
#[derive(Debug, Serialize)]
pub struct RulesetInfo {
    /// Canonical name, e.g. `tsoro:8,heads=1`.
    pub name: String,
    /// `tsoro` or `nsolo`.
    pub game: &'static str,
    /// Holes per row.
    pub n: usize,
    /// Heads per player (Tsoro; 0 for Nsolo).
    pub heads: u8,
    /// Bonus holes (Tsoro) or 0 (Nsolo, whose bonus is as many stones as captured).
    pub bonus: u8,
    /// Stones at the start.
    pub total_stones: u32,
    /// The heads of both players, e.g. `["B7", "B8", "b7", "b8"]`.
    pub head_holes: Vec<String>,
}

impl RulesetInfo {
    /// Describes a ruleset.
    pub fn of(r: Ruleset) -> RulesetInfo {
        let n = r.size();
        let mut head_holes = Vec::new();
        for side in Side::BOTH {
            for t in 0..n {
                if r.is_head_track(t) {
                    head_holes.push(Hole::from_track(side, t, n).to_string());
                }
            }
        }
        RulesetInfo {
            name: r.to_string(),
            game: r.kind().name(),
            n,
            heads: if r.kind() == GameKind::Tsoro { r.heads() } else { 0 },
            bonus: if r.kind() == GameKind::Tsoro { r.bonus() } else { 0 },
            total_stones: r.total_stones(),
            head_holes,
        }
    }
}

/// How the game ended.
#[derive(Debug, Serialize)]
pub struct OutcomeJson {
    /// `"south"`, `"north"` or null for a draw.
    pub winner: Option<SideJson>,
    /// `no_legal_move`, `repetition`, `resignation` or `time_forfeit`.
    pub termination: Termination,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
    /// In English, e.g. "South wins: North has no legal move".
    pub text: String,
}

impl From<Outcome> for OutcomeJson {
    fn from(o: Outcome) -> OutcomeJson {
        OutcomeJson {
            winner: o.winner.map(SideJson::from),
            termination: o.termination,
            result: o.result(),
            text: o.to_string(),
        }
    }
}

/// The state of a game after a request.
#[derive(Debug, Serialize)]
pub struct GameState {
    /// The ruleset.
    pub ruleset: RulesetInfo,
    /// The start position (canonical).
    pub start: String,
    /// Turns played, canonical tokens.
    pub moves: Vec<String>,
    /// Decisions taken in the turn in progress.
    pub pending: Vec<String>,
    /// The position at the start of the turn in progress (after the last complete turn).
    pub position: String,
    /// The board now, mid-turn included.
    pub rows: Rows,
    /// The player to decide now (the mover of the turn in progress).
    pub to_move: SideJson,
    /// The player to move in the start position: the movers of `moves` alternate from it.
    pub start_to_move: SideJson,
    /// `start`, `head`, `bonus` or `over`.
    pub phase: &'static str,
    /// In phase `head`: the head the lap ended on.
    pub head: Option<String>,
    /// In phase `bonus`: Tsoro, holes that may still be picked; Nsolo, stones still to take
    /// (the picks made so far counted).
    pub left: Option<u16>,
    /// In phase `bonus`: the holes picked so far, in the order picked (an Nsolo hole once
    /// per stone).
    pub picks: Vec<String>,
    /// The token so far of the turn in progress (e.g. `B2+xb3`), picks in canonical order.
    pub partial: Option<String>,
    /// Legal decisions now, e.g. `["sow B2", "sow B3"]`, `["continue", "stop"]`; in the
    /// bonus every hole that may be picked now, in any order, then `done` (Tsoro).
    pub legal: Vec<String>,
    /// The holes the player may click now (start holes or bonus picks).
    pub clickable: Vec<String>,
    /// Events of the decisions applied by this request, in order.
    pub events: Vec<EventJson>,
    /// Turns that were completed by this request.
    pub played: Vec<String>,
    /// Stones each side has lost so far: `{"south": 0, "north": 4}`.
    pub lost: Lost,
    /// Set when the game is over.
    pub outcome: Option<OutcomeJson>,
}

/// Stones lost by each side.
#[derive(Debug, Serialize)]
pub struct Lost {
    /// Lost by South.
    pub south: u32,
    /// Lost by North.
    pub north: u32,
}
