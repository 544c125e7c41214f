//! Fitting the evaluation weights to game results (the Texel method).
//!
//! Self-play games at a fixed node budget give positions labelled with the game's result
//! for the side to move (1 won, ½ drawn, 0 lost). The evaluation is a weighted sum of
//! [`features`], so its prediction of the result is `σ(K · Σ wᵢ fᵢ)` with σ the logistic
//! function: the scale K is fitted first (the weights fixed), then the weights by a
//! local search on integers that lowers the mean squared error between prediction
//! and result. Only quiet positions ([`is_quiet`]) are kept: where a capture is pending
//! the static evaluation is about to change, and the result says little about it.
//! `material` is not fitted: it is the unit (100 = one stone) the others are measured in,
//! and it fixes the scale K.

use std::sync::atomic::AtomicBool;

use matombo_ai::{features, is_quiet, Engine, SearchResult, Weights, FEATURES};
use matombo_core::{Game, Outcome, Position, Side};

use crate::tuning::{TuneConfig, MAX_WEIGHT};
use crate::{opening, parallel};

/// One labelled position: its features and the result for its side to move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// [`features`] of the position.
    pub features: [i32; FEATURES],
    /// 1 the side to move went on to win, ½ a draw, 0 a loss.
    pub result: f64,
}

/// The samples of `games` self-play games of `weights` (played as [`TuneConfig`] says:
/// ruleset, node budget, openings, turn cap, threads, seed); unfinished games give none.
/// The result does not depend on the number of threads.
pub fn self_play(config: &TuneConfig, weights: Weights, games: usize) -> Vec<Sample> {
    let work = |i: usize| {
        let Some(game) = self_play_game(config, weights, i, |_, _| {}) else { return Vec::new() };
        let outcome = game.outcome().expect("a finished game");
        game.positions()
            .iter()
            .filter(|p| p.has_legal_turn() && is_quiet(p))
            .map(|p| Sample { features: features(p), result: result_for(&outcome, p.side_to_move()) })
            .collect()
    };
    let mut by_game = vec![Vec::new(); games];
    parallel(games, config.threads, work, |i, s| {
        by_game[i] = s;
        Ok::<_, std::convert::Infallible>(std::ops::ControlFlow::Continue(()))
    })
    .expect("collecting a game cannot fail");
    by_game.concat()
}

/// Self-play game `i` of `config` (its opening and engine seeded from `config.seed` and
/// `i`) with `weights` on both sides, `on_turn` told every position searched and the search's
/// result; the game if it ended within the turn cap. The data of the Texel fit and of the
/// network's training both come from these games.
pub fn self_play_game(
    config: &TuneConfig,
    weights: Weights,
    i: usize,
    mut on_turn: impl FnMut(&Position, &SearchResult),
) -> Option<Game> {
    let seed = config.seed.wrapping_mul(0x2545_f491_4f6c_dd1d).wrapping_add(i as u64);
    let start = opening(config.ruleset, config.opening_turns, |a| seed ^ a.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut engine = Engine::with_weights(seed, weights);
    let stop = AtomicBool::new(false);
    let mut game = Game::new(start);
    while !game.is_over() && game.moves().len() < config.max_turns {
        let pos = game.position().clone();
        let history = &game.positions()[..game.positions().len() - 1];
        let Some(r) = engine.search_with(&pos, config.limits, &stop, history, &[], &mut |_| {}) else { break };
        on_turn(&pos, &r);
        if game.play(&r.best).is_err() {
            break;
        }
    }
    game.outcome().is_some().then_some(game)
}

/// A game's result for `side`: 1 won, ½ drawn, 0 lost.
pub fn result_for(outcome: &Outcome, side: Side) -> f64 {
    match outcome.winner {
        Some(w) if w == side => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    }
}

/// The logistic prediction of the result from a score in hundredths of a stone.
pub fn predict(score: f64, k: f64) -> f64 {
    1.0 / (1.0 + (-k * score).exp())
}

/// Mean squared error of the predictions of `w` with scale `k` over `samples`.
pub fn error(samples: &[Sample], w: &[i32; FEATURES], k: f64) -> f64 {
    let sum: f64 = samples
        .iter()
        .map(|s| {
            let score: i64 = s.features.iter().zip(w).map(|(&f, &w)| f as i64 * w as i64).sum();
            let d = predict(score as f64, k) - s.result;
            d * d
        })
        .sum();
    sum / samples.len().max(1) as f64
}

/// The scale K minimising [`error`] for `w`: a golden-section search over log K (the
/// error is unimodal in K for a fixed evaluation).
pub fn fit_scale(samples: &[Sample], w: &[i32; FEATURES]) -> f64 {
    golden_section(|k| error(samples, w, k))
}

/// The K in 1e-6..1 minimising `error(K)`, which must be unimodal: a golden-section search
/// over log K.
pub fn golden_section(error: impl Fn(f64) -> f64) -> f64 {
    let f = |x: f64| error(x.exp());
    let (mut lo, mut hi) = ((1e-6f64).ln(), (1.0f64).ln());
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (hi - g * (hi - lo), lo + g * (hi - lo));
    let (mut fa, mut fb) = (f(a), f(b));
    for _ in 0..80 {
        if fa < fb {
            hi = b;
            (b, fb) = (a, fa);
            a = hi - g * (hi - lo);
            fa = f(a);
        } else {
            lo = a;
            (a, fa) = (b, fb);
            b = lo + g * (hi - lo);
            fb = f(b);
        }
    }
    ((lo + hi) / 2.0).exp()
}

/// What a fit ended with.
#[derive(Clone, Copy, Debug)]
pub struct Fitted {
    /// The fitted weights.
    pub weights: Weights,
    /// The scale K they were fitted with (per hundredth of a stone).
    pub k: f64,
    /// Mean squared error of the start weights at that K.
    pub error_before: f64,
    /// Mean squared error of the fitted weights.
    pub error_after: f64,
}

/// Fits K for `start`, then the weights named in `params` (indices into
/// [`Weights::as_array`]) by local search: the best of the `moves` of ±step, one weight
/// or two, while that lowers the error, the step halving from 32 down to 1; then K again for the
/// weights found, and the weights again, until they stay.
pub fn fit(samples: &[Sample], start: Weights, params: &[usize]) -> Fitted {
    let mut w = start.as_array();
    let mut k = fit_scale(samples, &w);
    let error_before = error(samples, &w, k);
    // K and the weights pull on each other: alternate until a pass at the current K
    // leaves the weights where they are.
    for _round in 0..100 {
        let before = w;
        let mut best = error(samples, &w, k);
        for step in [32, 16, 8, 4, 2, 1] {
            loop {
                let mut moved = false;
                for t in moves(&w, params, step) {
                    let e = error(samples, &t, k);
                    if e < best {
                        (w, best, moved) = (t, e, true);
                    }
                }
                if !moved {
                    break;
                }
            }
        }
        if w == before {
            break;
        }
        k = fit_scale(samples, &w);
    }
    Fitted { weights: Weights::from_array(w), k, error_before, error_after: error(samples, &w, k) }
}

/// The weights one step away from `w`: each of `params` up or down, and each pair of them
/// together in the four directions (two weights whose terms go together, as the threats
/// to and against the side to move do, sit in a diagonal valley that single steps cannot
/// follow).
fn moves(w: &[i32; FEATURES], params: &[usize], step: i32) -> Vec<[i32; FEATURES]> {
    let shift = |t: &mut [i32; FEATURES], i: usize, d: i32| t[i] = (t[i] + d * step).clamp(0, MAX_WEIGHT);
    let mut out = Vec::new();
    for (a, &i) in params.iter().enumerate() {
        for d in [1, -1] {
            let mut t = *w;
            shift(&mut t, i, d);
            out.push(t);
            for &j in &params[a + 1..] {
                for e in [1, -1] {
                    let mut u = t;
                    shift(&mut u, j, e);
                    out.push(u);
                }
            }
        }
    }
    out
}

/// The indices of the weights `tuning::tuned_params` names for `kind`.
pub fn param_indices(kind: matombo_core::GameKind) -> Vec<usize> {
    let names = crate::tuning::NAMES;
    crate::tuning::tuned_params(kind)
        .iter()
        .map(|p| names.iter().position(|n| n == p).expect("a weight name"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use matombo_ai::Limits;
    use matombo_core::GameKind;
    use rand::{Rng, SeedableRng};

    /// Samples whose results are exactly the predictions of `truth` with scale `k`: the
    /// error's minimum is at `truth`.
    fn synthetic(truth: Weights, k: f64, n: usize) -> Vec<Sample> {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
        (0..n)
            .map(|_| {
                let features = [
                    rng.random_range(-6..=6),
                    rng.random_range(-4..=4),
                    rng.random_range(0..=8),
                    -rng.random_range(0..=8),
                    rng.random_range(-5..=5),
                    rng.random_range(-3..=3),
                ];
                let score: i32 = features.iter().zip(truth.as_array()).map(|(f, w)| f * w).sum();
                Sample { features, result: predict(score as f64, k) }
            })
            .collect()
    }

    #[test]
    fn the_fit_recovers_known_weights_and_scale() {
        let truth =
            Weights { material: 100, mobility: 20, threat_to_move: 45, threat_waiting: 10, heads: 7, singles: 60 };
        let samples = synthetic(truth, 0.004, 4000);
        assert!(error(&samples, &truth.as_array(), 0.004) < 1e-12);
        let k = fit_scale(&samples, &truth.as_array());
        assert!((k / 0.004 - 1.0).abs() < 1e-3, "K {k}");
        let fitted = fit(&samples, Weights::HAND_SET, &param_indices(GameKind::Tsoro));
        assert_eq!(fitted.weights, truth);
        assert!((fitted.k / 0.004 - 1.0).abs() < 1e-3, "K {}", fitted.k);
        assert!(fitted.error_after < 1e-9 && fitted.error_before > 1e-4, "{fitted:?}");
        // Nsolo leaves `heads` alone.
        let fitted = fit(&samples, Weights::HAND_SET, &param_indices(GameKind::Nsolo));
        assert_eq!(fitted.weights.heads, Weights::HAND_SET.heads);
    }

    #[test]
    fn self_play_labels_quiet_positions_with_their_results() {
        let config = TuneConfig {
            ruleset: "tsoro:6".parse().unwrap(),
            limits: Limits { nodes: Some(200), ..Limits::default() },
            threads: 1,
            opening_turns: 4,
            max_turns: 200,
            iterations: 1,
            games_per_iteration: 2,
            perturbation: 10.0,
            learning_rate: 1.0,
            seed: 1,
        };
        let one = self_play(&config, Weights::TSORO, 4);
        assert_eq!(one, self_play(&TuneConfig { threads: 2, ..config }, Weights::TSORO, 4));
        assert!(one.len() > 10, "{}", one.len());
        assert!(one.iter().all(|s| [0.0, 0.5, 1.0].contains(&s.result)));
        // Both sides' positions are there, winners' and losers'.
        assert!(one.iter().any(|s| s.result == 1.0) && one.iter().any(|s| s.result == 0.0));
    }
}
