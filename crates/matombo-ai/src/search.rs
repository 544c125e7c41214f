//! Alpha-beta: negamax with principal variation search, iterative deepening, a
//! transposition table keyed by the position hash, and move ordering (table move, then
//! captures, then history).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use matombo_core::{GameKind, Position, Token};
use matombo_egtb::{Tables, Value};

use crate::eval::{evaluate, Weights};
use crate::gen::{children, children_with, for_each_child, Bonuses, Child};
use crate::nnue::{Accumulator, Network};
use crate::time::Deadline;
use crate::tt::{bound_of, from_tt, to_tt, Entry, Table, BOUND, EXACT, LOWER, TAINT, UPPER};

/// Score of a won game at the root; a win in `p` plies scores `MATE - p`.
pub const MATE: i32 = 1_000_000;
/// Scores beyond this are wins or losses by force.
pub const MATE_BOUND: i32 = MATE - 10_000;
const INF: i32 = MATE + 1;
/// Score of a forced result the search found but did not prove, `n` turns away:
/// `±(DECISIVE - n)`, an evaluation above every other (see
/// [`SearchResult::score`](crate::SearchResult::score)).
pub const DECISIVE: i32 = 100_000;
/// Scores beyond this (and within ±[`MATE_BOUND`]) are unproven forced results.
pub const DECISIVE_BOUND: i32 = DECISIVE - 10_000;

/// A mate score as an unproven forced result at the same distance; other scores as they
/// are.
pub(crate) fn unproven(score: i32) -> i32 {
    if score > MATE_BOUND {
        DECISIVE - (MATE - score)
    } else if score < -MATE_BOUND {
        -(DECISIVE - (MATE + score))
    } else {
        score
    }
}

/// A proven score (beyond ±[`MATE_BOUND`]) as turns to the end (positive: the side to
/// move wins), `None` for any other score.
///
/// ```
/// use matombo_ai::{mate_in, DECISIVE, MATE};
/// assert_eq!(mate_in(MATE - 15), Some(15));
/// assert_eq!(mate_in(-(MATE - 4)), Some(-4));
/// assert_eq!(mate_in(DECISIVE - 11), None);
/// ```
pub fn mate_in(score: i32) -> Option<i32> {
    if score > MATE_BOUND {
        Some(MATE - score)
    } else if score < -MATE_BOUND {
        Some(-(MATE + score))
    } else {
        None
    }
}

/// The turns to the end of an unproven forced result (positive: the side to move wins by
/// the search's reckoning), `None` for a proven result or an ordinary evaluation.
///
/// ```
/// use matombo_ai::{unproven_in, DECISIVE, MATE};
/// assert_eq!(unproven_in(DECISIVE - 11), Some(11));
/// assert_eq!(unproven_in(-(DECISIVE - 4)), Some(-4));
/// assert_eq!(unproven_in(MATE - 15), None);
/// assert_eq!(unproven_in(250), None);
/// ```
pub fn unproven_in(score: i32) -> Option<i32> {
    if !(-MATE_BOUND..=MATE_BOUND).contains(&score) {
        None
    } else if score > DECISIVE_BOUND {
        Some(DECISIVE - score)
    } else if score < -DECISIVE_BOUND {
        Some(-(DECISIVE + score))
    } else {
        None
    }
}
pub(crate) const MAX_PLY: usize = 128;

/// Whether `pos` repeats a position of `path` since the last capture (Nsolo's draw).
fn repeats(path: &[(u64, u32)], pos: &Position) -> bool {
    let stones = pos.total_stones();
    let h = pos.hash();
    path.iter().rev().take_while(|e| e.1 == stones).any(|e| e.0 == h)
}

/// One root turn with its score from the last completed iteration.
#[derive(Clone)]
pub(crate) struct RootMove {
    pub child: Child,
    pub score: i32,
    /// Whether `score` is what a search of every legal turn gives (see
    /// [`Searcher::taint`]).
    pub sound: bool,
}

/// The state of one search.
pub(crate) struct Searcher<'a> {
    pub tt: &'a mut Table,
    pub weights: Weights,
    /// The network that evaluates instead of `weights`, if any (it fits the board).
    pub net: Option<&'a Network>,
    /// With a network: the accumulators of the position at each ply of the current line.
    pub accs: Vec<Accumulator>,
    pub stop: &'a AtomicBool,
    /// The search's start and time budget.
    pub clock: Deadline,
    pub node_limit: Option<u64>,
    pub nodes: u64,
    pub aborted: bool,
    /// Hash mixed with the ruleset so that one table can serve several games.
    pub salt: u64,
    /// Nsolo repetition: hashes of positions since the last capture, the game's first.
    pub path: Vec<(u64, u32)>,
    pub nsolo: bool,
    /// Endgame tables: a position they hold is scored exactly, not searched.
    pub tables: Option<&'a Tables>,
    /// Set when a score just computed may differ from what a search of every legal turn to
    /// the same depth would give: a bonus cut to the policies' candidates where the score
    /// is not a fail-high (there more options for the mover could only raise it), a draw
    /// by repetition (it depends on the path), or a table entry so marked. A forced result
    /// is reported as proven only where this stays clear.
    pub taint: bool,
    bufs: Vec<Vec<Child>>,
    orders: Vec<Vec<(u64, usize)>>,
    bonuses: Bonuses,
    history: Vec<u32>,
}

impl<'a> Searcher<'a> {
    pub fn new(tt: &'a mut Table, weights: Weights, stop: &'a AtomicBool, pos: &Position) -> Searcher<'a> {
        let salt = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            pos.ruleset().hash(&mut h);
            h.finish()
        };
        Searcher {
            tt,
            weights,
            net: None,
            accs: Vec::new(),
            stop,
            clock: Deadline::start(),
            node_limit: None,
            nodes: 0,
            aborted: false,
            salt,
            path: Vec::new(),
            nsolo: pos.ruleset().kind() == GameKind::Nsolo,
            tables: None,
            taint: false,
            bufs: (0..MAX_PLY + 1).map(|_| Vec::new()).collect(),
            orders: (0..MAX_PLY + 1).map(|_| Vec::new()).collect(),
            bonuses: Bonuses::default(),
            history: vec![0; 4096],
        }
    }

    #[inline]
    fn key(&self, pos: &Position) -> u64 {
        pos.hash() ^ self.salt
    }

    /// Counts a node and checks the limits every 16 nodes (and the stop flag).
    #[inline]
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes & 15 == 0 {
            self.check_limits();
        }
        self.aborted
    }

    fn check_limits(&mut self) {
        if self.stop.load(Ordering::Relaxed) {
            self.aborted = true;
        }
        if self.clock.passed() {
            self.aborted = true;
        }
        if let Some(n) = self.node_limit {
            if self.nodes >= n {
                self.aborted = true;
            }
        }
    }

    fn repeated(&self, pos: &Position) -> bool {
        self.nsolo && repeats(&self.path, pos)
    }

    fn history_index(pos: &Position) -> usize {
        (pos.hash() as usize) & 4095
    }

    /// Negamax with PVS. Returns the score for the side to move in `pos`, and sets
    /// [`Searcher::taint`] if that score may differ from a search of every legal turn
    /// (leaves it as it was otherwise).
    pub fn negamax(&mut self, pos: &Position, depth: u32, alpha: i32, beta: i32, ply: usize) -> i32 {
        let outer = std::mem::replace(&mut self.taint, false);
        let score = self.negamax_inner(pos, depth, alpha, beta, ply);
        self.taint |= outer;
        score
    }

    fn negamax_inner(&mut self, pos: &Position, depth: u32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        if self.tick() {
            return 0;
        }
        if ply > 0 && self.repeated(pos) {
            self.taint = true;
            return 0;
        }
        if ply > 0 {
            if let Some(v) = self.tables.and_then(|t| exact(t, pos, ply)) {
                return v;
            }
        }
        let key = self.key(pos);
        let mut tt_best = u16::MAX;
        if let Some(e) = self.tt.probe(key) {
            tt_best = e.best;
            if e.depth as u32 >= depth {
                let s = from_tt(e.score, ply);
                let hit = match e.bound & BOUND {
                    EXACT => true,
                    LOWER => s >= beta,
                    UPPER => s <= alpha,
                    _ => false,
                };
                if hit {
                    self.taint = e.bound & TAINT != 0;
                    return s;
                }
            }
        }
        if depth == 0 || ply >= MAX_PLY {
            return match self.net {
                Some(net) => net.output(&self.accs[ply], pos.side_to_move()),
                None => evaluate(pos, &self.weights),
            };
        }
        if depth == 1 {
            return self.last_ply(pos, key, alpha, beta, ply);
        }
        let mut kids = std::mem::take(&mut self.bufs[ply]);
        children_with(pos, false, &mut kids, &mut self.bonuses);
        let cut = self.bonuses.cut;
        if kids.is_empty() {
            self.bufs[ply] = kids;
            return -MATE + ply as i32;
        }
        let mut order = std::mem::take(&mut self.orders[ply]);
        self.order(&kids, tt_best, &mut order);
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_i = order[0].1;
        self.path.push((pos.hash(), pos.total_stones()));
        for (n, &(_, i)) in order.iter().enumerate() {
            let child = &kids[i].pos;
            self.enter(pos, child, ply);
            let score = if n == 0 {
                -self.negamax(child, depth - 1, -beta, -alpha, ply + 1)
            } else {
                let s = -self.negamax(child, depth - 1, -alpha - 1, -alpha, ply + 1);
                if s > alpha && s < beta && !self.aborted {
                    -self.negamax(child, depth - 1, -beta, -alpha, ply + 1)
                } else {
                    s
                }
            };
            if self.aborted {
                break;
            }
            if score > best {
                best = score;
                best_i = i;
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                if kids[i].captured == 0 {
                    let h = Self::history_index(&kids[i].pos);
                    self.history[h] = self.history[h].saturating_add(depth * depth);
                }
                break;
            }
        }
        self.path.pop();
        self.bufs[ply] = kids;
        self.orders[ply] = order;
        if self.aborted {
            return 0;
        }
        // A fail-high stays a true lower bound with more turns for the mover; any other
        // score from a cut list may be too low.
        if cut && best < beta {
            self.taint = true;
        }
        let bound = bound_of(best, alpha0, beta) | if self.taint { TAINT } else { 0 };
        self.tt.store(
            key,
            Entry { key, score: to_tt(best, ply), best: best_i as u16, depth: depth.min(255) as u8, bound },
        );
        best
    }

    /// A node one turn above the leaves: every child is evaluated as it is generated, as
    /// a node of its own, without being stored, ordered or looked up in the table (the
    /// search's hottest loop).
    fn last_ply(&mut self, pos: &Position, key: u64, alpha: i32, beta: i32, ply: usize) -> i32 {
        let mut bonuses = std::mem::take(&mut self.bonuses);
        self.path.push((pos.hash(), pos.total_stones()));
        let (mut best, mut best_i, mut count) = (-INF, 0u16, 0u16);
        let (path, weights, nsolo, tables) = (&self.path, &self.weights, self.nsolo, self.tables);
        let net = self.net.map(|net| (net, &self.accs[ply]));
        let mut scratch = Accumulator::default();
        // A node limit is kept exactly: the children past it are not evaluated.
        let budget = self.node_limit.map_or(u64::MAX, |n| n.saturating_sub(self.nodes));
        let mut over = false;
        let mut repeated = false;
        for_each_child(pos, &mut bonuses, &mut |child, _| {
            if count as u64 >= budget {
                over = true;
                return;
            }
            let score = if nsolo && repeats(path, child) {
                repeated = true;
                0
            } else if let Some(v) = tables.and_then(|t| exact(t, child, ply + 1)) {
                -v
            } else if let Some((net, acc)) = net {
                net.update(acc, pos, child, &mut scratch);
                debug_assert_eq!(scratch, net.refresh(child), "incremental accumulators of {child}");
                -net.output(&scratch, child.side_to_move())
            } else {
                -evaluate(child, weights)
            };
            if score > best {
                best = score;
                best_i = count;
            }
            count += 1;
        });
        self.path.pop();
        let cut = bonuses.cut;
        self.bonuses = bonuses;
        let before = self.nodes;
        self.nodes += count as u64;
        if over || before >> 4 != self.nodes >> 4 {
            self.check_limits();
        }
        if self.aborted {
            return 0;
        }
        if count == 0 {
            return -MATE + ply as i32;
        }
        if repeated || (cut && best < beta) {
            self.taint = true;
        }
        let bound = bound_of(best, alpha, beta) | if self.taint { TAINT } else { 0 };
        self.tt.store(key, Entry { key, score: to_tt(best, ply), best: best_i, depth: 1, bound });
        best
    }

    /// With a network, sets the accumulators of `child` at `ply + 1` from those of its
    /// parent `pos` at `ply`.
    #[inline]
    pub fn enter(&mut self, pos: &Position, child: &Position, ply: usize) {
        if let Some(net) = self.net {
            let (parent, rest) = self.accs.split_at_mut(ply + 1);
            net.update(&parent[ply], pos, child, &mut rest[0]);
            debug_assert_eq!(rest[0], net.refresh(child), "incremental accumulators of {child}");
        }
    }

    /// The static evaluation of `pos` from scratch (the network's if there is one).
    pub fn static_eval(&self, pos: &Position) -> i32 {
        match self.net {
            Some(net) => net.evaluate(pos),
            None => evaluate(pos, &self.weights),
        }
    }

    /// Search order: the table's move, then bigger captures, then the history heuristic;
    /// ties in listing order. Written into `order` as (key, child index), best first.
    fn order(&self, kids: &[Child], tt_best: u16, order: &mut Vec<(u64, usize)>) {
        order.clear();
        order.extend(kids.iter().enumerate().map(|(i, c)| {
            let tt = (i as u16 == tt_best) as u64;
            let hist = self.history[Self::history_index(&c.pos)] as u64;
            ((tt << 62) | ((c.captured as u64) << 32) | hist.min(u32::MAX as u64), i)
        }));
        order.sort_unstable_by_key(|&(key, i)| (std::cmp::Reverse(key), i));
    }

    /// The principal variation from `pos` by following the table's best moves.
    pub fn pv_from(&mut self, pos: &Position, first: &Token, max: usize) -> Vec<Token> {
        let mut pv = vec![first.clone()];
        let Ok(mut p) = pos.play(first) else { return pv };
        let mut seen = vec![p.hash()];
        let mut kids = Vec::new();
        while pv.len() < max {
            let Some(e) = self.tt.probe(self.key(&p)) else { break };
            children(&p, true, &mut kids);
            let Some(c) = kids.get(e.best as usize) else { break };
            pv.push(c.token.clone().expect("asked for tokens"));
            p = c.pos.clone();
            if seen.contains(&p.hash()) {
                break;
            }
            seen.push(p.hash());
        }
        pv
    }

    /// One iteration at the root: scores every root move (PVS), sorting them best first.
    /// The first `lines` scores are exact (multi-PV): a move is searched with a window
    /// whose floor is the `lines`-th best score so far, so only moves that would enter the
    /// top `lines` are searched in full. Returns `false` if aborted before the first move
    /// was searched in full, and the number of moves searched.
    pub fn root(&mut self, pos: &Position, moves: &mut [RootMove], depth: u32, lines: usize) -> (bool, usize) {
        let beta = INF;
        let mut done = 0;
        self.path.push((pos.hash(), pos.total_stones()));
        let mut scores = vec![-INF; moves.len()];
        let mut sound = vec![true; moves.len()];
        // The best `lines` scores so far, best first.
        let mut top: Vec<i32> = Vec::with_capacity(lines + 1);
        for i in 0..moves.len() {
            let alpha = if top.len() < lines { -INF } else { top[lines - 1] };
            let child = moves[i].child.pos.clone();
            self.enter(pos, &child, 0);
            self.taint = false;
            let score = if alpha == -INF {
                -self.negamax(&child, depth - 1, -beta, -alpha, 1)
            } else {
                let s = -self.negamax(&child, depth - 1, -alpha - 1, -alpha, 1);
                if s > alpha && !self.aborted {
                    -self.negamax(&child, depth - 1, -beta, -alpha, 1)
                } else {
                    s
                }
            };
            if self.aborted {
                break;
            }
            scores[i] = score;
            sound[i] = !self.taint;
            done = i + 1;
            let at = top.partition_point(|&t| t >= score);
            top.insert(at, score);
            top.truncate(lines);
        }
        self.path.pop();
        if done == 0 {
            return (false, 0);
        }
        // Searched moves keep their new scores (a fail-low score is an upper bound but
        // orders well enough); the best one moves to the front.
        for ((m, s), ok) in moves.iter_mut().zip(&scores).zip(&sound).take(done) {
            m.score = *s;
            m.sound = *ok;
        }
        moves[..done].sort_by_key(|m| std::cmp::Reverse(m.score));
        (true, done)
    }

    pub fn elapsed(&self) -> Duration {
        self.clock.elapsed()
    }
}

/// The exact score of `pos` at `ply` from endgame tables that hold it: a win or loss as a
/// mate score at the same distance from the root a search would find it, a draw as 0.
#[inline]
pub fn exact(tables: &Tables, pos: &Position, ply: usize) -> Option<i32> {
    if pos.total_stones() > tables.max_stones() {
        return None;
    }
    Some(match tables.probe(pos)? {
        Value::Win(d) => MATE - ply as i32 - d as i32,
        Value::Loss(d) => -MATE + ply as i32 + d as i32,
        Value::Draw => 0,
    })
}
