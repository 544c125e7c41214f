//! A solver: proves a forced win or loss by exhaustive search, deepening one turn at a
//! time, with the endgame tables (if any) scoring the positions they hold. It is an
//! AND/OR depth-first search with a transposition table (the memo of what each position
//! was proved to) and enhanced transposition cutoffs: before a position's children are
//! searched, one already known lost (memo or tables) proves the win at once.
//!
//! `prove(p, d)` answers whether the side to move wins within `d` turns, loses within `d`
//! turns whatever it plays, or neither is forced within `d`. Deepening from 1, the first
//! depth that proves a result is its exact distance. A draw (Nsolo: repetition; Tsoro:
//! endless play) cannot be proved this way: an unproved position is reported with the
//! depth searched, which says that no result is forced sooner.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use matombo_core::{Position, Token};

use crate::{Tables, Value};

/// What is known of a position after a search to some depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Known {
    /// Won within this many turns.
    Win(u32),
    /// Lost within this many turns whatever the side to move plays.
    Loss(u32),
    /// Neither forced within this many turns.
    Open(u32),
}

/// The answer of [`Solver::solve`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Solution {
    /// The proved value (a win or loss in exactly this many turns) and a line of best play
    /// (the winner's fastest, the loser's slowest).
    Proved(Value, Vec<Token>),
    /// Not proved within the budget: neither side can force the end within `depth` turns.
    Open {
        /// Every depth up to this one was searched in full.
        depth: u32,
    },
}

/// A search for forced results, with a node budget and a stop flag.
pub struct Solver<'a> {
    tables: Option<&'a Tables>,
    memo: HashMap<u64, Known>,
    nodes: u64,
    node_limit: u64,
    stop: &'a AtomicBool,
    aborted: bool,
}

impl<'a> Solver<'a> {
    /// A solver probing `tables` (if given, of the position's ruleset), stopping after
    /// `node_limit` nodes or when `stop` is set.
    pub fn new(tables: Option<&'a Tables>, node_limit: u64, stop: &'a AtomicBool) -> Solver<'a> {
        Solver { tables, memo: HashMap::new(), nodes: 0, node_limit, stop, aborted: false }
    }

    /// Nodes searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Deepens from depth 1 up to `max_depth` until a result is proved or the budget runs
    /// out; `on_depth(depth, nodes)` is called after each completed depth.
    pub fn solve(&mut self, pos: &Position, max_depth: u32, on_depth: &mut dyn FnMut(u32, u64)) -> Solution {
        if let Some(v) = self.tables.filter(|t| t.ruleset() == pos.ruleset()).and_then(|t| t.probe(pos)) {
            if v != Value::Draw {
                return Solution::Proved(v, self.line(pos, v));
            }
        }
        let mut searched = 0;
        for d in 0..=max_depth {
            match self.prove(pos, d) {
                _ if self.aborted => break,
                Known::Win(_) => return Solution::Proved(Value::Win(d as u16), self.line(pos, Value::Win(d as u16))),
                Known::Loss(_) => {
                    return Solution::Proved(Value::Loss(d as u16), self.line(pos, Value::Loss(d as u16)))
                }
                Known::Open(_) => {
                    searched = d;
                    on_depth(d, self.nodes);
                }
            }
        }
        Solution::Open { depth: searched }
    }

    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.node_limit || (self.nodes & 4095 == 0 && self.stop.load(Ordering::Relaxed)) {
            self.aborted = true;
        }
        self.aborted
    }

    fn prove(&mut self, pos: &Position, d: u32) -> Known {
        if let Some(t) = self.tables.filter(|t| pos.total_stones() <= t.max_stones() && t.ruleset() == pos.ruleset()) {
            return match t.probe(pos) {
                Some(Value::Win(k)) if k as u32 <= d => Known::Win(k as u32),
                Some(Value::Loss(k)) if k as u32 <= d => Known::Loss(k as u32),
                _ => Known::Open(d),
            };
        }
        let key = pos.full_hash();
        match self.memo.get(&key) {
            Some(&Known::Win(k)) if k <= d => return Known::Win(k),
            Some(&Known::Loss(k)) if k <= d => return Known::Loss(k),
            Some(&Known::Open(k)) if k >= d => return Known::Open(d),
            _ => {}
        }
        if self.tick() {
            return Known::Open(d);
        }
        let mut children = Vec::new();
        pos.for_each_child(&mut |c| children.push(c.clone()));
        if children.is_empty() {
            self.memo.insert(key, Known::Loss(0));
            return Known::Loss(0);
        }
        if d == 0 {
            return Known::Open(0);
        }
        // Enhanced transposition cutoff: a child already known lost within d - 1 turns (memo
        // or tables) proves the win without searching any child first.
        if let Some(k) = children.iter().filter_map(|c| self.known_loss(c, d - 1)).min() {
            self.memo.insert(key, Known::Win(k + 1));
            return Known::Win(k + 1);
        }
        // Captures first: they end games soonest.
        children.sort_by_key(|c| c.total_stones());
        let mut slowest = 0;
        let mut all_won = true;
        for c in &children {
            match self.prove(c, d - 1) {
                Known::Loss(k) => {
                    self.memo.insert(key, Known::Win(k + 1));
                    return Known::Win(k + 1);
                }
                Known::Win(k) => slowest = slowest.max(k + 1),
                Known::Open(_) => all_won = false,
            }
            if self.aborted {
                return Known::Open(d);
            }
        }
        let known = if all_won { Known::Loss(slowest) } else { Known::Open(d) };
        self.memo.insert(key, known);
        known
    }

    /// A loss within `d` turns for `pos`'s side to move that is already known (memo or
    /// tables), without searching.
    fn known_loss(&self, pos: &Position, d: u32) -> Option<u32> {
        if let Some(t) = self.tables.filter(|t| pos.total_stones() <= t.max_stones() && t.ruleset() == pos.ruleset()) {
            return match t.probe(pos) {
                Some(Value::Loss(k)) if k as u32 <= d => Some(k as u32),
                _ => None,
            };
        }
        match self.memo.get(&pos.full_hash()) {
            Some(&Known::Loss(k)) if k <= d => Some(k),
            _ => None,
        }
    }

    /// A line of best play from `pos` of value `v`, proved turn by turn.
    fn line(&mut self, pos: &Position, v: Value) -> Vec<Token> {
        let mut line = Vec::new();
        let (mut p, mut v) = (pos.clone(), v);
        self.aborted = false;
        self.node_limit = u64::MAX;
        while let Value::Win(d) | Value::Loss(d) = v {
            if d == 0 {
                break;
            }
            let want = d as u32 - 1;
            let mut pick: Option<(Token, Position, Value)> = None;
            for (t, c) in p.turns() {
                let cv = match self.exact(&c, want) {
                    Some(cv) => cv,
                    None => continue,
                };
                // The winner plays into the fastest loss; the loser into the slowest win.
                let better = match (&pick, v) {
                    (None, _) => true,
                    (Some((_, _, Value::Loss(a))), Value::Win(_)) => matches!(cv, Value::Loss(b) if b < *a),
                    (Some((_, _, Value::Win(a))), Value::Loss(_)) => matches!(cv, Value::Win(b) if b > *a),
                    _ => false,
                };
                let fits = matches!((v, cv), (Value::Win(_), Value::Loss(_)) | (Value::Loss(_), Value::Win(_)));
                if fits && better {
                    pick = Some((t, c, cv));
                }
            }
            let Some((t, c, cv)) = pick else { break };
            line.push(t);
            p = c;
            v = cv;
        }
        line
    }

    /// The exact value of `pos` if it is a win or loss within `max` turns.
    fn exact(&mut self, pos: &Position, max: u32) -> Option<Value> {
        for d in 0..=max {
            match self.prove(pos, d) {
                Known::Win(_) => return Some(Value::Win(d as u16)),
                Known::Loss(_) => return Some(Value::Loss(d as u16)),
                Known::Open(_) => {}
            }
        }
        None
    }
}
