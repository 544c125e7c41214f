//! Glicko-2 ratings (Mark Glickman, "Example of the Glicko-2 system", 2013) and the rating
//! groups of online play. Each rated game is one rating period for each of its players.

use matombo_core::{GameKind, Ruleset};

/// Glicko-2's scale factor between the Glicko scale (1500 ± RD) and its own.
const SCALE: f64 = 173.7178;
/// The system constant τ: how much volatility may change in one period.
pub const TAU: f64 = 0.5;
/// Convergence tolerance of the volatility iteration.
const EPSILON: f64 = 0.000_001;
/// A rated game changes ratings only when each side made at least this many turns (else
/// its result stands, unrated): a resignation at once is not a rated game.
pub const MIN_TURNS_EACH: i64 = 2;

/// At most this many rated games between the same two players in 24 hours change their
/// ratings; later ones that day are played unrated (against rating farming).
pub const RATED_PER_PAIR_PER_DAY: i64 = 3;

/// The window of [`RATED_PER_PAIR_PER_DAY`], ms.
pub const PAIR_WINDOW_MS: u64 = 24 * 3600 * 1000;

/// A rating whose deviation is above this is provisional.
pub const PROVISIONAL_RD: f64 = 110.0;

/// A player's rating in one group.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// Rating (Glicko scale, 1500 at the start).
    pub rating: f64,
    /// Rating deviation.
    pub rd: f64,
    /// Volatility.
    pub vol: f64,
}

impl Default for Rating {
    fn default() -> Self {
        Rating { rating: 1500.0, rd: 350.0, vol: 0.06 }
    }
}

impl Rating {
    /// Whether the rating is still uncertain (RD above [`PROVISIONAL_RD`]).
    pub fn provisional(&self) -> bool {
        self.rd > PROVISIONAL_RD
    }
}

fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

fn expected(mu: f64, mu_j: f64, phi_j: f64) -> f64 {
    1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp())
}

/// The rating after one period against `games` (opponent's rating, score: 1, ½ or 0).
/// Without games only the deviation grows.
pub fn update(player: Rating, games: &[(Rating, f64)]) -> Rating {
    let mu = (player.rating - 1500.0) / SCALE;
    let phi = player.rd / SCALE;
    let sigma = player.vol;
    if games.is_empty() {
        let phi_star = (phi * phi + sigma * sigma).sqrt();
        return Rating { rating: player.rating, rd: (phi_star * SCALE).min(350.0), vol: sigma };
    }
    let mut inv_v = 0.0;
    let mut sum = 0.0;
    for (opp, score) in games {
        let mu_j = (opp.rating - 1500.0) / SCALE;
        let phi_j = opp.rd / SCALE;
        let e = expected(mu, mu_j, phi_j);
        let gj = g(phi_j);
        inv_v += gj * gj * e * (1.0 - e);
        sum += gj * (score - e);
    }
    let v = 1.0 / inv_v;
    let delta = v * sum;
    // The new volatility: the zero of f by the Illinois algorithm (step 5 of the paper).
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi * phi + v + ex;
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (TAU * TAU)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * TAU) < 0.0 {
            k += 1.0;
        }
        a - k * TAU
    };
    let mut fa = f(big_a);
    let mut fb = f(big_b);
    let mut steps = 0;
    while (big_b - big_a).abs() > EPSILON && steps < 200 {
        let c = big_a + (big_a - big_b) * fa / (fb - fa);
        let fc = f(c);
        if fc * fb <= 0.0 {
            big_a = big_b;
            fa = fb;
        } else {
            fa /= 2.0;
        }
        big_b = c;
        fb = fc;
        steps += 1;
    }
    let sigma_new = (big_a / 2.0).exp();
    let phi_star = (phi * phi + sigma_new * sigma_new).sqrt();
    let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu_new = mu + phi_new * phi_new * sum;
    Rating { rating: 1500.0 + SCALE * mu_new, rd: (SCALE * phi_new).min(350.0), vol: sigma_new }
}

/// A rating group: a game family and a range of board sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Group {
    /// Its name on the wire.
    pub name: &'static str,
    /// The game.
    pub game: GameKind,
    /// Smallest board size (holes per row).
    pub min: usize,
    /// Largest.
    pub max: usize,
}

/// Every group, in the documented order; each ruleset falls in exactly one.
pub const GROUPS: [Group; 4] = [
    Group { name: "tsoro-small", game: GameKind::Tsoro, min: 6, max: 20 },
    Group { name: "tsoro-21", game: GameKind::Tsoro, min: 21, max: 21 },
    Group { name: "nsolo-small", game: GameKind::Nsolo, min: 8, max: 16 },
    Group { name: "nsolo-large", game: GameKind::Nsolo, min: 17, max: 36 },
];

/// The group of a ruleset (heads and bonus options do not matter).
pub fn group_of(r: Ruleset) -> &'static str {
    GROUPS.iter().find(|g| g.game == r.kind() && (g.min..=g.max).contains(&r.size())).map_or("other", |g| g.name)
}

/// The group called `name`.
pub fn group(name: &str) -> Option<&'static Group> {
    GROUPS.iter().find(|g| g.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glickmans_worked_example() {
        // The paper's example: 1500/200/0.06 beats 1400/30, loses to 1550/100 and 1700/300.
        let p = Rating { rating: 1500.0, rd: 200.0, vol: 0.06 };
        let opp = |r, rd| Rating { rating: r, rd, vol: 0.06 };
        let out = update(p, &[(opp(1400.0, 30.0), 1.0), (opp(1550.0, 100.0), 0.0), (opp(1700.0, 300.0), 0.0)]);
        assert!((out.rating - 1464.06).abs() < 0.01, "{out:?}");
        assert!((out.rd - 151.52).abs() < 0.01, "{out:?}");
        assert!((out.vol - 0.05999).abs() < 0.00001, "{out:?}");
    }

    #[test]
    fn a_win_raises_and_a_loss_lowers() {
        let a = Rating::default();
        let b = Rating::default();
        let a2 = update(a, &[(b, 1.0)]);
        let b2 = update(b, &[(a, 0.0)]);
        assert!(a2.rating > 1500.0 && b2.rating < 1500.0);
        assert!((a2.rating - 1500.0 + b2.rating - 1500.0).abs() < 1e-6, "symmetric for equal players");
        assert!(a2.rd < 350.0 && a2.provisional());
        let idle = update(Rating { rating: 1600.0, rd: 50.0, vol: 0.06 }, &[]);
        assert!(idle.rd > 50.0 && idle.rating == 1600.0);
    }

    #[test]
    fn groups_cover_every_size() {
        for n in 6..=21 {
            let r: Ruleset = format!("tsoro:{n}").parse().unwrap();
            assert_eq!(group_of(r), if n == 21 { "tsoro-21" } else { "tsoro-small" });
        }
        for n in 8..=36 {
            let r: Ruleset = format!("nsolo:{n}").parse().unwrap();
            assert_eq!(group_of(r), if n <= 16 { "nsolo-small" } else { "nsolo-large" });
        }
        assert_eq!(group_of("tsoro:8,heads=1,bonus=0".parse().unwrap()), "tsoro-small");
    }
}
