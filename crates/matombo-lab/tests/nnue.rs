//! Datasets and training of the NNUE-style network (`matombo_lab::nnue`).

use matombo_ai::nnue::Network;
use matombo_ai::{random_turn, Limits, DECISIVE_BOUND};
use matombo_core::{Position, Ruleset};
use matombo_lab::nnue::{read_dataset, self_play, train, write_dataset, Sample, TrainConfig};
use matombo_lab::tuning::TuneConfig;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn config(ruleset: &str, threads: usize) -> TuneConfig {
    TuneConfig {
        ruleset: ruleset.parse().unwrap(),
        limits: Limits { nodes: Some(200), ..Limits::default() },
        threads,
        opening_turns: 4,
        max_turns: 200,
        iterations: 1,
        games_per_iteration: 2,
        perturbation: 10.0,
        learning_rate: 1.0,
        seed: 5,
    }
}

fn text(samples: &[Sample]) -> String {
    let mut out = Vec::new();
    write_dataset(&mut out, samples).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn self_play_data_round_trips_through_the_text_format() {
    let mut calls = 0;
    let one = self_play(&config("tsoro:6", 1), 4, |done| {
        calls += 1;
        assert_eq!(done, calls);
    });
    assert_eq!(calls, 4);
    assert_eq!(one, self_play(&config("tsoro:6", 2), 4, |_| {}), "the data depends on the threads");
    assert!(one.len() > 10, "{}", one.len());
    assert!(one.iter().all(|s| [0.0, 0.5, 1.0].contains(&s.result) && s.score.abs() <= DECISIVE_BOUND));
    assert!(one.iter().all(|s| s.position.has_legal_turn() && matombo_ai::is_quiet(&s.position)));
    assert!(one.iter().any(|s| s.result == 1.0) && one.iter().any(|s| s.result == 0.0));
    let written = text(&one);
    assert_eq!(written.lines().count(), one.len());
    assert_eq!(read_dataset(&written).unwrap(), one);
}

#[test]
fn bad_lines_are_refused_with_their_number() {
    let samples = random_samples("nsolo:8", 3, 1);
    let good = text(&samples);
    let first = good.lines().next().unwrap().to_string();
    let (pos, rest) = first.split_once('\t').unwrap();
    let other = Position::start("tsoro:6".parse().unwrap());
    for (line, word) in [
        (format!("nonsense\t{rest}"), "bad position"),
        (format!("{pos}\tten\t1"), "bad score"),
        (format!("{pos}\t10\t0.7"), "bad result"),
        (format!("{pos}\t10\t1\textra"), "4 fields"),
        (format!("{pos}\t10"), "2 fields"),
        (format!("{pos}\t{}\t1", DECISIVE_BOUND + 1), "forced result"),
        (format!("{other}\t10\t1"), "tsoro:6"),
    ] {
        // The bad line is the third, after a good one and a blank one.
        let data = format!("{first}\n\n{line}\n{first}\n");
        let e = read_dataset(&data).unwrap_err();
        assert_eq!(e.line, 3, "{line}: {e}");
        let shown = e.to_string();
        assert!(shown.starts_with("line 3: ") && shown.contains(word), "{line}: {shown}");
    }
}

/// Random positions of `ruleset` with a turn to play, labelled by `n` holes the mover has
/// with exactly two stones less those of the other side: something a hand-written
/// evaluation of material, mobility and threats does not see, but a sum over inputs does;
/// the result is drawn as the logistic of the score with K = 0.01 says.
fn random_samples(ruleset: &str, n: usize, seed: u64) -> Vec<Sample> {
    let ruleset: Ruleset = ruleset.parse().unwrap();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let mut pos = Position::start(ruleset);
        let plies = rng.random_range(0..40);
        for _ in 0..plies {
            let Some(t) = random_turn(&pos, &mut rng) else { break };
            pos = pos.play(&t).unwrap();
        }
        if !pos.has_legal_turn() {
            continue;
        }
        let twos = |side: matombo_core::Side| pos.track(side).iter().filter(|&&c| c == 2).count() as i32;
        let d = twos(pos.side_to_move()) - twos(pos.side_to_move().opponent());
        let score = 150 * d;
        let result = if rng.random_bool(1.0 / (1.0 + (-0.01 * score as f64).exp())) { 1.0 } else { 0.0 };
        out.push(Sample { position: pos, score, result });
    }
    out
}

#[test]
fn training_learns_what_the_hand_evaluation_cannot_and_quantises_faithfully() {
    let samples = random_samples("nsolo:8", 3000, 7);
    let config = TrainConfig { epochs: 12, learning_rate: 0.01, lambda: 0.75, batch: 64, seed: 3 };
    let mut epochs = Vec::new();
    let trained = train(&samples, &config, |e| epochs.push(*e)).unwrap();
    assert_eq!(epochs.len(), 12);
    assert_eq!((trained.train_samples, trained.validation_samples), (2700, 300));
    assert!(trained.k > 0.007 && trained.k < 0.014, "K {}", trained.k);
    let best = epochs.iter().map(|e| e.validation_loss).fold(f64::INFINITY, f64::min);
    assert_eq!(trained.validation_loss, best);
    assert!(
        trained.validation_loss < 0.25 * trained.initial_validation_loss,
        "{} -> {}",
        trained.initial_validation_loss,
        trained.validation_loss
    );
    assert!(
        trained.validation_loss < 0.5 * trained.baseline_loss,
        "network {} vs hand-written {}",
        trained.validation_loss,
        trained.baseline_loss
    );
    // The quantised network scores as the real one, within rounding.
    for s in &samples[..50] {
        let (q, real) = (trained.network.evaluate(&s.position), trained.float.evaluate(&s.position));
        assert!((q as f32 - real).abs() <= 10.0 + 0.05 * real.abs(), "{q} vs {real} at {}", s.position);
    }
    // It learnt the sign of the label.
    let right = samples[2700..]
        .iter()
        .filter(|s| s.score != 0)
        .filter(|s| (trained.network.evaluate(&s.position) > 0) == (s.score > 0))
        .count();
    let labelled = samples[2700..].iter().filter(|s| s.score != 0).count();
    assert!(right * 10 > labelled * 9, "{right} of {labelled}");
    let back = Network::from_bytes(&trained.network.to_bytes()).unwrap();
    assert_eq!(back, trained.network);
}

#[test]
fn training_is_deterministic_by_seed() {
    let samples = random_samples("tsoro:6", 300, 2);
    let config = TrainConfig { epochs: 2, learning_rate: 0.01, lambda: 0.5, batch: 32, seed: 9 };
    let bytes = |config: &TrainConfig| train(&samples, config, |_| {}).unwrap().network.to_bytes();
    assert_eq!(bytes(&config), bytes(&config));
    assert_ne!(bytes(&config), bytes(&TrainConfig { seed: 10, ..config }));
    assert!(train(&samples[..19], &config, |_| {}).is_err());
}
