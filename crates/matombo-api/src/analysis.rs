//! Analysis (`POST /api/analyse`): the best lines of a position, deepening until a limit.

use std::sync::atomic::AtomicBool;

use matombo_ai::clock::Instant;
use matombo_ai::{mate_in, Limits};
use matombo_core::Side;
use serde::{Deserialize, Serialize};

use crate::{replay, ApiError, ErrorCode, SideJson};

/// Asks for an analysis: the best lines of a position, deepening until a limit.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyseRequest {
    /// Start position or ruleset name.
    pub start: String,
    /// Turns played.
    #[serde(default)]
    pub moves: Vec<String>,
    /// How many best turns to show (default 3, at most 8).
    #[serde(default)]
    pub lines: Option<usize>,
    /// Deepest depth in turns (default: the search's deepest).
    #[serde(default)]
    pub depth: Option<u32>,
    /// Time budget in milliseconds (default 10,000; the last depth started is finished).
    #[serde(default)]
    pub time_ms: Option<u64>,
    /// Node budget (default: none).
    #[serde(default)]
    pub nodes: Option<u64>,
}

/// One line of an analysis.
#[derive(Clone, Debug, Serialize)]
pub struct Line {
    /// The first turn, as a token.
    pub token: String,
    /// Score in hundredths of a stone from the point of view of the side to move.
    pub score: i32,
    /// The same score from South's point of view.
    pub south: i32,
    /// A proven result: turns to the end, positive if the side to move wins.
    pub mate: Option<i32>,
    /// The principal variation, first turn first.
    pub pv: Vec<String>,
}

/// An analysis so far.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// The side to move.
    pub to_move: SideJson,
    /// Depth of the lines, in turns.
    pub depth: u32,
    /// The best lines, best first.
    pub lines: Vec<Line>,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Milliseconds so far.
    pub ms: u64,
    /// True when no more depth can change the lines (proven, or the depth limit).
    pub done: bool,
}

/// The default time budget of an analysis.
pub const ANALYSE_DEFAULT_MS: u64 = 10_000;
/// The most lines an analysis shows.
pub const ANALYSE_MAX_LINES: usize = 8;

/// Analyses a position depth by depth, calling `on_depth` after each completed depth
/// with the lines so far (the page draws them as they deepen). Ends at the first limit
/// reached, when `stop` is set, or when every line is a proven result.
pub fn analyse(
    req: &AnalyseRequest,
    stop: &AtomicBool,
    on_depth: &mut dyn FnMut(&Analysis),
) -> Result<Analysis, ApiError> {
    let game = replay(&req.start, &req.moves)?;
    if let Some(o) = game.outcome() {
        return Err(ApiError::new(ErrorCode::GameOver, format!("the game is over ({o})")));
    }
    let pos = game.position();
    let k = req.lines.unwrap_or(3).clamp(1, ANALYSE_MAX_LINES);
    let budget = std::time::Duration::from_millis(req.time_ms.unwrap_or(ANALYSE_DEFAULT_MS));
    let max_depth = req.depth.unwrap_or(matombo_ai::MAX_DEPTH).clamp(1, matombo_ai::MAX_DEPTH);
    let started = Instant::now();
    let mut engine = matombo_ai::Engine::new(1);
    let mover = pos.side_to_move();
    // Lines of one search at one depth; `nodes` is the whole search's count, once.
    let analysis = |found: &[matombo_ai::SearchResult]| {
        let lines: Vec<Line> = found
            .iter()
            .map(|r| Line {
                token: r.best.to_string(),
                score: r.score,
                south: if mover == Side::South { r.score } else { -r.score },
                mate: mate_in(r.score),
                pv: r.pv.iter().map(|t| t.to_string()).collect(),
            })
            .collect();
        let proven = lines.iter().all(|l| l.mate.is_some());
        let depth = found[0].depth;
        Analysis {
            to_move: mover.into(),
            depth,
            done: proven || depth == max_depth,
            lines,
            nodes: found[0].nodes,
            ms: started.elapsed().as_millis() as u64,
        }
    };
    // One search ranks the k best turns; it does not start a depth past half the budget.
    let limits = Limits { depth: Some(max_depth), nodes: req.nodes, time: Some(budget) };
    let options = matombo_ai::SearchOptions { lines: k, ..Default::default() };
    let mut last: Option<Analysis> = None;
    let found = engine.search_lines(pos, limits, stop, &[], options, &mut |found| {
        let a = analysis(found);
        on_depth(&a);
        last = Some(a);
    });
    if found.is_empty() {
        return Err(ApiError::illegal("the side to move has no legal turn"));
    }
    // Stopped before depth 1 ended: the turns in search order, at depth 0.
    let mut a = match last {
        Some(mut a) => {
            a.nodes = found[0].nodes;
            a.ms = started.elapsed().as_millis() as u64;
            a
        }
        None => analysis(&found),
    };
    a.done = true;
    Ok(a)
}
