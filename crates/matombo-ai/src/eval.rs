//! Static evaluation, in hundredths of a stone from the side to move's point of view.

use matombo_core::{GameKind, Position};

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
    /// Hand-set starting weights. Tuning them by self-play is still to be done;
    /// [`crate::Engine::with_weights`] takes other weights for that.
    fn default() -> Weights {
        Weights { material: 100, mobility: 12, threat_to_move: 35, threat_waiting: 15, heads: 4, singles: 25 }
    }
}

/// Evaluates `pos` for the side to move.
pub fn evaluate(pos: &Position, w: &Weights) -> i32 {
    let n = pos.ruleset().size();
    let me = pos.side_to_move();
    let mine = pos.track(me);
    let theirs = pos.track(me.opponent());
    let tsoro = pos.ruleset().kind() == GameKind::Tsoro;
    let mut score = 0i32;
    let (mut sm, mut so, mut mm, mut mo) = (0i32, 0i32, 0i32, 0i32);
    for t in 0..2 * n {
        sm += mine[t] as i32;
        so += theirs[t] as i32;
        mm += (mine[t] >= 2) as i32;
        mo += (theirs[t] >= 2) as i32;
    }
    score += w.material * (sm - so) + w.mobility * (mm - mo);
    // Exposure across the middle: inner track positions n..2n face 3n-1-t.
    let (mut threat_me, mut threat_them) = (0i32, 0i32);
    for t in n..2 * n {
        let f = 3 * n - 1 - t;
        if mine[t] == 0 && theirs[f] > 0 {
            threat_me += theirs[f] as i32 + if tsoro { theirs[2 * n - 1 - f] as i32 } else { theirs[f] as i32 };
        }
        if theirs[f] == 0 && mine[t] > 0 {
            threat_them += mine[t] as i32 + if tsoro { mine[2 * n - 1 - t] as i32 } else { mine[t] as i32 };
        }
    }
    score += w.threat_to_move * threat_me - w.threat_waiting * threat_them;
    if tsoro {
        let h = pos.ruleset().heads() as usize;
        let hm: i32 = mine[n - h..n].iter().map(|&c| c as i32).sum();
        let ho: i32 = theirs[n - h..n].iter().map(|&c| c as i32).sum();
        score += w.heads * (hm - ho);
    }
    if mm == 0 || mo == 0 {
        score += w.singles * (singles(mine) - singles(theirs));
    }
    score
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
