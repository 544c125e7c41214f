//! `POST /api/game`: a game as the client holds it, replayed, and the turn in progress
//! built decision by decision.

use matombo_core::{Decision, Game, Phase, Position, Side, Token, TurnBuilder};
use serde::Deserialize;

use crate::{ApiError, ErrorCode, EventJson, GameState, Lost, OutcomeJson, Rows, RulesetInfo};

/// A game as the client holds it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameRequest {
    /// Start position, or a ruleset name meaning its start position.
    pub start: String,
    /// Turns played, as tokens (RULES.md §6.3).
    #[serde(default)]
    pub moves: Vec<String>,
    /// Decisions already taken in the turn in progress (RULES.md §6.4), except that bonus
    /// picks (`take <hole>`) may come in any order: the turn is recorded in canonical order
    /// once the bonus is complete.
    #[serde(default)]
    pub pending: Vec<String>,
    /// Decisions to take now (bonus picks in any order, as in `pending`); their events are
    /// reported for animation.
    #[serde(default)]
    pub apply: Vec<String>,
    /// A whole turn to play now (only at the start of a turn); events are reported.
    #[serde(default)]
    pub token: Option<String>,
    /// The side that resigned, if one did (`"S"` or `"N"`).
    #[serde(default)]
    pub resigned: Option<String>,
}

fn parse_start(s: &str) -> Result<Position, ApiError> {
    s.parse::<Position>().map_err(|e| ApiError::new(ErrorCode::BadPosition, format!("bad start position {s:?}: {e}")))
}

pub(crate) fn parse_token(s: &str) -> Result<Token, ApiError> {
    s.parse::<Token>().map_err(|e| ApiError::new(ErrorCode::BadMove, format!("bad turn token {s:?}: {e}")))
}

fn parse_decision(s: &str) -> Result<Decision, ApiError> {
    s.parse::<Decision>().map_err(|e| ApiError::new(ErrorCode::BadDecision, e.to_string()))
}

pub(crate) fn parse_side(s: &str) -> Result<Side, ApiError> {
    match s {
        "S" | "South" | "south" => Ok(Side::South),
        "N" | "North" | "north" => Ok(Side::North),
        _ => Err(ApiError::new(ErrorCode::InvalidField, format!("side must be \"S\" or \"N\", not {s:?}"))),
    }
}

/// Replays `start` and `moves` into a game.
pub fn replay(start: &str, moves: &[String]) -> Result<Game, ApiError> {
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
    turn: TurnBuilder,
    pending: Vec<Decision>,
    events: Vec<EventJson>,
    played: Vec<String>,
}

impl Live {
    fn load(start: &str, moves: &[String], pending: &[String]) -> Result<Live, ApiError> {
        let game = replay(start, moves)?;
        let turn = game.position().build_turn();
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
            return Err(ApiError::new(
                ErrorCode::GameOver,
                format!("the game is over ({o}); no more turns can be played"),
            ));
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
            self.turn = self.game.position().build_turn();
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
            to_move: self.turn.mover().into(),
            start_to_move: self.game.start().side_to_move().into(),
            phase,
            head,
            left,
            picks: self.turn.picks().iter().map(|h| h.to_string()).collect(),
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
        let decisions =
            live.game.position().resolve_for_builder(&token).map_err(|e| ApiError::illegal(e.to_string()))?;
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
