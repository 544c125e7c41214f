//! Monte-Carlo tree search over whole turns: UCT with implicit minimax backups and a
//! light solver.
//!
//! The tree's edges are the turns of [`children`] (every start and head choice, the bonus
//! reduced to a few policies, as in the alpha-beta search). Each iteration descends by
//! UCT, expands one leaf, and scores it by the static evaluation squashed to a win
//! probability, optionally after a short random playout (`playout_turns`); a finished
//! game scores 1 or 0, an Nsolo repetition ½. Children start with one virtual visit worth
//! their own evaluation, so captures are tried first, and selection mixes each child's
//! mean reward with the minimax of the evaluations below it. Positions with no legal turn
//! are proven results, and proofs propagate (a turn to a lost position wins; a position
//! whose turns all lose is lost), so a forced win found in the tree is played at once.
//!
//! Measured against the alpha-beta search at equal time (`matombo match mcts,time=100
//! time=100`) it is clearly weaker on tsoro:21, nsolo:8 and nsolo:36 and about even on
//! tsoro:8; an iteration (a whole list of children, each evaluated) costs as much as
//! 6-15 alpha-beta nodes. So the alpha-beta search stays the engine of every level; this
//! one is there to be measured again as the evaluation and the generator change.

use crate::clock::Instant;
use std::sync::atomic::{AtomicBool, Ordering};

use matombo_core::{GameKind, Position, Token};
use rand::rngs::SmallRng;
use rand::SeedableRng;

use crate::eval::{evaluate, Weights};
use crate::gen::{children, Child};
use crate::search::{unproven, DECISIVE_BOUND, MATE};
use crate::time::{mcts_budget, Deadline};
use crate::{Limits, SearchResult};

/// Settings of the Monte-Carlo search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MctsConfig {
    /// UCT exploration constant `c` in `q + c * sqrt(ln N / n)` (rewards are in 0..1).
    pub exploration: f64,
    /// Random turns played from a new leaf before it is evaluated; 0 (the default, which
    /// measured best) evaluates the leaf itself.
    pub playout_turns: u32,
    /// Evaluation (hundredths of a stone) that maps to a win probability of 1/(1+e^-1)
    /// ≈ 73%: a leaf evaluated `e` scores `1 / (1 + exp(-e / eval_scale))`.
    pub eval_scale: f64,
    /// Virtual visits a new child starts with, valued by its evaluation (0: none, the
    /// children are then tried in the generator's order).
    pub prior_visits: u32,
    /// Weight `a` of the implicit minimax value in the selection: a child is valued
    /// `(1 - a) * q + a * m`, where `m` is the minimax of the squashed evaluations of the
    /// tree's leaves below it (Lanctot et al., 2014). 0 is plain UCT.
    pub minimax_weight: f64,
}

impl Default for MctsConfig {
    fn default() -> MctsConfig {
        MctsConfig { exploration: 0.7, playout_turns: 0, eval_scale: 400.0, prior_visits: 1, minimax_weight: 0.5 }
    }
}

/// Most nodes kept in the tree (about 400 bytes each: ~100 MB). The arena is reserved
/// once and kept between searches, so that it never grows by copying (a copy of tens of
/// megabytes overran the time budget by 20-40 ms); past it leaves are only evaluated.
const MAX_NODES: usize = 1 << 18;

/// One tree node: a position reached by a turn.
struct Node {
    pos: Position,
    /// The turn leading here (root children only: building tokens allocates).
    token: Option<Token>,
    /// First child in the arena; children are contiguous.
    first: u32,
    /// Number of children; valid once `expanded`.
    len: u32,
    expanded: bool,
    /// Visits, virtual ones included.
    visits: f64,
    /// Sum of rewards for the side that played the turn leading here.
    wins: f64,
    /// Implicit minimax value for the side that played the turn leading here: the
    /// squashed evaluation at a leaf, the minimax of the children's once expanded.
    mm: f64,
    /// Proven result for the side that played the turn leading here: +1 won, -1 lost,
    /// 0 unknown; `plies` to the end of the game when proven.
    proven: i8,
    plies: u16,
    /// Nsolo repetition: this position repeats one since the last capture (a draw).
    draw: bool,
}

impl Node {
    fn new(pos: Position, token: Option<Token>) -> Node {
        Node {
            pos,
            token,
            first: 0,
            len: 0,
            expanded: false,
            visits: 0.0,
            wins: 0.0,
            mm: 0.5,
            proven: 0,
            plies: 0,
            draw: false,
        }
    }
    fn q(&self) -> f64 {
        if self.visits > 0.0 {
            self.wins / self.visits
        } else {
            0.5
        }
    }
}

/// A Monte-Carlo tree searcher with its own random generator (reproducible from a seed:
/// with a node limit and no time limit, the same seed gives the same answer).
pub struct Mcts {
    rng: SmallRng,
    config: MctsConfig,
    weights: Option<Weights>,
    /// The tree's arena, kept between searches (see [`MAX_NODES`]).
    arena: Vec<Node>,
}

impl Mcts {
    /// A new searcher with the default settings, seeded with `seed`.
    pub fn new(seed: u64) -> Mcts {
        Mcts::with_config(seed, MctsConfig::default())
    }

    /// A new searcher with `config`, seeded with `seed`.
    pub fn with_config(seed: u64, config: MctsConfig) -> Mcts {
        Mcts { rng: SmallRng::seed_from_u64(seed), config, weights: None, arena: Vec::new() }
    }

    /// The settings.
    pub fn config(&self) -> MctsConfig {
        self.config
    }

    /// Searches `pos` within `limits`: `time` bounds the wall clock, `nodes` the number of
    /// iterations (one leaf evaluated each), `depth` is ignored; all `None` means one
    /// second. `stop` set from another thread ends the search early. `None` if the side
    /// to move has no legal turn.
    ///
    /// The result's `score` is the best turn's win rate `q` in the evaluation's scale,
    /// `eval_scale * ln(q / (1 - q))` (so 0 is even), or `±(DECISIVE - plies)` when the
    /// tree found a forced result (not a proof: the tree weighs a bonus's candidates only
    /// and does not look for the fastest win), `MATE - 1` for a win in one turn; `depth` is the length of the principal variation (the most
    /// visited line) and `nodes` the number of iterations.
    pub fn search(&mut self, pos: &Position, limits: Limits, stop: &AtomicBool) -> Option<SearchResult> {
        self.search_with(pos, limits, stop, &[])
    }

    /// As [`Mcts::search`], with `history`: the game's positions before `pos`, oldest
    /// first, so that Nsolo repetitions count as draws.
    pub fn search_with(
        &mut self,
        pos: &Position,
        limits: Limits,
        stop: &AtomicBool,
        history: &[Position],
    ) -> Option<SearchResult> {
        let clock = Deadline::starting_now(mcts_budget(limits));
        let weights = self.weights.unwrap_or_else(|| Weights::for_kind(pos.ruleset().kind()));
        let nsolo = pos.ruleset().kind() == GameKind::Nsolo;
        let total = pos.total_stones();
        // Positions since the last capture (equal stone totals), for repetitions.
        let mut path: Vec<(u64, u32)> = Vec::new();
        if nsolo {
            for p in history.iter().rev().take_while(|p| p.total_stones() == total) {
                path.push((p.hash(), total));
            }
            path.reverse();
        }
        let base = path.len();
        let mut nodes = std::mem::take(&mut self.arena);
        nodes.clear();
        nodes.reserve_exact(MAX_NODES);
        nodes.push(Node::new(pos.clone(), None));
        let mut tree = Tree { nodes, buf: Vec::new(), config: self.config, weights, nsolo, clock };
        tree.expand(0, true);
        let root_len = tree.nodes[0].len;
        if root_len == 0 {
            self.arena = tree.nodes;
            return None;
        }
        let mut iterations: u64 = 0;
        if root_len > 1 {
            let mut line: Vec<u32> = Vec::new();
            loop {
                if tree.nodes[0].proven != 0 {
                    break;
                }
                if let Some(n) = limits.nodes {
                    if iterations >= n {
                        break;
                    }
                }
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                if clock.passed() {
                    break;
                }
                path.truncate(base);
                path.push((pos.hash(), total));
                tree.iterate(&mut line, &mut path, &mut self.rng);
                iterations += 1;
            }
        }
        let result = tree.result(iterations.max(1), clock.started());
        self.arena = tree.nodes;
        Some(result)
    }
}

struct Tree {
    nodes: Vec<Node>,
    buf: Vec<Child>,
    config: MctsConfig,
    weights: Weights,
    nsolo: bool,
    clock: Deadline,
}

impl Tree {
    fn squash(&self, eval: i32) -> f64 {
        1.0 / (1.0 + (-(eval as f64) / self.config.eval_scale).exp())
    }

    /// Lists the children of node `i` into the arena, unless it is full. A node without
    /// children is a lost position for its side to move: proven won for the side that
    /// moved into it.
    fn expand(&mut self, i: usize, tokens: bool) {
        let mut buf = std::mem::take(&mut self.buf);
        children(&self.nodes[i].pos, tokens, &mut buf);
        // Never past the reserved capacity: growing would copy the whole arena. The root
        // always fits: the arena is empty then.
        if i > 0 && self.nodes.len() + buf.len() > self.nodes.capacity() {
            self.buf = buf;
            return;
        }
        let first = self.nodes.len() as u32;
        let prior = self.config.prior_visits as f64;
        let minimax = self.config.minimax_weight > 0.0;
        for c in buf.drain(..) {
            let mut node = Node::new(c.pos, c.token);
            if prior > 0.0 || minimax {
                // The child's evaluation is for its side to move: the mover's opponent.
                let q = 1.0 - self.squash(evaluate(&node.pos, &self.weights));
                node.mm = q;
                node.visits = prior;
                node.wins = prior * q;
            }
            self.nodes.push(node);
        }
        self.buf = buf;
        let len = self.nodes.len() as u32 - first;
        let node = &mut self.nodes[i];
        node.first = first;
        node.len = len;
        node.expanded = true;
        if node.len == 0 {
            node.proven = 1;
            node.plies = 1;
        }
        self.update_mm(i);
    }

    /// Node `i`'s implicit minimax value from its children's (or its proof, or a draw).
    fn update_mm(&mut self, i: usize) {
        let node = &self.nodes[i];
        let mm = if node.draw {
            0.5
        } else if node.proven != 0 {
            (node.proven > 0) as u8 as f64
        } else if node.expanded {
            let (first, len) = (node.first as usize, node.len as usize);
            1.0 - self.nodes[first..first + len].iter().map(|c| c.mm).fold(0.0, f64::max)
        } else {
            return;
        };
        self.nodes[i].mm = mm;
    }

    /// The child of `i` to descend into: a proven win at once, else the best UCT value
    /// among the children not proven lost (all lost: any).
    fn select(&self, i: usize) -> usize {
        let node = &self.nodes[i];
        let (first, len) = (node.first as usize, node.len as usize);
        let log_n = node.visits.max(1.0).ln();
        let c = self.config.exploration;
        let a = self.config.minimax_weight;
        let mut best = first;
        let mut best_v = f64::NEG_INFINITY;
        for j in first..first + len {
            let ch = &self.nodes[j];
            let v = match ch.proven {
                1 => return j,
                -1 => -1e9,
                _ if ch.visits == 0.0 => 1e9,
                _ => (1.0 - a) * ch.q() + a * ch.mm + c * (log_n / ch.visits).sqrt(),
            };
            if v > best_v {
                best_v = v;
                best = j;
            }
        }
        best
    }

    /// One iteration: select, expand, evaluate, back up.
    fn iterate(&mut self, line: &mut Vec<u32>, path: &mut Vec<(u64, u32)>, rng: &mut SmallRng) {
        line.clear();
        let mut i = 0usize;
        line.push(0);
        // Descend to a node not yet expanded (or a finished one).
        while self.nodes[i].expanded && self.nodes[i].len > 0 && self.nodes[i].proven == 0 && !self.nodes[i].draw {
            i = self.select(i);
            line.push(i as u32);
            let node = &self.nodes[i];
            if self.nsolo && !node.expanded && !node.draw {
                let (h, s) = (node.pos.hash(), node.pos.total_stones());
                if path.iter().rev().take_while(|e| e.1 == s).any(|e| e.0 == h) {
                    self.nodes[i].draw = true;
                }
            }
            let node = &self.nodes[i];
            path.push((node.pos.hash(), node.pos.total_stones()));
        }
        // Reward for the side that moved into node `i`.
        let reward = if self.nodes[i].draw {
            0.5
        } else if self.nodes[i].proven != 0 {
            (self.nodes[i].proven > 0) as u8 as f64
        } else {
            self.expand(i, false);
            if self.nodes[i].proven != 0 {
                1.0
            } else {
                1.0 - self.rollout(&self.nodes[i].pos, rng)
            }
        };
        // Back up, flipping the point of view at every level, and propagate proofs.
        let mut r = reward;
        for k in (0..line.len()).rev() {
            let j = line[k] as usize;
            let node = &mut self.nodes[j];
            node.visits += 1.0;
            node.wins += r;
            r = 1.0 - r;
            if k + 1 < line.len() {
                self.prove(j);
                if self.config.minimax_weight > 0.0 {
                    self.update_mm(j);
                }
            } else if self.nodes[j].draw || self.nodes[j].proven != 0 {
                self.update_mm(j);
            }
        }
    }

    /// Marks node `i` proven if its children decide it.
    fn prove(&mut self, i: usize) {
        let node = &self.nodes[i];
        if node.proven != 0 || !node.expanded || node.len == 0 {
            return;
        }
        let (first, len) = (node.first as usize, node.len as usize);
        let kids = &self.nodes[first..first + len];
        // A child won for the mover here: this node is lost for whoever moved into it.
        if let Some(p) = kids.iter().filter(|c| c.proven == 1).map(|c| c.plies).min() {
            self.nodes[i].proven = -1;
            self.nodes[i].plies = p.saturating_add(1);
        } else if kids.iter().all(|c| c.proven == -1) {
            let p = kids.iter().map(|c| c.plies).max().unwrap_or(0);
            self.nodes[i].proven = 1;
            self.nodes[i].plies = p.saturating_add(1);
        }
    }

    /// Win probability for the side to move in `pos`: a few random turns, then the
    /// evaluation squashed (cut short at the deadline: a long playout must not overrun it).
    fn rollout(&self, pos: &Position, rng: &mut SmallRng) -> f64 {
        let me = pos.side_to_move();
        let mut p = pos.clone();
        for _ in 0..self.config.playout_turns {
            if self.clock.passed() {
                break;
            }
            let mut t = p.begin_turn();
            if !t.apply_random(rng) {
                return if p.side_to_move() == me { 0.0 } else { 1.0 };
            }
            while !t.is_complete() {
                t.apply_random(rng);
            }
            p = t.into_position().expect("complete");
        }
        let q = self.squash(evaluate(&p, &self.weights));
        if p.side_to_move() == me {
            q
        } else {
            1.0 - q
        }
    }

    /// The best root child: a proven win, else the most visited of those not proven lost
    /// (ties: higher win rate).
    fn best_child(&self, i: usize) -> usize {
        let node = &self.nodes[i];
        let (first, len) = (node.first as usize, node.len as usize);
        if let Some(j) =
            (first..first + len).filter(|&j| self.nodes[j].proven == 1).min_by_key(|&j| self.nodes[j].plies)
        {
            return j;
        }
        let key = |j: usize| {
            let c = &self.nodes[j];
            (c.proven != -1, c.visits, c.q())
        };
        (first..first + len)
            .max_by(|&a, &b| key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal))
            .expect("a node with children")
    }

    fn result(&self, iterations: u64, started: Instant) -> SearchResult {
        let best = self.best_child(0);
        let b = &self.nodes[best];
        // The tree weighs a bonus's candidates only (`gen.rs`) and does not look for the
        // fastest win, so what it proves is reported as unproven, except a win in one turn
        // (the turn exists, and nothing ends the game sooner).
        let score = match b.proven {
            1 if b.plies == 1 => MATE - 1,
            1 => unproven(MATE - b.plies as i32),
            -1 => unproven(-(MATE - b.plies as i32)),
            _ => {
                let q = b.q().clamp(1e-6, 1.0 - 1e-6);
                let s = self.config.eval_scale * (q / (1.0 - q)).ln();
                (s.round() as i32).clamp(-DECISIVE_BOUND, DECISIVE_BOUND)
            }
        };
        let token = b.token.clone().expect("root children have tokens");
        // The principal variation: the most visited line. Inner nodes keep no tokens:
        // listing their children again with tokens finds them.
        let mut pv = vec![token.clone()];
        let mut i = best;
        let mut kids = Vec::new();
        while self.nodes[i].expanded && self.nodes[i].len > 0 && self.nodes[i].visits >= 2.0 && pv.len() < 64 {
            let j = self.best_child(i);
            children(&self.nodes[i].pos, true, &mut kids);
            let Some(c) = kids.iter().find(|c| c.pos == self.nodes[j].pos) else { break };
            pv.push(c.token.clone().expect("tokens asked for"));
            i = j;
        }
        SearchResult { best: token, score, depth: pv.len() as u32, pv, nodes: iterations, elapsed: started.elapsed() }
    }
}
