//! The tally of a match and its statistics: score, Elo, and the sequential probability
//! ratio test (SPRT).

use matombo_core::{Outcome, Side};
use serde::Serialize;

/// Results from the first engine's point of view.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Games the first engine won.
    pub wins: u32,
    /// Games it lost.
    pub losses: u32,
    /// Draws (Nsolo repetitions).
    pub draws: u32,
    /// Games stopped at the turn cap.
    pub unfinished: u32,
}

impl Tally {
    /// Counts one game whose first engine played `first_side` (no outcome: unfinished).
    pub fn record(&mut self, outcome: Option<Outcome>, first_side: Side) {
        match outcome {
            None => self.unfinished += 1,
            Some(o) => match o.winner {
                None => self.draws += 1,
                Some(w) if w == first_side => self.wins += 1,
                Some(_) => self.losses += 1,
            },
        }
    }

    /// Games with a result (wins, losses and draws).
    pub fn finished(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    /// All games, unfinished ones included.
    pub fn games(&self) -> u32 {
        self.finished() + self.unfinished
    }

    /// Wins minus losses per game (unfinished ones included), in [-1, 1].
    pub fn balance(&self) -> f64 {
        match self.games() {
            0 => 0.0,
            n => (self.wins as f64 - self.losses as f64) / n as f64,
        }
    }

    /// The same games with the unfinished ones counted as draws (`matombo tune` scores
    /// them so; `match` leaves them out).
    pub fn unfinished_as_draws(&self) -> Tally {
        Tally { draws: self.draws + self.unfinished, unfinished: 0, ..*self }
    }
}

/// Score, Elo and its 95% interval.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Stats {
    /// Points per finished game (win 1, draw ½).
    pub score: f64,
    /// Elo difference (first minus second).
    pub elo: f64,
    /// 95% interval of the Elo difference.
    pub elo_low: f64,
    /// 95% interval of the Elo difference.
    pub elo_high: f64,
}

/// The Elo difference that gives a mean score: `-400·log10(1/s - 1)` (a score of 0.75 is
/// +190.85). Scores of 0 and 1 are clamped so that the result stays finite.
pub fn elo_of(score: f64) -> f64 {
    let s = score.clamp(1e-6, 1.0 - 1e-6);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// The mean score expected at an Elo difference: `1 / (1 + 10^(-elo/400))`.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Mean score and per-game variance of the finished games.
fn moments(t: &Tally) -> Option<(f64, f64)> {
    let n = t.finished() as f64;
    if n == 0.0 {
        return None;
    }
    let s = (t.wins as f64 + 0.5 * t.draws as f64) / n;
    let var =
        (t.wins as f64 * (1.0 - s).powi(2) + t.draws as f64 * (0.5 - s).powi(2) + t.losses as f64 * s.powi(2)) / n;
    // A one-sided result (all wins) has no spread; a floor keeps the interval and the
    // SPRT meaningful.
    Some((s, var.max(0.02)))
}

/// Score and Elo with a 95% interval (normal approximation of the mean score) of the
/// finished games; `None` without any.
pub fn stats(t: &Tally) -> Option<Stats> {
    let (s, var) = moments(t)?;
    let se = (var / t.finished() as f64).sqrt();
    Some(Stats { score: s, elo: elo_of(s), elo_low: elo_of(s - 1.96 * se), elo_high: elo_of(s + 1.96 * se) })
}

/// What an SPRT concludes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// H0 accepted: the first engine is not stronger by about ELO1.
    H0,
    /// H1 accepted: the first engine is stronger by about ELO1.
    H1,
    /// No verdict yet: play on.
    Continue,
}

impl Verdict {
    /// `H0`, `H1` or `continue`, as printed.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::H0 => "H0",
            Verdict::H1 => "H1",
            Verdict::Continue => "continue",
        }
    }
}

/// SPRT state (normal approximation).
#[derive(Debug, Serialize)]
pub struct Sprt {
    /// Elo of H0.
    pub elo0: f64,
    /// Elo of H1.
    pub elo1: f64,
    /// Log-likelihood ratio.
    pub llr: f64,
    /// Lower bound (accept H0 below).
    pub lower: f64,
    /// Upper bound (accept H1 above).
    pub upper: f64,
    /// `H1` (the first engine is stronger by about ELO1), `H0`, or `continue`.
    pub verdict: &'static str,
}

impl Sprt {
    /// The verdict as a value.
    pub fn verdict(&self) -> Verdict {
        match self.verdict {
            "H0" => Verdict::H0,
            "H1" => Verdict::H1,
            _ => Verdict::Continue,
        }
    }
}

/// Wald's bounds of the log-likelihood ratio for error rates `alpha` (accepting H1 when
/// H0 holds) and `beta`: `(ln(beta/(1-alpha)), ln((1-beta)/alpha))`.
pub fn sprt_bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// The SPRT of H0: elo = elo0 against H1: elo = elo1 with error rates `alpha` and `beta`.
pub fn sprt_with(t: &Tally, elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Sprt {
    let (lower, upper) = sprt_bounds(alpha, beta);
    let llr = match moments(t) {
        Some((s, var)) if var > 0.0 => {
            let (s0, s1) = (expected_score(elo0), expected_score(elo1));
            t.finished() as f64 * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)
        }
        _ => 0.0,
    };
    let verdict = if llr >= upper {
        Verdict::H1
    } else if llr <= lower {
        Verdict::H0
    } else {
        Verdict::Continue
    };
    Sprt { elo0, elo1, llr, lower, upper, verdict: verdict.as_str() }
}

/// The SPRT of H0: elo = elo0 against H1: elo = elo1, alpha = beta = 0.05.
pub fn sprt(t: &Tally, elo0: f64, elo1: f64) -> Sprt {
    sprt_with(t, elo0, elo1, 0.05, 0.05)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) {
        assert!((a - b).abs() < eps, "{a} is not {b}");
    }

    #[test]
    fn elo_matches_the_logistic_table() {
        close(elo_of(0.5), 0.0, 1e-12);
        close(elo_of(0.75), 190.85, 0.005);
        close(elo_of(0.25), -190.85, 0.005);
        close(elo_of(0.9), 381.70, 0.005);
        close(elo_of(0.64), 99.95, 0.005);
        close(expected_score(100.0), 0.6401, 0.0001);
        close(expected_score(-400.0), 1.0 / 11.0, 1e-12);
        assert!(elo_of(1.0).is_finite() && elo_of(0.0).is_finite());
    }

    #[test]
    fn sprt_bounds_are_walds() {
        let (lo, hi) = sprt_bounds(0.05, 0.05);
        close(lo, (0.05f64 / 0.95).ln(), 1e-12);
        close(hi, (0.95f64 / 0.05).ln(), 1e-12);
        close(hi, 2.944, 0.001);
        let (lo, hi) = sprt_bounds(0.05, 0.10);
        close(lo, -2.251, 0.001);
        close(hi, 2.890, 0.001);
    }

    #[test]
    fn stats_and_verdicts() {
        let even = Tally { wins: 50, losses: 50, draws: 0, unfinished: 3 };
        let s = stats(&even).unwrap();
        assert!(s.elo.abs() < 1e-9 && s.elo_low < 0.0 && s.elo_high > 0.0);
        let strong = Tally { wins: 75, losses: 25, draws: 0, unfinished: 0 };
        let s = stats(&strong).unwrap();
        close(s.score, 0.75, 1e-12);
        close(s.elo, 190.85, 0.005);
        assert!(s.elo_low < s.elo && s.elo < s.elo_high);
        let up = sprt(&strong, 0.0, 50.0);
        assert_eq!((up.verdict, up.verdict()), ("H1", Verdict::H1));
        // LLR of the normal approximation: n·(s1-s0)·(2s-s0-s1)/(2·var), var = 0.1875.
        let (s0, s1) = (0.5, expected_score(50.0));
        close(up.llr, 100.0 * (s1 - s0) * (1.5 - s0 - s1) / 0.375, 1e-9);
        assert_eq!(sprt(&Tally { wins: 25, losses: 75, ..Tally::default() }, 0.0, 50.0).verdict(), Verdict::H0);
        assert_eq!(sprt(&Tally { wins: 3, losses: 2, ..Tally::default() }, 0.0, 50.0).verdict(), Verdict::Continue);
        assert!(stats(&Tally::default()).is_none());
        assert_eq!(sprt(&Tally::default(), 0.0, 50.0).llr, 0.0);
    }

    #[test]
    fn tally_counts_from_the_first_engines_side() {
        use matombo_core::Termination;
        let mut t = Tally::default();
        let won = |w| Some(Outcome { winner: Some(w), termination: Termination::Resignation });
        t.record(won(Side::South), Side::South);
        t.record(won(Side::South), Side::North);
        t.record(None, Side::South);
        assert_eq!(t, Tally { wins: 1, losses: 1, draws: 0, unfinished: 1 });
        assert_eq!((t.finished(), t.games(), t.balance()), (2, 3, 0.0));
        assert_eq!(t.unfinished_as_draws(), Tally { wins: 1, losses: 1, draws: 1, unfinished: 0 });
    }
}
