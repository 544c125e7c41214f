//! `matombo train`: self-play data for the NNUE-style network, and the training of a network
//! on it (the machinery is `matombo_lab::nnue`).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use matombo_ai::Limits;
use matombo_core::Ruleset;
use serde::Serialize;

use matombo_lab::nnue::{read_dataset, self_play_each, train, write_dataset, TrainConfig};
use matombo_lab::tuning::{limits_text, TuneConfig};

/// The two steps of `matombo train`.
#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Play self-play games and write their quiet positions, search scores and results.
    Data(DataArgs),
    /// Train a network on a dataset and write it.
    Net(NetArgs),
}

/// Arguments of `matombo train data`.
#[derive(clap::Args, Debug)]
#[command(after_help = "A dataset has one line per quiet position of a finished game:
  POSITION<TAB>SCORE<TAB>RESULT
the search's score for the side to move (hundredths of a stone) and the game's result for it
(1, 0.5 or 0). Forced results found by the search are left out.

Examples:
  matombo train data --ruleset nsolo:8 --games 3000 --nodes 3000 --threads 2 --seed 1 --out nsolo8.tsv
  matombo train data --ruleset tsoro:6 --games 20 --nodes 300 --out tiny.tsv")]
pub struct DataArgs {
    /// Ruleset to play.
    #[arg(long, default_value = "nsolo:8")]
    pub ruleset: Ruleset,
    /// Self-play games.
    #[arg(long, default_value_t = 1000)]
    pub games: usize,
    /// Nodes searched per turn (the default budget: 3000).
    #[arg(long, conflicts_with = "depth")]
    pub nodes: Option<u64>,
    /// Depth searched per turn, in turns, instead of a node budget.
    #[arg(long)]
    pub depth: Option<u32>,
    /// Games played at the same time (the data does not depend on it).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Seed of the openings and engines.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Random turns played from the start position to make each opening.
    #[arg(long, default_value_t = 4)]
    pub opening_turns: u32,
    /// Turn cap: a game still going after this many turns is left out.
    #[arg(long, default_value_t = 400)]
    pub max_turns: usize,
    /// The dataset file to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `matombo train net`.
#[derive(clap::Args, Debug)]
#[command(after_help = "The network learns sigmoid(K*net) against lambda*sigmoid(K*search) + (1-lambda)*result,
K fitted to the dataset's search scores and results. The last tenth of the dataset is held out for
validation; the best epoch's weights are written. The baseline is the hand-written evaluation's
validation loss.

Examples:
  matombo train net --data nsolo8.tsv --out nsolo8.nnue --epochs 30 --lr 0.001 --lambda 0.75 --seed 1
  matombo train net --data tiny.tsv --out tiny.nnue --epochs 2 --json")]
pub struct NetArgs {
    /// The dataset (written by `matombo train data`).
    #[arg(long, value_name = "FILE")]
    pub data: PathBuf,
    /// The network file to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Passes over the training samples.
    #[arg(long, default_value_t = 30)]
    pub epochs: usize,
    /// Adam's step size.
    #[arg(long, default_value_t = 0.001)]
    pub lr: f32,
    /// Weight of the search's score in the target, from 0 (results only) to 1 (scores only).
    #[arg(long, default_value_t = 0.75)]
    pub lambda: f32,
    /// Samples per minibatch.
    #[arg(long, default_value_t = 256)]
    pub batch: usize,
    /// Seed of the start weights and the shuffles.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Checks that `out` can be written: not a directory, in a directory that exists.
fn check_out(flag: &str, out: &Path) -> anyhow::Result<()> {
    anyhow::ensure!(!out.is_dir(), "{flag} {} is a directory", out.display());
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    anyhow::ensure!(parent.is_dir(), "{flag}: directory {} does not exist", parent.display());
    Ok(())
}

/// Checks `train data`'s arguments before anything runs; returns the per-turn limits.
pub fn check_data(args: &DataArgs) -> anyhow::Result<Limits> {
    anyhow::ensure!(args.games >= 1, "--games must be at least 1");
    anyhow::ensure!(args.threads >= 1, "--threads must be at least 1");
    anyhow::ensure!(args.max_turns >= 1, "--max-turns must be at least 1");
    if let Some(d) = args.depth {
        anyhow::ensure!((1..=30).contains(&d), "--depth must be from 1 to 30");
    }
    if let Some(n) = args.nodes {
        anyhow::ensure!(n >= 1, "--nodes must be at least 1");
    }
    check_out("--out", &args.out)?;
    Ok(match args.depth {
        Some(d) => Limits { depth: Some(d), ..Limits::default() },
        None => Limits { nodes: Some(args.nodes.unwrap_or(3000)), ..Limits::default() },
    })
}

/// Checks `train net`'s arguments before anything runs; returns the training settings.
pub fn check_net(args: &NetArgs) -> anyhow::Result<TrainConfig> {
    anyhow::ensure!(args.epochs >= 1, "--epochs must be at least 1");
    anyhow::ensure!(
        args.lr.is_finite() && args.lr > 0.0 && args.lr <= 1.0,
        "--lr must be above 0 and at most 1, not {}",
        args.lr
    );
    anyhow::ensure!(
        args.lambda.is_finite() && (0.0..=1.0).contains(&args.lambda),
        "--lambda must be from 0 to 1, not {}",
        args.lambda
    );
    anyhow::ensure!(args.batch >= 1, "--batch must be at least 1");
    anyhow::ensure!(args.data.is_file(), "--data {} is not a file", args.data.display());
    check_out("--out", &args.out)?;
    Ok(TrainConfig {
        epochs: args.epochs,
        learning_rate: args.lr,
        lambda: args.lambda,
        batch: args.batch,
        seed: args.seed,
    })
}

/// Runs the subcommand.
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Data(a) => data(a),
        Command::Net(a) => net(a),
    }
}

/// Writes `bytes` to `path` through a temporary file, so that a reader never sees half a file.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let result = std::fs::File::create(&tmp).and_then(|f| {
        let mut w = std::io::BufWriter::new(f);
        write(&mut w)?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()
    });
    result.and_then(|()| std::fs::rename(&tmp, path)).with_context(|| format!("cannot write {}", path.display()))
}

fn data(args: DataArgs) -> anyhow::Result<()> {
    let limits = check_data(&args)?;
    let config = TuneConfig {
        ruleset: args.ruleset,
        limits,
        threads: args.threads,
        opening_turns: args.opening_turns,
        max_turns: args.max_turns,
        iterations: 1,
        games_per_iteration: 2,
        perturbation: 10.0,
        learning_rate: 1.0,
        seed: args.seed,
    };
    let bar = super::progress(args.games as u64, "{bar:30} {pos}/{len} games  [{elapsed_precise}, eta {eta}]");
    let started = std::time::Instant::now();
    // Each game's samples are written as it ends (in the games' order): nothing is held
    // in memory, and the file is renamed into place once every game is in.
    let mut count = 0;
    write_atomically(&args.out, |w| {
        self_play_each(&config, args.games, |done, samples| {
            bar.set_position(done as u64);
            count += samples.len();
            write_dataset(w, &samples)
        })
    })?;
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    if count == 0 {
        let _ = std::fs::remove_file(&args.out);
        anyhow::bail!("no game of the {} ended within --max-turns with a quiet position", args.games);
    }
    let limits = limits_text(&limits);
    if args.json {
        #[derive(Serialize)]
        struct Out {
            ruleset: String,
            games: usize,
            samples: usize,
            limits: String,
            seconds: f64,
            out: String,
        }
        let out = Out {
            ruleset: args.ruleset.to_string(),
            games: args.games,
            samples: count,
            limits,
            seconds,
            out: args.out.display().to_string(),
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!(
            "{} games on {} at {limits} in {seconds:.0}s: {} samples written to {}",
            args.games,
            args.ruleset,
            count,
            args.out.display()
        );
    }
    Ok(())
}

fn net(args: NetArgs) -> anyhow::Result<()> {
    let config = check_net(&args)?;
    let text = std::fs::read_to_string(&args.data).with_context(|| format!("cannot read {}", args.data.display()))?;
    let samples = read_dataset(&text).with_context(|| format!("bad dataset {}", args.data.display()))?;
    anyhow::ensure!(!samples.is_empty(), "dataset {} has no samples", args.data.display());
    let ruleset = samples[0].position.ruleset();
    let bar =
        super::progress(config.epochs as u64, "{bar:30} {pos}/{len} epochs  {msg}  [{elapsed_precise}, eta {eta}]");
    let started = std::time::Instant::now();
    let mut epochs = Vec::new();
    let trained = train(&samples, &config, |e| {
        if !args.json {
            bar.suspend(|| {
                println!("epoch {:3}  train {:.6}  validation {:.6}", e.index, e.train_loss, e.validation_loss)
            });
        }
        bar.set_message(format!("validation {:.6}", e.validation_loss));
        bar.inc(1);
        epochs.push(EpochOut { epoch: e.index, train_loss: e.train_loss, validation_loss: e.validation_loss });
    })?;
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    let bytes = trained.network.to_bytes();
    write_atomically(&args.out, |w| w.write_all(&bytes))?;
    if args.json {
        #[derive(Serialize)]
        struct Out {
            ruleset: String,
            samples: usize,
            train_samples: usize,
            validation_samples: usize,
            epochs: usize,
            lr: f32,
            lambda: f32,
            batch: usize,
            seed: u64,
            k: f64,
            seconds: f64,
            initial_validation_loss: f64,
            baseline_loss: f64,
            best_epoch: usize,
            train_loss: f64,
            validation_loss: f64,
            per_epoch: Vec<EpochOut>,
            out: String,
        }
        let out = Out {
            ruleset: ruleset.to_string(),
            samples: samples.len(),
            train_samples: trained.train_samples,
            validation_samples: trained.validation_samples,
            epochs: config.epochs,
            lr: config.learning_rate,
            lambda: config.lambda,
            batch: config.batch,
            seed: config.seed,
            k: trained.k,
            seconds,
            initial_validation_loss: trained.initial_validation_loss,
            baseline_loss: trained.baseline_loss,
            best_epoch: trained.best_epoch,
            train_loss: trained.train_loss,
            validation_loss: trained.validation_loss,
            per_epoch: epochs,
            out: args.out.display().to_string(),
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!(
            "{} samples of {ruleset} ({} trained on, {} held out), K {:.6} per hundredth of a stone, {} epochs in {seconds:.0}s",
            samples.len(),
            trained.train_samples,
            trained.validation_samples,
            trained.k,
            config.epochs
        );
        println!(
            "validation loss: start {:.6}, hand-written evaluation {:.6}, network {:.6} (epoch {}, train {:.6})",
            trained.initial_validation_loss,
            trained.baseline_loss,
            trained.validation_loss,
            trained.best_epoch,
            trained.train_loss
        );
        println!("network written to {}", args.out.display());
    }
    Ok(())
}

/// One epoch's losses in the JSON summary.
#[derive(Serialize)]
struct EpochOut {
    epoch: usize,
    train_loss: f64,
    validation_loss: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(subcommand)]
        command: Command,
    }

    fn args(line: &[&str]) -> Result<Command, clap::Error> {
        Cli::try_parse_from(std::iter::once("train").chain(line.iter().copied())).map(|c| c.command)
    }

    fn error(line: &[&str]) -> String {
        match args(line).unwrap() {
            Command::Data(a) => check_data(&a).unwrap_err().to_string(),
            Command::Net(a) => check_net(&a).unwrap_err().to_string(),
        }
    }

    #[test]
    fn arguments_are_checked() {
        let Command::Data(ok) = args(&["data", "--out", "d.tsv"]).unwrap() else { panic!() };
        assert_eq!(check_data(&ok).unwrap().nodes, Some(3000));
        let Command::Data(ok) = args(&["data", "--out", "d.tsv", "--depth", "3"]).unwrap() else { panic!() };
        assert_eq!(check_data(&ok).unwrap().depth, Some(3));
        let bad = |line: &[&str], word: &str| {
            let e = error(line);
            assert!(e.contains(word), "{line:?}: {e}");
        };
        bad(&["data", "--out", "d.tsv", "--games", "0"], "--games");
        bad(&["data", "--out", "d.tsv", "--threads", "0"], "--threads");
        bad(&["data", "--out", "d.tsv", "--nodes", "0"], "--nodes");
        bad(&["data", "--out", "d.tsv", "--depth", "31"], "--depth");
        bad(&["data", "--out", "d.tsv", "--max-turns", "0"], "--max-turns");
        bad(&["data", "--out", "/nonexistent-dir/d.tsv"], "does not exist");
        bad(&["data", "--out", "/"], "directory");
        // The dataset must exist; the crate's manifest stands in for one.
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        let net = |extra: &[&str]| {
            let mut line = vec!["net", "--data", data, "--out", "n.nnue"];
            line.extend_from_slice(extra);
            line.into_iter().map(String::from).collect::<Vec<_>>()
        };
        let with = |extra: &[&str], word: &str| {
            let line = net(extra);
            bad(&line.iter().map(String::as_str).collect::<Vec<_>>(), word);
        };
        with(&["--epochs", "0"], "--epochs");
        with(&["--lr", "0"], "--lr");
        with(&["--lr", "NaN"], "--lr");
        with(&["--lr", "2"], "--lr");
        with(&["--lambda", "1.5"], "--lambda");
        with(&["--lambda=-0.1"], "--lambda");
        with(&["--batch", "0"], "--batch");
        bad(&["net", "--data", "/nonexistent.tsv", "--out", "n.nnue"], "not a file");
        bad(&["net", "--data", data, "--out", "/nonexistent-dir/n.nnue"], "does not exist");
        // Clap rejects what is missing or contradictory.
        assert!(args(&["data"]).is_err());
        assert!(args(&["net", "--out", "n.nnue"]).is_err());
        assert!(args(&["data", "--out", "d.tsv", "--nodes", "10", "--depth", "2"]).is_err());
        assert!(args(&["data", "--out", "d.tsv", "--ruleset", "chess"]).is_err());
        assert!(args(&["fit"]).is_err());
    }
}
