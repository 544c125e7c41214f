//! Depth-first proof-number search (df-pn) for forced wins, with the endgame tables at
//! the leaves, a transposition table of fixed size, and the graph-history interaction
//! handled soundly.
//!
//! A search asks "does `attacker` force a win from here?". At a node where the attacker
//! moves (OR) one proved child proves it; where the defender moves (AND) every child must
//! be proved. Proof and disproof numbers (how many leaves must still be proved / disproved)
//! steer the search to the cheapest open question; df-pn does it depth first with
//! thresholds, keeping every node's numbers in the transposition table.
//!
//! **Repetitions.** Neither a Tsoro cycle (play for ever) nor an Nsolo repetition (a draw)
//! is a win for anybody, so a child already on the current path is *disproved* there. Such
//! a disproof holds for this path only: a node disproved because of one is marked
//! path-dependent, kept as disproved only for the rest of its parent's search (the path
//! above is the same then), and never written to the table. Proofs never rest on a
//! repetition, so every proof in the table holds whatever the path, and a disproof the
//! table holds is one without a repetition in it. A proof is built in proof order (each
//! node from nodes proved before it), so the proof graph has no cycle: along it the
//! attacker wins in a bounded number of turns, with no position repeated.
//!
//! After a proof, [`Proof`] holds the attacker's choice at each of its nodes, and
//! [`Proof::verify`] checks it from scratch with the rules alone (every defender turn
//! answered, no cycle, every leaf a position where the defender cannot move or the tables
//! say the attacker wins), returning the longest the defender can hold out along it.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};

use matombo_core::{Position, Side};

use crate::{Tables, Value};

mod proof;
mod solve;

pub use proof::{Proof, ProofError};
pub use solve::{solve_pns, PnsLimits, PnsSolution, PnsStats};

/// Numbers at or above this mean "infinite".
const INF: u32 = u32::MAX / 4;
/// Past this path length the search stops (a stack guard; never reached in practice).
const MAX_PATH: usize = 20_000;
/// Mixed into the key so that both attackers share one table.
const NORTH_ATTACKS: u64 = 0x9e37_79b9_7f4a_7c15;

/// One transposition-table slot.
#[derive(Clone, Copy)]
struct Entry {
    key: u64,
    pn: u32,
    dn: u32,
    /// Nodes spent under this node when it was stored: what replacement keeps.
    work: u32,
    /// For a proved node: the turns the attacker needs at most along the proof found.
    dist: u32,
}

/// Bytes a table slot takes.
pub const ENTRY_BYTES: usize = 24;

/// What a search ended with, for one attacker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The attacker forces a win, in at most this many turns along the proof found.
    Proved(u32),
    /// The attacker cannot force a win (from this position with no earlier positions).
    Disproved,
    /// The budget ran out; the root's proof and disproof numbers then.
    Open {
        /// Proof number of the root.
        pn: u32,
        /// Disproof number of the root.
        dn: u32,
    },
}

#[derive(Clone, Copy)]
struct Res {
    pn: u32,
    dn: u32,
    dist: u32,
    /// A disproof that rests on a repetition of the current path.
    path_dep: bool,
}

/// A df-pn search with its transposition table.
pub struct Pns<'a> {
    tables: Option<&'a Tables>,
    /// The table as three zeroed arrays (so the pages are taken only as they are used):
    /// keys, `pn << 32 | dn`, and `work << 32 | dist`.
    keys: Vec<u64>,
    nums: Vec<u64>,
    meta: Vec<u64>,
    mask: usize,
    nodes: u64,
    node_limit: u64,
    stop: &'a AtomicBool,
    aborted: bool,
    attacker: Side,
    path: HashSet<u64>,
    depth: usize,
    used: usize,
    /// Slots taken over from another position.
    replaced: u64,
    /// The hash of the child that proved the last OR node proved (the outermost call's,
    /// as it finishes last): the read-back follows it even if its slot is gone.
    win_child: u64,
}

const WAYS: usize = 4;

impl<'a> Pns<'a> {
    /// A search probing `tables` (if given), with a transposition table of at most
    /// `memory` bytes, stopping after `node_limit` expansions or when `stop` is set.
    pub fn new(tables: Option<&'a Tables>, memory: usize, node_limit: u64, stop: &'a AtomicBool) -> Pns<'a> {
        let slots = (memory / ENTRY_BYTES).max(WAYS * 16);
        // A power of two of buckets.
        let buckets = (slots / WAYS + 1).next_power_of_two() / 2;
        Pns {
            tables,
            keys: vec![0; buckets * WAYS],
            nums: vec![0; buckets * WAYS],
            meta: vec![0; buckets * WAYS],
            mask: buckets - 1,
            nodes: 0,
            node_limit,
            stop,
            aborted: false,
            attacker: Side::South,
            path: HashSet::new(),
            depth: 0,
            used: 0,
            replaced: 0,
            win_child: 0,
        }
    }

    /// Expansions so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Bytes of the transposition table.
    pub fn memory(&self) -> usize {
        self.keys.len() * ENTRY_BYTES
    }

    /// Slots of the transposition table in use.
    pub fn used(&self) -> usize {
        self.used
    }

    /// Slots taken over from another position so far (what the memory bound cost).
    pub fn replaced(&self) -> u64 {
        self.replaced
    }

    /// Whether the last search stopped on its budget.
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    /// Raises the node budget (to go on after [`Answer::Open`]).
    pub fn set_node_limit(&mut self, limit: u64) {
        self.node_limit = limit;
    }

    fn key(&self, pos: &Position) -> u64 {
        let k = pos.hash() ^ if self.attacker == Side::North { NORTH_ATTACKS } else { 0 };
        k.max(1)
    }

    fn get(&self, key: u64) -> Option<Entry> {
        let b = (key as usize & self.mask) * WAYS;
        let i = (b..b + WAYS).find(|&i| self.keys[i] == key)?;
        let (n, m) = (self.nums[i], self.meta[i]);
        Some(Entry { key, pn: (n >> 32) as u32, dn: n as u32, work: (m >> 32) as u32, dist: m as u32 })
    }

    fn put(&mut self, e: Entry) {
        let b = (e.key as usize & self.mask) * WAYS;
        let i = match (b..b + WAYS).find(|&i| self.keys[i] == e.key) {
            Some(i) => i,
            None => {
                // Replace the slot that cost least to fill (an empty one first).
                let i = (b..b + WAYS).min_by_key(|&i| (self.keys[i] != 0, self.meta[i] >> 32)).unwrap_or(b);
                if self.keys[i] == 0 {
                    self.used += 1;
                } else {
                    self.replaced += 1;
                }
                i
            }
        };
        self.keys[i] = e.key;
        self.nums[i] = (e.pn as u64) << 32 | e.dn as u64;
        self.meta[i] = (e.work as u64) << 32 | e.dist as u64;
    }

    /// Forgets `key` (so that a search of it starts afresh).
    fn erase(&mut self, key: u64) {
        let b = (key as usize & self.mask) * WAYS;
        if let Some(i) = (b..b + WAYS).find(|&i| self.keys[i] == key) {
            self.keys[i] = 0;
            self.nums[i] = 0;
            self.meta[i] = 0;
            self.used -= 1;
        }
    }

    /// What the tables say of `pos` for the attacker: proved with a distance, or disproved.
    fn table(&self, pos: &Position) -> Option<Res> {
        let t = self.tables.filter(|t| t.ruleset() == pos.ruleset() && pos.total_stones() <= t.max_stones())?;
        let v = t.probe(pos)?;
        let mover_attacks = pos.side_to_move() == self.attacker;
        Some(match v {
            Value::Win(d) if mover_attacks => Res { pn: 0, dn: INF, dist: d as u32, path_dep: false },
            Value::Loss(d) if !mover_attacks => Res { pn: 0, dn: INF, dist: d as u32, path_dep: false },
            _ => Res { pn: INF, dn: 0, dist: 0, path_dep: false },
        })
    }

    /// The numbers of `pos` as known, without searching: `None` if nothing is known.
    fn look(&self, pos: &Position) -> Option<Res> {
        if let Some(r) = self.table(pos) {
            return Some(r);
        }
        self.get(self.key(pos)).map(|e| Res { pn: e.pn, dn: e.dn, dist: e.dist, path_dep: false })
    }

    /// Searches whether `attacker` forces a win from `pos` (with no earlier positions),
    /// until the answer is known or the budget runs out.
    pub fn prove(&mut self, pos: &Position, attacker: Side) -> Answer {
        self.attacker = attacker;
        self.aborted = false;
        self.path.clear();
        self.depth = 0;
        if let Some(r) = self.table(pos) {
            return if r.pn == 0 { Answer::Proved(r.dist) } else { Answer::Disproved };
        }
        loop {
            let r = self.mid(pos, INF, INF);
            if r.pn == 0 {
                return Answer::Proved(r.dist);
            }
            if r.dn == 0 {
                // At the root the path is the game itself: a repetition below it is a real one.
                return Answer::Disproved;
            }
            if self.aborted {
                return Answer::Open { pn: r.pn, dn: r.dn };
            }
        }
    }

    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.node_limit
            || (self.nodes & 1023 == 0 && self.stop.load(Ordering::Relaxed))
            || self.depth >= MAX_PATH
        {
            self.aborted = true;
        }
        self.aborted
    }

    /// Multiple iterative deepening at `pos` with thresholds `thpn`, `thdn`.
    fn mid(&mut self, pos: &Position, thpn: u32, thdn: u32) -> Res {
        let key = self.key(pos);
        let known = self.get(key);
        if let Some(e) = known {
            if e.pn >= thpn || e.dn >= thdn || e.pn == 0 || e.dn == 0 {
                return Res { pn: e.pn, dn: e.dn, dist: e.dist, path_dep: false };
            }
        }
        let start_nodes = self.nodes;
        if self.tick() {
            return known.map_or(Res { pn: 1, dn: 1, dist: 0, path_dep: false }, |e| Res {
                pn: e.pn,
                dn: e.dn,
                dist: e.dist,
                path_dep: false,
            });
        }
        let mut kids: Vec<Position> = Vec::new();
        pos.for_each_child(&mut |c| kids.push(c.clone()));
        let or = pos.side_to_move() == self.attacker;
        if kids.is_empty() {
            // The side to move cannot move: it loses now.
            let r = if or {
                Res { pn: INF, dn: 0, dist: 0, path_dep: false }
            } else {
                Res { pn: 0, dn: INF, dist: 0, path_dep: false }
            };
            self.put(Entry { key, pn: r.pn, dn: r.dn, work: 1, dist: 0 });
            return r;
        }
        // Captures first: they decide soonest, and ties in the numbers go to the first.
        kids.sort_by_key(|c| c.total_stones());
        let ph = pos.hash();
        self.path.insert(ph);
        self.depth += 1;
        // Children whose value holds only on this path (repetitions, path-dependent
        // disproofs), and the last numbers seen of each child (a slot may be replaced).
        let mut pinned: Vec<bool> = kids.iter().map(|c| self.path.contains(&c.hash())).collect();
        let mut vals: Vec<Res> = kids
            .iter()
            .zip(&pinned)
            .map(|(c, &p)| {
                if p {
                    Res { pn: INF, dn: 0, dist: 0, path_dep: true }
                } else {
                    self.look(c).unwrap_or(Res { pn: 1, dn: 1, dist: 0, path_dep: false })
                }
            })
            .collect();
        let mut res;
        loop {
            for (i, c) in kids.iter().enumerate() {
                if !pinned[i] {
                    if let Some(r) = self.look(c) {
                        vals[i] = r;
                    }
                }
            }
            res = combine(or, &vals);
            if res.pn == 0 || res.dn == 0 || res.pn >= thpn || res.dn >= thdn || self.aborted {
                break;
            }
            // The most promising child, and the second best number for its threshold.
            let (best, second) = select(or, &vals);
            let c = &vals[best];
            let (cpn, cdn) = if or {
                (thpn.min(grow(second)), sub(thdn, res.dn, c.dn))
            } else {
                (sub(thpn, res.pn, c.pn), thdn.min(grow(second)))
            };
            // Each round of this loop costs a node, so the budget (and the stop flag)
            // bounds it even when a child comes back at once without searching.
            if self.tick() {
                break;
            }
            let r = self.mid(&kids[best], cpn, cdn);
            vals[best] = r;
            if r.path_dep && r.dn == 0 {
                pinned[best] = true;
            }
        }
        self.depth -= 1;
        self.path.remove(&ph);
        if or && res.pn == 0 {
            let best = (0..kids.len()).filter(|&i| vals[i].pn == 0).min_by_key(|&i| vals[i].dist);
            self.win_child = best.map_or(0, |i| kids[i].hash());
        }
        let work = (self.nodes - start_nodes).min(u32::MAX as u64) as u32;
        if !res.path_dep {
            self.put(Entry { key, pn: res.pn, dn: res.dn, work, dist: res.dist });
        }
        res
    }
}

/// `th - total + part`, never below 0 nor above INF.
fn sub(th: u32, total: u32, part: u32) -> u32 {
    if th >= INF {
        return INF;
    }
    th.saturating_sub(total).saturating_add(part).min(INF - 1)
}

/// The 1 + ε trick: a child's threshold a little past the second best, so the search
/// stays longer in one subtree.
fn grow(second: u32) -> u32 {
    if second >= INF {
        return INF;
    }
    (second + second / 4 + 1).min(INF)
}

fn combine(or: bool, vals: &[Res]) -> Res {
    let (mut min, mut sum) = (INF, 0u32);
    let mut dist_best = u32::MAX;
    let mut dist_worst = 0;
    let mut zero_dep = true; // every child that decides the disproof is path-dependent
    let mut any_dep = false;
    for v in vals {
        let (a, b) = if or { (v.pn, v.dn) } else { (v.dn, v.pn) };
        min = min.min(a);
        sum = sum.saturating_add(b).min(INF - 1);
        if v.pn == 0 {
            dist_best = dist_best.min(v.dist);
        }
        dist_worst = dist_worst.max(v.dist);
        if v.dn == 0 {
            any_dep |= v.path_dep;
            if !v.path_dep {
                zero_dep = false;
            }
        }
    }
    let (pn, dn) = if or { (min, sum) } else { (sum, min) };
    // A decided node's other number is infinite, not the saturated sum (INF − 1): an AND
    // node whose open children's disproof numbers had all saturated at INF − 1 chose a
    // proved child as "least", which came back at once, and the loop spun without end
    // (tsoro:6,bonus=0 stalled so at North's pn 9 for 360 M nodes; with this it is proved).
    let (pn, dn) = if pn == 0 {
        (0, INF)
    } else if dn == 0 {
        (INF, 0)
    } else {
        (pn, dn)
    };
    let dist = if pn == 0 { 1 + if or { dist_best } else { dist_worst } } else { 0 };
    // A disproof rests on the path if one of its disproved children does: at an OR node
    // all children are disproved, at an AND node any one suffices (a genuine one, if any).
    let path_dep = dn == 0 && if or { any_dep } else { zero_dep };
    Res { pn, dn, dist, path_dep }
}

fn select(or: bool, vals: &[Res]) -> (usize, u32) {
    let (mut best, mut b1, mut b2) = (0, u32::MAX, u32::MAX);
    for (i, v) in vals.iter().enumerate() {
        let n = if or { v.pn } else { v.dn };
        if n < b1 {
            b2 = b1;
            b1 = n;
            best = i;
        } else if n < b2 {
            b2 = n;
        }
    }
    (best, b2.min(INF))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(pn: u32, dn: u32) -> Res {
        Res { pn, dn, dist: 0, path_dep: false }
    }

    /// A decided node's other number is infinite, so that an AND node whose open children's
    /// disproof numbers have saturated (INF − 1) still picks an open child, never a proved
    /// one (which would come back at once, and the loop would spin).
    #[test]
    fn a_proved_child_is_never_the_one_searched() {
        // An OR node proved by one child while the others' disproof numbers saturate the sum.
        let proved = combine(true, &[r(0, INF), r(7, INF - 1), r(9, INF - 1)]);
        assert_eq!((proved.pn, proved.dn), (0, INF));
        let disproved = combine(false, &[r(INF, 0), r(INF - 1, 3)]);
        assert_eq!((disproved.pn, disproved.dn), (INF, 0));
        // The AND node above it: the proved child first, an open one with a saturated dn next.
        let vals = [proved, r(5, INF - 1)];
        let (best, _) = select(false, &vals);
        assert_eq!(best, 1);
    }
}
