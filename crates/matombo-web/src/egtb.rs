//! Endgame tables on the server (`matombo serve --egtb DIR`): the AI's turns probe the
//! tables of their ruleset, and the board asks for a position's exact value.
//!
//! | method and path | body | answer |
//! |---|---|---|
//! | `GET /api/egtb` | – | [`EgtbList`]: the rulesets with tables and their most stones |
//! | `POST /api/egtb/probe` | [`ProbeRequest`] | [`ProbeAnswer`]: win/loss/draw and distance, if the tables hold the position |
//!
//! Every table is read and checked (checksums) when the server starts; a damaged one stops
//! the start, so the server never answers from a table it could not trust.

use std::path::Path;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use matombo_api::{replay, ErrorCode, SideJson};
use matombo_core::Ruleset;
use matombo_egtb::Tables;
use serde::{Deserialize, Serialize};

use crate::api::{ApiError, CpuBudget};

/// The endgame tables the server holds, at most one set per ruleset (cheap to clone).
#[derive(Clone, Debug, Default)]
pub struct Egtb {
    tables: Arc<Vec<Arc<Tables>>>,
}

impl Egtb {
    /// No tables.
    pub fn none() -> Egtb {
        Egtb::default()
    }

    /// Every ruleset's tables under `dir` (as `matombo egtb build --dir` wrote them), each
    /// file read and checked; a missing directory, an empty one or a damaged file is an error.
    pub fn open(dir: &Path) -> Result<Egtb, matombo_egtb::Error> {
        let all = Tables::open_all(dir)?;
        Ok(Egtb { tables: Arc::new(all.into_iter().map(Arc::new).collect()) })
    }

    /// These tables (for tests and embedding).
    pub fn from_tables(tables: Vec<Arc<Tables>>) -> Egtb {
        Egtb { tables: Arc::new(tables) }
    }

    /// The tables of `ruleset`, if held.
    pub fn get(&self, ruleset: Ruleset) -> Option<Arc<Tables>> {
        self.tables.iter().find(|t| t.ruleset() == ruleset).cloned()
    }

    /// What is held.
    pub fn list(&self) -> EgtbList {
        EgtbList {
            tables: self
                .tables
                .iter()
                .map(|t| EgtbInfo { ruleset: t.ruleset().to_string(), stones: t.max_stones() })
                .collect(),
        }
    }
}

/// `GET /api/egtb`.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct EgtbList {
    /// The rulesets with tables (empty if the server has none).
    pub tables: Vec<EgtbInfo>,
}

/// One ruleset's tables.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct EgtbInfo {
    /// The ruleset's canonical name, e.g. `tsoro:8`.
    pub ruleset: String,
    /// Positions with at most this many stones on the board are held.
    pub stones: u32,
}

/// `POST /api/egtb/probe`: a game, as `/api/ai` takes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeRequest {
    /// Start position or ruleset name.
    pub start: String,
    /// Turns played.
    #[serde(default)]
    pub moves: Vec<String>,
}

/// The tables' answer for the position after the game's turns.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ProbeAnswer {
    /// The position's canonical ruleset name.
    pub ruleset: String,
    /// The side to move, whom the value is for.
    pub to_move: SideJson,
    /// Stones on the board.
    pub stones: u32,
    /// Most stones the server's tables of this ruleset hold (`null`: no tables).
    pub max_stones: Option<u32>,
    /// `"win"`, `"loss"` or `"draw"` for the side to move; `null` if not in the tables.
    pub value: Option<String>,
    /// Turns to the end for a win or loss (both sides' turns).
    pub distance: Option<u16>,
    /// `"win in 7"`, `"loss in 12"` or `"draw"`; `null` if not in the tables.
    pub text: Option<String>,
    /// Every turn that keeps the value (fastest win, slowest loss, a draw kept), as tokens.
    pub best: Vec<String>,
}

/// Answers a probe (no game over: a finished game has no side to move).
pub fn probe(egtb: &Egtb, req: &ProbeRequest) -> Result<ProbeAnswer, matombo_api::ApiError> {
    let game = replay(&req.start, &req.moves)?;
    if let Some(o) = game.outcome() {
        return Err(matombo_api::ApiError::new(ErrorCode::GameOver, format!("the game is over ({o})")));
    }
    let pos = game.positions().last().expect("a game has a position").clone();
    let tables = egtb.get(pos.ruleset());
    let found = tables.as_deref().and_then(|t| t.best_turns(&pos));
    Ok(ProbeAnswer {
        ruleset: pos.ruleset().to_string(),
        to_move: pos.side_to_move().into(),
        stones: pos.total_stones(),
        max_stones: tables.as_deref().map(Tables::max_stones),
        value: found.as_ref().map(|(v, _)| v.kind().to_string()),
        distance: found.as_ref().and_then(|(v, _)| v.distance()),
        text: found.as_ref().map(|(v, _)| v.to_string()),
        best: found.map(|(_, turns)| turns.iter().map(ToString::to_string).collect()).unwrap_or_default(),
    })
}

/// `GET /api/egtb`.
pub async fn list_handler(State(egtb): State<Egtb>) -> Json<EgtbList> {
    Json(egtb.list())
}

/// `POST /api/egtb/probe`.
pub async fn probe_handler(
    State((egtb, cpu)): State<(Egtb, CpuBudget)>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<ProbeAnswer>, Response> {
    let req: ProbeRequest = crate::api::parse_body(body).map_err(IntoResponse::into_response)?;
    crate::api::check_game(&req.moves, &[]).map_err(IntoResponse::into_response)?;
    Ok(Json(cpu.run(move || probe(&egtb, &req).map_err(ApiError)).await?))
}
