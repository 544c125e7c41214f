//! # matombo-ai
//!
//! The computer opponent for Tsoro and Nsolo, on top of `matombo-core`.
//!
//! The search is alpha-beta (negamax with principal variation search, iterative
//! deepening, a transposition table keyed by the position hash, move ordering by table
//! move, captures and history). Every start and every continue/stop choice is searched,
//! while a bonus (Tsoro's optional holes, Nsolo's
//! mandatory stones) is reduced to the distinct results of a few policies, because an
//! Nsolo capture on 4x36 has more bonus sets than can be listed (see [`BonusPolicy`]).
//! Inside the tree each turn is sown once by the core (`Position::for_each_sown`), and
//! the children of a node one turn above the leaves are evaluated as they are generated,
//! without being stored.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use matombo_ai::{Engine, Limits};
//! use matombo_core::Position;
//!
//! let pos = Position::start("tsoro:8".parse().unwrap());
//! let limits = Limits { depth: Some(3), ..Limits::default() };
//! let r = Engine::new(1).search(&pos, limits, &AtomicBool::new(false)).unwrap();
//! assert!(pos.play(&r.best).is_ok());
//! assert_eq!(r.depth, 3);
//! ```
#![deny(missing_docs)]

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::Instant;

use matombo_core::{Position, Ruleset, Token};
use matombo_egtb::Tables;
use nnue::Network;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

pub mod bench;
pub mod clock;
mod eval;
mod gen;
mod mcts;
pub mod nnue;
pub mod review;
mod search;
mod time;
mod tt;

pub use eval::{evaluate, features, is_quiet, Weights, FEATURES};
pub use gen::BonusPolicy;
pub use mcts::{Mcts, MctsConfig};
pub use search::{mate_in, unproven_in, DECISIVE, DECISIVE_BOUND, MATE, MATE_BOUND};

use gen::{children, children_complete, Child};
use search::{RootMove, Searcher};
use tt::Table;

/// Playing strength, from a child's opponent to the strongest search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// Weakest.
    Beginner,
    /// Weak.
    Easy,
    /// Medium.
    Medium,
    /// Strong.
    Hard,
    /// Strongest.
    Max,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 5] = [Level::Beginner, Level::Easy, Level::Medium, Level::Hard, Level::Max];

    /// The deepest `hard` searches on small boards (see [`Level::limits`]).
    pub const HARD_DEPTH: u32 = 12;

    /// Boards of at most this many holes a row are small for [`Level::limits`].
    pub const HARD_CAPPED_SIZE: usize = 12;

    /// The most nodes `hard` searches on wide boards (see [`Level::limits`]).
    pub const HARD_WIDE_NODES: u64 = 250_000;

    /// Boards of more than this many holes a row are wide for [`Level::limits`]: wider
    /// than any Tsoro board, so Nsolo's 4x22 to 4x36.
    pub const WIDE_SIZE: usize = 21;

    /// The lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Level::Beginner => "beginner",
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
            Level::Max => "max",
        }
    }

    /// The search limits of this level on `ruleset`'s board.
    ///
    /// `hard` searches for a second, and on boards of at most
    /// [`Level::HARD_CAPPED_SIZE`] holes a row also stops at depth [`Level::HARD_DEPTH`].
    /// There a second searches about 18 turns deep, often to the end of the game, so
    /// without the cap `hard` would choose the turns `max` chooses and the two levels would
    /// be one. On wide boards (more than [`Level::WIDE_SIZE`] holes a row) it stops after
    /// [`Level::HARD_WIDE_NODES`] nodes: on nsolo:36 three times the time buys `max` only
    /// about one turn of depth more than a second does, too little for two levels. A node
    /// cap rather than a depth cap, because in the endgame few stones are left and depth is
    /// cheap: there the cap still searches 8 to 21 turns deep, where a cap at depth 7 lost
    /// long races of single stones even to `greedy`. On boards between, such as tsoro:21,
    /// the second is the limit that counts.
    ///
    /// ```
    /// use matombo_ai::Level;
    /// let small = "tsoro:8".parse().unwrap();
    /// let full = "tsoro:21".parse().unwrap();
    /// let wide = "nsolo:36".parse().unwrap();
    /// assert_eq!(Level::Hard.limits(small).depth, Some(Level::HARD_DEPTH));
    /// assert_eq!(Level::Hard.limits(full).depth, None);
    /// assert_eq!(Level::Hard.limits(wide).depth, None);
    /// assert_eq!(Level::Hard.limits(wide).nodes, Some(Level::HARD_WIDE_NODES));
    /// assert_eq!(Level::Hard.limits(full).nodes, None);
    /// assert_eq!(Level::Max.limits(small).depth, None);
    /// assert_eq!((Level::Max.limits(wide).depth, Level::Max.limits(wide).nodes), (None, None));
    /// ```
    pub fn limits(self, ruleset: Ruleset) -> Limits {
        let (depth, nodes) = match self {
            Level::Beginner => (Some(1), None),
            Level::Easy => (Some(2), None),
            Level::Medium => (Some(4), None),
            Level::Hard if ruleset.size() <= Level::HARD_CAPPED_SIZE => (Some(Level::HARD_DEPTH), None),
            Level::Hard if ruleset.size() > Level::WIDE_SIZE => (None, Some(Level::HARD_WIDE_NODES)),
            Level::Hard | Level::Max => (None, None),
        };
        Limits { time: Some(self.time()), depth, nodes }
    }

    /// The time budget of a turn at this level, the same on every board.
    pub fn time(self) -> Duration {
        Duration::from_millis(match self {
            Level::Beginner => 50,
            Level::Easy => 100,
            Level::Medium => 200,
            Level::Hard => 1000,
            Level::Max => 3000,
        })
    }

    /// The chance that this level plays a uniformly random turn instead of its search's
    /// choice (so that a beginner can be beaten by a child). Used by
    /// [`Engine::play_level`] and [`best_turn`], not by [`Engine::search`].
    pub fn randomness(self) -> f64 {
        match self {
            Level::Beginner => 0.4,
            Level::Easy => 0.1,
            _ => 0.0,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A level name that is not one of the five.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown level {0:?} (expected beginner, easy, medium, hard or max)")]
pub struct ParseLevelError(pub String);

impl FromStr for Level {
    type Err = ParseLevelError;

    fn from_str(s: &str) -> Result<Level, ParseLevelError> {
        Level::ALL.into_iter().find(|l| l.name() == s).ok_or_else(|| ParseLevelError(s.to_string()))
    }
}

/// Limits on one search; the first reached ends it. All `None` means a default budget
/// of one second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock budget.
    pub time: Option<Duration>,
    /// Depth in turns.
    pub depth: Option<u32>,
    /// Nodes searched.
    pub nodes: Option<u64>,
}

impl Limits {
    /// These limits with every limit that `over` sets put in their place (a level's
    /// limits with the ones a user wrote, as in `max,time=6000`).
    ///
    /// ```
    /// use matombo_ai::{Level, Limits};
    /// let base = Level::Hard.limits("tsoro:8".parse().unwrap());
    /// let l = base.overridden_by(Limits { depth: Some(20), ..Limits::default() });
    /// assert_eq!((l.time, l.depth), (base.time, Some(20)));
    /// ```
    pub fn overridden_by(self, over: Limits) -> Limits {
        Limits { time: over.time.or(self.time), depth: over.depth.or(self.depth), nodes: over.nodes.or(self.nodes) }
    }
}

/// How a search spends its time and how many root turns it ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// Root turns ranked and reported (multi-PV), clamped to the legal turns.
    pub lines: usize,
    /// Search until the time limit, aborting the last iteration (a partial iteration
    /// still improves the best turn), instead of not starting an iteration once half the
    /// time is gone.
    pub whole_time: bool,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions { lines: 1, whole_time: false }
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The turn to play.
    pub best: Token,
    /// Score from the mover's point of view in hundredths of a stone (larger is better);
    /// beyond ±[`MATE_BOUND`] a proven win (positive) or loss in `MATE - |score|` turns:
    /// every legal turn (all bonus sets, both head choices) was considered on the way.
    /// Between ±[`DECISIVE_BOUND`] and ±[`DECISIVE`] a forced result the search found
    /// among the turns it weighs (a bonus is cut to a few candidates) but did not prove:
    /// an evaluation, `DECISIVE - |score|` turns away by the search's reckoning.
    pub score: i32,
    /// Principal variation, `best` first.
    pub pv: Vec<Token>,
    /// Depth of the last completed iteration, in turns.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
}

/// The deepest iteration of a search: deeper depth limits are cut to it.
pub const MAX_DEPTH: u32 = 100;

/// The transposition table's default size in MiB (2^20 entries of 16 bytes).
pub const DEFAULT_HASH_MIB: usize = 16;

/// The largest transposition table an engine takes, in MiB.
pub const MAX_HASH_MIB: usize = 1 << 14;

/// A searcher with its own random generator (reproducible from a seed) and its own
/// transposition table, kept between searches.
pub struct Engine {
    rng: SmallRng,
    tt: Table,
    /// `None`: the tuned weights of the position's game ([`Weights::for_kind`]).
    weights: Option<Weights>,
    /// Endgame tables the search probes (of one ruleset; other rulesets search as usual).
    tables: Option<Arc<Tables>>,
    /// Which network evaluates instead of the weights.
    net: NetChoice,
}

/// The network an engine evaluates with ([`Engine::with_net`]).
#[derive(Clone, Debug, PartialEq)]
pub enum NetChoice {
    /// The built-in network of the board, if it has one ([`nnue::builtin`]).
    Builtin,
    /// This network on the board it was trained for.
    Given(Arc<Network>),
    /// None: the weights.
    Off,
}

impl NetChoice {
    fn for_board(&self, ruleset: Ruleset) -> Option<&Network> {
        match self {
            NetChoice::Builtin => nnue::builtin(ruleset),
            NetChoice::Given(net) => Some(&**net).filter(|n| n.fits(ruleset)),
            NetChoice::Off => None,
        }
    }
}

impl Engine {
    /// A new engine seeded with `seed`, evaluating each board with its built-in network if
    /// it has one ([`nnue::builtin`]), else with the game's tuned weights.
    pub fn new(seed: u64) -> Engine {
        Engine {
            rng: SmallRng::seed_from_u64(seed),
            tt: Table::with_mib(DEFAULT_HASH_MIB),
            weights: None,
            tables: None,
            net: NetChoice::Builtin,
        }
    }

    /// A new engine that evaluates with `weights` whatever the game, never with a network
    /// (for tuning).
    pub fn with_weights(seed: u64, weights: Weights) -> Engine {
        Engine {
            rng: SmallRng::seed_from_u64(seed),
            tt: Table::with_mib(DEFAULT_HASH_MIB),
            weights: Some(weights),
            tables: None,
            net: NetChoice::Off,
        }
    }

    /// This engine with a transposition table of `mib` MiB (clamped to 1 ..=
    /// [`MAX_HASH_MIB`], rounded down to a power of two), empty. A bigger table keeps more
    /// of a long search (an analysis of many seconds) between its iterations; the levels
    /// play with [`DEFAULT_HASH_MIB`].
    ///
    /// ```
    /// use matombo_ai::Engine;
    /// assert_eq!(Engine::new(1).hash_mib(), matombo_ai::DEFAULT_HASH_MIB);
    /// assert_eq!(Engine::new(1).with_hash_mib(100).hash_mib(), 64);
    /// assert_eq!(Engine::new(1).with_hash_mib(0).hash_mib(), 1);
    /// ```
    pub fn with_hash_mib(mut self, mib: usize) -> Engine {
        self.tt = Table::with_mib(mib.min(MAX_HASH_MIB));
        self
    }

    /// This engine probing endgame `tables`: a position they hold (same ruleset, few
    /// enough stones) is scored exactly, so the search plays the fastest win and the slowest
    /// loss, and keeps a draw, where the tables know.
    pub fn with_tables(mut self, tables: Arc<Tables>) -> Engine {
        self.tables = Some(tables);
        self.tt = Table::with_mib(self.tt.mib());
        self
    }

    /// This engine evaluating as `net` says: the built-in network of a board (what
    /// [`Engine::new`] does), a given network on the board it was trained for
    /// ([`Network::fits`]; other boards keep the weights), or the weights alone (to measure a
    /// network against them).
    pub fn with_net(mut self, net: NetChoice) -> Engine {
        self.net = net;
        self.tt = Table::with_mib(self.tt.mib());
        self
    }

    /// The endgame tables this engine probes.
    pub fn tables(&self) -> Option<&Tables> {
        self.tables.as_deref()
    }

    /// The transposition table's size in MiB.
    pub fn hash_mib(&self) -> usize {
        self.tt.mib()
    }

    fn weights_for(&self, pos: &Position) -> Weights {
        self.weights.unwrap_or_else(|| Weights::for_kind(pos.ruleset().kind()))
    }

    /// Searches `pos` within `limits`; `stop` set from another thread ends the search
    /// early. `None` if the side to move has no legal turn.
    pub fn search(&mut self, pos: &Position, limits: Limits, stop: &AtomicBool) -> Option<SearchResult> {
        self.search_with(pos, limits, stop, &[], &[], &mut |_| {})
    }

    /// Searches as [`Engine::search`] does, with more control: `history` is the game's
    /// positions before `pos` (oldest first; Nsolo repetitions count as draws), turns in
    /// `exclude` are not considered at the root, and `on_iteration` is called after every
    /// completed iteration with the result so far.
    pub fn search_with(
        &mut self,
        pos: &Position,
        limits: Limits,
        stop: &AtomicBool,
        history: &[Position],
        exclude: &[Token],
        on_iteration: &mut dyn FnMut(&SearchResult),
    ) -> Option<SearchResult> {
        let options = SearchOptions::default();
        self.search_inner(pos, limits, stop, history, exclude, options, &mut |lines| on_iteration(&lines[0]))
            .into_iter()
            .next()
    }

    /// One search that ranks the `options.lines` best root turns (clamped to the number of
    /// legal turns), best first, all at the depth of the last completed iteration; each
    /// line carries the whole search's `nodes` and `elapsed` (count them once, not per
    /// line). `on_iteration` gets the lines after every completed iteration. Empty if the
    /// side to move has no legal turn.
    ///
    /// ```
    /// use std::sync::atomic::AtomicBool;
    /// use matombo_ai::{Engine, Limits, SearchOptions};
    /// let pos = matombo_core::Position::start("tsoro:8".parse().unwrap());
    /// let limits = Limits { depth: Some(3), ..Limits::default() };
    /// let options = SearchOptions { lines: usize::MAX, ..SearchOptions::default() };
    /// let lines = Engine::new(1).search_lines(&pos, limits, &AtomicBool::new(false), &[], options, &mut |_| {});
    /// assert_eq!(lines.len(), pos.turns().count());
    /// assert!(lines.windows(2).all(|w| w[0].score >= w[1].score && w[0].depth == 3));
    /// ```
    pub fn search_lines(
        &mut self,
        pos: &Position,
        limits: Limits,
        stop: &AtomicBool,
        history: &[Position],
        options: SearchOptions,
        on_iteration: &mut dyn FnMut(&[SearchResult]),
    ) -> Vec<SearchResult> {
        self.search_inner(pos, limits, stop, history, &[], options, on_iteration)
    }

    #[allow(clippy::too_many_arguments)]
    fn search_inner(
        &mut self,
        pos: &Position,
        limits: Limits,
        stop: &AtomicBool,
        history: &[Position],
        exclude: &[Token],
        options: SearchOptions,
        on_iteration: &mut dyn FnMut(&[SearchResult]),
    ) -> Vec<SearchResult> {
        let weights = self.weights_for(pos);
        let mut s = Searcher::new(&mut self.tt, weights, stop, pos);
        s.tables = self.tables.as_deref().filter(|t| t.ruleset() == pos.ruleset());
        s.net = self.net.for_board(pos.ruleset());
        if let Some(net) = s.net {
            s.accs = vec![net.refresh(pos); search::MAX_PLY + 2];
        }
        s.clock = s.clock.with_time(time::search_budget(limits));
        s.node_limit = limits.nodes;
        // Positions since the last capture (equal stone totals), for repetitions.
        let total = pos.total_stones();
        for p in history.iter().rev().take_while(|p| p.total_stones() == total).collect::<Vec<_>>().into_iter().rev() {
            s.path.push((p.hash(), total));
        }
        let mut kids: Vec<Child> = Vec::new();
        let in_tables = s.tables.is_some_and(|t| pos.total_stones() <= t.max_stones());
        let all_turns = if in_tables {
            // Every child is in the tables too: list every legal turn (every bonus set), so
            // that the search gives the tables' exact value.
            kids.extend(pos.turns().map(|(token, child)| Child {
                captured: total - child.total_stones(),
                pos: child,
                token: Some(token),
            }));
            true
        } else {
            children_complete(pos, true, &mut kids)
        };
        kids.retain(|c| !exclude.contains(c.token.as_ref().expect("tokens asked for")));
        if kids.is_empty() {
            return Vec::new();
        }
        // Seeded shuffle, then bigger captures first: varied but reproducible play.
        for i in (1..kids.len()).rev() {
            let j = self.rng.random_range(0..=i);
            kids.swap(i, j);
        }
        kids.sort_by_key(|c| std::cmp::Reverse(c.captured));
        let mut moves: Vec<RootMove> =
            kids.into_iter().map(|child| RootMove { child, score: 0, sound: true }).collect();
        let k = options.lines.clamp(1, moves.len());
        let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let token = |m: &RootMove| m.child.token.clone().expect("tokens asked for");
        if moves.len() == 1 && limits.depth.is_none() {
            // A forced turn needs no search.
            let m = &moves[0];
            let score = -s.static_eval(&m.child.pos);
            s.nodes += 1;
            let r = SearchResult {
                best: token(m),
                score,
                pv: vec![token(m)],
                depth: 1,
                nodes: s.nodes,
                elapsed: s.elapsed(),
            };
            on_iteration(std::slice::from_ref(&r));
            return vec![r];
        }
        let mut result: Vec<SearchResult> = Vec::new();
        for depth in 1..=max_depth {
            let (complete, done) = s.root(pos, &mut moves, depth, k);
            if !complete {
                break;
            }
            let finished = done == moves.len();
            // A partial iteration still improves on the last one's best: its first move was
            // the last best, and any move that beat it was searched in full. Several lines
            // come from completed iterations only, so that they share one depth.
            if finished || (k == 1 && !result.is_empty()) {
                let (nodes, elapsed) = (s.nodes, s.elapsed());
                // A line's score is its turn's value; the first line is also the position's,
                // so a forced result there is proven only if every turn was searched soundly
                // (or it is a win in one turn: nothing is sooner).
                let all_sound = all_turns && finished && moves.iter().all(|m| m.sound);
                result = moves[..k]
                    .iter()
                    .enumerate()
                    .map(|(i, m)| SearchResult {
                        best: token(m),
                        score: if m.sound && (i > 0 || all_sound || m.score == MATE - 1) {
                            m.score
                        } else {
                            search::unproven(m.score)
                        },
                        pv: s.pv_from(pos, &token(m), depth as usize),
                        depth: if finished { depth } else { depth - 1 },
                        nodes,
                        elapsed,
                    })
                    .collect();
                if finished {
                    on_iteration(&result);
                }
            }
            if !finished || s.aborted {
                break;
            }
            // Proven results cannot change with more depth.
            if moves[..k].iter().all(|m| m.score.abs() > MATE_BOUND) {
                break;
            }
            if !s.clock.next_iteration_fits(options.whole_time) {
                break;
            }
        }
        let (nodes, elapsed) = (s.nodes, s.elapsed());
        if result.is_empty() {
            // Stopped before depth 1 ended: the first turns in order (largest captures).
            return moves[..k]
                .iter()
                .map(|m| SearchResult { best: token(m), score: 0, pv: vec![token(m)], depth: 0, nodes, elapsed })
                .collect();
        }
        for r in &mut result {
            r.nodes = nodes;
            r.elapsed = elapsed;
        }
        result
    }

    /// The `k` best turns, best first, from one search (see [`Engine::search_lines`]);
    /// `k` is clamped to the number of legal turns.
    pub fn search_multipv(&mut self, pos: &Position, limits: Limits, stop: &AtomicBool, k: usize) -> Vec<SearchResult> {
        let options = SearchOptions { lines: k, ..SearchOptions::default() };
        self.search_lines(pos, limits, stop, &[], options, &mut |_| {})
    }

    /// The turn a level plays: its search, or now and then (weak levels) a random turn.
    pub fn play_level(
        &mut self,
        pos: &Position,
        level: Level,
        stop: &AtomicBool,
        history: &[Position],
    ) -> Option<SearchResult> {
        if self.rng.random_bool(level.randomness()) {
            let started = Instant::now();
            let best = random_turn(pos, &mut self.rng)?;
            return Some(SearchResult {
                pv: vec![best.clone()],
                best,
                score: 0,
                depth: 0,
                nodes: 1,
                elapsed: started.elapsed(),
            });
        }
        self.search_with(pos, level.limits(pos.ruleset()), stop, history, &[], &mut |_| {})
    }

    /// The engine's random generator (for baseline players sharing its seed).
    pub fn rng(&mut self) -> &mut SmallRng {
        &mut self.rng
    }
}

/// A uniformly random turn, chosen decision by decision; `None` without a legal turn.
pub fn random_turn<R: Rng + ?Sized>(pos: &Position, rng: &mut R) -> Option<Token> {
    let mut turn = pos.begin_turn();
    if !turn.apply_random(rng) {
        return None;
    }
    while !turn.is_complete() {
        turn.apply_random(rng);
    }
    turn.token()
}

/// The greedy baseline: the turn capturing the most stones now (bonus by the search's
/// policies), ties broken at random; `None` without a legal turn.
pub fn greedy_turn<R: Rng + ?Sized>(pos: &Position, rng: &mut R) -> Option<Token> {
    let mut kids = Vec::new();
    children(pos, true, &mut kids);
    let max = kids.iter().map(|c| c.captured).max()?;
    let best: Vec<&Child> = kids.iter().filter(|c| c.captured == max).collect();
    best[rng.random_range(0..best.len())].token.clone()
}

/// Convenience: the turn `level` plays in `pos`, or `None` without a legal turn.
pub fn best_turn(pos: &Position, level: Level, seed: u64) -> Option<Token> {
    Engine::new(seed).play_level(pos, level, &AtomicBool::new(false), &[]).map(|r| r.best)
}
