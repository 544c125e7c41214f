//! `matombo puzzles`: mine puzzles from self-play, list them, re-prove them
//! (crate `matombo_lab::puzzles`; docs/puzzles.md).

mod online;

use std::collections::HashSet;
use std::io::Write;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use matombo_core::Ruleset;
use matombo_lab::puzzles::{self, MineConfig, Puzzle};

/// Arguments of `matombo puzzles`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Sub,
}

/// The subcommands.
#[derive(clap::Subcommand)]
pub enum Sub {
    /// Mine puzzles from engine self-play, each proved by the exact solver.
    #[command(after_help = "Engines of three strengths (depth 1 with 40% random turns, depth 2 with 10%, \
                            depth 4) play seeded games from random openings. Near each game's end a \
                            position is kept when the side to move has a forced win within 9 turns, let \
                            in by the turn before, and every winning move of the line is the only one \
                            that wins that soon. The same arguments give the same puzzles.\n\n\
                            Examples:\n  matombo puzzles generate --games 40 --out puzzles.jsonl\n  \
                            matombo puzzles generate --rulesets tsoro:21 --games 20 --first 20 --out puzzles.jsonl --append")]
    Generate(GenerateArgs),
    /// Print puzzles: a table, or with --json one JSON object a line.
    List(ListArgs),
    /// Re-prove puzzles: value, distance, and that each solver move is the only win.
    Check(CheckArgs),
}

/// Arguments of `matombo puzzles generate`.
#[derive(clap::Args)]
pub struct GenerateArgs {
    /// Boards, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "tsoro:6,tsoro:8,tsoro:21,nsolo:8")]
    pub rulesets: Vec<Ruleset>,
    /// Self-play games per board (0 with --db: the online games only).
    #[arg(long, default_value_t = 40)]
    pub games: usize,
    /// Index of the first game (to mine in chunks: `--first 40 --games 40 --append`).
    #[arg(long, default_value_t = 0)]
    pub first: usize,
    /// The seed of the openings, the engines and their random turns.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Solver nodes per question; a position needing more is skipped.
    #[arg(long, default_value_t = 300_000)]
    pub nodes: u64,
    /// The most puzzles one game gives.
    #[arg(long, default_value_t = 2)]
    pub per_game: usize,
    /// Endgame tables (the directory `matombo egtb build --dir` wrote), for the boards they cover.
    #[arg(long, value_name = "DIR")]
    pub egtb: Option<PathBuf>,
    /// Worker threads (the output does not depend on them).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Write here instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Add to --out, skipping positions it already holds.
    #[arg(long, requires = "out")]
    pub append: bool,
    /// Also mine the finished online games of this store (a SQLite file or a
    /// postgres:// URL, as `serve --db`), those of --rulesets, after the self-play ones.
    #[arg(long, value_name = "PATH_OR_URL")]
    pub db: Option<String>,
}

/// Arguments of `matombo puzzles list`.
#[derive(clap::Args)]
pub struct ListArgs {
    /// A puzzles file (default: the shipped ones).
    pub file: Option<PathBuf>,
    /// One JSON object a line.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `matombo puzzles check`.
#[derive(clap::Args)]
pub struct CheckArgs {
    /// A puzzles file (default: the shipped ones).
    pub file: Option<PathBuf>,
    /// Check only this many, chosen at random (seeded).
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// The seed of --sample.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Solver nodes per question.
    #[arg(long, default_value_t = 50_000_000)]
    pub nodes: u64,
    /// Endgame tables, for the boards they cover.
    #[arg(long, value_name = "DIR")]
    pub egtb: Option<PathBuf>,
    /// One JSON object (the summary and the failures) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Sub::Generate(a) => generate(a),
        Sub::List(a) => list(a),
        Sub::Check(a) => check(a),
    }
}

fn load(file: Option<&Path>) -> anyhow::Result<Vec<Puzzle>> {
    match file {
        Some(f) => {
            let text = std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?;
            puzzles::parse_jsonl(&text).with_context(|| format!("in {}", f.display()))
        }
        None => puzzles::parse_jsonl(matombo_web::puzzles::jsonl()).context("in the shipped puzzles"),
    }
}

fn tables_of(dir: Option<&Path>, ruleset: Ruleset) -> anyhow::Result<Option<std::sync::Arc<matombo_egtb::Tables>>> {
    let Some(dir) = dir else { return Ok(None) };
    // Tables for some boards only: the others are solved by search alone.
    let all = matombo_egtb::Tables::open_all(dir)
        .with_context(|| format!("reading the endgame tables in {}", dir.display()))?;
    Ok(all.into_iter().find(|t| t.ruleset() == ruleset).map(std::sync::Arc::new))
}

fn generate(a: GenerateArgs) -> anyhow::Result<()> {
    anyhow::ensure!(a.games >= 1 || a.db.is_some(), "--games must be at least 1 (or 0 with --db)");
    anyhow::ensure!(a.per_game >= 1, "--per-game must be at least 1");
    let mut existing = Vec::new();
    if a.append {
        if let Some(out) = a.out.as_deref().filter(|p| p.exists()) {
            existing = load(Some(out))?;
        }
    }
    let mut seen: HashSet<String> = existing.iter().map(|p| p.position.clone()).collect();
    let started = Instant::now();
    let bar = super::progress(
        (a.games * a.rulesets.len()) as u64,
        "{bar:30} {pos}/{len} games, {msg} ({elapsed}, eta {eta})",
    );
    let mut found: Vec<Puzzle> = Vec::new();
    for &ruleset in &a.rulesets {
        if a.games == 0 {
            continue;
        }
        let config = config_of(&a, ruleset)?;
        let mut by_game: Vec<Option<Vec<Puzzle>>> = vec![None; a.games];
        matombo_lab::parallel(
            a.games,
            a.threads,
            |i| puzzles::mine(&config, a.first + i),
            |i, ps| {
                by_game[i] = Some(ps);
                bar.inc(1);
                let n: usize = by_game.iter().flatten().map(Vec::len).sum();
                bar.set_message(format!("{ruleset}: {n} puzzles"));
                Ok::<_, anyhow::Error>(ControlFlow::Continue(()))
            },
        )?;
        // Game order, whatever order the threads finished in.
        let mut n = 0;
        for p in by_game.into_iter().flatten().flatten() {
            if seen.insert(p.position.clone()) {
                found.push(p);
                n += 1;
            }
        }
        tracing::info!("{ruleset}: {n} puzzles from {} games", a.games);
    }
    bar.finish_and_clear();
    if let Some(db) = &a.db {
        found.extend(online::mine_online(&a, db, &mut seen)?);
    }
    let mut text = String::new();
    for p in &found {
        text.push_str(&serde_json::to_string(p)?);
        text.push('\n');
    }
    match &a.out {
        Some(path) => {
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .write(true)
                .append(a.append)
                .truncate(!a.append)
                .open(path)
                .with_context(|| format!("writing {}", path.display()))?;
            f.write_all(text.as_bytes())?;
            eprintln!(
                "{} new puzzles ({} in the file) from {} self-play games a board in {:.0} s",
                found.len(),
                existing.len() + found.len(),
                a.games,
                started.elapsed().as_secs_f64()
            );
        }
        None => print!("{text}"),
    }
    Ok(())
}

fn config_of(a: &GenerateArgs, ruleset: Ruleset) -> anyhow::Result<MineConfig> {
    Ok(MineConfig {
        ruleset,
        seed: a.seed ^ hash_str(&ruleset.to_string()),
        nodes: a.nodes,
        tables: tables_of(a.egtb.as_deref(), ruleset)?,
        per_game: a.per_game,
    })
}

fn hash_str(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

fn list(a: ListArgs) -> anyhow::Result<()> {
    let all = load(a.file.as_deref())?;
    for p in &all {
        if a.json {
            println!("{}", serde_json::to_string(p)?);
        } else {
            println!("{:8} {:>6} {:10} {:40} {}", p.id, p.rating, p.result, p.themes.join(","), p.position);
        }
    }
    Ok(())
}

#[derive(serde::Serialize)]
struct Failure {
    id: String,
    error: String,
}

fn check(a: CheckArgs) -> anyhow::Result<()> {
    let mut all = load(a.file.as_deref())?;
    if let Some(n) = a.sample {
        // A seeded choice: ordered by a hash of the seed and the id.
        all.sort_by_key(|p| hash_str(&format!("{}/{}", a.seed, p.id)));
        all.truncate(n);
    }
    let started = Instant::now();
    let bar = super::progress(all.len() as u64, "{bar:30} {pos}/{len} puzzles, {msg} ({elapsed}, eta {eta})");
    let mut tables = std::collections::HashMap::new();
    let mut failures = Vec::new();
    for p in &all {
        let ruleset = p.position.split_whitespace().next().and_then(|r| r.parse::<Ruleset>().ok());
        let t = match (ruleset, &a.egtb) {
            (Some(r), Some(dir)) => {
                if let std::collections::hash_map::Entry::Vacant(e) = tables.entry(r) {
                    e.insert(tables_of(Some(dir), r)?);
                }
                tables[&r].clone()
            }
            _ => None,
        };
        if let Err(e) = puzzles::check(p, t.as_deref(), a.nodes) {
            bar.suspend(|| eprintln!("{} {}: {e}", p.id, p.position));
            failures.push(Failure { id: p.id.clone(), error: e.to_string() });
        }
        bar.inc(1);
        bar.set_message(format!("{} failed", failures.len()));
    }
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    if a.json {
        println!(
            "{}",
            serde_json::json!({"checked": all.len(), "proved": all.len() - failures.len(), "failures": failures, "seconds": seconds})
        );
    } else {
        println!(
            "{} of {} puzzles proved (value, distance, each solver move the only win) in {seconds:.1} s",
            all.len() - failures.len(),
            all.len()
        );
        for f in &failures {
            println!("FAILED {}: {}", f.id, f.error);
        }
    }
    anyhow::ensure!(failures.is_empty(), "{} of {} puzzles failed the check", failures.len(), all.len());
    Ok(())
}
