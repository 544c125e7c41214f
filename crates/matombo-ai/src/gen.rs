//! Children of a position for the search: whole turns built decision by decision, with
//! the bonus handled by a small set of policies instead of every possible pick set.
//!
//! Why: an Nsolo capture of k stones on 4x36 has more bonus multisets than can be
//! listed, and a Tsoro bonus of K = 2 on 4x21 already multiplies each capture by ~900.
//! Start holes and head choices (continue/stop) are searched in full; at a bonus the
//! search chooses among the distinct results of a few policies (see [`BonusPolicy`]).

use matombo_core::{Decision, GameKind, Hole, Phase, Position, Token, Turn};

/// One child of a position: the position after a whole turn.
#[derive(Clone)]
pub(crate) struct Child {
    pub pos: Position,
    /// Stones captured by the turn (capture and bonus).
    pub captured: u32,
    /// The turn's token (only when asked for: building it allocates).
    pub token: Option<Token>,
}

/// Canonical index (outer row 1..N, then inner row 1..N) to track index.
#[inline]
pub(crate) fn canonical_track(i: usize, n: usize) -> usize {
    if i < n {
        i
    } else {
        3 * n - 1 - i
    }
}

/// Lists the children of `pos` into `out` (cleared first), in a fixed order.
pub(crate) fn children(pos: &Position, want_tokens: bool, out: &mut Vec<Child>) {
    out.clear();
    let turn = pos.begin_turn();
    expand(turn, want_tokens, out);
}

fn expand(turn: Turn, want_tokens: bool, out: &mut Vec<Child>) {
    match turn.phase() {
        Phase::Complete => {
            let token = if want_tokens { turn.token() } else { None };
            let captured = turn.captured();
            out.push(Child { pos: turn.into_position().expect("complete"), captured, token });
        }
        Phase::Start | Phase::Head(_) => {
            let ds = turn.decisions();
            let last = ds.len().saturating_sub(1);
            let mut turn = Some(turn);
            for (i, d) in ds.into_iter().enumerate() {
                let mut t = if i == last { turn.take().expect("kept for the last") } else { turn.clone().unwrap() };
                t.apply(d).expect("listed decisions are legal");
                expand(t, want_tokens, out);
            }
        }
        Phase::Bonus { left } => {
            let before = out.len();
            for picks in bonus_candidates(&turn, left) {
                let mut t = turn.clone();
                for d in picks {
                    t.apply(d).expect("picks in canonical order are legal");
                }
                if !t.is_complete() {
                    t.apply(Decision::Done).expect("a Tsoro bonus may end early");
                }
                // Different policies can reach the same position: keep it once.
                let pos = t.position();
                if out[before..].iter().any(|c| c.pos.hash() == pos.hash() && c.pos == *pos) {
                    continue;
                }
                expand(t, want_tokens, out);
            }
        }
    }
}

/// How the search removes bonus stones (Nsolo), or picks bonus holes (Tsoro).
///
/// Nsolo: each policy is a greedy rule for one stone at a time; the search tries all of
/// them and keeps the distinct results. Tsoro: every set of `min(K, holes)` holes among
/// the `K + 2` fullest opponent holes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BonusPolicy {
    /// Take from the fullest hole: breaks stockpiles.
    Largest,
    /// Turn the opponent's 2-stone holes into singles first, then the fullest: removes
    /// his starts (mobility), which decides the endgame.
    Mobility,
    /// Empty the smallest holes first.
    Smallest,
}

/// The Nsolo bonus policies the search tries.
pub(crate) const NSOLO_POLICIES: [BonusPolicy; 3] =
    [BonusPolicy::Mobility, BonusPolicy::Largest, BonusPolicy::Smallest];

/// Candidate bonus pick sequences, each in canonical order.
fn bonus_candidates(turn: &Turn, left: u16) -> Vec<Vec<Decision>> {
    let pos = turn.position();
    let n = pos.ruleset().size();
    let opp = turn.mover().opponent();
    let track = pos.track(opp);
    // Counts in canonical order.
    let counts: Vec<u16> = (0..2 * n).map(|i| track[canonical_track(i, n)]).collect();
    let hole = |i: usize| Hole::from_track(opp, canonical_track(i, n), n);
    match pos.ruleset().kind() {
        GameKind::Tsoro => {
            let mut idx: Vec<usize> = (0..2 * n).filter(|&i| counts[i] > 0).collect();
            idx.sort_by_key(|&i| (std::cmp::Reverse(counts[i]), i));
            let k = (left as usize).min(idx.len());
            idx.truncate(k + 2);
            let mut out = Vec::new();
            combinations(&idx, k, &mut Vec::new(), 0, &mut |set| {
                let mut set = set.to_vec();
                set.sort_unstable();
                out.push(set.into_iter().map(|i| Decision::Take(hole(i))).collect());
            });
            out
        }
        GameKind::Nsolo => NSOLO_POLICIES
            .iter()
            .map(|&p| {
                let takes = nsolo_bonus(&counts, left as u32, p);
                let mut ds = Vec::with_capacity(left as usize);
                for (i, &t) in takes.iter().enumerate() {
                    for _ in 0..t {
                        ds.push(Decision::Take(hole(i)));
                    }
                }
                ds
            })
            .collect(),
    }
}

fn combinations(items: &[usize], k: usize, cur: &mut Vec<usize>, from: usize, f: &mut impl FnMut(&[usize])) {
    if cur.len() == k {
        f(cur);
        return;
    }
    for i in from..items.len() {
        cur.push(items[i]);
        combinations(items, k, cur, i + 1, f);
        cur.pop();
    }
}

/// Stones to take per canonical hole under a policy; sums to `min(left, stones)`.
pub(crate) fn nsolo_bonus(counts: &[u16], left: u32, policy: BonusPolicy) -> Vec<u16> {
    let mut c = counts.to_vec();
    let mut takes = vec![0u16; counts.len()];
    let total: u32 = counts.iter().map(|&x| x as u32).sum();
    for _ in 0..left.min(total) {
        let pick = match policy {
            BonusPolicy::Largest => (0..c.len()).filter(|&i| c[i] > 0).max_by_key(|&i| (c[i], std::cmp::Reverse(i))),
            BonusPolicy::Smallest => (0..c.len()).filter(|&i| c[i] > 0).min_by_key(|&i| (c[i], i)),
            BonusPolicy::Mobility => (0..c.len())
                .find(|&i| c[i] == 2)
                .or_else(|| (0..c.len()).filter(|&i| c[i] > 0).max_by_key(|&i| (c[i], std::cmp::Reverse(i)))),
        };
        let i = pick.expect("stones remain");
        c[i] -= 1;
        takes[i] += 1;
    }
    takes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nsolo_policies_take_exactly_left() {
        let counts = [2u16, 0, 5, 1, 2, 3];
        for p in NSOLO_POLICIES {
            for left in 0..15 {
                let t = nsolo_bonus(&counts, left, p);
                let sum: u32 = t.iter().map(|&x| x as u32).sum();
                assert_eq!(sum, left.min(13), "{p:?} {left}");
                assert!(t.iter().zip(&counts).all(|(a, b)| a <= b));
            }
        }
        assert_eq!(nsolo_bonus(&counts, 2, BonusPolicy::Mobility), vec![1, 0, 0, 0, 1, 0]);
        assert_eq!(nsolo_bonus(&counts, 2, BonusPolicy::Largest), vec![0, 0, 2, 0, 0, 0]);
        assert_eq!(nsolo_bonus(&counts, 2, BonusPolicy::Smallest), vec![1, 0, 0, 1, 0, 0]);
    }

    #[test]
    fn children_are_legal_turns() {
        for name in ["tsoro:8", "tsoro:8,heads=1,bonus=3", "nsolo:8"] {
            let mut pos = Position::start(name.parse().unwrap());
            let mut out = Vec::new();
            for _ in 0..30 {
                children(&pos, true, &mut out);
                if out.is_empty() {
                    break;
                }
                for c in &out {
                    let tok = c.token.as_ref().unwrap();
                    assert_eq!(pos.play(tok).unwrap(), c.pos, "{pos} {tok}");
                }
                // Prefer a capturing child to reach bonus phases.
                let next = out.iter().max_by_key(|c| c.captured).unwrap();
                pos = next.pos.clone();
            }
        }
    }
}
