//! `matombo attack`: replays the attacks of issue 29 on loopback while an honest client
//! measures; a table (or JSON) per attack and a non-zero exit on a failed verdict. The
//! harness is `matombo_harness::attack`.

use std::time::Duration;

use matombo_harness::attack::{self, Config, Scale, Thresholds, ATTACKS};

/// Arguments of `matombo attack`.
#[derive(clap::Args)]
#[command(after_help = "Attacks, in order: foreign-origin (posts and WebSocket upgrades from a foreign Origin,
text/plain bodies), huge-tags (records of 100,000 tags exported and 80,000 imported), long-game
(a long legal game sent to /api/ai at the max level by 96 clients at once, and games over the
turn bound), one-room (one address drives one room over 62 connections sharing its seat links),
create-resign (create, claim, resign as fast as possible), idle-sockets (20,000 connections that
never send a byte, from many addresses), room-fill (500 addresses creating 25 rooms each).

Attackers connect from 127.1.x.y, 127.2.x.y, … (Linux routes 127.0.0.0/8 to loopback), the
honest client from 127.0.0.1; it sends GET / every 50 ms and plays an online game at 4 turns/s.

Examples:
  matombo attack                        # in-process server with the production limits, 20 s each
  matombo attack --short --json         # the CI size: a few seconds each
  matombo attack --only idle-sockets,room-fill --duration 30
  matombo attack --url http://127.0.0.1:8080")]
pub struct Args {
    /// Seconds each attack runs (default 20, or 4 with --short).
    #[arg(long)]
    pub duration: Option<f64>,
    /// Smaller attacks, a few seconds each (CI).
    #[arg(long)]
    pub short: bool,
    /// Attack a running server on loopback instead of one started in this process.
    /// Repeated: the nodes of one cluster; the attacks go round them, the honest client
    /// on the next node.
    #[arg(long)]
    pub url: Vec<String>,
    /// Run only these attacks (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Honest `GET /` p99 bound of the verdict, ms.
    #[arg(long, default_value_t = Thresholds::default().get_p99_ms)]
    pub max_get_p99_ms: f64,
    /// Honest online turn p99 bound of the verdict, ms.
    #[arg(long, default_value_t = Thresholds::default().turn_p99_ms)]
    pub max_turn_p99_ms: f64,
    /// Print the reports as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let seconds = args.duration.unwrap_or(if args.short { 4.0 } else { 20.0 });
    anyhow::ensure!((1.0..=600.0).contains(&seconds), "--duration: from 1 to 600 seconds");
    let thresholds =
        Thresholds { get_p99_ms: args.max_get_p99_ms, turn_p99_ms: args.max_turn_p99_ms, ..Thresholds::default() };
    let config = Config {
        urls: args.url,
        duration: Duration::from_secs_f64(seconds),
        scale: if args.short { Scale::Short } else { Scale::Full },
        only: args.only,
        thresholds,
    };
    let count = if config.only.is_empty() { ATTACKS.len() } else { config.only.len() };
    let bar = super::progress(count as u64, "{bar:30} {pos}/{len} attacks  {msg}  [{elapsed_precise}]");
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let reports = rt.block_on(attack::run(&config, |name| {
        tracing::info!("attack {name}");
        bar.set_message(name.to_string());
        bar.inc(1);
    }));
    bar.finish_and_clear();
    let reports = reports.map_err(|e| anyhow::anyhow!(e))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    } else {
        print!("{}", attack::table(&reports, &thresholds));
    }
    let failed: Vec<&str> = reports.iter().filter(|r| !r.pass).map(|r| r.attack.as_str()).collect();
    anyhow::ensure!(failed.is_empty(), "failed verdict: {}", failed.join(", "));
    Ok(())
}
