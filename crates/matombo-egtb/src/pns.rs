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

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};

use matombo_core::{Position, Side, Token};

use crate::{Tables, Value};

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
                }
                i
            }
        };
        self.keys[i] = e.key;
        self.nums[i] = (e.pn as u64) << 32 | e.dn as u64;
        self.meta[i] = (e.work as u64) << 32 | e.dist as u64;
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

/// A proof that `attacker` forces a win from `root`: the turn the attacker plays at each
/// of its positions (keyed by position hash; the defender's positions need no entry).
#[derive(Clone, Debug)]
pub struct Proof {
    /// The position proved.
    pub root: Position,
    /// The side that wins.
    pub attacker: Side,
    /// The attacker's turn at each of its positions in the proof.
    pub moves: HashMap<u64, Token>,
}

/// Why a proof does not hold.
#[derive(Debug, thiserror::Error)]
pub enum ProofError {
    /// An attacker's position with no turn recorded.
    #[error("no turn recorded at {0}")]
    Missing(String),
    /// A recorded turn that is not legal.
    #[error("illegal turn {1} at {0}")]
    Illegal(String, String),
    /// The proof returns to a position on its own line.
    #[error("the proof cycles through {0}")]
    Cycle(String),
    /// The attacker's line ends where he cannot move, or the tables say he does not win.
    #[error("not a win for the attacker at {0}")]
    NotWon(String),
}

impl Proof {
    /// Checks the proof from the rules alone (and `tables`, if given, at the positions they
    /// hold): every defender turn is answered, no line repeats a position, every leaf is a
    /// win for the attacker. Returns the most turns the defender can make the attacker
    /// need along this proof (at least the exact distance).
    pub fn verify(&self, tables: Option<&Tables>) -> Result<u32, ProofError> {
        let mut done: HashMap<u64, u32> = HashMap::new();
        let mut on_line: HashSet<u64> = HashSet::new();
        self.check(&self.root, tables, &mut done, &mut on_line)
    }

    fn check(
        &self,
        pos: &Position,
        tables: Option<&Tables>,
        done: &mut HashMap<u64, u32>,
        on_line: &mut HashSet<u64>,
    ) -> Result<u32, ProofError> {
        let h = pos.hash();
        if let Some(&d) = done.get(&h) {
            return Ok(d);
        }
        if let Some(v) = tables.filter(|t| t.ruleset() == pos.ruleset()).and_then(|t| t.probe(pos)) {
            let mover_attacks = pos.side_to_move() == self.attacker;
            return match v {
                Value::Win(d) if mover_attacks => Ok(d as u32),
                Value::Loss(d) if !mover_attacks => Ok(d as u32),
                _ => Err(ProofError::NotWon(pos.to_string())),
            };
        }
        if !on_line.insert(h) {
            return Err(ProofError::Cycle(pos.to_string()));
        }
        let d = if pos.side_to_move() == self.attacker {
            let t = self.moves.get(&h).ok_or_else(|| ProofError::Missing(pos.to_string()))?;
            let c = pos.play(t).map_err(|_| ProofError::Illegal(pos.to_string(), t.to_string()))?;
            1 + self.check(&c, tables, done, on_line)?
        } else {
            let mut kids = Vec::new();
            pos.for_each_child(&mut |c| kids.push(c.clone()));
            let mut worst = 0; // a defender without a turn has lost: 0 turns to go
            for c in &kids {
                worst = worst.max(1 + self.check(c, tables, done, on_line)?);
            }
            worst
        };
        on_line.remove(&h);
        done.insert(h, d);
        Ok(d)
    }

    /// A line along the proof: the attacker's recorded turns, the defender holding out
    /// longest by the proof's own count; where the tables take over, their best turns.
    pub fn line(&self, tables: Option<&Tables>) -> Vec<Token> {
        let mut done: HashMap<u64, u32> = HashMap::new();
        if self.check(&self.root, tables, &mut done, &mut HashSet::new()).is_err() {
            return Vec::new();
        }
        let tables = tables.filter(|t| t.ruleset() == self.root.ruleset());
        let mut line = Vec::new();
        let mut p = self.root.clone();
        loop {
            let tok = if let Some((_, best)) = tables.and_then(|t| t.best_turns(&p)) {
                match best.into_iter().next() {
                    Some(t) => t,
                    None => break,
                }
            } else if p.side_to_move() == self.attacker {
                match self.moves.get(&p.hash()) {
                    Some(t) => t.clone(),
                    None => break,
                }
            } else {
                let bound = |c: &Position| {
                    done.get(&c.hash())
                        .copied()
                        .or_else(|| tables.and_then(|t| t.probe(c)).and_then(|v| v.distance().map(u32::from)))
                };
                match p.turns().max_by_key(|(_, c)| bound(c)) {
                    Some((t, _)) => t,
                    None => break,
                }
            };
            match p.play(&tok) {
                Ok(c) => p = c,
                Err(_) => break,
            }
            line.push(tok);
        }
        line
    }
}

impl Pns<'_> {
    /// The proof of the last [`Pns::prove`] that answered [`Answer::Proved`] for
    /// `attacker` from `root`, read from the transposition table; a proved node whose slot
    /// was replaced is proved again. `None` if the budget ran out doing so.
    pub fn proof(&mut self, root: &Position, attacker: Side) -> Option<Proof> {
        self.attacker = attacker;
        self.aborted = false;
        self.path.clear();
        let mut moves = HashMap::new();
        let mut done = HashSet::new();
        let mut grey = HashSet::new();
        self.extract(root, &mut moves, &mut done, &mut grey).then(|| Proof { root: root.clone(), attacker, moves })
    }

    fn proved(&mut self, pos: &Position) -> Option<u32> {
        if let Some(r) = self.look(pos) {
            if r.pn == 0 {
                return Some(r.dist);
            }
            if r.dn == 0 {
                return None;
            }
        }
        // Replaced (or never searched): prove it again.
        self.aborted = false;
        let r = self.mid(pos, INF, INF);
        (r.pn == 0).then_some(r.dist)
    }

    fn extract(
        &mut self,
        pos: &Position,
        moves: &mut HashMap<u64, Token>,
        done: &mut HashSet<u64>,
        grey: &mut HashSet<u64>,
    ) -> bool {
        let h = pos.hash();
        if done.contains(&h) || self.table(pos).is_some_and(|r| r.pn == 0) {
            return true;
        }
        grey.insert(h);
        let ok = if pos.side_to_move() == self.attacker {
            // The proved child of least distance that is not on the line.
            let mut cands: Vec<(u32, Token, Position)> = Vec::new();
            for (t, c) in pos.turns() {
                if grey.contains(&c.hash()) {
                    continue;
                }
                if let Some(r) = self.look(&c) {
                    if r.pn == 0 {
                        cands.push((r.dist, t, c));
                    }
                }
            }
            if cands.is_empty() {
                // The slots were replaced: search this node again and retry.
                if self.proved(pos).is_some() {
                    for (t, c) in pos.turns() {
                        if !grey.contains(&c.hash()) && self.look(&c).is_some_and(|r| r.pn == 0) {
                            cands.push((self.look(&c).map_or(0, |r| r.dist), t, c));
                        }
                    }
                }
            }
            cands.sort_by_key(|c| c.0);
            let mut ok = false;
            for (_, t, c) in cands {
                if self.extract(&c, moves, done, grey) {
                    moves.insert(h, t);
                    ok = true;
                    break;
                }
            }
            ok
        } else {
            let mut kids = Vec::new();
            pos.for_each_child(&mut |c| kids.push(c.clone()));
            kids.iter()
                .all(|c| !grey.contains(&c.hash()) && self.proved(c).is_some() && self.extract(c, moves, done, grey))
        };
        grey.remove(&h);
        if ok {
            done.insert(h);
        }
        ok
    }
}

/// The budget and table size of [`solve_pns`].
#[derive(Clone, Copy, Debug)]
pub struct PnsLimits {
    /// Expansions of the proof-number search, both attackers together.
    pub nodes: u64,
    /// Bytes of its transposition table.
    pub memory: usize,
    /// Nodes of the depth-first search that makes a proved distance exact.
    pub exact_nodes: u64,
}

/// What [`solve_pns`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PnsSolution {
    /// A forced result, proved (and the proof checked by [`Proof::verify`]).
    Proved {
        /// Win or loss for the side to move, at the exact distance if `exact`, else at the
        /// proof's bound `upper`.
        value: Value,
        /// Whether the distance is exact.
        exact: bool,
        /// No forced result in fewer than this many turns.
        lower: u32,
        /// The forced result comes within this many turns.
        upper: u32,
        /// A line of play: best play if `exact`, else along the proof.
        line: Vec<Token>,
    },
    /// Neither side forces a win (from this position with no earlier positions).
    Draw,
    /// Not decided within the budget: how far each attacker's search got.
    Open {
        /// The side to move as attacker.
        mover: Answer,
        /// The other side as attacker.
        other: Answer,
    },
}

/// Figures of a [`solve_pns`] run.
#[derive(Clone, Copy, Debug, Default)]
pub struct PnsStats {
    /// Expansions of the proof-number search.
    pub nodes: u64,
    /// Nodes of the depth-first search for the exact distance.
    pub exact_nodes: u64,
    /// Bytes of the transposition table.
    pub memory: usize,
    /// Its slots in use at the end.
    pub used: usize,
    /// Positions in the proof checked.
    pub proof_positions: usize,
}

/// Solves `pos` by df-pn: each side in turn as attacker, with budgets doubling, until one
/// is proved to win, both are disproved (a draw), or the budget runs out. A win is then
/// read back as a [`Proof`] and checked with [`Proof::verify`]; its distance is made exact
/// by the depth-first [`crate::Solver`] bounded by the proof's. `progress(nodes, mover,
/// other)` is called between rounds.
pub fn solve_pns(
    pos: &Position,
    tables: Option<&Tables>,
    limits: PnsLimits,
    stop: &AtomicBool,
    progress: &mut (dyn FnMut(u64, Answer, Answer) + Send),
) -> Result<(PnsSolution, PnsStats), ProofError> {
    // The searches recurse once per turn of a line: a big stack of their own.
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("pns".into())
            .stack_size(512 << 20)
            .spawn_scoped(s, || solve_on_stack(pos, tables, limits, stop, progress))
            .expect("a thread for the search")
            .join()
            .expect("the search does not panic")
    })
}

fn solve_on_stack(
    pos: &Position,
    tables: Option<&Tables>,
    limits: PnsLimits,
    stop: &AtomicBool,
    progress: &mut (dyn FnMut(u64, Answer, Answer) + Send),
) -> Result<(PnsSolution, PnsStats), ProofError> {
    let tables = tables.filter(|t| t.ruleset() == pos.ruleset());
    let mut pns = Pns::new(tables, limits.memory, 0, stop);
    let me = pos.side_to_move();
    let mut ans = [Answer::Open { pn: 1, dn: 1 }; 2];
    let mut step = 20_000u64;
    let winner = 'search: loop {
        for (i, attacker) in [me, me.opponent()].into_iter().enumerate() {
            if matches!(ans[i], Answer::Disproved) {
                continue;
            }
            let left = limits.nodes.saturating_sub(pns.nodes());
            pns.set_node_limit(pns.nodes() + step.min(left));
            ans[i] = pns.prove(pos, attacker);
            if let Answer::Proved(_) = ans[i] {
                break 'search Some(attacker);
            }
        }
        progress(pns.nodes(), ans[0], ans[1]);
        if ans.iter().all(|a| *a == Answer::Disproved) {
            break None;
        }
        if pns.nodes() >= limits.nodes || stop.load(Ordering::Relaxed) {
            break None;
        }
        step = step.saturating_mul(2);
    };
    let mut stats = PnsStats { nodes: pns.nodes(), memory: pns.memory(), used: pns.used(), ..PnsStats::default() };
    let Some(attacker) = winner else {
        let sol = if ans.iter().all(|a| *a == Answer::Disproved) {
            PnsSolution::Draw
        } else {
            PnsSolution::Open { mover: ans[0], other: ans[1] }
        };
        return Ok((sol, stats));
    };
    // Read the proof back (re-proving what the table lost) and check it independently.
    pns.set_node_limit(u64::MAX);
    let proof = pns.proof(pos, attacker).ok_or_else(|| ProofError::Missing(pos.to_string()))?;
    let upper = proof.verify(tables)?;
    stats.proof_positions = proof.moves.len();
    stats.nodes = pns.nodes();
    drop(pns);
    // The exact distance: no forced result within `upper - 1` means `upper` is exact.
    let wrap = |d: u32| if attacker == me { Value::Win(d as u16) } else { Value::Loss(d as u16) };
    let mut solver = crate::Solver::new(tables, limits.exact_nodes, stop);
    let exact = if upper == 0 {
        Some((0, Vec::new()))
    } else {
        match solver.solve(pos, upper - 1, &mut |_, _| {}) {
            crate::Solution::Proved(v, line) => Some((v.distance().unwrap_or(0) as u32, line)),
            crate::Solution::Open { depth } if depth + 1 == upper => Some((upper, Vec::new())),
            crate::Solution::Open { depth } => {
                stats.exact_nodes = solver.nodes();
                let sol = PnsSolution::Proved {
                    value: wrap(upper),
                    exact: false,
                    lower: depth + 1,
                    upper,
                    line: proof.line(tables),
                };
                return Ok((sol, stats));
            }
        }
    };
    stats.exact_nodes = solver.nodes();
    let (d, mut line) = exact.expect("set above");
    if line.is_empty() && d > 0 {
        line = proof.line(tables);
    }
    Ok((PnsSolution::Proved { value: wrap(d), exact: true, lower: d, upper: d, line }, stats))
}
