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
//! A turn's loss is the score of the engine's best turn less the score of the turn
//! played, both from the mover's view, clipped to ±[`CLIP`], never below zero; each turn
//! is scored by a search of the position it leads to (negated), at the same budget, so
//! that the two are measured alike (see [`PositionScore::reply`]). A turn that leads to
//! the position the engine's best leads to loses nothing. A proven
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
//! let scores = review::score_game(&game, budget, None, &AtomicBool::new(false), &mut |_, _| {});
//! let r = review::classify(&game, &scores);
//! assert_eq!(r.turns.len(), 1);
//! assert!(r.turns[0].loss.unwrap() >= 0);
//! assert_eq!(r.south_summary.turns, 1);
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use matombo_core::{Comment, Eval, Game, Position, Quality, Record, Side, Termination, Token};
use matombo_egtb::Tables;

use crate::{mate_in, Engine, Limits, SearchOptions, DEFAULT_HASH_MIB, MATE, MATE_BOUND};

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
    /// Where the turn played here is not `best`: the score of the position `best` leads
    /// to, for the side to move there, searched at the same budget. The turn played is
    /// judged by the score of the position it leads to; comparing that with this one
    /// rather than with `score` compares two searches of the same side to move at the same
    /// budget, so that the swing between odd and even depths does not count as a loss.
    pub reply: Option<i32>,
}

/// Searches one position within `limits` as a review does (fresh engine, seed [`SEED`],
/// default table, the endgame `tables` if given); `history` is the game's positions before
/// it (Nsolo's repetitions). `None` if the side to move has no legal turn.
pub fn score_position(
    pos: &Position,
    history: &[Position],
    limits: Limits,
    tables: Option<&Arc<Tables>>,
    stop: &AtomicBool,
) -> Option<PositionScore> {
    let mut engine = Engine::new(SEED).with_hash_mib(DEFAULT_HASH_MIB);
    if let Some(t) = tables {
        engine = engine.with_tables(Arc::clone(t));
    }
    let lines = engine.search_lines(pos, limits, stop, history, SearchOptions::default(), &mut |_| {});
    let r = lines.into_iter().next()?;
    Some(PositionScore { score: r.score, best: r.best, pv: r.pv, depth: r.depth, nodes: r.nodes, reply: None })
}

/// Scores position `index` of `game` (0 is the start) within `limits`, with
/// [`PositionScore::reply`] when the game goes on from there by another turn than the
/// engine's best. `None` where the game is over by the rules (its score follows from them).
pub fn score_at(
    game: &Game,
    index: usize,
    limits: Limits,
    tables: Option<&Arc<Tables>>,
    stop: &AtomicBool,
) -> Option<PositionScore> {
    if terminal_score(game, index).is_some() {
        return None;
    }
    let positions = game.positions();
    let pos = &positions[index];
    let mut s = score_position(pos, &positions[..index], limits, tables, stop)?;
    let Some(next) = positions.get(index + 1) else {
        return Some(s);
    };
    let reached = pos.play(&s.best).ok()?;
    if reached != *next {
        let mut g = Game::new(game.start().clone());
        for m in &game.moves()[..index] {
            g.play(m).ok()?;
        }
        g.play(&s.best).ok()?;
        let last = g.positions().len() - 1;
        s.reply = terminal_score(&g, last)
            .or_else(|| score_position(g.position(), &g.positions()[..last], limits, tables, stop).map(|r| r.score));
    }
    Some(s)
}

/// Scores every position of `game` (the start, and the position after each turn) with
/// [`score_at`], in order, calling `progress(done, total)` after each; once `stop` is set
/// the positions left are `None`.
pub fn score_game(
    game: &Game,
    limits: Limits,
    tables: Option<&Arc<Tables>>,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(usize, usize),
) -> Vec<Option<PositionScore>> {
    let total = game.positions().len();
    let mut scores = Vec::with_capacity(total);
    for i in 0..total {
        let s = if stop.load(Ordering::Relaxed) { None } else { score_at(game, i, limits, tables, stop) };
        scores.push(s);
        progress(i + 1, total);
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
    /// The score of the best turn measured as `after` is: the position it leads to,
    /// negated ([`PositionScore::reply`]); `before` where that was not searched.
    pub best_after: Option<i32>,
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
        let best_after = if same { after } else { scored.and_then(|s| s.reply).map(|r| -r).or(before) };
        let loss = if same { Some(0) } else { best_after.zip(after).map(|(b, a)| (clipped(b) - clipped(a)).max(0)) };
        turns.push(TurnReview {
            side: positions[i].side_to_move(),
            played: played.clone(),
            best: scored.map(|s| s.best.clone()),
            pv: scored.map_or_else(Vec::new, |s| s.pv.clone()),
            before,
            best_after,
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
    match mate_in(south) {
        Some(0) => None,
        Some(n) => Some(Eval::Proven(n)),
        None => Some(Eval::Score(south)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use matombo_core::Position;

    /// A tsoro:8 game of three turns.
    fn game() -> Game {
        let mut g = Game::new(Position::start("tsoro:8".parse().unwrap()));
        for t in ["B2=", "b2=", "B7"] {
            g.play(&t.parse().unwrap()).unwrap();
        }
        g
    }

    /// A score whose best turn is `best`, or the first legal turn.
    fn scored(pos: &Position, score: i32, best: Option<&str>) -> Option<PositionScore> {
        let best: Token = match best {
            Some(b) => b.parse().unwrap(),
            None => pos.turns().next().unwrap().0,
        };
        Some(PositionScore { score, pv: vec![best.clone()], best, depth: 1, nodes: 1, reply: None })
    }

    #[test]
    fn losses_are_differences_of_clipped_scores_never_negative() {
        let g = game();
        let p = g.positions();
        // South's B2= against a best of B1 (+1.00); after it North has +2.00, so B2= scores
        // -2.00 for South: a loss of 3 stones, a mistake.
        let scores = vec![
            scored(&p[0], 100, Some("B1")),
            scored(&p[1], 200, Some("b1")),
            scored(&p[2], -9_000, Some("B1+")),
            scored(&p[3], MATE - 5, None),
        ];
        let r = classify(&g, &scores);
        assert_eq!(r.turns[0].loss, Some(300));
        assert_eq!(r.turns[0].class, Some(Class::Mistake));
        // North's b2=: best +2.00, played leaves South at -90 (clipped to -20): better
        // than the best by the engine's later look, so no loss.
        assert_eq!(r.turns[1].loss, Some(0));
        // South's B7 from -20 (clipped) into a proven loss (-20 too): nothing lost.
        assert_eq!(r.turns[2].after, Some(-(MATE - 5)));
        assert_eq!(r.turns[2].loss, Some(0));
        assert_eq!(r.south, vec![Some(100), Some(-200), Some(-9_000), Some(-(MATE - 5))]);
        assert_eq!(r.south_summary.turns, 2);
        assert_eq!(r.south_summary.mistakes, 1);
        assert_eq!(r.south_summary.accuracy, Some((50.0 + 100.0) / 2.0));
        assert_eq!(r.north_summary.accuracy, Some(100.0));
    }

    #[test]
    fn throwing_away_a_proven_win_is_a_blunder_a_slower_win_is_not() {
        let g = game();
        let p = g.positions();
        let mut scores = vec![scored(&p[0], MATE - 9, Some("B1")), scored(&p[1], 1_500, Some("b1"))];
        let r = classify(&g, &scores);
        assert_eq!(r.turns[0].loss, Some(CLIP + 1_500));
        assert_eq!(r.turns[0].class, Some(Class::Blunder));
        scores[1] = scored(&p[1], -(MATE - 12), Some("b1"));
        assert_eq!(classify(&g, &scores).turns[0].loss, Some(0));
    }

    #[test]
    fn the_best_turn_played_loses_nothing_and_missing_scores_leave_turns_unknown() {
        let g = game();
        let p = g.positions();
        // B2= is the engine's best, though the next search thinks less of it.
        let scores = vec![scored(&p[0], 500, Some("B2=")), scored(&p[1], 100, Some("b1")), None];
        let r = classify(&g, &scores);
        assert_eq!(r.turns[0].loss, Some(0));
        assert_eq!(r.turns[1].loss, None);
        assert_eq!(r.turns[2].loss, None);
        assert_eq!(r.north_summary, SideSummary::default());
        assert_eq!(r.south[3], None);
    }

    #[test]
    fn a_finished_game_scores_its_last_position_by_the_rules() {
        // North, without a stone, has no legal turn after South's: South won.
        let start: Position = "tsoro:6 0*6/0*6/2,0*5/0*6 S".parse().unwrap();
        let mut g = Game::new(start);
        let (t, _) = g.position().turns().next().unwrap();
        g.play(&t).unwrap();
        assert!(g.is_over());
        let scores = score_game(
            &g,
            Limits { depth: Some(2), ..Limits::default() },
            None,
            &AtomicBool::new(false),
            &mut |_, _| {},
        );
        assert!(scores[1].is_none());
        let r = classify(&g, &scores);
        assert_eq!(r.south[1], Some(MATE));
        assert_eq!(r.turns[0].loss, Some(0));
        assert_eq!(eval_of(MATE), None);
        assert_eq!(eval_of(MATE - 3), Some(Eval::Proven(3)));
        assert_eq!(eval_of(-(MATE - 3)), Some(Eval::Proven(-3)));
        assert_eq!(eval_of(-125), Some(Eval::Score(-125)));
    }

    #[test]
    fn annotate_replaces_the_reviews_marks_and_keeps_notes() {
        let g = game();
        let p = g.positions();
        let scores =
            vec![scored(&p[0], 100, Some("B1")), scored(&p[1], 900, Some("b1")), scored(&p[2], 0, Some("B1+")), None];
        let r = classify(&g, &scores);
        let mut record = Record::new(g);
        record.annotation_mut(0).quality = Some(Quality::Good);
        record.annotation_mut(0).comments = vec![Comment::text("my idea"), Comment::eval(Eval::Score(5))];
        annotate(&mut record, &r);
        let a = record.annotation(0).unwrap();
        assert_eq!(a.quality, Some(Quality::Blunder));
        assert_eq!(a.comments[0], Comment::text("my idea"));
        assert_eq!(a.comments[1].eval, Some(Eval::Score(-900)));
        assert!(a.comments[1].text.starts_with("best: B1 pv: B1"), "{}", a.comments[1].text);
        // North's reply is scored on both sides; South's last turn is not.
        assert_eq!(record.annotation(1).unwrap().comments[0].eval, Some(Eval::Score(0)));
        assert!(record.annotation(2).is_none());
        let text = record.to_string();
        assert!(text.contains("1. B2=?? {my idea} {[%eval -9.00] best: B1 pv: B1}"), "{text}");
        let mut again = record.clone();
        annotate(&mut again, &r);
        assert_eq!(again.annotations, record.annotations);
    }
}
