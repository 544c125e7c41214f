//! [`solve_pns`]: both sides tried as attacker with budgets doubling, a win read back as
//! a checked proof and its distance made exact.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use matombo_core::{Position, Side, Token};

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
    /// 2 or more: the two attackers searched at once, each on a thread with half the
    /// table; 1: in turn on one table.
    pub threads: usize,
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
    /// Seconds from the start to the proof read back and checked (before the exact
    /// distance), or to the draw or the end of the budget.
    pub proof_seconds: f64,
}

/// What the searches of both attackers ended with.
struct Found<'a> {
    /// The attacker proved to win, with its search (the table to read the proof from).
    winner: Option<(Side, Pns<'a>)>,
    /// Each attacker's answer: the side to move, then the other.
    ans: [Answer; 2],
    stats: PnsStats,
}

/// Solves `pos` by df-pn: each side as attacker, with budgets doubling (in turn, or with
/// `limits.threads` ≥ 2 each on a thread of its own with half the table), until one is
/// proved to win, both are disproved (a draw), or the budget runs out. A win is then read
/// back as a [`crate::Proof`] and checked with [`crate::Proof::verify`]; its distance is
/// made exact by the depth-first [`crate::Solver`] bounded by the proof's. `progress(nodes,
/// mover, other)` is called between rounds.
pub fn solve_pns(
    pos: &Position,
    tables: Option<&Tables>,
    limits: PnsLimits,
    stop: &AtomicBool,
    progress: &mut (dyn FnMut(u64, Answer, Answer) + Send),
) -> Result<(PnsSolution, PnsStats), ProofError> {
    // The searches recurse once per turn of a line: a big stack of their own.
    let started = std::time::Instant::now();
    on_big_stack(|| {
        let tables = tables.filter(|t| t.ruleset() == pos.ruleset());
        let me = pos.side_to_move();
        // What the searches watch: the caller's `stop`, copied in by a watcher, or the
        // other attacker's proof (then cleared again for the read-back).
        let halt = AtomicBool::new(false);
        let watching = AtomicBool::new(true);
        std::thread::scope(|s| {
            s.spawn(|| {
                while watching.load(Ordering::Relaxed) {
                    if stop.load(Ordering::Relaxed) {
                        halt.store(true, Ordering::Relaxed);
                    }
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
            });
            let found = if limits.threads >= 2 {
                both_at_once(pos, tables, limits, &halt, progress)
            } else {
                in_turn(pos, tables, limits, &halt, progress)
            };
            halt.store(stop.load(Ordering::Relaxed), Ordering::Relaxed);
            let out = finish(pos, tables, limits, &halt, me, found, started);
            watching.store(false, Ordering::Relaxed);
            out
        })
    })
}

/// Both attackers on one table, in turn, budgets doubling.
fn in_turn<'a>(
    pos: &Position,
    tables: Option<&'a Tables>,
    limits: PnsLimits,
    halt: &'a AtomicBool,
    progress: &mut (dyn FnMut(u64, Answer, Answer) + Send),
) -> Found<'a> {
    let mut pns = Pns::new(tables, limits.memory, 0, halt);
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
        if pns.nodes() >= limits.nodes || halt.load(Ordering::Relaxed) {
            break None;
        }
        step = step.saturating_mul(2);
    };
    let stats = search_stats(&[&pns]);
    Found { winner: winner.map(|a| (a, pns)), ans, stats }
}

/// Each attacker on a thread and a table (half the memory) of its own, budgets doubling,
/// the node budget shared; the first proof stops the other search.
fn both_at_once<'a>(
    pos: &Position,
    tables: Option<&'a Tables>,
    limits: PnsLimits,
    halt: &'a AtomicBool,
    progress: &mut (dyn FnMut(u64, Answer, Answer) + Send),
) -> Found<'a> {
    let me = pos.side_to_move();
    let spent = AtomicU64::new(0);
    let shared = Mutex::new((progress, [Answer::Open { pn: 1, dn: 1 }; 2]));
    let run = |i: usize, attacker: Side| {
        let mut pns = Pns::new(tables, limits.memory / 2, 0, halt);
        let mut step = 20_000u64;
        let mut ans = Answer::Open { pn: 1, dn: 1 };
        loop {
            let left = limits.nodes.saturating_sub(spent.load(Ordering::Relaxed));
            if left == 0 || halt.load(Ordering::Relaxed) {
                break;
            }
            let before = pns.nodes();
            pns.set_node_limit(before + step.min(left));
            ans = pns.prove(pos, attacker);
            let total = spent.fetch_add(pns.nodes() - before, Ordering::Relaxed) + pns.nodes() - before;
            {
                let mut g = shared.lock().unwrap_or_else(|e| e.into_inner());
                g.1[i] = ans;
                let [a, b] = g.1;
                (g.0)(total, a, b);
            }
            match ans {
                Answer::Proved(_) => {
                    halt.store(true, Ordering::Relaxed);
                    break;
                }
                Answer::Disproved => break,
                Answer::Open { .. } => step = step.saturating_mul(2),
            }
        }
        (ans, pns)
    };
    let ((a0, p0), (a1, p1)) = std::thread::scope(|s| {
        let other = std::thread::Builder::new()
            .name("pns-other".into())
            .stack_size(512 << 20)
            .spawn_scoped(s, || run(1, me.opponent()))
            .expect("a thread for the search");
        let mine = run(0, me);
        (mine, other.join().expect("the search does not panic"))
    });
    let stats = search_stats(&[&p0, &p1]);
    let winner = match (a0, a1) {
        (Answer::Proved(_), _) => Some((me, p0)),
        (_, Answer::Proved(_)) => Some((me.opponent(), p1)),
        _ => None,
    };
    Found { winner, ans: [a0, a1], stats }
}

/// The figures of the searches that ran (one table, or one per attacker), summed.
fn search_stats(searches: &[&Pns<'_>]) -> PnsStats {
    searches.iter().fold(PnsStats::default(), |s, p| PnsStats {
        nodes: s.nodes + p.nodes(),
        memory: s.memory + p.memory(),
        used: s.used + p.used(),
        replaced: s.replaced + p.replaced(),
        ..s
    })
}

/// A win read back, checked and its distance made exact; else the draw or how far it got.
fn finish(
    pos: &Position,
    tables: Option<&Tables>,
    limits: PnsLimits,
    stop: &AtomicBool,
    me: Side,
    found: Found<'_>,
    started: std::time::Instant,
) -> Result<(PnsSolution, PnsStats), ProofError> {
    let Found { winner, ans, mut stats } = found;
    stats.proof_seconds = started.elapsed().as_secs_f64();
    let Some((attacker, mut pns)) = winner else {
        let sol = if ans.iter().all(|a| *a == Answer::Disproved) {
            PnsSolution::Draw
        } else {
            PnsSolution::Open { mover: ans[0], other: ans[1] }
        };
        return Ok((sol, stats));
    };
    // Read the proof back (re-proving what the table lost, with as many nodes again
    // at most) and check it independently.
    let (searched, replaced) = (pns.nodes(), pns.replaced());
    pns.set_node_limit(pns.nodes().saturating_add(limits.nodes));
    let proof = pns.proof(pos, attacker).ok_or_else(|| ProofError::NotReadBack(pos.to_string()))?;
    let upper = proof.verify(tables)?;
    stats.proof_positions = proof.moves.len();
    stats.nodes += pns.nodes() - searched;
    stats.replaced += pns.replaced() - replaced;
    stats.proof_seconds = started.elapsed().as_secs_f64();
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
