//! Game review as JSON (see `matombo_ai::review`): score one position of a game
//! ([`review_position`], what the page's worker runs for each position in turn), then
//! classify the game's turns from those scores ([`review()`]) and write the annotated record
//! ([`review_record`]). `matombo review --json` prints the same [`ReviewAnswer`].

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use matombo_ai::clock::Instant;
use matombo_ai::review::{self, Class, PositionScore, Review, SideSummary};
use matombo_ai::Limits;
use matombo_core::{Game, Position, Record, Side, Token};
use serde::{Deserialize, Serialize};

use crate::game::parse_token;
use crate::{mate_in, replay, ApiError, ErrorCode, ExportAnswer, SideJson};

/// The longest time budget of one position, in milliseconds.
pub const MAX_REVIEW_MS: u64 = 60_000;

/// Asks for the score of the position after `moves`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewPositionRequest {
    /// Start position or ruleset name.
    pub start: String,
    /// Turns played before the position (the game's earlier positions count for Nsolo's
    /// repetitions).
    #[serde(default)]
    pub moves: Vec<String>,
    /// The turn played from the position, if the game went on: when it is not the
    /// engine's best, the position the best leads to is searched too (`reply`).
    #[serde(default)]
    pub played: Option<String>,
    /// Node budget (default [`review::DEFAULT_NODES`] when no budget is given).
    #[serde(default)]
    pub nodes: Option<u64>,
    /// Time budget in milliseconds (at most [`MAX_REVIEW_MS`]).
    #[serde(default)]
    pub time_ms: Option<u64>,
}

/// One position's score, as [`review_position`] answers it and [`ReviewRequest`] takes
/// it back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PositionScoreJson {
    /// Hundredths of a stone for the side to move; beyond ±990,000 a proven result
    /// (1,000,000 − n: the side to move wins in n turns).
    pub score: i32,
    /// The engine's best turn.
    pub best: String,
    /// Its principal variation, `best` first.
    #[serde(default)]
    pub pv: Vec<String>,
    /// Depth reached.
    #[serde(default)]
    pub depth: u32,
    /// Nodes searched.
    #[serde(default)]
    pub nodes: u64,
    /// Milliseconds spent.
    #[serde(default)]
    pub ms: u64,
    /// Where the turn played is not `best`: the score of the position `best` leads to,
    /// for the side to move there, at the same budget (what the turn played is compared
    /// with). Without it a turn is compared with `score`, which swings with the parity of
    /// the depth reached.
    #[serde(default)]
    pub reply: Option<i32>,
}

/// Scores the position after `req.moves` as `matombo review` does (one search, seed 1, a
/// fresh default table; the same score `matombo analyse` gives at the same node budget).
pub fn review_position(req: &ReviewPositionRequest) -> Result<PositionScoreJson, ApiError> {
    let game = replay(&req.start, &req.moves)?;
    let index = req.moves.len();
    if let Some(o) = game.outcome() {
        return Err(ApiError::illegal(format!("the game is over ({o}): the review needs no score here")));
    }
    let limits = match (req.nodes, req.time_ms) {
        (None, None) => Limits { nodes: Some(review::DEFAULT_NODES), ..Limits::default() },
        (nodes, ms) => {
            if nodes == Some(0) || ms == Some(0) {
                return Err(ApiError::new(ErrorCode::InvalidField, "nodes and time_ms must be at least 1"));
            }
            Limits { nodes, time: ms.map(|ms| Duration::from_millis(ms.min(MAX_REVIEW_MS))), depth: None }
        }
    };
    let mut moves = req.moves.clone();
    moves.extend(req.played.iter().cloned());
    let game = replay(&req.start, &moves)?;
    let started = Instant::now();
    let s = review::score_at(&game, index, limits, None, &AtomicBool::new(false))
        .ok_or_else(|| ApiError::illegal("the side to move has no legal turn"))?;
    Ok(PositionScoreJson {
        score: s.score,
        best: s.best.to_string(),
        pv: s.pv.iter().map(|t| t.to_string()).collect(),
        depth: s.depth,
        nodes: s.nodes,
        ms: started.elapsed().as_millis() as u64,
        reply: s.reply,
    })
}

/// A game and the scores of its positions.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewRequest {
    /// Start position or ruleset name.
    pub start: String,
    /// Turns played.
    #[serde(default)]
    pub moves: Vec<String>,
    /// The side that resigned, if any (`"S"` or `"N"`).
    #[serde(default)]
    pub resigned: Option<String>,
    /// Tags of the record ([`review_record`]), as in `/api/record/export`.
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    /// One entry per position (the start first, then after each turn): a
    /// [`review_position`] answer, or null where the position was not scored (a review
    /// stopped early) or the game is over there. Shorter lists leave the rest unscored.
    #[serde(default)]
    pub scores: Vec<Option<PositionScoreJson>>,
}

/// The thresholds of the classes and the clip of scores, hundredths of a stone.
#[derive(Debug, Serialize)]
pub struct Thresholds {
    /// Losses from here are inaccuracies.
    pub inaccuracy: i32,
    /// Losses from here are mistakes.
    pub mistake: i32,
    /// Losses from here are blunders (and a turn's accuracy 0).
    pub blunder: i32,
    /// Scores are clipped to ±this; proven results are at the clip.
    pub clip: i32,
}

/// One position of a review.
#[derive(Debug, Serialize)]
pub struct PositionReview {
    /// The side to move.
    pub to_move: SideJson,
    /// Score for the side to move (null: not scored).
    pub score: Option<i32>,
    /// The same score for South.
    pub south: Option<i32>,
    /// South's score clipped to ±`clip`, proven results at the edge: what a graph draws.
    pub graph: Option<i32>,
    /// A proven result for South: turns to the end, positive if South wins; 0 where the
    /// game is over (`south` says who won).
    pub mate: Option<i32>,
    /// The engine's best turn here.
    pub best: Option<String>,
    /// Its principal variation.
    pub pv: Vec<String>,
    /// Depth of the search.
    pub depth: Option<u32>,
    /// Nodes of the search.
    pub nodes: Option<u64>,
}

/// One turn of a review.
#[derive(Debug, Serialize)]
pub struct TurnJson {
    /// The move number, as the record writes it.
    pub number: usize,
    /// Who played it.
    pub side: SideJson,
    /// The turn played.
    pub played: String,
    /// The engine's best turn in the position before it.
    pub best: Option<String>,
    /// The engine's principal variation there.
    pub pv: Vec<String>,
    /// Score of the position before it (the best turn's), for the mover.
    pub before: Option<i32>,
    /// Score of the best turn measured as `after` is (the position it leads to, negated;
    /// `before` without a `reply`).
    pub best_after: Option<i32>,
    /// Score of the turn played, for the mover.
    pub after: Option<i32>,
    /// What it lost, hundredths of a stone.
    pub loss: Option<i32>,
    /// `inaccuracy`, `mistake`, `blunder` or null.
    pub class: Option<&'static str>,
    /// The record's suffix for the class: `?!`, `?`, `??` or null.
    pub suffix: Option<&'static str>,
    /// The evaluation the record writes after it (`+1.25`, `#7`, `#-3`), if any.
    pub eval: Option<String>,
}

/// A side's figures.
#[derive(Debug, Serialize)]
pub struct SummaryJson {
    /// Turns with a known loss.
    pub turns: usize,
    /// Inaccuracies.
    pub inaccuracies: usize,
    /// Mistakes.
    pub mistakes: usize,
    /// Blunders.
    pub blunders: usize,
    /// Mean loss per turn, hundredths of a stone, one decimal.
    pub average_loss: Option<f64>,
    /// Accuracy in percent, one decimal.
    pub accuracy: Option<f64>,
}

impl From<&SideSummary> for SummaryJson {
    fn from(s: &SideSummary) -> SummaryJson {
        let tenth = |x: f64| (x * 10.0).round() / 10.0;
        SummaryJson {
            turns: s.turns,
            inaccuracies: s.inaccuracies,
            mistakes: s.mistakes,
            blunders: s.blunders,
            average_loss: s.average_loss.map(tenth),
            accuracy: s.accuracy.map(tenth),
        }
    }
}

/// A game's review.
#[derive(Debug, Serialize)]
pub struct ReviewAnswer {
    /// The thresholds used.
    pub thresholds: Thresholds,
    /// Every position, the start first.
    pub positions: Vec<PositionReview>,
    /// Every turn.
    pub turns: Vec<TurnJson>,
    /// South's figures.
    pub south: SummaryJson,
    /// North's figures.
    pub north: SummaryJson,
}

/// Replays a game, ended by a resignation if one is given.
pub(crate) fn replay_ended(start: &str, moves: &[String], resigned: Option<&str>) -> Result<Game, ApiError> {
    let mut game = replay(start, moves)?;
    if let Some(s) = resigned {
        let side = crate::game::parse_side(s)?;
        if side != game.position().side_to_move() {
            return Err(ApiError::illegal(format!("{side} can resign only on his own turn")));
        }
        game.resign(side).map_err(|e| ApiError::illegal(e.to_string()))?;
    }
    Ok(game)
}

/// Reads the scores of a request against its game: every best turn and line must be
/// legal in its position.
fn read_scores(game: &Game, scores: &[Option<PositionScoreJson>]) -> Result<Vec<Option<PositionScore>>, ApiError> {
    let positions = game.positions();
    if scores.len() > positions.len() {
        return Err(ApiError::new(
            ErrorCode::InvalidField,
            format!(
                "{} scores for a game of {} positions (one per position: the start and after each turn)",
                scores.len(),
                positions.len()
            ),
        ));
    }
    let mut out = Vec::with_capacity(scores.len());
    for (i, (s, pos)) in scores.iter().zip(positions).enumerate() {
        let Some(s) = s else {
            out.push(None);
            continue;
        };
        let at = |what: String| ApiError::illegal(format!("score of position {i}: {what}"));
        let best = parse_token(&s.best)?;
        pos.play(&best).map_err(|e| at(format!("best turn {}: {e}", s.best)))?;
        let mut pv: Vec<Token> = Vec::with_capacity(s.pv.len());
        let mut p: Position = pos.clone();
        for m in &s.pv {
            let t = parse_token(m)?;
            p = p.play(&t).map_err(|e| at(format!("principal variation turn {m}: {e}")))?;
            pv.push(t);
        }
        out.push(Some(PositionScore { score: s.score, best, pv, depth: s.depth, nodes: s.nodes, reply: s.reply }));
    }
    Ok(out)
}

/// The JSON of a review of `game` from `scores` (what [`review()`] answers).
pub fn answer(game: &Game, scores: &[Option<PositionScore>], r: &Review) -> ReviewAnswer {
    let positions = game
        .positions()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let s = scores.get(i).and_then(|s| s.as_ref());
            let south = r.south[i];
            let to_move = p.side_to_move();
            PositionReview {
                to_move: to_move.into(),
                score: south.map(|s| if to_move == Side::South { s } else { -s }),
                south,
                graph: south.map(review::clipped),
                mate: south.and_then(mate_in),
                best: s.map(|s| s.best.to_string()),
                pv: s.map_or_else(Vec::new, |s| s.pv.iter().map(|t| t.to_string()).collect()),
                depth: s.map(|s| s.depth),
                nodes: s.map(|s| s.nodes),
            }
        })
        .collect();
    let first = game.start().side_to_move();
    let turns = r
        .turns
        .iter()
        .enumerate()
        .map(|(i, t)| TurnJson {
            number: if first == Side::South { i / 2 + 1 } else { i.div_ceil(2) + 1 },
            side: t.side.into(),
            played: t.played.to_string(),
            best: t.best.as_ref().map(|b| b.to_string()),
            pv: t.pv.iter().map(|m| m.to_string()).collect(),
            before: t.before,
            best_after: t.best_after,
            after: t.after,
            loss: t.loss,
            class: t.class.map(Class::name),
            suffix: t.class.map(|c| c.quality().as_str()),
            eval: r.south[i + 1].and_then(review::eval_of).map(|e| e.to_string()),
        })
        .collect();
    ReviewAnswer {
        thresholds: Thresholds {
            inaccuracy: review::INACCURACY,
            mistake: review::MISTAKE,
            blunder: review::BLUNDER,
            clip: review::CLIP,
        },
        positions,
        turns,
        south: SummaryJson::from(&r.south_summary),
        north: SummaryJson::from(&r.north_summary),
    }
}

/// Classifies the turns of a game from its positions' scores.
pub fn review(req: &ReviewRequest) -> Result<ReviewAnswer, ApiError> {
    let game = replay_ended(&req.start, &req.moves, req.resigned.as_deref())?;
    let scores = read_scores(&game, &req.scores)?;
    let r = review::classify(&game, &scores);
    Ok(answer(&game, &scores, &r))
}

/// Writes the annotated record of a review (RULES.md §6.5): suffixes `?!`, `?`, `??` and
/// comments `{[%eval S] best: TOKEN pv: …}`.
pub fn review_record(req: &ReviewRequest) -> Result<ExportAnswer, ApiError> {
    let game = replay_ended(&req.start, &req.moves, req.resigned.as_deref())?;
    let scores = read_scores(&game, &req.scores)?;
    let r = review::classify(&game, &scores);
    let mut record = Record::new(game);
    crate::records::check_tag_names(&req.tags)?;
    record.set_tags(req.tags.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    review::annotate(&mut record, &r);
    Ok(ExportAnswer { record: record.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(moves: &[&str], scores: Vec<Option<PositionScoreJson>>) -> ReviewRequest {
        ReviewRequest {
            start: "tsoro:8".into(),
            moves: moves.iter().map(|m| m.to_string()).collect(),
            resigned: None,
            tags: BTreeMap::new(),
            scores,
        }
    }

    /// The score of position `i` of a game, with the turn played there.
    fn score_at(game: &[&str], i: usize) -> PositionScoreJson {
        let req = ReviewPositionRequest {
            start: "tsoro:8".into(),
            moves: game[..i].iter().map(|m| m.to_string()).collect(),
            played: game.get(i).map(|m| m.to_string()),
            nodes: Some(3000),
            time_ms: None,
        };
        review_position(&req).unwrap()
    }

    #[test]
    fn scores_fed_back_give_the_review_and_its_record() {
        let moves = ["B2=", "b2=", "B7"];
        let scores: Vec<_> = (0..=moves.len()).map(|i| Some(score_at(&moves, i))).collect();
        // As the page sends it: the answers of review_position, through JSON.
        let text =
            serde_json::to_string(&serde_json::json!({"start": "tsoro:8", "moves": moves, "scores": scores})).unwrap();
        let req: ReviewRequest = crate::parse_body(text.as_bytes()).unwrap();
        let a = review(&req).unwrap();
        assert_eq!(a.positions.len(), 4);
        assert_eq!(a.turns.len(), 3);
        assert_eq!((a.turns[0].number, a.turns[1].number, a.turns[2].number), (1, 1, 2));
        assert_eq!(a.south.turns + a.north.turns, 3);
        for (p, s) in a.positions.iter().zip(&scores) {
            assert_eq!(p.score, Some(s.as_ref().unwrap().score));
            assert_eq!(p.best.as_deref(), Some(s.as_ref().unwrap().best.as_str()));
        }
        let record: Record = review_record(&req).unwrap().record.parse().unwrap();
        assert_eq!(record.game.moves().len(), 3);
        for (i, t) in a.turns.iter().enumerate() {
            let ann = record.annotation(i);
            assert_eq!(ann.and_then(|x| x.quality).map(|q| q.as_str()), t.suffix);
            assert_eq!(ann.and_then(|x| x.eval()).map(|e| e.to_string()), t.eval);
        }
    }

    #[test]
    fn a_stopped_review_classifies_what_was_scored() {
        let a = review(&request(
            &["B2=", "b2="],
            vec![Some(score_at(&["B2=", "b2="], 0)), Some(score_at(&["B2=", "b2="], 1))],
        ))
        .unwrap();
        assert!(a.turns[0].loss.is_some());
        assert_eq!(a.turns[1].loss, None);
        assert_eq!(a.positions[2].score, None);
        assert_eq!(a.north.accuracy, None);
    }

    #[test]
    fn bad_scores_are_refused() {
        let s = score_at(&[], 0);
        let too_many = request(&[], vec![Some(s.clone()), None]);
        assert_eq!(review(&too_many).unwrap_err().code, crate::ErrorCode::InvalidField);
        let illegal = PositionScoreJson { best: "A1".into(), ..s.clone() };
        let e = review(&request(&[], vec![Some(illegal)])).unwrap_err();
        assert_eq!(e.code, crate::ErrorCode::Illegal);
        assert!(e.message.contains("position 0"), "{e}");
        let bad_pv = PositionScoreJson { pv: vec!["B2=".into(), "B2=".into()], ..s };
        assert_eq!(review_record(&request(&[], vec![Some(bad_pv)])).unwrap_err().code, crate::ErrorCode::Illegal);
        let zero = ReviewPositionRequest {
            start: "tsoro:8".into(),
            moves: vec![],
            played: None,
            nodes: Some(0),
            time_ms: None,
        };
        assert_eq!(review_position(&zero).unwrap_err().code, crate::ErrorCode::InvalidField);
        let over = ReviewPositionRequest {
            start: "tsoro:6 0*6/0*6/2,0*5/0*6 S".into(),
            moves: vec!["A1".into()],
            played: None,
            nodes: None,
            time_ms: None,
        };
        assert_eq!(review_position(&over).unwrap_err().code, crate::ErrorCode::Illegal);
    }
}
