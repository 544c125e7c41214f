//! A proof read back from the search's table, and its check by the rules alone.

use std::collections::{HashMap, HashSet};

use matombo_core::{Position, Side, Token};

use super::{Pns, INF};
use crate::{Tables, Value};

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
    /// The search proved a win, but its proof could not be read back from the table
    /// within the node budget.
    #[error("the win found at {0} could not be read back within the node budget")]
    NotReadBack(String),
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

/// How often the read-back proves one node again before giving it up on this line.
const RETRIES: usize = 16;

/// The state of a read-back: the proof so far and the line being read.
struct ReadBack {
    moves: HashMap<u64, Token>,
    /// Positions whose proof is complete in `moves` (it avoids every position it
    /// reaches from them, so it holds under any line that leads to them).
    done: HashSet<u64>,
    /// The positions from the root down to the one being read: its history.
    line: HashSet<u64>,
}

impl Pns<'_> {
    /// The proof of the last [`Pns::prove`] that answered [`Answer::Proved`](super::Answer::Proved) for
    /// `attacker` from `root`, read from the transposition table. A node whose slot was
    /// replaced, or whose proof there leads back onto the line being read (proofs re-made
    /// after a replacement may lean on each other), is proved again by df-pn from that
    /// node with the line as its history, so that a proof through the line is refused.
    /// `None` if the node budget ([`Pns::set_node_limit`]) ran out doing so.
    pub fn proof(&mut self, root: &Position, attacker: Side) -> Option<Proof> {
        self.attacker = attacker;
        self.aborted = false;
        self.path.clear();
        self.depth = 0;
        let mut rb = ReadBack { moves: HashMap::new(), done: HashSet::new(), line: HashSet::new() };
        self.extract(root, &mut rb).then(|| Proof { root: root.clone(), attacker, moves: rb.moves })
    }

    /// Whether `pos` (not on the line) is read back into a complete proof.
    fn extract(&mut self, pos: &Position, rb: &mut ReadBack) -> bool {
        let h = pos.hash();
        if rb.done.contains(&h) {
            return true;
        }
        if let Some(r) = self.table(pos) {
            return r.pn == 0;
        }
        if !rb.line.insert(h) {
            return false;
        }
        let key = self.key(pos);
        // Proved: by the table, or by the last search of it (then with the child that
        // proved it, which the table may have lost already).
        let (mut proved, disproved) = match self.get(key) {
            Some(e) if e.pn == 0 => (Some(0), false),
            Some(e) => (None, e.dn == 0),
            None => (None, false),
        };
        let mut ok = false;
        for _ in 0..RETRIES {
            if let Some(hint) = proved {
                ok = self.extract_children(pos, hint, rb);
                if ok {
                    break;
                }
            }
            if disproved || self.aborted {
                break;
            }
            // Not proved in the table, or its proof there failed to read back (each
            // failure forgets the child that failed): prove it again from here, the line
            // above it as history.
            self.erase(key);
            self.path = rb.line.iter().copied().filter(|&x| x != h).collect();
            self.depth = self.path.len();
            self.win_child = 0;
            let r = self.mid(pos, INF, INF);
            self.path.clear();
            self.depth = 0;
            if r.pn != 0 {
                break;
            }
            proved = Some(self.win_child);
        }
        rb.line.remove(&h);
        if ok {
            rb.done.insert(h);
        }
        ok
    }

    /// Reads back the children of the proved `pos`: one for the attacker (`hint`, the hash
    /// of the child that proved it last, first), all for the defender.
    fn extract_children(&mut self, pos: &Position, hint: u64, rb: &mut ReadBack) -> bool {
        if pos.side_to_move() == self.attacker {
            // The proved children off the line, the hint and then the nearest win first.
            let mut cands: Vec<(u32, Token, Position)> = pos
                .turns()
                .filter(|(_, c)| !rb.line.contains(&c.hash()))
                .filter_map(|(t, c)| {
                    let d = if c.hash() == hint {
                        Some(0)
                    } else {
                        self.look(&c).filter(|r| r.pn == 0).map(|r| r.dist + 1)
                    };
                    d.map(|d| (d, t, c))
                })
                .collect();
            cands.sort_by_key(|c| c.0);
            for (_, t, c) in cands {
                if self.extract(&c, rb) {
                    rb.moves.insert(pos.hash(), t);
                    return true;
                }
            }
            false
        } else {
            let mut kids = Vec::new();
            pos.for_each_child(&mut |c| kids.push(c.clone()));
            kids.iter().all(|c| !rb.line.contains(&c.hash()) && self.extract(c, rb))
        }
    }
}
