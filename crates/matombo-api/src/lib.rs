//! # matombo-api
//!
//! The board's JSON API as pure functions: a request (the game as the client holds it:
//! start position, turns played, decisions of the turn in progress) goes in, the state of
//! the game comes out, replayed by `matombo-core`. The web server answers HTTP with these
//! functions (`POST /api/game`, `/api/ai`, `/api/record/*`), and the in-browser engine
//! (crate `matombo-wasm`) answers the board page with the very same code, compiled to
//! WebAssembly: no rule is written twice.
//!
//! ```
//! use matombo_api::{game, GameRequest};
//!
//! let req = GameRequest { start: "tsoro:8".into(), apply: vec!["sow B2".into()], ..GameRequest::default() };
//! let state = game(&req).unwrap();
//! assert_eq!(state.phase, "head"); // the lap ended on South's head B7
//! assert_eq!(state.legal, ["continue", "stop"]);
//! let bad = GameRequest { start: "tsoro:8".into(), apply: vec!["sow A1".into()], ..GameRequest::default() };
//! assert_eq!(game(&bad).unwrap_err().code, matombo_api::ErrorCode::Illegal);
//! ```
#![deny(missing_docs)]

use matombo_core::Side;
use serde::{Deserialize, Serialize};

mod ai;
mod analysis;
mod catalogue;
mod error;
mod game;
mod notation;
pub mod online;
pub mod puzzles;
mod records;
pub mod review;
mod state;
pub use ai::{search_speed, AiAnswer, AiJob, AiRequest, SearchSpeed};
pub use analysis::{analyse, AnalyseRequest, Analysis, Line, ANALYSE_DEFAULT_MS, ANALYSE_MAX_LINES};
pub use catalogue::{games, GameInfo, NSOLO_TRADITIONAL, TSORO_TRADITIONAL};
pub use error::{cut, ApiError, ErrorBody, ErrorCode, MAX_ERROR_CHARS};
pub use game::{game, replay, GameRequest};
/// Re-exported: the API's scores are the search's.
pub use matombo_ai::mate_in;
pub use notation::{ruleset, setup, RulesetRequest, SetupAnswer, SetupRequest};
pub use records::{export, import, ExportAnswer, ExportRequest, ImportAnswer, ImportRequest};
pub use review::{
    review, review_position, review_record, PositionScoreJson, ReviewAnswer, ReviewPositionRequest, ReviewRequest,
};
pub use state::{EventJson, GameState, Lost, OutcomeJson, Rows, RulesetInfo};

/// A side as the JSON written: `"south"` or `"north"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SideJson {
    /// The first player (rows `A` and `B`).
    South,
    /// The second player (rows `a` and `b`).
    North,
}

impl From<Side> for SideJson {
    fn from(s: Side) -> SideJson {
        match s {
            Side::South => SideJson::South,
            Side::North => SideJson::North,
        }
    }
}

impl From<SideJson> for Side {
    fn from(s: SideJson) -> Side {
        match s {
            SideJson::South => Side::South,
            SideJson::North => Side::North,
        }
    }
}

impl SideJson {
    /// The side as written, `"south"` or `"north"`.
    pub fn as_str(self) -> &'static str {
        match self {
            SideJson::South => "south",
            SideJson::North => "north",
        }
    }
}

/// Reads a JSON request body with a clear message instead of serde's bare one.
pub fn parse_body<T: for<'de> Deserialize<'de>>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| ApiError::bad(format!("malformed request body: {e}")))
}
