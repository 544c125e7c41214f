//! [`solve_pns`]: both sides tried as attacker with budgets doubling, a win read back as
//! a checked proof and its distance made exact.

use std::sync::atomic::{AtomicBool, Ordering};

use matombo_core::{Position, Token};

use super::{Answer, Pns, ProofError};
use crate::{Tables, Value};

/// The budget and table size of [`solve_pns`].
#[derive(Clone, Copy, Debug)]
pub struct PnsLimits {
    /// Expansions of the proof-number search, both attackers together; reading a proof
    /// back may spend as many again re-proving what the table lost.
    pub nodes: u64,
    /// Bytes of its transposition table.
    pub memory: usize,
    /// Nodes of the depth-first search that makes a proved distance exact.
    pub exact_nodes: u64,
}

/// What [`solve_pns`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PnsSolution {
    /// A forced result, proved (and the proof checked by [`crate::Proof::verify`]).
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
    /// Slots taken over from another position (search and read-back).
    pub replaced: u64,
    /// Positions in the proof checked.
    pub proof_positions: usize,
}

/// Solves `pos` by df-pn: each side in turn as attacker, with budgets doubling, until one
/// is proved to win, both are disproved (a draw), or the budget runs out. A win is then
/// read back as a [`crate::Proof`] and checked with [`crate::Proof::verify`]; its distance is made exact
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
    on_big_stack(|| {
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
        let mut stats = PnsStats {
            nodes: pns.nodes(),
            memory: pns.memory(),
            used: pns.used(),
            replaced: pns.replaced(),
            ..PnsStats::default()
        };
        let Some(attacker) = winner else {
            let sol = if ans.iter().all(|a| *a == Answer::Disproved) {
                PnsSolution::Draw
            } else {
                PnsSolution::Open { mover: ans[0], other: ans[1] }
            };
            return Ok((sol, stats));
        };
        // Read the proof back (re-proving what the table lost, with as many nodes again
        // at most) and check it independently.
        pns.set_node_limit(pns.nodes().saturating_add(limits.nodes));
        let proof = pns.proof(pos, attacker).ok_or_else(|| ProofError::NotReadBack(pos.to_string()))?;
        let upper = proof.verify(tables)?;
        stats.proof_positions = proof.moves.len();
        stats.nodes = pns.nodes();
        stats.replaced = pns.replaced();
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
    })
}

/// Runs `f` on a thread of its own with a 512 MiB stack, and returns what it returns.
fn on_big_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("pns".into())
            .stack_size(512 << 20)
            .spawn_scoped(s, f)
            .expect("a thread for the search")
            .join()
            .expect("the search does not panic")
    })
}
