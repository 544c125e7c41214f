//! Game review: where a game turned.
//!
//! Two steps, kept apart so that a caller can run the first its own way (the browser runs
//! it in a worker, one position at a time, and may stop half-way):
//!
//! 1. **Scoring**: one search per position of the game ([`score_position`], or
//!    [`score_game`] for them all with progress and a stop flag). Each search is a fresh
//!    engine with seed 1 and the default table, as `matombo analyse` searches, so that
//!    the two agree at the same budget.
//! 2. **Classification** ([`classify`]): a pure function from the game and its scores to
//!    each turn's loss against the engine's best, its class, and counts and an accuracy
//!    per side; [`annotate`] writes the result into a record (RULES.md §6.5).
//!
//! A turn's loss is the score of the position before it (the engine's best, from the
//! mover's view) less the score of the turn played (the negated score of the position
//! after it, searched at the same budget), both clipped to ±[`CLIP`], never below zero;
//! a turn that leads to the position the engine's best leads to loses nothing. A proven
//! win counts as `+CLIP`, a proven loss as `-CLIP`, so that throwing away a won game is a
//! blunder while choosing a slower win is not.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use matombo_ai::{review, Limits};
//! use matombo_core::{Game, Position};
//!
//! let mut game = Game::new(Position::start("tsoro:8".parse().unwrap()));
//! game.play(&"B2=".parse().unwrap()).unwrap();
//! let budget = Limits { depth: Some(3), ..Limits::default() };
//! let scores = review::score_game(&game, budget, &AtomicBool::new(false), &mut |_, _| {});
//! let r = review::classify(&game, &scores);
//! assert_eq!(r.turns.len(), 1);
//! assert!(r.turns[0].loss.unwrap() >= 0);
//! assert_eq!(r.south.turns, 1);
//! ```

use std::sync::atomic::{AtomicBool, Ordering};

use matombo_core::{Comment, Eval, Game, Position, Quality, Record, Side, Termination, Token};

use crate::{Engine, Limits, SearchOptions, DEFAULT_HASH_MIB, MATE, MATE_BOUND};

/// Losses of at least this many hundredths of a stone are inaccuracies (`?!`).
pub const INACCURACY: i32 = 100;
/// Losses of at least this many hundredths of a stone are mistakes (`?`).
pub const MISTAKE: i32 = 300;
/// Losses of at least this many hundredths of a stone are blunders (`??`); a turn's
/// accuracy falls linearly from 100 at no loss to 0 at this loss.
pub const BLUNDER: i32 = 600;
/// Scores are clipped to ±this many hundredths of a stone before losses are taken; a
/// proven win or loss counts as the clip.
pub const CLIP: i32 = 2000;

/// The default budget of a review: nodes per position.
pub const DEFAULT_NODES: u64 = 1_000_000;

/// The seed of every review search (the default of `matombo analyse`).
pub const SEED: u64 = 1;

/// One position's search: its score and the engine's best line.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionScore {
    /// Score in hundredths of a stone from the point of view of the side to move; beyond
    /// ±[`MATE_BOUND`] a proven result (`MATE - n`: a win in `n` turns, both sides'
    /// turns counted).
    pub score: i32,
    /// The engine's best turn.
    pub best: Token,
    /// Its principal variation, `best` first.
    pub pv: Vec<Token>,
    /// Depth reached, in turns.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
}

/// Searches one position of a game within `limits` as a review does (fresh engine, seed
/// [`SEED`], default table); `history` is the game's positions before it (Nsolo's
/// repetitions). `None` if the side to move has no legal turn.
pub fn score_position(
    pos: &Position,
    history: &[Position],
    limits: Limits,
    stop: &AtomicBool,
) -> Option<PositionScore> {
    let mut engine = Engine::new(SEED).with_hash_mib(DEFAULT_HASH_MIB);
    let lines = engine.search_lines(pos, limits, stop, history, SearchOptions::default(), &mut |_| {});
    let r = lines.into_iter().next()?;
    Some(PositionScore { score: r.score, best: r.best, pv: r.pv, depth: r.depth, nodes: r.nodes })
}

/// Scores every position of `game` (the start, and the position after each turn), in
/// order, calling `progress(done, total)` after each. A position where the game is over by
/// the rules is not searched (its score follows from the rules), and neither is any
/// position once `stop` is set: both are `None`.
pub fn score_game(
    game: &Game,
    limits: Limits,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(usize, usize),
) -> Vec<Option<PositionScore>> {
    let positions = game.positions();
    let mut scores = Vec::with_capacity(positions.len());
    for (i, pos) in positions.iter().enumerate() {
        let over = terminal_score(game, i).is_some();
        let s = if over || stop.load(Ordering::Relaxed) {
            None
        } else {
            score_position(pos, &positions[..i], limits, stop)
        };
        scores.push(s);
        progress(i + 1, positions.len());
    }
    scores
}

/// The score of position `index` by the rules alone, if the game ended there by them: a
/// loss in no turns for the side without a legal turn, 0 for a repetition draw.
fn terminal_score(game: &Game, index: usize) -> Option<i32> {
    if index + 1 != game.positions().len() {
        return None;
    }
    match game.outcome()?.termination {
        Termination::NoLegalMove => Some(-MATE),
        Termination::Repetition => Some(0),
        Termination::Resignation | Termination::TimeForfeit => None,
    }
}

/// How bad a turn was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Lost at least [`INACCURACY`].
    Inaccuracy,
    /// Lost at least [`MISTAKE`].
    Mistake,
    /// Lost at least [`BLUNDER`].
    Blunder,
}

impl Class {
    /// The class of a loss in hundredths of a stone, `None` below [`INACCURACY`].
    pub fn of(loss: i32) -> Option<Class> {
        if loss >= BLUNDER {
            Some(Class::Blunder)
        } else if loss >= MISTAKE {
            Some(Class::Mistake)
        } else if loss >= INACCURACY {
            Some(Class::Inaccuracy)
        } else {
            None
        }
    }

    /// `inaccuracy`, `mistake` or `blunder`.
    pub fn name(self) -> &'static str {
        match self {
            Class::Inaccuracy => "inaccuracy",
            Class::Mistake => "mistake",
            Class::Blunder => "blunder",
        }
    }

    /// The record's suffix: `?!`, `?` or `??`.
    pub fn quality(self) -> Quality {
        match self {
            Class::Inaccuracy => Quality::Dubious,
            Class::Mistake => Quality::Mistake,
            Class::Blunder => Quality::Blunder,
        }
    }
}

/// One turn of a review.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnReview {
    /// The side that played it.
    pub side: Side,
    /// The turn played.
    pub played: Token,
    /// The engine's best turn in the position before it, if that position was scored.
    pub best: Option<Token>,
    /// The engine's principal variation there, `best` first.
    pub pv: Vec<Token>,
    /// The score of the position before the turn (the best turn's), mover's view.
    pub before: Option<i32>,
    /// The score of the turn played (the position after it, negated), mover's view.
    pub after: Option<i32>,
    /// What the turn lost against the best, hundredths of a stone (see the module); `None`
    /// if a score it needs is missing.
    pub loss: Option<i32>,
    /// Its class, `None` for a good turn or an unknown loss.
    pub class: Option<Class>,
}

/// A side's figures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SideSummary {
    /// Turns whose loss is known.
    pub turns: usize,
    /// Inaccuracies.
    pub inaccuracies: usize,
    /// Mistakes.
    pub mistakes: usize,
    /// Blunders.
    pub blunders: usize,
    /// Mean loss per turn, hundredths of a stone; `None` without turns.
    pub average_loss: Option<f64>,
    /// Accuracy in percent, the mean over the side's turns of `100 × (1 − loss ÷
    /// BLUNDER)`, at least 0 a turn; `None` without turns.
    pub accuracy: Option<f64>,
}

/// A game's review.
#[derive(Clone, Debug, PartialEq)]
pub struct Review {
    /// Every position's score from South's point of view (for a graph), `None` where it
    /// was not scored; a game over by the rules gives its last position a proven result
    /// in no turns (`±MATE`) or 0 for a draw.
    pub south: Vec<Option<i32>>,
    /// Every turn, in order.
    pub turns: Vec<TurnReview>,
    /// South's figures.
    pub south_summary: SideSummary,
    /// North's figures.
    pub north_summary: SideSummary,
}

/// A score clipped to ±[`CLIP`], proven results at the clip.
pub fn clipped(score: i32) -> i32 {
    if score > MATE_BOUND {
        CLIP
    } else if score < -MATE_BOUND {
        -CLIP
    } else {
        score.clamp(-CLIP, CLIP)
    }
}

/// Classifies every turn of `game` from the scores of its positions (`scores[i]` for
/// position `i`, the start being 0; missing or `None` entries were not scored, and
/// positions where the game is over by the rules take their score from the rules).
/// Pure: the same scores give the same review.
pub fn classify(game: &Game, scores: &[Option<PositionScore>]) -> Review {
    let positions = game.positions();
    // Mover's view scores of every position.
    let mover: Vec<Option<i32>> = (0..positions.len())
        .map(|i| terminal_score(game, i).or_else(|| scores.get(i).and_then(|s| s.as_ref()).map(|s| s.score)))
        .collect();
    let south = positions
        .iter()
        .zip(&mover)
        .map(|(p, s)| s.map(|s| if p.side_to_move() == Side::South { s } else { -s }))
        .collect();
    let mut turns = Vec::with_capacity(game.moves().len());
    for (i, played) in game.moves().iter().enumerate() {
        let scored = scores.get(i).and_then(|s| s.as_ref());
        let before = mover[i];
        let after = mover[i + 1].map(|s| -s);
        // The best turn played (or one reaching the same position) loses nothing by definition.
        let same = scored.is_some_and(|s| positions[i].play(&s.best).is_ok_and(|p| p == positions[i + 1]));
        let loss = if same {
            Some(0)
        } else {
            before.zip(after).map(|(b, a)| (clipped(b) - clipped(a)).max(0))
        };
        turns.push(TurnReview {
            side: positions[i].side_to_move(),
            played: played.clone(),
            best: scored.map(|s| s.best.clone()),
            pv: scored.map_or_else(Vec::new, |s| s.pv.clone()),
            before,
            after,
            loss,
            class: loss.and_then(Class::of),
        });
    }
    let summary = |side: Side| {
        let losses: Vec<i32> = turns.iter().filter(|t| t.side == side).filter_map(|t| t.loss).collect();
        let count = |c: Class| losses.iter().filter(|&&l| Class::of(l) == Some(c)).count();
        let n = losses.len();
        let mean = |f: &dyn Fn(i32) -> f64| (n > 0).then(|| losses.iter().map(|&l| f(l)).sum::<f64>() / n as f64);
        SideSummary {
            turns: n,
            inaccuracies: count(Class::Inaccuracy),
            mistakes: count(Class::Mistake),
            blunders: count(Class::Blunder),
            average_loss: mean(&|l| f64::from(l)),
            accuracy: mean(&|l| 100.0 * (1.0 - f64::from(l) / f64::from(BLUNDER)).max(0.0)),
        }
    };
    Review { south_summary: summary(Side::South), north_summary: summary(Side::North), south, turns }
}

/// A score for South as a record's evaluation (RULES.md §6.5); `None` for a game already
/// over (a proven result in no turns, which a record cannot write).
pub fn eval_of(south: i32) -> Option<Eval> {
    if south > MATE_BOUND {
        let n = MATE - south;
        (n > 0).then_some(Eval::Proven(n))
    } else if south < -MATE_BOUND {
        let n = MATE + south;
        (n > 0).then_some(Eval::Proven(-n))
    } else {
        Some(Eval::Score(south))
    }
}

/// The text a review writes in a turn's comment after its evaluation: the engine's best
/// turn and line, for a turn that lost something.
fn advice(t: &TurnReview) -> String {
    match (&t.best, t.loss) {
        (Some(best), Some(loss)) if loss > 0 => {
            let pv: Vec<String> = t.pv.iter().map(|m| m.to_string()).collect();
            format!("best: {best} pv: {}", pv.join(" "))
        }
        _ => String::new(),
    }
}

/// Writes `review` into `record` (which holds the reviewed game): each turn gets the
/// suffix of its class and a comment `{[%eval S] best: TOKEN pv: …}` with the evaluation of
/// the position it led to (South's view) and, when it lost something, the engine's best
/// turn and line. Earlier suffixes and comments holding an evaluation are replaced; other
/// comments (a player's notes) are kept.
///
/// # Panics
/// If `review` is not of `record`'s game (more turns).
pub fn annotate(record: &mut Record, review: &Review) {
    assert!(review.turns.len() <= record.game.moves().len(), "a review of another game");
    for (i, t) in review.turns.iter().enumerate() {
        let eval = review.south[i + 1].and_then(eval_of);
        let text = advice(t);
        if t.loss.is_none() && eval.is_none() {
            // Not reviewed (a review stopped early): what the record said stays.
            continue;
        }
        let a = record.annotation_mut(i);
        a.quality = t.class.map(Class::quality);
        a.comments.retain(|c| c.eval.is_none());
        if eval.is_some() || !text.is_empty() {
            let mut c = Comment::text(&text);
            c.eval = eval;
            a.comments.push(c);
        }
    }
    while record.annotations.last().is_some_and(|a| a.is_empty()) {
        record.annotations.pop();
    }
}
