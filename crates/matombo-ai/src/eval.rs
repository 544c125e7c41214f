//! Static evaluation, in hundredths of a stone from the side to move's point of view.

use matombo_core::{GameKind, Position};

/// Number of evaluation terms ([`features`]).
pub const FEATURES: usize = 6;

/// Weights of the evaluation terms (hundredths of a stone per unit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights {
    /// Per stone on one's own side (material).
    pub material: i32,
    /// Per hole of two or more stones (a legal start: mobility).
    pub mobility: i32,
    /// Per opponent stone the side to move could capture: in an opponent inner hole
    /// facing an empty inner hole of his (Tsoro: with the outer hole of that file).
    pub threat_to_move: i32,
    /// The same, for the stones of the side to move that the opponent threatens.
    pub threat_waiting: i32,
    /// Per stone stockpiled in one's Tsoro heads.
    pub heads: i32,
    /// Per legal single-stone start when a side has no hole of two (the zugzwang endgame).
    pub singles: i32,
}

impl Default for Weights {
    /// The hand-set weights: where `matombo tune` starts, and the baseline it is checked
    /// against ([`Weights::HAND_SET`]).
    fn default() -> Weights {
        Weights::HAND_SET
    }
}

impl Weights {
    /// The hand-set weights, before any tuning.
    pub const HAND_SET: Weights =
        Weights { material: 100, mobility: 12, threat_to_move: 35, threat_waiting: 15, heads: 4, singles: 25 };

    /// Tsoro's weights, tuned by self-play (`matombo tune --ruleset tsoro:8`: SPSA, 3000 nodes
    /// a turn, 61 000 games). Against [`Weights::HAND_SET`]: 56.0% over 2000 games, +42 Elo
    /// (95% interval +27..+58).
    pub const TSORO: Weights =
        Weights { material: 100, mobility: 12, threat_to_move: 50, threat_waiting: 23, heads: 3, singles: 80 };

    /// Nsolo's weights, tuned by self-play (`matombo tune --ruleset nsolo:8`: SPSA, 3000 nodes
    /// a turn, 21 500 games). Against [`Weights::HAND_SET`]: 67.7% over 2000 games, +128 Elo
    /// (95% interval +112..+145). `heads` is unused in Nsolo (the hand-set value is kept).
    pub const NSOLO: Weights =
        Weights { material: 100, mobility: 7, threat_to_move: 16, threat_waiting: 8, heads: 4, singles: 89 };

    /// The weights in the order of [`features`].
    pub fn as_array(&self) -> [i32; FEATURES] {
        [self.material, self.mobility, self.threat_to_move, self.threat_waiting, self.heads, self.singles]
    }

    /// The weights from an array in the order of [`features`].
    pub fn from_array(a: [i32; FEATURES]) -> Weights {
        let [material, mobility, threat_to_move, threat_waiting, heads, singles] = a;
        Weights { material, mobility, threat_to_move, threat_waiting, heads, singles }
    }

    /// The weights the engine uses for `kind` unless told otherwise.
    pub fn for_kind(kind: GameKind) -> Weights {
        match kind {
            GameKind::Tsoro => Weights::TSORO,
            GameKind::Nsolo => Weights::NSOLO,
        }
    }
}

/// Evaluates `pos` for the side to move: the weighted sum of its [`features`].
pub fn evaluate(pos: &Position, w: &Weights) -> i32 {
    features(pos).iter().zip(w.as_array()).map(|(f, w)| f * w).sum()
}

/// The evaluation's terms for `pos`, the side to move's count less the opponent's, in
/// the order of [`Weights::as_array`] (`threat_waiting` counted negative, as it weighs);
/// [`evaluate`] is their weighted sum, and fitting the weights to game results needs them
/// one by one.
pub fn features(pos: &Position) -> [i32; FEATURES] {
    let n = pos.ruleset().size();
    let me = pos.side_to_move();
    let mine = &pos.track(me)[..2 * n];
    let theirs = &pos.track(me.opponent())[..2 * n];
    let tsoro = pos.ruleset().kind() == GameKind::Tsoro;
    let (mut sm, mut so, mut mm, mut mo) = (0i32, 0i32, 0i32, 0i32);
    for (&a, &b) in mine.iter().zip(theirs) {
        sm += a as i32;
        so += b as i32;
        mm += (a >= 2) as i32;
        mo += (b >= 2) as i32;
    }
    // Exposure across the middle. With inner holes in track order (n..2n), my j-th inner
    // hole faces the opponent's (n-1-j)-th; the outer hole of a file is the mirror of its
    // inner one. Branch-free so that the compiler can vectorise it (the search's hottest
    // function).
    let (my_outer, my_inner) = mine.split_at(n);
    let (their_outer, their_inner) = theirs.split_at(n);
    let (mut threat_me, mut threat_them) = (0i32, 0i32);
    for (((&mi, &ti), &to), &mo_) in
        my_inner.iter().zip(their_inner.iter().rev()).zip(their_outer).zip(my_outer.iter().rev())
    {
        let (mi, ti, to, mo_) = (mi as i32, ti as i32, to as i32, mo_ as i32);
        // Tsoro captures the file (inner and outer); Nsolo counts the inner hole twice.
        let their_file = ti + if tsoro { to } else { ti };
        let my_file = mi + if tsoro { mo_ } else { mi };
        threat_me += ((mi == 0) & (ti > 0)) as i32 * their_file;
        threat_them += ((ti == 0) & (mi > 0)) as i32 * my_file;
    }
    let heads = if tsoro {
        let h = pos.ruleset().heads() as usize;
        let hm: i32 = my_outer[n - h..].iter().map(|&c| c as i32).sum();
        let ho: i32 = their_outer[n - h..].iter().map(|&c| c as i32).sum();
        hm - ho
    } else {
        0
    };
    let singles = if mm == 0 || mo == 0 { singles(mine) - singles(theirs) } else { 0 };
    [sm - so, mm - mo, threat_me, -threat_them, heads, singles]
}

/// Whether no turn of the side to move captures: a position whose static evaluation is
/// not about to change by a capture (the positions an evaluation is fitted on).
pub fn is_quiet(pos: &Position) -> bool {
    let mut kids = Vec::new();
    crate::gen::children(pos, false, &mut kids);
    kids.iter().all(|c| c.captured == 0)
}

/// Legal-looking single-stone starts (a single followed by an empty hole), counted only
/// when a side has no hole of two.
fn singles(track: &[u16]) -> i32 {
    if track.iter().any(|&c| c >= 2) {
        return 0;
    }
    let len = track.len();
    (0..len).filter(|&t| track[t] == 1 && track[(t + 1) % len] == 0).count() as i32
}

#[cfg(test)]
mod tests {
    use super::*;
    use matombo_core::Side;

    /// The evaluation written plainly, index by index from RULES.md's facing holes, as an
    /// oracle for the branch-free version.
    fn plain(pos: &Position, w: &Weights) -> i32 {
        let n = pos.ruleset().size();
        let me = pos.side_to_move();
        let (mine, theirs) = (pos.track(me), pos.track(me.opponent()));
        let tsoro = pos.ruleset().kind() == GameKind::Tsoro;
        let sum = |t: &[u16]| t.iter().map(|&c| c as i32).sum::<i32>();
        let starts = |t: &[u16]| t.iter().filter(|&&c| c >= 2).count() as i32;
        let mut score = w.material * (sum(mine) - sum(theirs)) + w.mobility * (starts(mine) - starts(theirs));
        let (mut to_move, mut waiting) = (0, 0);
        for t in n..2 * n {
            let f = 3 * n - 1 - t; // the opponent's facing inner hole
            let their_file = theirs[f] as i32 + if tsoro { theirs[2 * n - 1 - f] as i32 } else { theirs[f] as i32 };
            let my_file = mine[t] as i32 + if tsoro { mine[2 * n - 1 - t] as i32 } else { mine[t] as i32 };
            if mine[t] == 0 && theirs[f] > 0 {
                to_move += their_file;
            }
            if theirs[f] == 0 && mine[t] > 0 {
                waiting += my_file;
            }
        }
        score += w.threat_to_move * to_move - w.threat_waiting * waiting;
        if tsoro {
            let h = pos.ruleset().heads() as usize;
            score += w.heads * (sum(&mine[n - h..n]) - sum(&theirs[n - h..n]));
        }
        if starts(mine) == 0 || starts(theirs) == 0 {
            score += w.singles * (singles(mine) - singles(theirs));
        }
        score
    }

    #[test]
    fn evaluation_matches_the_plain_version_and_is_antisymmetric() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
        let w = Weights { material: 100, mobility: 7, threat_to_move: 31, threat_waiting: 13, heads: 5, singles: 29 };
        let mut checked = 0;
        for name in ["tsoro:6", "tsoro:8", "tsoro:21,heads=1", "nsolo:8", "nsolo:36"] {
            for _ in 0..5 {
                let mut pos = Position::start(name.parse().unwrap());
                while let Some(t) = crate::random_turn(&pos, &mut rng) {
                    assert_eq!(evaluate(&pos, &w), plain(&pos, &w), "{pos}");
                    // Material and mobility are antisymmetric: the mirrored position (the
                    // other side to move, sides swapped) keeps the score.
                    assert_eq!(evaluate(&pos.mirrored(), &w), evaluate(&pos, &w), "{pos}");
                    checked += 1;
                    pos = pos.play(&t).unwrap();
                }
            }
        }
        assert!(checked > 1000);
        assert_eq!(Weights::from_array(w.as_array()), w);
        // Worked by hand: South (A8, B7, B8 with 2 each) against North (a8 1, b8 2).
        // Material +3; starts 3 against 1; South's empty A1 faces a8, whose file holds
        // 3 stones (to move); North's empty a1 faces A8, whose file holds 4 (waiting);
        // heads B7+B8 = 4 against b7+b8 = 2.
        let pos: Position = "tsoro:8 2,0*7/1,0*7/0*7,2/0*6,2,2 S".parse().unwrap();
        assert_eq!(pos.side_to_move(), Side::South);
        assert_eq!(evaluate(&pos, &w), 100 * 3 + 7 * 2 + 31 * 3 - 13 * 4 + 5 * 2);
    }
}
