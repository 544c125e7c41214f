//! `matombo tune`: SPSA over the evaluation weights by self-play, and a match to check
//! the result against other weights.
//!
//! Every iteration draws a random ±1 direction Δ, plays colour-swapped pairs between
//! w + c·Δ and w − c·Δ with a fixed node (or depth) budget per turn, so that a result never
//! depends on the machine's load, and steps w towards the side that scored better.
//! `material` is not tuned: alpha-beta choices do not change when every weight is scaled,
//! so it stays the unit (100 = one stone) the others are measured in.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use matombo_ai::{Engine, Limits, Weights};
use matombo_core::{Game, GameKind, Outcome, Position, Ruleset, Side};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use matombo_lab::{gains, opening, Gains, Stats, Tally};

/// Arguments of `matombo tune`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Weights files are JSON objects such as
  {\"material\":100,\"mobility\":12,\"threat_to_move\":35,\"threat_waiting\":15,\"heads\":4,\"singles\":25}
(a missing field takes the hand-set value, the one shown). Every weight is an integer from 0 to 1000.

Examples:
  matombo tune --ruleset tsoro:8 --iterations 200 --games-per-iteration 16 --nodes 3000 --threads 2 --out tsoro.json
  matombo tune --ruleset tsoro:8 --validate tsoro.json --games 200 --nodes 3000 --threads 2")]
pub struct Args {
    /// Ruleset to play.
    #[arg(long, default_value = "tsoro:8")]
    pub ruleset: Ruleset,
    /// SPSA iterations.
    #[arg(long, default_value_t = 100)]
    pub iterations: usize,
    /// Games per iteration (an even number: colour-swapped pairs).
    #[arg(long, default_value_t = 16)]
    pub games_per_iteration: usize,
    /// Nodes searched per turn (the default budget: 3000).
    #[arg(long, conflicts_with = "depth")]
    pub nodes: Option<u64>,
    /// Depth searched per turn, in turns, instead of a node budget.
    #[arg(long)]
    pub depth: Option<u32>,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Seed of the directions, openings and engines.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Starting weights (JSON file); default the hand-set weights. With --validate, the
    /// weights played against.
    #[arg(long, value_name = "WEIGHTS_JSON")]
    pub start: Option<PathBuf>,
    /// Write the final weights (JSON) to this file, and the answer so far after every iteration.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Perturbation c of the first iteration, in hundredths of a stone (it decays as k^-0.101).
    #[arg(long, default_value_t = 10.0)]
    pub perturbation: f64,
    /// Step size of the first iteration, as a multiple of c per unit of score difference
    /// (it decays as (1 + k/A)^-0.602 with A a tenth of the iterations).
    #[arg(long, default_value_t = 1.0)]
    pub learning_rate: f64,
    /// Random turns played from the start position to make each opening.
    #[arg(long, default_value_t = 4)]
    pub opening_turns: u32,
    /// Turn cap: a game still going after this many turns counts as a draw.
    #[arg(long, default_value_t = 400)]
    pub max_turns: usize,
    /// Instead of tuning, play the weights in this file against the --start weights
    /// (default the hand-set ones) and report score and Elo.
    #[arg(long, value_name = "WEIGHTS_JSON", conflicts_with_all = ["out", "iterations", "games_per_iteration"])]
    pub validate: Option<PathBuf>,
    /// Games of a --validate match (an even number).
    #[arg(long, default_value_t = 200, requires = "validate")]
    pub games: usize,
    /// Print the result as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Weights as written in files (a mirror of [`Weights`], which has no serde).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WeightsFile {
    material: i32,
    mobility: i32,
    threat_to_move: i32,
    threat_waiting: i32,
    heads: i32,
    singles: i32,
}

impl Default for WeightsFile {
    fn default() -> WeightsFile {
        WeightsFile::from(Weights::HAND_SET)
    }
}

impl From<Weights> for WeightsFile {
    fn from(w: Weights) -> WeightsFile {
        WeightsFile {
            material: w.material,
            mobility: w.mobility,
            threat_to_move: w.threat_to_move,
            threat_waiting: w.threat_waiting,
            heads: w.heads,
            singles: w.singles,
        }
    }
}

impl From<WeightsFile> for Weights {
    fn from(f: WeightsFile) -> Weights {
        Weights {
            material: f.material,
            mobility: f.mobility,
            threat_to_move: f.threat_to_move,
            threat_waiting: f.threat_waiting,
            heads: f.heads,
            singles: f.singles,
        }
    }
}

/// Largest weight accepted or produced.
const MAX_WEIGHT: i32 = 1000;

/// Parses a weights file's text, checking the range of every weight.
pub fn parse_weights(text: &str) -> anyhow::Result<Weights> {
    let v: serde_json::Value = serde_json::from_str(text).context("expected a JSON object of weights")?;
    // Serde would also take a struct from an array; only the named form is a weights file.
    anyhow::ensure!(v.is_object(), "expected a JSON object of weights, not {v}");
    let f: WeightsFile = serde_json::from_value(v).context("expected a JSON object of weights")?;
    let w = Weights::from(f);
    for (name, v) in named(&w) {
        anyhow::ensure!((0..=MAX_WEIGHT).contains(&v), "weight {name} = {v} is outside 0..={MAX_WEIGHT}");
    }
    anyhow::ensure!(w.material >= 1, "weight material must be at least 1 (it is the unit of the others)");
    Ok(w)
}

fn read_weights(path: &Path) -> anyhow::Result<Weights> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse_weights(&text).with_context(|| format!("bad weights file {}", path.display()))
}

fn named(w: &Weights) -> [(&'static str, i32); 6] {
    [
        ("material", w.material),
        ("mobility", w.mobility),
        ("threat_to_move", w.threat_to_move),
        ("threat_waiting", w.threat_waiting),
        ("heads", w.heads),
        ("singles", w.singles),
    ]
}

/// The weights tuned for a game: everything but `material`, and `heads` only in Tsoro
/// (Nsolo's evaluation never reads it).
fn tuned_params(kind: GameKind) -> &'static [&'static str] {
    match kind {
        GameKind::Tsoro => &["mobility", "threat_to_move", "threat_waiting", "heads", "singles"],
        GameKind::Nsolo => &["mobility", "threat_to_move", "threat_waiting", "singles"],
    }
}

fn get(w: &Weights, name: &str) -> i32 {
    named(w).iter().find(|(n, _)| *n == name).map(|p| p.1).expect("a weight name")
}

fn set(w: &mut Weights, name: &str, v: i32) {
    let slot = match name {
        "material" => &mut w.material,
        "mobility" => &mut w.mobility,
        "threat_to_move" => &mut w.threat_to_move,
        "threat_waiting" => &mut w.threat_waiting,
        "heads" => &mut w.heads,
        "singles" => &mut w.singles,
        _ => unreachable!("a weight name"),
    };
    *slot = v;
}

/// One SPSA step (matombo_lab::spsa_step) within the weights' range.
fn spsa_step(theta: &mut [f64], delta: &[f64], g: Gains, r: f64) {
    matombo_lab::spsa_step(theta, delta, g, r, MAX_WEIGHT as f64);
}

/// `base` with the tuned parameters set to `theta + sign·c·Δ`, rounded and clamped.
fn perturbed(base: &Weights, params: &[&str], theta: &[f64], delta: &[f64], c: f64, sign: f64) -> Weights {
    let mut w = *base;
    for (i, name) in params.iter().enumerate() {
        let v = (theta[i] + sign * c * delta[i]).round().clamp(0.0, MAX_WEIGHT as f64);
        set(&mut w, name, v as i32);
    }
    w
}

/// Plays one game from `start`, the `first` weights on `first_side`.
fn play_game(
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

/// Plays `games` games (pairs from shared openings, colours swapped) between `first` and
/// `second` on `threads` threads; `seed` makes openings and engines. The result does not
/// depend on the number of threads.
#[allow(clippy::too_many_arguments)]
fn play_games(
    ruleset: Ruleset,
    first: Weights,
    second: Weights,
    games: usize,
    limits: Limits,
    args: &Args,
    seed: u64,
    on_game: &dyn Fn(&Tally),
) -> Tally {
    let mut tally = Tally::default();
    let work = |i: usize| {
        let pair_seed = seed.wrapping_mul(0x2545_f491_4f6c_dd1d).wrapping_add((i / 2) as u64);
        let start = opening(ruleset, args.opening_turns, |a| pair_seed ^ a.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let side = if i % 2 == 0 { Side::South } else { Side::North };
        (play_game(start, first, second, side, limits, args.max_turns, pair_seed ^ ((i as u64) << 1)), side)
    };
    let counted = matombo_lab::parallel(games, args.threads, work, |_, (r, side)| {
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
    matombo_lab::stats(&t.unfinished_as_draws())
}

/// Checks the arguments before anything runs; returns the per-turn limits.
pub fn check(args: &Args) -> anyhow::Result<Limits> {
    anyhow::ensure!(args.iterations >= 1, "--iterations must be at least 1");
    anyhow::ensure!(
        args.games_per_iteration >= 2 && args.games_per_iteration % 2 == 0,
        "--games-per-iteration must be an even number of at least 2 (colour-swapped pairs), not {}",
        args.games_per_iteration
    );
    anyhow::ensure!(
        args.games >= 2 && args.games % 2 == 0,
        "--games must be an even number of at least 2 (colour-swapped pairs), not {}",
        args.games
    );
    anyhow::ensure!(args.threads >= 1, "--threads must be at least 1");
    anyhow::ensure!(args.max_turns >= 1, "--max-turns must be at least 1");
    anyhow::ensure!(
        args.perturbation.is_finite() && (1.0..=200.0).contains(&args.perturbation),
        "--perturbation must be from 1 to 200 (hundredths of a stone)"
    );
    anyhow::ensure!(
        args.learning_rate.is_finite() && args.learning_rate > 0.0 && args.learning_rate <= 100.0,
        "--learning-rate must be above 0 and at most 100"
    );
    if let Some(d) = args.depth {
        anyhow::ensure!((1..=30).contains(&d), "--depth must be from 1 to 30");
    }
    if let Some(n) = args.nodes {
        anyhow::ensure!(n >= 1, "--nodes must be at least 1");
    }
    if let Some(out) = &args.out {
        anyhow::ensure!(!out.is_dir(), "--out {} is a directory", out.display());
        let parent = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        anyhow::ensure!(parent.is_dir(), "--out: directory {} does not exist", parent.display());
    }
    Ok(match args.depth {
        Some(d) => Limits { depth: Some(d), ..Limits::default() },
        None => Limits { nodes: Some(args.nodes.unwrap_or(3000)), ..Limits::default() },
    })
}

fn show(w: &Weights) -> String {
    named(w).iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(" ")
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let limits = check(&args)?;
    let base = match &args.start {
        Some(p) => read_weights(p)?,
        None => Weights::HAND_SET,
    };
    if let Some(p) = &args.validate {
        let cand = read_weights(p)?;
        return validate(&args, limits, cand, base);
    }
    let kind = args.ruleset.kind();
    let params = tuned_params(kind);
    let mut theta: Vec<f64> = params.iter().map(|n| get(&base, n) as f64).collect();
    let n = args.iterations;
    // Polyak averaging of the second half of the iterates: the answer, less noisy than
    // the last iterate.
    let mut sum = vec![0.0; params.len()];
    let mut summed = 0usize;
    let mut rng = SmallRng::seed_from_u64(args.seed ^ 0x5b5a);
    let bar = super::progress(n as u64, "{bar:30} {pos}/{len} iterations  {msg}  [{elapsed_precise}, eta {eta}]");
    let started = std::time::Instant::now();
    let mut total = Tally::default();
    for k in 0..n {
        let g = gains(args.perturbation, args.learning_rate, k, n);
        let delta: Vec<f64> = params.iter().map(|_| if rng.random_bool(0.5) { 1.0 } else { -1.0 }).collect();
        let plus = perturbed(&base, params, &theta, &delta, g.c, 1.0);
        let minus = perturbed(&base, params, &theta, &delta, g.c, -1.0);
        let seed = args.seed.wrapping_mul(0x1000_0000_01b3).wrapping_add(k as u64);
        let t = play_games(args.ruleset, plus, minus, args.games_per_iteration, limits, &args, seed, &|_| {});
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
        let now = perturbed(&base, params, &theta, &vec![0.0; params.len()], 0.0, 0.0);
        tracing::info!(
            "iteration {} c={:.2} a={:.3} +{} -{} ={} *{} r={:+.3}: {}",
            k + 1,
            g.c,
            g.a,
            t.wins,
            t.losses,
            t.draws,
            t.unfinished,
            r,
            show(&now)
        );
        bar.set_message(show(&now));
        bar.inc(1);
        // A checkpoint every iteration: a long run stopped early still leaves its answer so far.
        if let Some(out) = &args.out {
            let so_far = if summed > 0 {
                let mean: Vec<f64> = sum.iter().map(|s| s / summed as f64).collect();
                perturbed(&base, params, &mean, &vec![0.0; params.len()], 0.0, 0.0)
            } else {
                now
            };
            write_weights(out, &so_far)?;
        }
    }
    bar.finish_and_clear();
    let mean: Vec<f64> = sum.iter().map(|s| s / summed as f64).collect();
    let result = perturbed(&base, params, &mean, &vec![0.0; params.len()], 0.0, 0.0);
    let elapsed = started.elapsed();
    tracing::info!("tuned in {:.1?}: {}", elapsed, show(&result));
    let file = WeightsFile::from(result);
    if let Some(out) = &args.out {
        write_weights(out, &result)?;
    }
    if args.json {
        #[derive(Serialize)]
        struct Out {
            ruleset: String,
            iterations: usize,
            games: u32,
            limits: String,
            seconds: f64,
            start: WeightsFile,
            weights: WeightsFile,
        }
        let out = Out {
            ruleset: args.ruleset.to_string(),
            iterations: n,
            games: total.games(),
            limits: limits_text(&limits),
            seconds: elapsed.as_secs_f64(),
            start: WeightsFile::from(base),
            weights: file,
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!(
            "{} iterations, {} games on {} at {} in {:.0?}",
            n,
            total.games(),
            args.ruleset,
            limits_text(&limits),
            elapsed
        );
        println!("start  {}", show(&base));
        println!("tuned  {}", show(&result));
    }
    Ok(())
}

/// Writes weights as JSON, through a temporary file so that a reader never sees half a file.
fn write_weights(path: &Path, w: &Weights) -> anyhow::Result<()> {
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, serde_json::to_string_pretty(&WeightsFile::from(*w))? + "\n")
        .and_then(|()| std::fs::rename(&tmp, path))
        .with_context(|| format!("cannot write {}", path.display()))
}

fn limits_text(l: &Limits) -> String {
    match (l.nodes, l.depth) {
        (Some(n), _) => format!("nodes={n}"),
        (_, Some(d)) => format!("depth={d}"),
        _ => "default".into(),
    }
}

/// `--validate`: `cand` against `base`, score and Elo for `cand`.
fn validate(args: &Args, limits: Limits, cand: Weights, base: Weights) -> anyhow::Result<()> {
    let bar = super::progress(args.games as u64, "{bar:30} {pos}/{len} games  {msg}  [{elapsed_precise}, eta {eta}]");
    let on_game = |t: &Tally| {
        bar.set_position(t.games() as u64);
        bar.set_message(format!("+{} -{} ={} *{}", t.wins, t.losses, t.draws, t.unfinished));
    };
    // A seed apart from the tuning's, so that the check plays openings of its own.
    let seed = args.seed ^ 0x7a11_da7e;
    let started = std::time::Instant::now();
    let t = play_games(args.ruleset, cand, base, args.games, limits, args, seed, &on_game);
    bar.finish_and_clear();
    let st = stats(&t);
    if args.json {
        #[derive(Serialize)]
        struct Out {
            ruleset: String,
            limits: String,
            games: u32,
            seconds: f64,
            weights: WeightsFile,
            against: WeightsFile,
            #[serde(flatten)]
            tally: Tally,
            stats: Option<Stats>,
        }
        let out = Out {
            ruleset: args.ruleset.to_string(),
            limits: limits_text(&limits),
            games: t.games(),
            seconds: started.elapsed().as_secs_f64(),
            weights: cand.into(),
            against: base.into(),
            tally: t,
            stats: st,
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    println!(
        "{} against {} on {}, {} games at {}",
        show(&cand),
        show(&base),
        args.ruleset,
        t.games(),
        limits_text(&limits)
    );
    println!("wins {}  losses {}  draws {}  unfinished {}", t.wins, t.losses, t.draws, t.unfinished);
    if let Some(s) = st {
        println!(
            "score {:.1}%  Elo {:+.0} (95% interval {:+.0} .. {:+.0})",
            s.score * 100.0,
            s.elo,
            s.elo_low,
            s.elo_high
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use matombo_core::Termination;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn args(line: &[&str]) -> Result<Args, clap::Error> {
        Cli::try_parse_from(std::iter::once("tune").chain(line.iter().copied())).map(|c| c.args)
    }

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
    fn arguments_are_checked() {
        let ok = args(&["--ruleset", "nsolo:8"]).unwrap();
        assert_eq!(check(&ok).unwrap().nodes, Some(3000));
        assert_eq!(check(&args(&["--depth", "3"]).unwrap()).unwrap().depth, Some(3));
        let bad = |line: &[&str], word: &str| {
            let e = check(&args(line).unwrap()).unwrap_err().to_string();
            assert!(e.contains(word), "{line:?}: {e}");
        };
        bad(&["--iterations", "0"], "--iterations");
        bad(&["--games-per-iteration", "3"], "--games-per-iteration");
        bad(&["--games-per-iteration", "0"], "--games-per-iteration");
        bad(&["--threads", "0"], "--threads");
        bad(&["--nodes", "0"], "--nodes");
        bad(&["--depth", "0"], "--depth");
        bad(&["--perturbation", "0.5"], "--perturbation");
        bad(&["--learning-rate", "0"], "--learning-rate");
        bad(&["--learning-rate", "NaN"], "--learning-rate");
        bad(&["--out", "/nonexistent-dir/w.json"], "does not exist");
        bad(&["--out", "/"], "directory");
        bad(&["--validate", "a.json", "--games", "5"], "--games");
        // Clap rejects contradictions.
        assert!(args(&["--nodes", "10", "--depth", "2"]).is_err());
        assert!(args(&["--validate", "a.json", "--out", "b.json"]).is_err());
        assert!(args(&["--games", "10"]).is_err());
        assert!(args(&["--ruleset", "chess"]).is_err());
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
        let a = args(&["--nodes", "100", "--max-turns", "40", "--threads", "1"]).unwrap();
        let b = args(&["--nodes", "100", "--max-turns", "40", "--threads", "2"]).unwrap();
        let (plus, minus) = (Weights { mobility: 40, ..Weights::default() }, Weights::default());
        let rs: Ruleset = "tsoro:6".parse().unwrap();
        let lim = check(&a).unwrap();
        let t1 = play_games(rs, plus, minus, 4, lim, &a, 7, &|_| {});
        let t2 = play_games(rs, plus, minus, 4, lim, &b, 7, &|_| {});
        assert_eq!(t1, t2);
        assert_eq!(t1.games(), 4);
    }
}
