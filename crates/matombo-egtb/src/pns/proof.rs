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
    /// The proof of the last [`Pns::prove`] that answered [`Answer::Proved`](super::Answer::Proved) for
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
