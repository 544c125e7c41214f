//! Game records (RULES.md §6.5) written and read: `POST /api/record/export` and
//! `/api/record/import`.

use matombo_core::{Outcome, Record, Termination};
use serde::{Deserialize, Serialize};

use crate::{game, review, ApiError, GameRequest, GameState, SideJson};

/// Asks for a game record.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportRequest {
    /// Start position or ruleset name.
    pub start: String,
    /// Turns played.
    #[serde(default)]
    pub moves: Vec<String>,
    /// The side that resigned, if any.
    #[serde(default)]
    pub resigned: Option<String>,
    /// Extra tags, e.g. `{"South": "Ann", "North": "matombo (easy)"}`.
    #[serde(default)]
    pub tags: std::collections::BTreeMap<String, String>,
}

/// Writes the record of a game (the body of `POST /api/record/export`).
pub fn export(req: &ExportRequest) -> Result<ExportAnswer, ApiError> {
    let game = review::replay_ended(&req.start, &req.moves, req.resigned.as_deref())?;
    let mut record = Record::new(game);
    check_tag_names(&req.tags)?;
    // All at once: setting tags one by one is quadratic in their number.
    record.set_tags(req.tags.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    Ok(ExportAnswer { record: record.to_string() })
}

pub(crate) fn check_tag_names(tags: &std::collections::BTreeMap<String, String>) -> Result<(), ApiError> {
    for k in tags.keys() {
        if k.is_empty() || !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(ApiError::bad(format!("tag name {k:?} must be letters, digits or _")));
        }
    }
    Ok(())
}

/// A written record.
#[derive(Debug, Serialize)]
pub struct ExportAnswer {
    /// The record text (RULES.md §6.5).
    pub record: String,
}

/// Reads a record.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportRequest {
    /// The record text.
    pub text: String,
}

/// The game of a record: its state, its tags, and who resigned.
#[derive(Debug, Serialize)]
pub struct ImportAnswer {
    /// The game's state after its last turn.
    #[serde(flatten)]
    pub state: GameState,
    /// The record's tags, in order.
    pub tags: Vec<(String, String)>,
    /// The side that resigned, if the game ended so.
    pub resigned: Option<SideJson>,
}

/// Reads a record (the body of `POST /api/record/import`).
pub fn import(req: &ImportRequest) -> Result<ImportAnswer, ApiError> {
    let record: Record = req.text.parse().map_err(|e: matombo_core::RecordError| ApiError::bad(e.to_string()))?;
    let moves: Vec<String> = record.game.moves().iter().map(|t| t.to_string()).collect();
    let resigned = match record.game.outcome() {
        Some(Outcome { winner: Some(w), termination: Termination::Resignation }) => Some(w.opponent()),
        _ => None,
    };
    let state = game(&GameRequest {
        start: record.game.start().to_string(),
        moves,
        resigned: resigned.map(|s| s.letter().to_string()),
        ..GameRequest::default()
    })?;
    let resigned = resigned.map(SideJson::from);
    Ok(ImportAnswer { state, tags: record.tags.clone(), resigned })
}
