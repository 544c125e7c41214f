//! The JSON API of the board page, stateless: every request carries the game (start
//! position, turns played, decisions of the turn in progress) and the server replays it
//! with `matombo-core`, so nothing is kept per user on the server.
//!
//! | method and path | body | answer |
//! |---|---|---|
//! | `GET /api/rulesets` | – | the games, their sizes (traditional first) and options |
//! | `POST /api/game` | [`GameRequest`] | [`GameState`]: board, legal decisions, events, outcome |
//! | `POST /api/ai` | [`AiRequest`] | [`AiAnswer`]: the AI's turn (token and decisions) |
//! | `POST /api/record/export` | [`ExportRequest`] | `{"record": "<PGN-like text>"}` |
//! | `POST /api/record/import` | `{"text": "<record>"}` | [`GameState`] of the recorded game |
//!
//! Malformed or illegal requests are answered `400` (cannot be read) or `422` (illegal in
//! the position) with `{"error": "<message>"}` and change nothing.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use matombo_ai::Level;
use matombo_core::{
    Decision, Event, Game, GameKind, Hole, Outcome, Phase, Position, Record, Row, Ruleset, Side, Termination, Token,
    Turn,
};
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;

/// An API error: HTTP status and a message for people.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    fn bad(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::BAD_REQUEST, message: message.into() }
    }

    fn illegal(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::UNPROCESSABLE_ENTITY, message: message.into() }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(serde_json::json!({ "error": self.message }))).into_response()
    }
}

/// Reads a JSON body with a clear message instead of the extractor's default text.
fn parse_body<T: for<'de> Deserialize<'de>>(body: &Bytes) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| ApiError::bad(format!("malformed request body: {e}")))
}

/// A game as the client holds it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameRequest {
    /// Start position, or a ruleset name meaning its start position.
    pub start: String,
    /// Turns played, as tokens (RULES.md §6.3).
    #[serde(default)]
    pub moves: Vec<String>,
    /// Decisions already taken in the turn in progress (RULES.md §6.4).
    #[serde(default)]
    pub pending: Vec<String>,
    /// Decisions to take now; their events are reported for animation.
    #[serde(default)]
    pub apply: Vec<String>,
    /// A whole turn to play now (only at the start of a turn); events are reported.
    #[serde(default)]
    pub token: Option<String>,
    /// The side that resigned, if one did (`"S"` or `"N"`).
    #[serde(default)]
    pub resigned: Option<String>,
}

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
            Event::Lap { from, stones, last } => {
                EventJson::Lap { from: from.to_string(), stones, last: last.to_string() }
            }
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
    /// `"South"`, `"North"` or null for a draw.
    pub winner: Option<Side>,
    /// `no_legal_move`, `repetition`, `resignation` or `time_forfeit`.
    pub termination: Termination,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
    /// In English, e.g. "South wins: North has no legal move".
    pub text: String,
}

impl From<Outcome> for OutcomeJson {
    fn from(o: Outcome) -> OutcomeJson {
        OutcomeJson { winner: o.winner, termination: o.termination, result: o.result(), text: o.to_string() }
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
    pub to_move: Side,
    /// `start`, `head`, `bonus` or `over`.
    pub phase: &'static str,
    /// In phase `head`: the head the lap ended on.
    pub head: Option<String>,
    /// In phase `bonus`: Tsoro, holes that may still be picked; Nsolo, stones still to take.
    pub left: Option<u16>,
    /// The token so far of the turn in progress (e.g. `B2+xb3`).
    pub partial: Option<String>,
    /// Legal decisions now, e.g. `["sow B2", "sow B3"]`, `["continue", "stop"]`.
    pub legal: Vec<String>,
    /// The holes the player may click now (start holes or bonus picks).
    pub clickable: Vec<String>,
    /// Events of the decisions applied by this request, in order.
    pub events: Vec<EventJson>,
    /// Turns that were completed by this request.
    pub played: Vec<String>,
    /// Stones each side has lost so far: `{"South": 0, "North": 4}`.
    pub lost: Lost,
    /// Set when the game is over.
    pub outcome: Option<OutcomeJson>,
}

/// Stones lost by each side.
#[derive(Debug, Serialize)]
pub struct Lost {
    /// Lost by South.
    #[serde(rename = "South")]
    pub south: u32,
    /// Lost by North.
    #[serde(rename = "North")]
    pub north: u32,
}

fn parse_start(s: &str) -> Result<Position, ApiError> {
    s.parse::<Position>().map_err(|e| ApiError::bad(format!("bad start position {s:?}: {e}")))
}

fn parse_token(s: &str) -> Result<Token, ApiError> {
    s.parse::<Token>().map_err(|e| ApiError::bad(format!("bad turn token {s:?}: {e}")))
}

fn parse_decision(s: &str) -> Result<Decision, ApiError> {
    s.parse::<Decision>().map_err(|e| ApiError::bad(e.to_string()))
}

fn parse_side(s: &str) -> Result<Side, ApiError> {
    match s {
        "S" | "South" | "south" => Ok(Side::South),
        "N" | "North" | "north" => Ok(Side::North),
        _ => Err(ApiError::bad(format!("side must be \"S\" or \"N\", not {s:?}"))),
    }
}

/// Replays `start` and `moves` into a game.
fn replay(start: &str, moves: &[String]) -> Result<Game, ApiError> {
    let mut game = Game::new(parse_start(start)?);
    for (i, m) in moves.iter().enumerate() {
        let token = parse_token(m)?;
        game.play(&token).map_err(|e| ApiError::illegal(format!("move {} ({m}): {e}", i + 1)))?;
    }
    Ok(game)
}

/// A game and the turn in progress.
struct Live {
    game: Game,
    turn: Turn,
    pending: Vec<Decision>,
    events: Vec<EventJson>,
    played: Vec<String>,
}

impl Live {
    fn load(start: &str, moves: &[String], pending: &[String]) -> Result<Live, ApiError> {
        let game = replay(start, moves)?;
        let turn = game.position().begin_turn();
        let mut live = Live { game, turn, pending: Vec::new(), events: Vec::new(), played: Vec::new() };
        for d in pending {
            live.decide(parse_decision(d)?, false)
                .map_err(|e| ApiError::illegal(format!("pending {d:?}: {}", e.message)))?;
        }
        Ok(live)
    }

    /// Applies one decision; a completed turn is added to the game.
    fn decide(&mut self, d: Decision, report: bool) -> Result<(), ApiError> {
        if let Some(o) = self.game.outcome() {
            return Err(ApiError::illegal(format!("the game is over ({o}); no more turns can be played")));
        }
        let mut events = Vec::new();
        self.turn
            .apply_with(d, &mut |e| events.push(EventJson::from(e)))
            .map_err(|e| ApiError::illegal(e.to_string()))?;
        if report {
            self.events.extend(events);
        }
        self.pending.push(d);
        if self.turn.is_complete() {
            let token = self.turn.token().expect("complete turn has a token");
            self.game.play(&token).map_err(|e| ApiError::illegal(e.to_string()))?;
            self.played.push(token.to_string());
            self.turn = self.game.position().begin_turn();
            self.pending.clear();
        }
        Ok(())
    }

    fn state(self) -> GameState {
        let pos = self.game.position();
        let ruleset = pos.ruleset();
        let over = self.game.outcome();
        let (phase, head, left) = match (over, self.turn.phase()) {
            (Some(_), _) => ("over", None, None),
            (None, Phase::Start) => ("start", None, None),
            (None, Phase::Head(h)) => ("head", Some(h.to_string()), None),
            (None, Phase::Bonus { left }) => ("bonus", None, Some(left)),
            (None, Phase::Complete) => ("over", None, None),
        };
        let decisions = if over.is_some() { Vec::new() } else { self.turn.decisions() };
        let clickable = decisions
            .iter()
            .filter_map(|d| match d {
                Decision::Sow(h) | Decision::Take(h) => Some(h.to_string()),
                _ => None,
            })
            .collect();
        let board = self.turn.position();
        let lost_by = |side: Side| {
            let began = self.game.start().stones(side);
            began.saturating_sub(board.stones(side))
        };
        GameState {
            ruleset: RulesetInfo::of(ruleset),
            start: self.game.start().to_string(),
            moves: self.game.moves().iter().map(|t| t.to_string()).collect(),
            pending: self.pending.iter().map(|d| d.to_string()).collect(),
            position: pos.to_string(),
            rows: Rows::of(board),
            to_move: self.turn.mover(),
            phase,
            head,
            left,
            partial: self.turn.partial_token().map(|t| t.to_string()),
            legal: decisions.iter().map(|d| d.to_string()).collect(),
            clickable,
            events: self.events,
            played: self.played,
            lost: Lost { south: lost_by(Side::South), north: lost_by(Side::North) },
            outcome: over.map(OutcomeJson::from),
        }
    }
}

/// Runs a game request (the body of `POST /api/game`).
pub fn game(req: &GameRequest) -> Result<GameState, ApiError> {
    let mut live = Live::load(&req.start, &req.moves, &req.pending)?;
    if let Some(t) = &req.token {
        if !live.pending.is_empty() {
            return Err(ApiError::bad("a whole turn (token) can only be played at the start of a turn"));
        }
        let token = parse_token(t)?;
        let decisions = live.game.position().resolve(&token).map_err(|e| ApiError::illegal(e.to_string()))?;
        for d in decisions {
            live.decide(d, true)?;
        }
    }
    for d in &req.apply {
        live.decide(parse_decision(d)?, true)?;
    }
    if let Some(s) = &req.resigned {
        let side = parse_side(s)?;
        if !live.pending.is_empty() {
            return Err(ApiError::illegal("a player can resign only at the start of a turn"));
        }
        if side != live.game.position().side_to_move() {
            return Err(ApiError::illegal(format!("{side} can resign only on his own turn")));
        }
        live.game.resign(side).map_err(|e| ApiError::illegal(e.to_string()))?;
    }
    Ok(live.state())
}

/// `POST /api/game`.
pub async fn game_handler(body: Bytes) -> Result<Json<GameState>, ApiError> {
    let req: GameRequest = parse_body(&body)?;
    Ok(Json(game(&req)?))
}

/// Asks the AI for a turn.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AiRequest {
    /// Start position or ruleset name.
    pub start: String,
    /// Turns played.
    #[serde(default)]
    pub moves: Vec<String>,
    /// `beginner`, `easy`, `medium`, `hard` or `max` (default `medium`).
    #[serde(default)]
    pub level: Option<String>,
    /// Seed of the AI's random choices (default: random).
    #[serde(default)]
    pub seed: Option<u64>,
}

/// The AI's choice.
#[derive(Debug, Serialize)]
pub struct AiAnswer {
    /// The turn, as a token.
    pub token: String,
    /// The same turn as decisions, in order.
    pub decisions: Vec<String>,
    /// Score from the mover's point of view.
    pub score: i32,
    /// Depth reached.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Milliseconds spent.
    pub ms: u64,
}

/// Bounds the AI searches running at once, so that they never starve the server.
#[derive(Clone)]
pub struct AiPool {
    permits: Arc<Semaphore>,
}

impl AiPool {
    /// A pool running at most `n` searches at once.
    pub fn new(n: usize) -> AiPool {
        AiPool { permits: Arc::new(Semaphore::new(n.max(1))) }
    }
}

/// The longest any search may run, whatever its level says.
const AI_HARD_LIMIT: Duration = Duration::from_secs(10);

/// `POST /api/ai`.
pub async fn ai_handler(
    axum::extract::State(pool): axum::extract::State<AiPool>,
    body: Bytes,
) -> Result<Json<AiAnswer>, ApiError> {
    let req: AiRequest = parse_body(&body)?;
    let level: Level = match &req.level {
        Some(l) => l.parse().map_err(|e: matombo_ai::ParseLevelError| ApiError::bad(e.to_string()))?,
        None => Level::Medium,
    };
    let game = replay(&req.start, &req.moves)?;
    if let Some(o) = game.outcome() {
        return Err(ApiError::illegal(format!("the game is over ({o})")));
    }
    let pos = game.position().clone();
    let seed = req.seed.unwrap_or_else(rand::random);
    let _permit = pool.permits.acquire().await.map_err(|_| ApiError::bad("server shutting down"))?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let limit = (level.time() * 2).min(AI_HARD_LIMIT);
    // The stop flag bounds the search even if its own clock overruns.
    let timer = tokio::spawn(async move {
        tokio::time::sleep(limit).await;
        flag.store(true, Ordering::Relaxed);
    });
    let search_pos = pos.clone();
    let search_stop = stop.clone();
    // The positions so far let the search see Nsolo's repetition draws; play_level mixes
    // random turns into the low levels, as a gentle opponent should.
    let all = game.positions();
    let history = all[..all.len() - 1].to_vec();
    let result = tokio::task::spawn_blocking(move || {
        matombo_ai::Engine::new(seed).play_level(&search_pos, level, &search_stop, &history)
    })
    .await
    .map_err(|e| ApiError { status: StatusCode::INTERNAL_SERVER_ERROR, message: format!("search failed: {e}") })?;
    timer.abort();
    let r = result.ok_or_else(|| ApiError::illegal("the side to move has no legal turn"))?;
    let decisions = pos.resolve(&r.best).map_err(|e| ApiError {
        status: StatusCode::INTERNAL_SERVER_ERROR,
        message: format!("the AI chose an illegal turn: {e}"),
    })?;
    Ok(Json(AiAnswer {
        token: r.best.to_string(),
        decisions: decisions.iter().map(|d| d.to_string()).collect(),
        score: r.score,
        depth: r.depth,
        nodes: r.nodes,
        ms: r.elapsed.as_millis() as u64,
    }))
}

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

/// `POST /api/record/export`.
pub async fn export_handler(body: Bytes) -> Result<Json<serde_json::Value>, ApiError> {
    let req: ExportRequest = parse_body(&body)?;
    let mut game = replay(&req.start, &req.moves)?;
    if let Some(s) = &req.resigned {
        let side = parse_side(s)?;
        if side != game.position().side_to_move() {
            return Err(ApiError::illegal(format!("{side} can resign only on his own turn")));
        }
        game.resign(side).map_err(|e| ApiError::illegal(e.to_string()))?;
    }
    let mut record = Record::new(game);
    for (k, v) in &req.tags {
        if k.is_empty() || !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(ApiError::bad(format!("tag name {k:?} must be letters, digits or _")));
        }
        record.set_tag(k, v);
    }
    Ok(Json(serde_json::json!({ "record": record.to_string() })))
}

/// Reads a record.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportRequest {
    /// The record text.
    pub text: String,
}

/// `POST /api/record/import`: the game of a record, as a [`GameState`] (plus its tags).
pub async fn import_handler(body: Bytes) -> Result<Json<serde_json::Value>, ApiError> {
    let req: ImportRequest = parse_body(&body)?;
    let record: Record = req.text.parse().map_err(|e: matombo_core::RecordError| ApiError::bad(e.to_string()))?;
    let moves: Vec<String> = record.game.moves().iter().map(|t| t.to_string()).collect();
    let resigned = match record.game.outcome() {
        Some(Outcome { winner: Some(w), termination: Termination::Resignation }) => {
            Some(w.opponent().letter().to_string())
        }
        _ => None,
    };
    let state = game(&GameRequest {
        start: record.game.start().to_string(),
        moves,
        resigned: resigned.clone(),
        ..GameRequest::default()
    })?;
    let mut v = serde_json::to_value(state).expect("state serializes");
    v["tags"] = serde_json::to_value(&record.tags).expect("tags serialize");
    v["resigned"] = serde_json::to_value(resigned).expect("string serializes");
    Ok(Json(v))
}

/// One game in the catalogue, with its variant choices.
#[derive(Debug, Serialize)]
pub struct GameInfo {
    /// `tsoro` or `nsolo`.
    pub game: &'static str,
    /// Standard size.
    pub default_size: u8,
    /// Sizes offered, the traditional ones first.
    pub sizes: Vec<u8>,
    /// How many of `sizes` are traditional.
    pub traditional: usize,
    /// Head counts offered (Tsoro), default first.
    pub heads: Vec<u8>,
    /// Bonus hole counts offered (Tsoro), default first.
    pub bonus: Vec<u8>,
}

/// The games and their variants, traditional sizes first.
pub fn games() -> Vec<GameInfo> {
    let list = |kind: GameKind, trad: &[u8]| {
        let (lo, hi) = kind.size_range();
        let mut sizes = trad.to_vec();
        sizes.extend((lo..=hi).filter(|n| !trad.contains(n)));
        sizes
    };
    vec![
        GameInfo {
            game: "tsoro",
            default_size: GameKind::Tsoro.default_size(),
            sizes: list(GameKind::Tsoro, &TSORO_TRADITIONAL),
            traditional: TSORO_TRADITIONAL.len(),
            heads: vec![2, 1, 0],
            bonus: vec![2, 0, 1, 3],
        },
        GameInfo {
            game: "nsolo",
            default_size: GameKind::Nsolo.default_size(),
            sizes: list(GameKind::Nsolo, &NSOLO_TRADITIONAL),
            traditional: NSOLO_TRADITIONAL.len(),
            heads: vec![],
            bonus: vec![],
        },
    ]
}

/// Tsoro's full board and the smaller ones RULES.md §3.1 names, full board first.
pub const TSORO_TRADITIONAL: [u8; 6] = [21, 6, 8, 12, 15, 18];
/// Nsolo's standard board and the village match board (RULES.md §4.1).
pub const NSOLO_TRADITIONAL: [u8; 2] = [8, 36];

/// `GET /api/rulesets`.
pub async fn rulesets_handler() -> Json<Vec<GameInfo>> {
    Json(games())
}
