//! A game from a start position: its turns, the end of the game (RULES.md §4.3, §5),
//! resignation and undo.

use core::fmt;

use crate::error::IllegalError;
use crate::hole::Side;
use crate::position::Position;
use crate::ruleset::GameKind;
use crate::token::Token;

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Termination {
    /// The side to move had no legal move and lost (RULES.md §5).
    NoLegalMove,
    /// Nsolo: a position arose a second time (RULES.md §4.3); a draw.
    Repetition,
    /// A player resigned.
    Resignation,
    /// A player ran out of time (online play with clocks).
    TimeForfeit,
}

impl Termination {
    /// The word used in a record's `Termination` tag.
    pub fn tag(self) -> &'static str {
        match self {
            Termination::NoLegalMove => "normal",
            Termination::Repetition => "repetition",
            Termination::Resignation => "resignation",
            Termination::TimeForfeit => "time forfeit",
        }
    }

    /// Parses a `Termination` tag word.
    pub fn from_tag(s: &str) -> Option<Termination> {
        [Termination::NoLegalMove, Termination::Repetition, Termination::Resignation, Termination::TimeForfeit]
            .into_iter()
            .find(|t| t.tag() == s)
    }
}

/// The end of a game: who won (none for a draw) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Outcome {
    /// The winner; `None` for a draw.
    pub winner: Option<Side>,
    /// Why the game ended.
    pub termination: Termination,
}

impl Outcome {
    /// The result as a record writes it: `1-0`, `0-1` or `1/2-1/2`.
    pub fn result(&self) -> &'static str {
        match self.winner {
            Some(Side::South) => "1-0",
            Some(Side::North) => "0-1",
            None => "1/2-1/2",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.winner, self.termination) {
            (Some(w), Termination::NoLegalMove) => write!(f, "{w} wins: {} has no legal move", w.opponent()),
            (Some(w), Termination::Resignation) => write!(f, "{w} wins: {} resigned", w.opponent()),
            (Some(w), Termination::TimeForfeit) => write!(f, "{w} wins: {} ran out of time", w.opponent()),
            (_, Termination::Repetition) => write!(f, "draw: the position repeated"),
            (None, t) => write!(f, "draw ({})", t.tag()),
        }
    }
}

/// A game: the start position, the turns played and the positions they led to.
///
/// ```
/// use matombo_core::{Game, Position};
/// let mut g = Game::new(Position::start("tsoro:8".parse().unwrap()));
/// g.play(&"B2=".parse().unwrap()).unwrap();
/// assert_eq!(g.moves().len(), 1);
/// assert!(g.play(&"B2=".parse().unwrap()).is_err()); // North to move now
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    positions: Vec<Position>,
    moves: Vec<Token>,
    outcome: Option<Outcome>,
}

impl Game {
    /// A new game from `start` (over at once if the side to move has no legal move).
    pub fn new(start: Position) -> Game {
        let mut g = Game { positions: vec![start], moves: Vec::new(), outcome: None };
        g.outcome = g.rules_outcome();
        g
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        self.positions.last().expect("a game has a start position")
    }

    /// Every position so far, the start first.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The turns played.
    pub fn moves(&self) -> &[Token] {
        &self.moves
    }

    /// How the game ended, if it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// The end of the game by the rules alone, judged on the current position.
    fn rules_outcome(&self) -> Option<Outcome> {
        let p = self.position();
        if !p.has_legal_turn() {
            return Some(Outcome { winner: Some(p.side_to_move().opponent()), termination: Termination::NoLegalMove });
        }
        if p.ruleset().kind() == GameKind::Nsolo {
            // Captures cannot be undone, so positions since the last capture are exactly the
            // earlier positions with as many stones as this one.
            let total = p.total_stones();
            let earlier =
                self.positions[..self.positions.len() - 1].iter().rev().take_while(|q| q.total_stones() == total);
            if earlier.into_iter().any(|q| q.hash() == p.hash() && q == p) {
                return Some(Outcome { winner: None, termination: Termination::Repetition });
            }
        }
        None
    }

    /// Plays a turn; an illegal turn, or any turn once the game is over, is refused and
    /// changes nothing.
    pub fn play(&mut self, token: &Token) -> Result<&Position, IllegalError> {
        if let Some(o) = self.outcome {
            return Err(IllegalError::GameOver(o.to_string()));
        }
        let next = self.position().play(token)?;
        self.moves.push(token.clone());
        self.positions.push(next);
        self.outcome = self.rules_outcome();
        Ok(self.position())
    }

    /// `side` resigns; allowed while the game is on.
    pub fn resign(&mut self, side: Side) -> Result<(), IllegalError> {
        self.end(Outcome { winner: Some(side.opponent()), termination: Termination::Resignation })
    }

    /// Ends the game for a reason outside the board (resignation, time).
    pub fn end(&mut self, outcome: Outcome) -> Result<(), IllegalError> {
        if let Some(o) = self.outcome {
            return Err(IllegalError::GameOver(o.to_string()));
        }
        self.outcome = Some(outcome);
        Ok(())
    }

    /// Takes back the last turn (and any end that came with or after it).
    pub fn undo(&mut self) -> Option<Token> {
        let t = self.moves.pop()?;
        self.positions.pop();
        self.outcome = self.rules_outcome();
        Some(t)
    }
}
