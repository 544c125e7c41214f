//! Children of a position for the search: whole turns, with the bonus handled by a small
//! set of policies instead of every possible pick set. Inside the tree the core sows each
//! turn once ([`Position::for_each_sown`]); at the root, where tokens are needed, the same
//! children come from the checked decision-by-decision interface, in the same order.
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

/// Lists the children of `pos` into `out` (cleared first), in a fixed order: the same
/// with or without tokens, so that an index found by the search names the same child
/// at the root, where tokens are needed.
pub(crate) fn children(pos: &Position, want_tokens: bool, out: &mut Vec<Child>) {
    children_with(pos, want_tokens, out, &mut Bonuses::default());
}

/// Like [`children`], and whether the list holds every legal turn (`false` when a bonus
/// was cut to the policies' candidates).
pub(crate) fn children_complete(pos: &Position, want_tokens: bool, out: &mut Vec<Child>) -> bool {
    let mut scratch = Bonuses::default();
    children_with(pos, want_tokens, out, &mut scratch);
    !scratch.cut
}

/// [`children`] with scratch space kept by the caller (the search's inner loop).
pub(crate) fn children_with(pos: &Position, want_tokens: bool, out: &mut Vec<Child>, scratch: &mut Bonuses) {
    scratch.cut = false;
    if want_tokens {
        out.clear();
        scratch.cut = !expand(pos.begin_turn(), out, &mut scratch.cands);
    } else {
        sown_children(pos, out, scratch);
    }
}

/// The search's inner loop: each turn is sown once by the core, and only the bonus is
/// chosen here. The slots of `out` are overwritten in place (`clone_from` copies only the
/// holes in use), then the list is cut to length.
fn sown_children(pos: &Position, out: &mut Vec<Child>, scratch: &mut Bonuses) {
    let mut len = 0;
    for_each_child(pos, scratch, &mut |child, captured| {
        match out.get_mut(len) {
            Some(slot) => {
                slot.pos.clone_from(child);
                slot.captured = captured;
                slot.token = None;
            }
            None => out.push(Child { pos: child.clone(), captured, token: None }),
        }
        len += 1;
    });
    out.truncate(len);
}

/// Calls `f` with every child of `pos` and the stones its turn captures, in the order of
/// [`children`], without storing them: the search's last ply evaluates them on the fly.
/// Sets `scratch.cut` if a bonus was cut to fewer results than the rules allow.
pub(crate) fn for_each_child(pos: &Position, scratch: &mut Bonuses, f: &mut impl FnMut(&Position, u32)) {
    let n = pos.ruleset().size();
    let kind = pos.ruleset().kind();
    let opp = pos.side_to_move().opponent();
    let Bonuses { cands, takes, seen, child, cut } = scratch;
    *cut = false;
    pos.for_each_sown(&mut |s| {
        if s.bonus() == 0 {
            return f(s.position(), s.captured());
        }
        seen.clear();
        cands.fill(s.position().track(opp), n, kind, s.bonus());
        let child = child.get_or_insert_with(|| s.position().clone());
        for c in 0..cands.len() {
            let cand = cands.get(c);
            takes.clear();
            takes.extend(cand.iter().map(|&(i, k)| (Hole::from_track(opp, canonical_track(i, n), n), k)));
            s.with_bonus_into(takes, child).expect("the policies take legal bonuses");
            // Different policies can reach the same position: keep it once.
            if seen.contains(&child.hash()) {
                continue;
            }
            seen.push(child.hash());
            let taken: u32 = cand.iter().map(|&(_, k)| k as u32).sum();
            f(child, s.captured() + taken);
        }
        if !*cut && legal_bonus_results(s.position().track(opp), kind, s.bonus(), seen.len() + 1) > seen.len() {
            *cut = true;
        }
    });
}

/// The number of distinct results the rules allow for a bonus of `left` against the
/// opponent's `track` (Tsoro: every set of at most `left` non-empty holes; Nsolo: every
/// way to take exactly `min(left, stones)` stones), counted up to `cap`.
pub(crate) fn legal_bonus_results(track: &[u16], kind: GameKind, left: u16, cap: usize) -> usize {
    match kind {
        GameKind::Tsoro => {
            let h = track.iter().filter(|&&c| c > 0).count();
            // Σ_{j ≤ left} C(h, j), stopping at the cap.
            let (mut sum, mut binom) = (1usize, 1usize);
            for j in 1..=(left as usize).min(h) {
                binom = binom * (h + 1 - j) / j;
                sum += binom;
                if sum >= cap {
                    return cap;
                }
            }
            sum.min(cap)
        }
        GameKind::Nsolo => {
            let total: u32 = track.iter().map(|&c| c as u32).sum();
            let take = (left as u32).min(total) as usize;
            let nonempty = track.iter().filter(|&&c| c > 0).count();
            if take == 0 || take as u32 == total || nonempty == 1 {
                return 1.min(cap);
            }
            // ways[r]: ways to take r stones from the holes so far, capped; a sliding
            // window sums ways over the stones taken from the next hole.
            let mut ways = vec![0usize; take + 1];
            ways[0] = 1;
            let mut next = vec![0usize; take + 1];
            for &c in track.iter().filter(|&&c| c > 0) {
                let c = c as usize;
                let mut window = 0usize;
                for r in 0..=take {
                    window += ways[r];
                    if r > c {
                        window -= ways[r - c - 1];
                    }
                    next[r] = window.min(cap);
                }
                // A window of capped terms is at least the cap when the true sum is.
                std::mem::swap(&mut ways, &mut next);
            }
            ways[take].min(cap)
        }
    }
}

/// The same children through the checked choice-by-choice interface, with tokens; `false`
/// if a bonus was cut to fewer results than the rules allow.
fn expand(turn: Turn, out: &mut Vec<Child>, scratch: &mut Candidates) -> bool {
    match turn.phase() {
        Phase::Complete => {
            let token = turn.token();
            let captured = turn.captured();
            out.push(Child { pos: turn.into_position().expect("complete"), captured, token });
            true
        }
        Phase::Start | Phase::Head(_) => {
            let ds = turn.decisions();
            let last = ds.len().saturating_sub(1);
            let mut turn = Some(turn);
            let mut complete = true;
            for (i, d) in ds.into_iter().enumerate() {
                let mut t = if i == last { turn.take().expect("kept for the last") } else { turn.clone().unwrap() };
                t.apply(d).expect("listed decisions are legal");
                complete &= expand(t, out, scratch);
            }
            complete
        }
        Phase::Bonus { left } => {
            let before = out.len();
            let pos = turn.position();
            let n = pos.ruleset().size();
            let opp = turn.mover().opponent();
            scratch.fill(pos.track(opp), n, pos.ruleset().kind(), left);
            for c in 0..scratch.len() {
                let mut t = turn.clone();
                for &(i, k) in scratch.get(c) {
                    // A Tsoro pick empties a hole; an Nsolo pick takes one stone.
                    let picks = if pos.ruleset().kind() == GameKind::Tsoro { 1 } else { k };
                    for _ in 0..picks {
                        t.apply(Decision::Take(Hole::from_track(opp, canonical_track(i, n), n)))
                            .expect("picks in canonical order are legal");
                    }
                }
                if !t.is_complete() {
                    t.apply(Decision::Done).expect("a Tsoro bonus may end early");
                }
                // Different policies can reach the same position: keep it once (by hash, as
                // the fast path does).
                if out[before..].iter().any(|c| c.pos.hash() == t.position().hash()) {
                    continue;
                }
                let (token, captured) = (t.token(), t.captured());
                out.push(Child { pos: t.into_position().expect("the bonus ended the turn"), captured, token });
            }
            let made = out.len() - before;
            legal_bonus_results(pos.track(opp), pos.ruleset().kind(), left, made + 1) <= made
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

/// Scratch space of the search's inner loop, kept between calls so that it does not
/// allocate: the bonus candidates, and the buffers that turn them into children.
#[derive(Default)]
pub(crate) struct Bonuses {
    cands: Candidates,
    takes: Vec<(Hole, u16)>,
    /// Hashes of the children of one capture so far (policies can agree).
    seen: Vec<u64>,
    /// The child being built (set on first use).
    child: Option<Position>,
    /// Whether the last listing cut a bonus to fewer results than the rules allow.
    pub cut: bool,
}

/// Candidate bonuses for one capture, each a list of (canonical index, stones) in
/// canonical order.
#[derive(Default)]
pub(crate) struct Candidates {
    flat: Vec<(usize, u16)>,
    ends: Vec<usize>,
    /// Nsolo: the opponent's counts in canonical order, a policy's working copy and takes.
    counts: Vec<u16>,
    work: Vec<u16>,
    takes: Vec<u16>,
}

impl Candidates {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, c: usize) -> &[(usize, u16)] {
        let from = if c == 0 { 0 } else { self.ends[c - 1] };
        &self.flat[from..self.ends[c]]
    }

    /// The candidates for a capture whose bonus is `left`, against the opponent's `track`.
    fn fill(&mut self, track: &[u16], n: usize, kind: GameKind, left: u16) {
        self.flat.clear();
        self.ends.clear();
        match kind {
            GameKind::Tsoro => {
                // The k + 2 fullest holes (ties: canonical order), by insertion into a
                // short list: cheaper than sorting the whole side at every capture.
                let count = |i: usize| track[canonical_track(i, n)];
                let nonempty = track.iter().filter(|&&c| c > 0).count();
                let k = (left as usize).min(nonempty);
                let mut idx = [(0usize, 0u16); 8];
                let mut m = 0;
                for i in 0..2 * n {
                    let c = count(i);
                    if c == 0 {
                        continue;
                    }
                    let at = idx[..m].iter().position(|&(_, d)| d < c).unwrap_or(m);
                    if at < k + 2 {
                        m = (m + 1).min(k + 2);
                        idx.copy_within(at..m - 1, at + 1);
                        idx[at] = (i, c);
                    }
                }
                // Every k-subset of them in lexicographic order, each written in canonical
                // order (`idx` sorted by hole first).
                idx[..m].sort_unstable();
                let mut pick = [0usize; 8];
                for (j, p) in pick.iter_mut().enumerate().take(k) {
                    *p = j;
                }
                loop {
                    self.flat.extend(pick[..k].iter().map(|&j| idx[j]));
                    self.ends.push(self.flat.len());
                    // Next combination: the last index that can still move right.
                    let Some(j) = (0..k).rev().find(|&j| pick[j] < m - k + j) else { break };
                    pick[j] += 1;
                    for l in j + 1..k {
                        pick[l] = pick[l - 1] + 1;
                    }
                }
            }
            GameKind::Nsolo => {
                self.counts.clear();
                self.counts.extend((0..2 * n).map(|i| track[canonical_track(i, n)]));
                for p in NSOLO_POLICIES {
                    nsolo_bonus(&self.counts, left as u32, p, &mut self.work, &mut self.takes);
                    self.flat.extend(self.takes.iter().enumerate().filter(|&(_, &t)| t > 0).map(|(i, &t)| (i, t)));
                    self.ends.push(self.flat.len());
                }
            }
        }
    }
}

/// Stones to take per canonical hole under a policy, written into `takes` (as long as
/// `counts`); they sum to `min(left, stones)`. `work` is scratch space: this runs at every
/// Nsolo capture in the search, so it neither allocates nor scans more than it must.
pub(crate) fn nsolo_bonus(counts: &[u16], left: u32, policy: BonusPolicy, work: &mut Vec<u16>, takes: &mut Vec<u16>) {
    work.clear();
    work.extend_from_slice(counts);
    takes.clear();
    takes.resize(counts.len(), 0);
    // The fullest hole, the first of equals (stones remain).
    let largest = |c: &[u16]| (1..c.len()).fold(0, |b, i| if c[i] > c[b] { i } else { b });
    let total: u32 = counts.iter().map(|&x| x as u32).sum();
    for _ in 0..left.min(total) {
        let i = match policy {
            BonusPolicy::Largest => largest(work),
            // The emptiest non-empty hole, the first of equals.
            BonusPolicy::Smallest => (0..work.len()).fold(usize::MAX, |b, i| {
                if work[i] > 0 && (b == usize::MAX || work[i] < work[b]) {
                    i
                } else {
                    b
                }
            }),
            BonusPolicy::Mobility => work.iter().position(|&c| c == 2).unwrap_or_else(|| largest(work)),
        };
        work[i] -= 1;
        takes[i] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nsolo_takes(counts: &[u16], left: u32, p: BonusPolicy) -> Vec<u16> {
        let (mut work, mut takes) = (Vec::new(), Vec::new());
        nsolo_bonus(counts, left, p, &mut work, &mut takes);
        takes
    }

    #[test]
    fn nsolo_policies_take_exactly_left() {
        let counts = [2u16, 0, 5, 1, 2, 3];
        for p in NSOLO_POLICIES {
            for left in 0..15 {
                let t = nsolo_takes(&counts, left, p);
                let sum: u32 = t.iter().map(|&x| x as u32).sum();
                assert_eq!(sum, left.min(13), "{p:?} {left}");
                assert!(t.iter().zip(&counts).all(|(a, b)| a <= b));
            }
        }
        assert_eq!(nsolo_takes(&counts, 2, BonusPolicy::Mobility), vec![1, 0, 0, 0, 1, 0]);
        assert_eq!(nsolo_takes(&counts, 2, BonusPolicy::Largest), vec![0, 0, 2, 0, 0, 0]);
        assert_eq!(nsolo_takes(&counts, 2, BonusPolicy::Smallest), vec![1, 0, 0, 1, 0, 0]);
    }

    /// Each policy by its plain definition: one stone at a time from the hole it names.
    fn plain_takes(counts: &[u16], left: u32, policy: BonusPolicy) -> Vec<u16> {
        let mut c = counts.to_vec();
        let mut takes = vec![0u16; counts.len()];
        let total: u32 = counts.iter().map(|&x| x as u32).sum();
        for _ in 0..left.min(total) {
            let largest = |c: &[u16]| (0..c.len()).filter(|&i| c[i] > 0).max_by_key(|&i| (c[i], std::cmp::Reverse(i)));
            let pick = match policy {
                BonusPolicy::Largest => largest(&c),
                BonusPolicy::Smallest => (0..c.len()).filter(|&i| c[i] > 0).min_by_key(|&i| (c[i], i)),
                BonusPolicy::Mobility => (0..c.len()).find(|&i| c[i] == 2).or_else(|| largest(&c)),
            };
            let i = pick.expect("stones remain");
            c[i] -= 1;
            takes[i] += 1;
        }
        takes
    }

    #[test]
    fn nsolo_policies_keep_their_definition() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
        for _ in 0..3000 {
            let len = rng.random_range(1..=72);
            let counts: Vec<u16> = (0..len).map(|_| rng.random_range(0..6)).collect();
            let left = rng.random_range(0..25);
            for p in NSOLO_POLICIES {
                assert_eq!(nsolo_takes(&counts, left, p), plain_takes(&counts, left, p), "{p:?} {counts:?} {left}");
            }
        }
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

    /// The fast path (sown once by the core) and the checked path (decision by decision,
    /// with tokens) give the same children in the same order, over random games.
    #[test]
    fn fast_and_checked_children_agree() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        let mut captures = 0;
        for name in ["tsoro:8", "tsoro:8,heads=1,bonus=3", "tsoro:21", "nsolo:8", "nsolo:36"] {
            for _ in 0..6 {
                let mut pos = Position::start(name.parse().unwrap());
                for _ in 0..60 {
                    children(&pos, false, &mut fast);
                    children(&pos, true, &mut slow);
                    assert_eq!(fast.len(), slow.len(), "{pos}");
                    for (f, s) in fast.iter().zip(&slow) {
                        assert_eq!((&f.pos, f.captured), (&s.pos, s.captured), "{pos}");
                    }
                    captures += fast.iter().filter(|c| c.captured > 0).count();
                    match crate::random_turn(&pos, &mut rng) {
                        Some(t) => pos = pos.play(&t).unwrap(),
                        None => break,
                    }
                }
            }
        }
        assert!(captures > 100, "the games must reach captures ({captures})");
    }
}
