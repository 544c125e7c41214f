//! Tuning the evaluation weights by self-play (SPSA), and matches between two sets of
//! weights to check the result.
//!
//! Every iteration draws a random ±1 direction Δ, plays colour-swapped pairs between
//! w + c·Δ and w − c·Δ with a fixed node (or depth) budget per turn, so that a result never
//! depends on the machine's load, and steps w towards the side that scored better.
//! `material` is not tuned: alpha-beta choices do not change when every weight is scaled,
//! so it stays the unit (100 = one stone) the others are measured in.

use std::sync::atomic::AtomicBool;

use anyhow::Context;
use matombo_ai::{Engine, Limits, Weights};
use matombo_core::{Game, GameKind, Outcome, Position, Ruleset, Side};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use crate::{gains, opening, Gains, Stats, Tally};

/// Weights as written in files: a JSON object of the [`named`] weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeightsFile(pub Weights);

impl From<Weights> for WeightsFile {
    fn from(w: Weights) -> WeightsFile {
        WeightsFile(w)
    }
}

impl Serialize for WeightsFile {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(named(&self.0))
    }
}

/// Largest weight accepted or produced.
pub const MAX_WEIGHT: i32 = 1000;

/// Parses a weights file's text, checking the range of every weight.
pub fn parse_weights(text: &str) -> anyhow::Result<Weights> {
    let v: serde_json::Value = serde_json::from_str(text).context("expected a JSON object of weights")?;
    let fields = v.as_object().with_context(|| format!("expected a JSON object of weights, not {v}"))?;
    // A missing field keeps the hand-set value.
    let mut w = Weights::HAND_SET;
    for (name, value) in fields {
        let known = NAMES.contains(&name.as_str());
        let v = value.as_i64().filter(|_| known).with_context(|| {
            if known {
                format!("weight {name} = {value} is not an integer")
            } else {
                format!("unknown weight {name:?} (expected {})", NAMES.join(", "))
            }
        });
        let v = v.context("expected a JSON object of weights")?;
        anyhow::ensure!((0..=MAX_WEIGHT as i64).contains(&v), "weight {name} = {v} is outside 0..={MAX_WEIGHT}");
        set(&mut w, name, v as i32);
    }
    anyhow::ensure!(w.material >= 1, "weight material must be at least 1 (it is the unit of the others)");
    Ok(w)
}

/// The weights' names, in file order (that of [`Weights::as_array`]).
pub const NAMES: [&str; matombo_ai::FEATURES] =
    ["material", "mobility", "threat_to_move", "threat_waiting", "heads", "singles"];

/// The weights with their names, in file order.
pub fn named(w: &Weights) -> [(&'static str, i32); matombo_ai::FEATURES] {
    let a = w.as_array();
    std::array::from_fn(|i| (NAMES[i], a[i]))
}

/// The weights tuned for a game: everything but `material`, and `heads` only in Tsoro
/// (Nsolo's evaluation never reads it).
pub fn tuned_params(kind: GameKind) -> &'static [&'static str] {
    match kind {
        GameKind::Tsoro => &["mobility", "threat_to_move", "threat_waiting", "heads", "singles"],
        GameKind::Nsolo => &["mobility", "threat_to_move", "threat_waiting", "singles"],
    }
}

/// The weight called `name`.
pub fn get(w: &Weights, name: &str) -> i32 {
    named(w).iter().find(|(n, _)| *n == name).map(|p| p.1).expect("a weight name")
}

/// Sets the weight called `name`.
pub fn set(w: &mut Weights, name: &str, v: i32) {
    let mut a = w.as_array();
    a[NAMES.iter().position(|n| *n == name).expect("a weight name")] = v;
    *w = Weights::from_array(a);
}

/// One SPSA step (crate::spsa_step) within the weights' range.
pub fn spsa_step(theta: &mut [f64], delta: &[f64], g: Gains, r: f64) {
    crate::spsa_step(theta, delta, g, r, MAX_WEIGHT as f64);
}

/// `base` with the tuned parameters set to `theta + sign·c·Δ`, rounded and clamped.
pub fn perturbed(base: &Weights, params: &[&str], theta: &[f64], delta: &[f64], c: f64, sign: f64) -> Weights {
    let mut w = *base;
    for (i, name) in params.iter().enumerate() {
        let v = (theta[i] + sign * c * delta[i]).round().clamp(0.0, MAX_WEIGHT as f64);
        set(&mut w, name, v as i32);
    }
    w
}

/// Plays one game from `start`, the `first` weights on `first_side`.
pub fn play_game(
    start: Position,
    first: Weights,
    second: Weights,
    first_side: Side,
    limits: Limits,
    max_turns: usize,
    seed: u64,
) -> Option<Outcome> {
    let mut a = Engine::with_weights(seed, first);
    let mut b = Engine::with_weights(seed ^ 1, second);
    let stop = AtomicBool::new(false);
    let mut game = Game::new(start);
    while !game.is_over() && game.moves().len() < max_turns {
        let pos = game.position().clone();
        let history = &game.positions()[..game.positions().len() - 1];
        let engine = if pos.side_to_move() == first_side { &mut a } else { &mut b };
        let Some(r) = engine.search_with(&pos, limits, &stop, history, &[], &mut |_| {}) else { break };
        if let Err(e) = game.play(&r.best) {
            // Never expected (an engine bug): the game counts as unfinished.
            tracing::error!("illegal turn {} in {pos}: {e}", r.best);
            break;
        }
    }
    game.outcome()
}

/// How games are played while tuning or validating.
#[derive(Clone, Copy, Debug)]
pub struct TuneConfig {
    /// Ruleset played.
    pub ruleset: Ruleset,
    /// Search limits of every turn (a node or depth budget, so that results do not depend
    /// on the machine's load).
    pub limits: Limits,
    /// Games played at the same time.
    pub threads: usize,
    /// Random turns played from the start position to make each opening.
    pub opening_turns: u32,
    /// Turn cap: a game still going after this many turns is unfinished.
    pub max_turns: usize,
    /// SPSA iterations.
    pub iterations: usize,
    /// Games per iteration (an even number: colour-swapped pairs).
    pub games_per_iteration: usize,
    /// Perturbation c of the first iteration, in hundredths of a stone.
    pub perturbation: f64,
    /// Step size of the first iteration, as a multiple of c per unit of score difference.
    pub learning_rate: f64,
    /// Seed of the directions, openings and engines.
    pub seed: u64,
}

/// Plays `games` games (pairs from shared openings, colours swapped) between `first` and
/// `second` on `config.threads` threads; `seed` makes openings and engines. The result does
/// not depend on the number of threads. `on_game` sees the tally after every game.
pub fn play_games(
    config: &TuneConfig,
    first: Weights,
    second: Weights,
    games: usize,
    seed: u64,
    on_game: &dyn Fn(&Tally),
) -> Tally {
    let mut tally = Tally::default();
    let work = |i: usize| {
        let pair_seed = seed.wrapping_mul(0x2545_f491_4f6c_dd1d).wrapping_add((i / 2) as u64);
        let start =
            opening(config.ruleset, config.opening_turns, |a| pair_seed ^ a.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let side = if i % 2 == 0 { Side::South } else { Side::North };
        let limits = config.limits;
        (play_game(start, first, second, side, limits, config.max_turns, pair_seed ^ ((i as u64) << 1)), side)
    };
    let counted = crate::parallel(games, config.threads, work, |_, (r, side)| {
        tally.record(r, side);
        on_game(&tally);
        Ok::<_, std::convert::Infallible>(std::ops::ControlFlow::Continue(()))
    });
    counted.expect("counting a game cannot fail");
    tally
}

/// Score, Elo and its 95% interval, the unfinished games counted as draws (SPSA needs
/// a signal from every game).
pub fn stats(t: &Tally) -> Option<Stats> {
    crate::stats(&t.unfinished_as_draws())
}

/// The state after one SPSA iteration.
#[derive(Clone, Copy, Debug)]
pub struct Iteration {
    /// The iteration, from 0.
    pub index: usize,
    /// Its gains.
    pub gains: Gains,
    /// Its games, for w + c·Δ.
    pub tally: Tally,
    /// The score difference the step followed.
    pub balance: f64,
    /// The current iterate.
    pub now: Weights,
    /// The answer so far: the average of the second half's iterates once there is one,
    /// else the current iterate (a checkpoint worth saving).
    pub so_far: Weights,
}

/// What a tuning run ended with.
#[derive(Clone, Copy, Debug)]
pub struct Tuned {
    /// The tuned weights: the average of the second half's iterates (Polyak averaging,
    /// less noisy than the last iterate).
    pub weights: Weights,
    /// Every game played, for w + c·Δ.
    pub total: Tally,
}

/// Tunes `base`'s weights ([`tuned_params`] of the ruleset's game) for
/// `config.iterations` iterations; `on_iteration` sees each one (an error from it stops).
pub fn tune<E>(
    config: &TuneConfig,
    base: Weights,
    mut on_iteration: impl FnMut(&Iteration) -> Result<(), E>,
) -> Result<Tuned, E> {
    let params = tuned_params(config.ruleset.kind());
    let mut theta: Vec<f64> = params.iter().map(|n| get(&base, n) as f64).collect();
    let n = config.iterations;
    let zero = vec![0.0; params.len()];
    let mut sum = vec![0.0; params.len()];
    let mut summed = 0usize;
    let mut rng = SmallRng::seed_from_u64(config.seed ^ 0x5b5a);
    let mut total = Tally::default();
    for k in 0..n {
        let g = gains(config.perturbation, config.learning_rate, k, n);
        let delta: Vec<f64> = params.iter().map(|_| if rng.random_bool(0.5) { 1.0 } else { -1.0 }).collect();
        let plus = perturbed(&base, params, &theta, &delta, g.c, 1.0);
        let minus = perturbed(&base, params, &theta, &delta, g.c, -1.0);
        let seed = config.seed.wrapping_mul(0x1000_0000_01b3).wrapping_add(k as u64);
        let t = play_games(config, plus, minus, config.games_per_iteration, seed, &|_| {});
        let r = t.balance();
        spsa_step(&mut theta, &delta, g, r);
        if k >= n / 2 {
            for (s, t) in sum.iter_mut().zip(&theta) {
                *s += t;
            }
            summed += 1;
        }
        total.wins += t.wins;
        total.losses += t.losses;
        total.draws += t.draws;
        total.unfinished += t.unfinished;
        let now = perturbed(&base, params, &theta, &zero, 0.0, 0.0);
        let so_far = if summed > 0 {
            let mean: Vec<f64> = sum.iter().map(|s| s / summed as f64).collect();
            perturbed(&base, params, &mean, &zero, 0.0, 0.0)
        } else {
            now
        };
        on_iteration(&Iteration { index: k, gains: g, tally: t, balance: r, now, so_far })?;
    }
    let mean: Vec<f64> = sum.iter().map(|s| s / summed as f64).collect();
    Ok(Tuned { weights: perturbed(&base, params, &mean, &zero, 0.0, 0.0), total })
}

/// The weights as `name=value` pairs.
pub fn show(w: &Weights) -> String {
    named(w).iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(" ")
}

/// The per-turn budget, as `nodes=N` or `depth=D`.
pub fn limits_text(l: &Limits) -> String {
    match (l.nodes, l.depth) {
        (Some(n), _) => format!("nodes={n}"),
        (_, Some(d)) => format!("depth={d}"),
        _ => "default".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use matombo_core::Termination;

    #[test]
    fn step_moves_towards_the_winner_within_bounds() {
        let g = Gains { c: 10.0, a: 0.5 };
        let mut theta = vec![50.0, 50.0, 3.0];
        let delta = [1.0, -1.0, -1.0];
        // θ + cΔ won everything: every weight moves by a·c along Δ (the last one stops at 0).
        spsa_step(&mut theta, &delta, g, 1.0);
        assert_eq!(theta, vec![55.0, 45.0, 0.0]);
        // A loss moves the other way; a tie does not move.
        spsa_step(&mut theta, &delta, g, -0.5);
        assert_eq!(theta, vec![52.5, 47.5, 2.5]);
        spsa_step(&mut theta, &delta, g, 0.0);
        assert_eq!(theta, vec![52.5, 47.5, 2.5]);
        let mut high = vec![999.0];
        spsa_step(&mut high, &[1.0], g, 1.0);
        assert_eq!(high, vec![MAX_WEIGHT as f64]);
    }

    #[test]
    fn gains_decay() {
        let first = gains(10.0, 1.0, 0, 100);
        assert_eq!(first, Gains { c: 10.0, a: 1.0 });
        let mut last = first;
        for k in 1..100 {
            let g = gains(10.0, 1.0, k, 100);
            assert!(g.c < last.c && g.a < last.a && g.c > 0.0 && g.a > 0.0);
            last = g;
        }
        // Spall's exponents: c halves by k ≈ 950, a falls to about 0.24 after 10·A.
        assert!(last.c > 6.0 && last.a > 0.2 && last.a < 0.3, "{last:?}");
    }

    #[test]
    fn perturbation_touches_only_tuned_weights() {
        let base = Weights::default();
        let params = tuned_params(GameKind::Nsolo);
        let theta: Vec<f64> = params.iter().map(|n| get(&base, n) as f64).collect();
        let delta = vec![1.0, -1.0, 1.0, -1.0];
        let plus = perturbed(&base, params, &theta, &delta, 5.0, 1.0);
        let minus = perturbed(&base, params, &theta, &delta, 5.0, -1.0);
        assert_eq!((plus.material, plus.heads), (base.material, base.heads));
        assert_eq!(plus.mobility, base.mobility + 5);
        assert_eq!(minus.mobility, base.mobility - 5);
        assert_eq!(plus.threat_to_move, base.threat_to_move - 5);
        assert_eq!(minus.singles, base.singles + 5);
    }

    #[test]
    fn weights_files() {
        let w = parse_weights(r#"{"mobility": 20}"#).unwrap();
        assert_eq!(w, Weights { mobility: 20, ..Weights::default() });
        let round = serde_json::to_string(&WeightsFile::from(w)).unwrap();
        assert_eq!(parse_weights(&round).unwrap(), w);
        assert!(parse_weights(r#"{"mobilty": 20}"#).unwrap_err().to_string().contains("JSON"));
        assert!(format!("{:#}", parse_weights(r#"{"mobilty": 20}"#).unwrap_err()).contains("mobilty"));
        assert!(parse_weights(r#"{"singles": -1}"#).unwrap_err().to_string().contains("singles"));
        assert!(parse_weights(r#"{"material": 0}"#).unwrap_err().to_string().contains("material"));
        assert!(parse_weights("[1,2]").is_err());
    }

    #[test]
    fn tallies_and_elo() {
        let mut t = Tally::default();
        let won = |w| Some(Outcome { winner: Some(w), termination: Termination::NoLegalMove });
        let drawn = Some(Outcome { winner: None, termination: Termination::Repetition });
        for (r, side) in
            [(won(Side::South), Side::South), (won(Side::North), Side::North), (won(Side::South), Side::South)]
                .into_iter()
                .chain([(won(Side::North), Side::South), (drawn, Side::North), (None, Side::South)])
        {
            t.record(r, side);
        }
        assert_eq!(t.balance(), 2.0 / 6.0);
        let s = stats(&t).unwrap();
        assert!((s.score - 4.0 / 6.0).abs() < 1e-12);
        assert!(s.elo_low < s.elo && s.elo < s.elo_high && s.elo > 100.0);
        let even = stats(&Tally { wins: 50, losses: 50, ..Tally::default() }).unwrap();
        assert!(even.elo.abs() < 1e-9 && (even.elo_low + even.elo_high).abs() < 1e-9);
    }

    #[test]
    fn games_do_not_depend_on_threads() {
        let one = TuneConfig {
            ruleset: "tsoro:6".parse().unwrap(),
            limits: Limits { nodes: Some(100), ..Limits::default() },
            threads: 1,
            opening_turns: 4,
            max_turns: 40,
            iterations: 1,
            games_per_iteration: 4,
            perturbation: 10.0,
            learning_rate: 1.0,
            seed: 1,
        };
        let two = TuneConfig { threads: 2, ..one };
        let (plus, minus) = (Weights { mobility: 40, ..Weights::default() }, Weights::default());
        let t1 = play_games(&one, plus, minus, 4, 7, &|_| {});
        let t2 = play_games(&two, plus, minus, 4, 7, &|_| {});
        assert_eq!(t1, t2);
        assert_eq!(t1.games(), 4);
        // A tuning run reports every iteration and moves only the tuned weights.
        let mut seen = Vec::new();
        let tuned = tune(&TuneConfig { iterations: 2, ..two }, Weights::default(), |it| {
            seen.push(it.index);
            Ok::<_, ()>(())
        })
        .unwrap();
        assert_eq!((seen, tuned.total.games()), (vec![0, 1], 8));
        assert_eq!(tuned.weights.material, Weights::default().material);
    }
}
