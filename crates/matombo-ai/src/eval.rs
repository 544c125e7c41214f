//! Static evaluation, in hundredths of a stone from the side to move's point of view.

use matombo_core::{GameKind, Position};

/// Number of evaluation terms ([`features`]).
pub const FEATURES: usize = 8;

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
    /// Per spare turn of a side with no hole of two: the steps its singles can take before
    /// one must step into a hole the opponent's singles guard (the tempo of the single-stone
    /// race, whose loser must give up stones; counted like `singles`).
    pub tempo: i32,
    /// Per opponent stone a single of a side with no hole of two can capture next turn: it
    /// stands right behind the empty inner hole facing them (the threats of the single-stone
    /// endgame that are real, where `threat_to_move` counts every exposed stone).
    pub ambush: i32,
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
    pub const HAND_SET: Weights = Weights {
        material: 100,
        mobility: 12,
        threat_to_move: 35,
        threat_waiting: 15,
        heads: 4,
        singles: 25,
        tempo: 0,
        ambush: 0,
    };

    /// Tsoro's weights, tuned by self-play (`matombo tune --ruleset tsoro:8`: SPSA, 3000 nodes
    /// a turn, 61 000 games). Against [`Weights::HAND_SET`]: 56.0% over 2000 games, +42 Elo
    /// (95% interval +27..+58).
    pub const TSORO: Weights = Weights {
        material: 100,
        mobility: 12,
        threat_to_move: 50,
        threat_waiting: 23,
        heads: 3,
        singles: 80,
        tempo: 0,
        ambush: 0,
    };

    /// Nsolo's weights, tuned by self-play (`matombo tune --ruleset nsolo:8`: SPSA, 3000 nodes
    /// a turn, 21 500 games). Against [`Weights::HAND_SET`]: 67.7% over 2000 games, +128 Elo
    /// (95% interval +112..+145). `heads` is unused in Nsolo (the hand-set value is kept).
    pub const NSOLO: Weights = Weights {
        material: 100,
        mobility: 7,
        threat_to_move: 16,
        threat_waiting: 8,
        heads: 4,
        singles: 89,
        tempo: 0,
        ambush: 0,
    };

    /// The weights in the order of [`features`].
    pub fn as_array(&self) -> [i32; FEATURES] {
        [
            self.material,
            self.mobility,
            self.threat_to_move,
            self.threat_waiting,
            self.heads,
            self.singles,
            self.tempo,
            self.ambush,
        ]
    }

    /// The weights from an array in the order of [`features`].
    pub fn from_array(a: [i32; FEATURES]) -> Weights {
        let [material, mobility, threat_to_move, threat_waiting, heads, singles, tempo, ambush] = a;
        Weights { material, mobility, threat_to_move, threat_waiting, heads, singles, tempo, ambush }
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
    let (mut singles_, mut tempo, mut ambush) = (0, 0, 0);
    if mm == 0 || mo == 0 {
        singles_ = singles(mine) - singles(theirs);
        // The race of tempo is between singles only: a hole of two must be played (no
        // single may move), and it is not counted against the other side's spare turns.
        if mm == 0 && mo == 0 {
            tempo = spare_tempo(mine, theirs) - spare_tempo(theirs, mine);
        }
        ambush = ambushes(mine, theirs, tsoro) - ambushes(theirs, mine, tsoro);
    }
    [sm - so, mm - mo, threat_me, -threat_them, heads, singles_, tempo, ambush]
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

/// The turns a side with no hole of two can play before a single must step into a hole
/// the opponent guards, at most the track's length `2n`. An inner hole is guarded when the
/// opponent's facing hole is empty with one of his singles right behind it: a single that
/// steps in is captured next turn. Every single goes forward to the next guarded hole ahead
/// of it, packed behind the singles in front. With no guarded hole the stones can circle
/// for ever: the cap. The opponent's stones held still, his tempo is counted apart.
fn spare_tempo(mine: &[u16], theirs: &[u16]) -> i32 {
    let len = mine.len();
    let n = len / 2;
    if mine.iter().any(|&c| c >= 2) {
        return 0;
    }
    // Only singles guard: a side with a hole of two may not play one.
    if theirs.iter().any(|&c| c >= 2) {
        return len as i32;
    }
    let guarded = |u: usize| {
        let v = 3 * n - 1 - u;
        u >= n && theirs[v] == 0 && theirs[v - 1] == 1
    };
    let Some(b0) = (n..len).find(|&u| guarded(u)) else {
        return len as i32;
    };
    // Backwards round the track from the guarded hole b0, `s` steps before it: a single
    // there can reach `reach` steps before b0 (or before a nearer guarded hole).
    let (mut reach, mut spare) = (1, 0);
    for s in 1..len {
        let p = (b0 + len - s) % len;
        if mine[p] == 1 {
            spare += s - reach;
            reach += 1;
        }
        if guarded(p) {
            reach = s + 1;
        }
    }
    spare.min(len) as i32
}

/// The opponent stones a side with no hole of two can capture with its next turn: each
/// file whose opponent inner hole is occupied and faces an empty inner hole of `mine` with
/// a single right behind it (on the track; the last outer hole is behind the first inner
/// one). Stones counted as the capture takes them (Tsoro: the file; Nsolo: twice the hole).
fn ambushes(mine: &[u16], theirs: &[u16], tsoro: bool) -> i32 {
    if mine.iter().any(|&c| c >= 2) {
        return 0;
    }
    let n = mine.len() / 2;
    (n..2 * n)
        .filter(|&t| mine[t] == 0 && mine[t - 1] == 1)
        .map(|t| {
            let f = 3 * n - 1 - t; // the opponent's facing inner hole
            let inner = theirs[f] as i32;
            if inner == 0 {
                0
            } else if tsoro {
                inner + theirs[2 * n - 1 - f] as i32
            } else {
                2 * inner
            }
        })
        .sum()
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
            if starts(mine) == 0 && starts(theirs) == 0 {
                let (m, t) = (&mine[..2 * n], &theirs[..2 * n]);
                score += w.tempo * (spare_tempo(m, t) - spare_tempo(t, m));
            }
            // Ambushes from the rules: a single at the track place before an empty inner
            // hole whose facing opponent hole is occupied captures that file.
            let ambush = |a: &[u16], b: &[u16]| {
                if starts(&a[..2 * n]) > 0 {
                    return 0;
                }
                let mut c = 0;
                for t in n..2 * n {
                    let f = 3 * n - 1 - t;
                    if a[t] == 0 && a[t - 1] == 1 && b[f] > 0 {
                        c += b[f] as i32 + if tsoro { b[2 * n - 1 - f] as i32 } else { b[f] as i32 };
                    }
                }
                c
            };
            score += w.ambush * (ambush(mine, theirs) - ambush(theirs, mine));
        }
        score
    }

    #[test]
    fn evaluation_matches_the_plain_version_and_is_antisymmetric() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
        let w = Weights {
            material: 100,
            mobility: 7,
            threat_to_move: 31,
            threat_waiting: 13,
            heads: 5,
            singles: 29,
            tempo: 3,
            ambush: 41,
        };
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

    #[test]
    fn tempo_and_ambush_by_hand() {
        // tsoro:6 without heads; tracks t = 0..11 (outer Bk/bk at k-1, inner Ak/ak at 12-k).
        // South: B1 (t0), B4 (t3), B6 (t5), A4 (t8). North: b1 (t0), b3 (t2), a4 (t8),
        // a1 (t11). All single, so both sides count.
        let pos: Position =
            "tsoro:6,heads=0,bonus=0 0,0,0,1,0,1/0,0,1,0,0,1/0,0,0,1,0,0/1,0,0,1,0,1 S".parse().unwrap();
        let f = features(&pos);
        // Material 4-4, no hole of two either side.
        assert_eq!(&f[..2], &[0, 0]);
        // Legal singles: South B1, B4, B6, A4 (4); North b1, b3, a4 (a1 wraps onto b1): 3.
        assert_eq!(f[5], 1);
        // Spare tempo. North guards South's A4 (t8: a3 empty behind a4); South's singles
        // t5, t3, t0 can go to t7, t6, t5 before it: 2 + 3 + 5 = 10. South guards North's
        // a4 (t8) and a1 (t11); North's t2, t0 go to t7, t6 (5 + 6) and t11 on to t5 (6):
        // 17, capped at the track's 12.
        assert_eq!(f[6], 10 - 12);
        // Ambushes. South: B6 stands behind the empty A6, which faces a1 (1 stone, with b1
        // in its file: 2); A4 stands behind the empty A3, which faces a4 (1, b4 empty): 1.
        // North: a4 stands behind the empty a3, which faces A4 (1, with B4: 2).
        assert_eq!(f[7], 3 - 2);
        // North to move: every term changes sign (and the mirrored position is the same).
        let north: Position = pos.to_string().replace(" S", " N").parse().unwrap();
        assert_eq!(&features(&north)[5..], &[-1, 2, -1]);
        assert_eq!(features(&pos.mirrored()), f);
        // A hole of two on one side: no race of tempo; the other side's ambushes count.
        let pos: Position =
            "tsoro:6,heads=0,bonus=0 0,0,0,1,0,1/0,0,1,0,0,1/0,0,0,1,0,0/2,0,0,1,0,1 S".parse().unwrap();
        let f = features(&pos);
        assert_eq!(&f[6..], &[0, -2]);
        // Both sides with a hole of two: the terms are off (normal play is unchanged).
        let pos: Position =
            "tsoro:6,heads=0,bonus=0 0,0,0,1,0,2/0,0,1,0,0,1/0,0,0,1,0,0/2,0,0,1,0,1 S".parse().unwrap();
        assert_eq!(&features(&pos)[5..], &[0, 0, 0]);
    }
}
