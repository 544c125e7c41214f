//! `matombo tune`: SPSA over the evaluation weights by self-play, and a match to check
//! the result against other weights (the machinery is `matombo_lab::tuning`).

use std::path::{Path, PathBuf};

use anyhow::Context;
use matombo_ai::{Limits, Weights};
use matombo_core::Ruleset;
use serde::Serialize;

use matombo_lab::tuning::{self, limits_text, parse_weights, play_games, show, stats, TuneConfig, WeightsFile};
use matombo_lab::{Stats, Tally};

/// Arguments of `matombo tune`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Weights files are JSON objects such as
  {\"material\":100,\"mobility\":12,\"threat_to_move\":35,\"threat_waiting\":15,\"heads\":4,\"singles\":25}
(a missing field takes the hand-set value, the one shown). Every weight is an integer from 0 to 1000.

Examples:
  matombo tune --ruleset tsoro:8 --iterations 200 --games-per-iteration 16 --nodes 3000 --threads 2 --out tsoro.json
  matombo tune --ruleset tsoro:8 --validate tsoro.json --games 200 --nodes 3000 --threads 2
  matombo tune --ruleset nsolo:8 --texel 2000 --nodes 3000 --threads 2 --out nsolo.json")]
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
    /// Instead of tuning by SPSA, fit the weights to the results of this many self-play
    /// games of the --start weights (default the game's own) by the Texel method.
    #[arg(long, value_name = "GAMES", conflicts_with_all = ["validate", "iterations", "games_per_iteration"])]
    pub texel: Option<usize>,
    /// Games of a --validate match (an even number).
    #[arg(long, default_value_t = 200, requires = "validate")]
    pub games: usize,
    /// Print the result as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

fn read_weights(path: &Path) -> anyhow::Result<Weights> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse_weights(&text).with_context(|| format!("bad weights file {}", path.display()))
}

impl Args {
    /// How games are played, with the per-turn `limits`.
    fn config(&self, limits: Limits) -> TuneConfig {
        TuneConfig {
            ruleset: self.ruleset,
            limits,
            threads: self.threads,
            opening_turns: self.opening_turns,
            max_turns: self.max_turns,
            iterations: self.iterations,
            games_per_iteration: self.games_per_iteration,
            perturbation: self.perturbation,
            learning_rate: self.learning_rate,
            seed: self.seed,
        }
    }
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

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let limits = check(&args)?;
    let config = args.config(limits);
    if let Some(games) = args.texel {
        let base = args.start.as_deref().map(read_weights).transpose()?;
        return texel(&args, &config, base.unwrap_or(Weights::for_kind(args.ruleset.kind())), games);
    }
    let base = match &args.start {
        Some(p) => read_weights(p)?,
        None => Weights::HAND_SET,
    };
    if let Some(p) = &args.validate {
        let cand = read_weights(p)?;
        return validate(&args, &config, cand, base);
    }
    let n = args.iterations;
    let bar = super::progress(n as u64, "{bar:30} {pos}/{len} iterations  {msg}  [{elapsed_precise}, eta {eta}]");
    let started = std::time::Instant::now();
    let tuned = tuning::tune(&config, base, |it| -> anyhow::Result<()> {
        let (g, t) = (it.gains, it.tally);
        tracing::info!(
            "iteration {} c={:.2} a={:.3} +{} -{} ={} *{} r={:+.3}: {}",
            it.index + 1,
            g.c,
            g.a,
            t.wins,
            t.losses,
            t.draws,
            t.unfinished,
            it.balance,
            show(&it.now)
        );
        bar.set_message(show(&it.now));
        bar.inc(1);
        // A checkpoint every iteration: a long run stopped early still leaves its answer so far.
        if let Some(out) = &args.out {
            write_weights(out, &it.so_far)?;
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    let (result, total) = (tuned.weights, tuned.total);
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

/// `--texel`: the weights fitted to `games` self-play games of `base`.
fn texel(args: &Args, config: &TuneConfig, base: Weights, games: usize) -> anyhow::Result<()> {
    anyhow::ensure!(games >= 1, "--texel must be at least 1 game");
    let started = std::time::Instant::now();
    let samples = matombo_lab::texel::self_play(config, base, games);
    anyhow::ensure!(!samples.is_empty(), "no game of the {games} ended within --max-turns");
    let fitted = matombo_lab::texel::fit(&samples, base, &matombo_lab::texel::param_indices(args.ruleset.kind()));
    if let Some(out) = &args.out {
        write_weights(out, &fitted.weights)?;
    }
    let limits = limits_text(&config.limits);
    let (k, before, after, seconds) =
        (fitted.k, fitted.error_before, fitted.error_after, started.elapsed().as_secs_f64());
    if args.json {
        #[derive(Serialize)]
        struct Out {
            ruleset: String,
            games: usize,
            positions: usize,
            limits: String,
            seconds: f64,
            k: f64,
            error_before: f64,
            error_after: f64,
            start: WeightsFile,
            weights: WeightsFile,
        }
        let (ruleset, positions) = (args.ruleset.to_string(), samples.len());
        let (start, weights) = (base.into(), fitted.weights.into());
        let out = Out {
            ruleset,
            games,
            positions,
            limits,
            seconds,
            k,
            error_before: before,
            error_after: after,
            start,
            weights,
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!("{games} games on {}, {} quiet positions, at {limits} in {seconds:.0}s", args.ruleset, samples.len());
        println!("K {k:.6} per hundredth of a stone; mean squared error {before:.5} -> {after:.5}");
        println!("start  {}", show(&base));
        println!("fitted {}", show(&fitted.weights));
    }
    Ok(())
}

/// `--validate`: `cand` against `base`, score and Elo for `cand`.
fn validate(args: &Args, config: &TuneConfig, cand: Weights, base: Weights) -> anyhow::Result<()> {
    let limits = config.limits;
    let bar = super::progress(args.games as u64, "{bar:30} {pos}/{len} games  {msg}  [{elapsed_precise}, eta {eta}]");
    let on_game = |t: &Tally| {
        bar.set_position(t.games() as u64);
        bar.set_message(format!("+{} -{} ={} *{}", t.wins, t.losses, t.draws, t.unfinished));
    };
    // A seed apart from the tuning's, so that the check plays openings of its own.
    let seed = args.seed ^ 0x7a11_da7e;
    let started = std::time::Instant::now();
    let t = play_games(config, cand, base, args.games, seed, &on_game);
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

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn args(line: &[&str]) -> Result<Args, clap::Error> {
        Cli::try_parse_from(std::iter::once("tune").chain(line.iter().copied())).map(|c| c.args)
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
        assert!(args(&["--texel", "10", "--validate", "a.json"]).is_err());
        assert!(args(&["--texel", "10", "--iterations", "5"]).is_err());
        assert!(args(&["--games", "10"]).is_err());
        assert!(args(&["--ruleset", "chess"]).is_err());
    }
}
