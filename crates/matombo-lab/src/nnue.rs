//! Training the NNUE-style network of [`matombo_ai::nnue`] on self-play data.
//!
//! **Data.** Self-play games at a fixed node budget ([`self_play`]) give, for every quiet
//! position ([`is_quiet`]) where the side to move had a turn, a [`Sample`]: the position,
//! the score of the search made there (for the side to move, in hundredths of a stone) and
//! the game's result for the side to move (1 won, ½ drawn, 0 lost). Forced results
//! (|score| beyond [`DECISIVE_BOUND`]) are not evaluations and are left out, as are
//! unfinished games. A dataset is a text file of one sample a line,
//! `POSITION<TAB>SCORE<TAB>RESULT` ([`write_dataset`], [`read_dataset`]).
//!
//! **Training.** The network in real numbers (f32), as the module documentation of
//! [`matombo_ai::nnue`] writes it ([`FloatNet`]), is fitted by Adam on minibatches to
//! the target `λ·σ(K·search) + (1−λ)·result`, the loss being the mean squared error between
//! `σ(K·net)` and the target, with σ the logistic function and K fitted first to the
//! dataset's (search score, result) pairs as the Texel fit does. The last tenth of the
//! dataset (whole games, mostly, as a file lists a game's positions together) is held out
//! for validation; the weights of the epoch with the best validation loss are kept and
//! quantised with [`Network::from_float`]. The hand-written evaluation's loss on the same
//! validation samples is the baseline to beat.

use std::fmt;
use std::io::{self, Write};

use matombo_ai::nnue::{active, inputs, NetError, Network, HIDDEN};
use matombo_ai::{evaluate, is_quiet, Weights, DECISIVE_BOUND};
use matombo_core::{Position, Ruleset, Side};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::parallel;
use crate::texel::{predict, result_for, self_play_game};
use crate::tuning::TuneConfig;

/// One labelled position.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The position (its side to move had a turn, and it was quiet).
    pub position: Position,
    /// The search's score of the position for its side to move, in hundredths of a stone.
    pub score: i32,
    /// 1 the side to move went on to win, ½ a draw, 0 a loss.
    pub result: f32,
}

/// The samples of `games` self-play games of the game's own weights
/// ([`Weights::for_kind`]), played as [`TuneConfig`] says (ruleset, node budget, openings,
/// turn cap, threads, seed), in game order; unfinished games give none. `on_game` is called
/// with the number of games done after each one ends. The result does not depend on the
/// number of threads.
pub fn self_play(config: &TuneConfig, games: usize, mut on_game: impl FnMut(usize)) -> Vec<Sample> {
    let mut all = Vec::new();
    self_play_each(config, games, |done, samples| {
        all.extend(samples);
        on_game(done);
        Ok::<_, std::convert::Infallible>(())
    })
    .expect("collecting a game cannot fail");
    all
}

/// The samples of [`self_play`] handed to `on_game` a game at a time, in the games' order
/// (with the number of games finished so far), so that a caller can write them as they come
/// instead of holding a million positions; an error from `on_game` stops the games.
pub fn self_play_each<E>(
    config: &TuneConfig,
    games: usize,
    mut on_game: impl FnMut(usize, Vec<Sample>) -> Result<(), E>,
) -> Result<(), E> {
    let weights = Weights::for_kind(config.ruleset.kind());
    let work = |i: usize| {
        let mut scored = Vec::new();
        let played = self_play_game(config, weights, i, |pos, r| {
            if r.score.abs() <= DECISIVE_BOUND && is_quiet(pos) {
                scored.push((pos.clone(), r.score));
            }
        });
        let Some(outcome) = played.and_then(|g| g.outcome()) else { return Vec::new() };
        scored
            .into_iter()
            .map(|(position, score)| {
                let result = result_for(&outcome, position.side_to_move()) as f32;
                Sample { position, score, result }
            })
            .collect::<Vec<_>>()
    };
    // Games finish out of order on several threads: each waits here until the games
    // before it are handed over, so the output is the same for any number of threads.
    let mut waiting = std::collections::BTreeMap::new();
    let (mut next, mut done) = (0, 0);
    parallel(games, config.threads, work, |i, s| {
        waiting.insert(i, s);
        done += 1;
        while let Some(s) = waiting.remove(&next) {
            next += 1;
            on_game(done, s)?;
        }
        Ok(std::ops::ControlFlow::Continue(()))
    })
    .map(|_| ())
}

/// Writes `samples` as a dataset: one line `POSITION<TAB>SCORE<TAB>RESULT` each.
pub fn write_dataset(out: &mut impl Write, samples: &[Sample]) -> io::Result<()> {
    for s in samples {
        writeln!(out, "{}\t{}\t{}", s.position, s.score, s.result)?;
    }
    Ok(())
}

/// A dataset line that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataError {
    /// The line's number, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for DataError {}

/// Reads a dataset written by [`write_dataset`]; blank lines are skipped. Every sample must
/// be of the first one's board (game and size).
pub fn read_dataset(text: &str) -> Result<Vec<Sample>, DataError> {
    let mut out: Vec<Sample> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let bad = |message: String| DataError { line: i + 1, message };
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [pos, score, result] = fields[..] else {
            return Err(bad(format!("expected POSITION<TAB>SCORE<TAB>RESULT, found {} fields", fields.len())));
        };
        let position: Position = pos.parse().map_err(|e| bad(format!("bad position {pos:?}: {e}")))?;
        let score: i32 = score.trim().parse().map_err(|_| bad(format!("bad score {score:?} (expected an integer)")))?;
        if score.abs() > DECISIVE_BOUND {
            return Err(bad(format!("score {score} is a forced result, not an evaluation")));
        }
        let result = match result.trim() {
            "1" => 1.0,
            "0.5" => 0.5,
            "0" => 0.0,
            r => return Err(bad(format!("bad result {r:?} (expected 1, 0.5 or 0)"))),
        };
        if let Some(first) = out.first() {
            let (a, b) = (first.position.ruleset(), position.ruleset());
            if a.kind() != b.kind() || a.size() != b.size() {
                return Err(bad(format!("position of {b}, where the dataset's first is of {a}")));
            }
        }
        out.push(Sample { position, score, result });
    }
    Ok(out)
}

/// The network in real numbers (see the module documentation of [`matombo_ai::nnue`]).
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    /// The board it is for.
    pub ruleset: Ruleset,
    /// `inputs × HIDDEN`, input-major.
    pub w1: Vec<f32>,
    /// Hidden biases.
    pub b1: [f32; HIDDEN],
    /// Output weights: the mover's half first.
    pub w2: [f32; 2 * HIDDEN],
    /// Output bias, in stones.
    pub b2: f32,
}

/// Largest |weight| of the first layer and of the output kept in training: well inside
/// what the network's `i16` integers hold (times `QA` = 255 and `QB` = 64).
const W1_LIMIT: f32 = 100.0;
const W2_LIMIT: f32 = 400.0;

impl FloatNet {
    /// A network for `ruleset`'s board with small random weights from `seed`.
    pub fn random(ruleset: Ruleset, seed: u64) -> FloatNet {
        let mut rng = SmallRng::seed_from_u64(seed ^ 0x6e6e_7565);
        let w1 = (0..inputs(ruleset.size()) * HIDDEN).map(|_| rng.random_range(-0.05..0.05)).collect();
        let b1 = std::array::from_fn(|_| rng.random_range(0.25..0.5));
        let w2 = std::array::from_fn(|_| rng.random_range(-0.3..0.3));
        FloatNet { ruleset, w1, b1, w2, b2: 0.0 }
    }

    /// The hidden layer before clamping for active inputs `f`.
    fn hidden(&self, f: &[u16], a: &mut [f32; HIDDEN]) {
        *a = self.b1;
        for &i in f {
            let row = &self.w1[i as usize * HIDDEN..(i as usize + 1) * HIDDEN];
            for (x, w) in a.iter_mut().zip(row) {
                *x += w;
            }
        }
    }

    /// The output in stones of the hidden layers of the mover `me` and the other side `them`.
    fn output(&self, me: &[f32; HIDDEN], them: &[f32; HIDDEN]) -> f32 {
        let mut out = self.b2;
        for j in 0..HIDDEN {
            out += self.w2[j] * me[j].clamp(0.0, 1.0) + self.w2[HIDDEN + j] * them[j].clamp(0.0, 1.0);
        }
        out
    }

    /// The score of `pos` for the side to move, in hundredths of a stone.
    pub fn evaluate(&self, pos: &Position) -> f32 {
        let f = Features::of(pos);
        let (mut me, mut them) = ([0.0; HIDDEN], [0.0; HIDDEN]);
        self.hidden(&f.me, &mut me);
        self.hidden(&f.them, &mut them);
        100.0 * self.output(&me, &them)
    }

    /// The quantised network.
    pub fn to_network(&self) -> Result<Network, NetError> {
        let w1: Vec<f32> = self.w1.iter().map(|w| w.clamp(-W1_LIMIT, W1_LIMIT)).collect();
        let b1 = self.b1.map(|w| w.clamp(-W1_LIMIT, W1_LIMIT));
        let w2 = self.w2.map(|w| w.clamp(-W2_LIMIT, W2_LIMIT));
        Network::from_float(self.ruleset, &w1, &b1, &w2, self.b2)
    }
}

/// The active inputs of a position seen by its mover and by the other side.
struct Features {
    me: Vec<u16>,
    them: Vec<u16>,
}

impl Features {
    fn of(pos: &Position) -> Features {
        let list = |view: Side| {
            let mut f = Vec::new();
            active(pos, view, &mut f);
            f.into_iter().map(|i| i as u16).collect()
        };
        Features { me: list(pos.side_to_move()), them: list(pos.side_to_move().opponent()) }
    }
}

/// Settings of [`train`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainConfig {
    /// Passes over the training samples.
    pub epochs: usize,
    /// Adam's step size.
    pub learning_rate: f32,
    /// Weight λ of the search's score in the target (1 − λ that of the result).
    pub lambda: f32,
    /// Samples a minibatch.
    pub batch: usize,
    /// Seed of the start weights and of the shuffles.
    pub seed: u64,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig { epochs: 30, learning_rate: 0.001, lambda: 0.75, batch: 256, seed: 1 }
    }
}

/// The losses after one epoch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Epoch {
    /// Epoch number, from 1.
    pub index: usize,
    /// Mean loss over the epoch's minibatches (each before its step).
    pub train_loss: f64,
    /// Loss on the held-out samples after the epoch.
    pub validation_loss: f64,
}

/// What [`train`] ended with.
#[derive(Clone, Debug)]
pub struct Trained {
    /// The weights of the best epoch, in real numbers.
    pub float: FloatNet,
    /// The same quantised.
    pub network: Network,
    /// The scale K fitted to the (search score, result) pairs, per hundredth of a stone.
    pub k: f64,
    /// Samples trained on.
    pub train_samples: usize,
    /// Samples held out.
    pub validation_samples: usize,
    /// Validation loss of the start weights.
    pub initial_validation_loss: f64,
    /// Validation loss of the hand-written evaluation (the game's weights).
    pub baseline_loss: f64,
    /// The epoch with the best validation loss (0: none improved on the start weights).
    pub best_epoch: usize,
    /// Training loss of that epoch.
    pub train_loss: f64,
    /// Its validation loss.
    pub validation_loss: f64,
}

/// Why training could not run.
#[derive(Debug)]
pub enum TrainError {
    /// Too few samples to hold a tenth out.
    TooFewSamples(usize),
    /// The trained weights do not fit the network's integers.
    Network(NetError),
}

impl fmt::Display for TrainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrainError::TooFewSamples(n) => write!(f, "{n} samples are too few to train on (at least 20 are needed)"),
            TrainError::Network(e) => write!(f, "cannot quantise the network: {e}"),
        }
    }
}

impl std::error::Error for TrainError {}

/// The scale K minimising the mean squared error of `σ(K·score)` against the results: a
/// golden-section search over log K, as [`crate::texel::fit_scale`] does.
pub fn fit_k(samples: &[Sample]) -> f64 {
    crate::texel::golden_section(|k| {
        let sum: f64 = samples
            .iter()
            .map(|s| {
                let d = predict(s.score as f64, k) - s.result as f64;
                d * d
            })
            .sum();
        sum / samples.len().max(1) as f64
    })
}

/// A sample ready for training: its inputs, target and hand evaluation.
struct Prepared {
    me: Vec<u16>,
    them: Vec<u16>,
    target: f32,
}

#[inline]
fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Adam's moments of one vector of weights.
struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
}

impl Adam {
    fn new(n: usize) -> Adam {
        Adam { m: vec![0.0; n], v: vec![0.0; n] }
    }

    /// One step of `w` along the gradient `g` with step size `lr` (bias-corrected for step `t`).
    fn step(&mut self, w: &mut [f32], g: &[f32], lr: f32, t: i32) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        let (c1, c2) = (1.0 - B1.powi(t), 1.0 - B2.powi(t));
        for (((w, &g), m), v) in w.iter_mut().zip(g).zip(&mut self.m).zip(&mut self.v) {
            *m = B1 * *m + (1.0 - B1) * g;
            *v = B2 * *v + (1.0 - B2) * g * g;
            *w -= lr * (*m / c1) / ((*v / c2).sqrt() + 1e-8);
        }
    }
}

/// Gradients of every weight, laid out as the network's.
struct Grads {
    w1: Vec<f32>,
    b1: [f32; HIDDEN],
    w2: [f32; 2 * HIDDEN],
    b2: f32,
}

/// The loss of `net` on one sample with scale `k`; with `grads`, adds its gradient there.
fn sample_loss(net: &FloatNet, s: &Prepared, k: f32, grads: Option<&mut Grads>) -> f32 {
    let (mut me, mut them) = ([0.0; HIDDEN], [0.0; HIDDEN]);
    net.hidden(&s.me, &mut me);
    net.hidden(&s.them, &mut them);
    let out = net.output(&me, &them);
    let p = sigmoid(k * 100.0 * out);
    let d = p - s.target;
    let Some(g) = grads else { return d * d };
    // d loss / d out.
    let go = 2.0 * d * p * (1.0 - p) * k * 100.0;
    g.b2 += go;
    let (mut da_me, mut da_them) = ([0.0; HIDDEN], [0.0; HIDDEN]);
    for j in 0..HIDDEN {
        let (hm, ht) = (me[j].clamp(0.0, 1.0), them[j].clamp(0.0, 1.0));
        g.w2[j] += go * hm;
        g.w2[HIDDEN + j] += go * ht;
        // The clamp passes the gradient only strictly inside 0..1.
        da_me[j] = if me[j] > 0.0 && me[j] < 1.0 { go * net.w2[j] } else { 0.0 };
        da_them[j] = if them[j] > 0.0 && them[j] < 1.0 { go * net.w2[HIDDEN + j] } else { 0.0 };
        g.b1[j] += da_me[j] + da_them[j];
    }
    // Only the active rows of W1 get gradients.
    for (list, da) in [(&s.me, &da_me), (&s.them, &da_them)] {
        for &i in list {
            let row = &mut g.w1[i as usize * HIDDEN..(i as usize + 1) * HIDDEN];
            for (x, d) in row.iter_mut().zip(da) {
                *x += d;
            }
        }
    }
    d * d
}

fn mean_loss(net: &FloatNet, samples: &[Prepared], k: f32) -> f64 {
    let sum: f64 = samples.iter().map(|s| sample_loss(net, s, k, None) as f64).sum();
    sum / samples.len().max(1) as f64
}

/// Trains a network on `samples` (all of one board, at least 20), calling `on_epoch` after
/// every epoch. The same samples, settings and seed give the same network.
pub fn train(
    samples: &[Sample],
    config: &TrainConfig,
    mut on_epoch: impl FnMut(&Epoch),
) -> Result<Trained, TrainError> {
    if samples.len() < 20 {
        return Err(TrainError::TooFewSamples(samples.len()));
    }
    let ruleset = samples[0].position.ruleset();
    let k = fit_k(samples);
    let lambda = config.lambda;
    let kf = k as f32;
    let prepared: Vec<Prepared> = samples
        .iter()
        .map(|s| {
            let f = Features::of(&s.position);
            let target = lambda * sigmoid(kf * s.score as f32) + (1.0 - lambda) * s.result;
            Prepared { me: f.me, them: f.them, target }
        })
        .collect();
    let split = samples.len() - samples.len() / 10;
    let (train_set, validation) = prepared.split_at(split);
    let weights = Weights::for_kind(ruleset.kind());
    let baseline_loss = validation
        .iter()
        .zip(&samples[split..])
        .map(|(p, s)| {
            let d = sigmoid(kf * evaluate(&s.position, &weights) as f32) - p.target;
            (d * d) as f64
        })
        .sum::<f64>()
        / validation.len() as f64;

    let mut net = FloatNet::random(ruleset, config.seed);
    let initial_validation_loss = mean_loss(&net, validation, kf);
    let mut best = (net.clone(), 0, f64::NAN, initial_validation_loss);
    let n1 = net.w1.len();
    let (mut adam_w1, mut adam_b1, mut adam_w2, mut adam_b2) =
        (Adam::new(n1), Adam::new(HIDDEN), Adam::new(2 * HIDDEN), Adam::new(1));
    let mut grads = Grads { w1: vec![0.0; n1], b1: [0.0; HIDDEN], w2: [0.0; 2 * HIDDEN], b2: 0.0 };
    let mut rng = SmallRng::seed_from_u64(config.seed ^ 0x5eed_5eed);
    let mut order: Vec<usize> = (0..train_set.len()).collect();
    let batch = config.batch.max(1);
    let mut t = 0;
    for epoch in 1..=config.epochs {
        for i in (1..order.len()).rev() {
            order.swap(i, rng.random_range(0..=i));
        }
        let mut sum = 0.0f64;
        for chunk in order.chunks(batch) {
            grads.w1.fill(0.0);
            grads.b1 = [0.0; HIDDEN];
            grads.w2 = [0.0; 2 * HIDDEN];
            grads.b2 = 0.0;
            for &i in chunk {
                sum += sample_loss(&net, &train_set[i], kf, Some(&mut grads)) as f64;
            }
            let scale = 1.0 / chunk.len() as f32;
            grads.w1.iter_mut().for_each(|g| *g *= scale);
            grads.b1.iter_mut().for_each(|g| *g *= scale);
            grads.w2.iter_mut().for_each(|g| *g *= scale);
            t += 1;
            let lr = config.learning_rate;
            adam_w1.step(&mut net.w1, &grads.w1, lr, t);
            adam_b1.step(&mut net.b1, &grads.b1, lr, t);
            adam_w2.step(&mut net.w2, &grads.w2, lr, t);
            adam_b2.step(std::slice::from_mut(&mut net.b2), &[grads.b2 * scale], lr, t);
            net.w1.iter_mut().for_each(|w| *w = w.clamp(-W1_LIMIT, W1_LIMIT));
            net.w2.iter_mut().for_each(|w| *w = w.clamp(-W2_LIMIT, W2_LIMIT));
        }
        let train_loss = sum / train_set.len() as f64;
        let validation_loss = mean_loss(&net, validation, kf);
        if validation_loss < best.3 {
            best = (net.clone(), epoch, train_loss, validation_loss);
        }
        on_epoch(&Epoch { index: epoch, train_loss, validation_loss });
    }
    let (float, best_epoch, train_loss, validation_loss) = best;
    let network = float.to_network().map_err(TrainError::Network)?;
    Ok(Trained {
        float,
        network,
        k,
        train_samples: train_set.len(),
        validation_samples: validation.len(),
        initial_validation_loss,
        baseline_loss,
        best_epoch,
        train_loss,
        validation_loss,
    })
}
