//! `matombo match`: two engines play colour-swapped pairs of games; score, Elo, SPRT.

use std::fmt;
use std::io::Write;
use std::ops::ControlFlow;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::Context;
use matombo_ai::{greedy_turn, random_turn, Engine, Level, Limits, Mcts, MctsConfig, DEFAULT_HASH_MIB, MAX_HASH_MIB};
use matombo_core::{Game, Position, Record, Ruleset, Side, Token};
use matombo_lab::{balanced_opening, opening, sprt, stats, Sprt, Stats, Tally, Verdict};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde::Serialize;

/// Arguments of `matombo match`.
#[derive(clap::Args)]
#[command(after_help = "Engine specs: a level (beginner, easy, medium, hard, max), a baseline (random: uniformly
random turns; greedy: the biggest immediate capture), or limits `time=MS`, `depth=D`,
`nodes=N`, comma-separated and optionally after a level, in place of its own limits:
`max,time=6000`, `hard,depth=16`, `depth=4,time=500` (a level's limits are those of the
match's board: hard stops at depth 12 on boards of up to 12 holes a row and after
250,000 nodes on boards of more than 21), and `hash=MIB`, the size of the search's
transposition table (default 16, as the levels play; `max,hash=256`); or `mcts`
(Monte-Carlo tree search) with `time=MS` and/or `nodes=N` (iterations; default:
time=1000, the hard level's budget) and tuning options `c=X` (exploration), `playout=T`
(random turns before evaluating a leaf), `scale=S` (evaluation per logit), `prior=V`
(virtual visits of a new child), `mm=A` (weight of the implicit minimax value, 0..1):
`mcts,time=100`, `mcts,nodes=5000,playout=4`.

Every opening (a few random turns from the start position) is played twice with colours
swapped. Games reaching --max-turns are unfinished (`*`) and left out of the score.
With --balanced CP, an opening is kept only if a search scores it within ±CP (the score
`matombo analyse POS --nodes N` prints, N = --balance-nodes) and proves no forced win:
an opening already decided splits its pair 1-1 whoever plays it, and tells nothing about
the engines.

Examples:
  matombo match hard greedy --ruleset tsoro:8 --games 200 --threads 2 --records hard-greedy.pgn
  matombo match time=100 time=50 --ruleset nsolo:8 --games 100 --sprt 0,50 --json
  matombo match max hard --ruleset tsoro:8 --games 200 --threads 2 --balanced 150
  matombo match mcts,time=100 time=100 --ruleset nsolo:36 --games 40 --json")]
pub struct Args {
    /// First engine (the one the score is for).
    pub first: Spec,
    /// Second engine.
    pub second: Spec,
    /// Ruleset to play.
    #[arg(long, default_value = "tsoro:8")]
    pub ruleset: Ruleset,
    /// Number of games (rounded up to an even number: colour-swapped pairs).
    #[arg(long, default_value_t = 20)]
    pub games: usize,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Random turns played from the start position to make each opening.
    #[arg(long, default_value_t = 4)]
    pub opening_turns: u32,
    /// Keep only balanced openings: a search of --balance-nodes nodes must score the
    /// opening within ±CP hundredths of a stone and find no forced win for either side.
    #[arg(long, value_name = "CP")]
    pub balanced: Option<u32>,
    /// Node budget of the search that judges an opening's balance (with --balanced).
    #[arg(long, value_name = "N", default_value_t = 1_000_000, requires = "balanced",
        value_parser = clap::value_parser!(u64).range(1..))]
    pub balance_nodes: u64,
    /// Turn cap: a game still going after this many turns is unfinished.
    #[arg(long, default_value_t = 400)]
    pub max_turns: usize,
    /// Seed of the openings and the engines.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write every game as a record (RULES.md §6.5) to this file.
    #[arg(long, value_name = "FILE")]
    pub records: Option<std::path::PathBuf>,
    /// Sequential probability ratio test of H0: Elo = ELO0 against H1: Elo = ELO1
    /// (alpha = beta = 0.05), e.g. `0,50`. The match stops at a verdict.
    #[arg(long, value_name = "ELO0,ELO1", value_parser = parse_sprt)]
    pub sprt: Option<(f64, f64)>,
    /// Games played before the SPRT may give a verdict (with --sprt).
    #[arg(long, value_name = "N", default_value_t = 20, requires = "sprt")]
    pub sprt_min_games: u32,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

fn parse_sprt(s: &str) -> Result<(f64, f64), String> {
    let (a, b) = s.split_once(',').ok_or("expected ELO0,ELO1, e.g. 0,50")?;
    let a: f64 = a.trim().parse().map_err(|_| format!("bad Elo {a:?}"))?;
    let b: f64 = b.trim().parse().map_err(|_| format!("bad Elo {b:?}"))?;
    if a >= b {
        return Err("ELO0 must be below ELO1".into());
    }
    Ok((a, b))
}

/// A player: a baseline, or a level and/or explicit limits.
#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    /// Uniformly random turns.
    Random,
    /// The biggest immediate capture.
    Greedy,
    /// A search; `level` brings its randomness and its limits on the match's board, and
    /// `limits` (the ones written in the spec) override those.
    Search {
        /// Level, if named.
        level: Option<Level>,
        /// The limits written in the spec.
        limits: Limits,
        /// Size of the transposition table in MiB.
        hash_mib: usize,
        /// The spec as written.
        text: String,
    },
    /// Monte-Carlo tree search.
    Mcts {
        /// The search limits (`depth` unused).
        limits: Limits,
        /// The search settings.
        config: MctsConfig,
        /// The spec as written.
        text: String,
    },
}

/// Parses `mcts[,time=MS][,nodes=N][,c=X][,playout=T][,scale=S][,prior=V][,mm=A]`.
fn parse_mcts(s: &str) -> Result<Spec, String> {
    let mut limits = Limits::default();
    let mut config = MctsConfig::default();
    for part in s.split(',').skip(1) {
        let part = part.trim();
        let bad = || {
            format!("bad option {part:?} in engine spec {s:?} (mcts takes time=MS, nodes=N, c=X, playout=T, scale=S, prior=V, mm=A)")
        };
        let (k, v) = part.split_once('=').ok_or_else(bad)?;
        let int = || v.parse::<u64>().map_err(|_| format!("bad number {v:?} in engine spec {s:?}"));
        let float = || match v.parse::<f64>() {
            Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
            _ => Err(format!("bad number {v:?} in engine spec {s:?} (expected a positive number)")),
        };
        match k {
            "time" => limits.time = Some(Duration::from_millis(int()?)),
            "nodes" if int()? >= 1 => limits.nodes = Some(int()?),
            "c" => config.exploration = float()?,
            "playout" => config.playout_turns = u32::try_from(int()?).map_err(|_| bad())?,
            "scale" => config.eval_scale = float()?,
            "prior" => config.prior_visits = u32::try_from(int()?).map_err(|_| bad())?,
            "mm" => match v.parse::<f64>() {
                Ok(a) if (0.0..=1.0).contains(&a) => config.minimax_weight = a,
                _ => return Err(format!("bad weight {v:?} in engine spec {s:?} (expected 0 to 1)")),
            },
            _ => return Err(bad()),
        }
    }
    if limits.time.is_none() && limits.nodes.is_none() {
        limits.time = Some(Level::Hard.time());
    }
    Ok(Spec::Mcts { limits, config, text: s.to_string() })
}

impl FromStr for Spec {
    type Err = String;
    fn from_str(s: &str) -> Result<Spec, String> {
        match s {
            "random" => return Ok(Spec::Random),
            "greedy" => return Ok(Spec::Greedy),
            _ if s == "mcts" || s.starts_with("mcts,") => return parse_mcts(s),
            _ => {}
        }
        let mut level = None;
        let mut limits = Limits::default();
        let mut hash_mib = DEFAULT_HASH_MIB;
        for (i, part) in s.split(',').enumerate() {
            let part = part.trim();
            if i == 0 {
                if let Ok(l) = part.parse::<Level>() {
                    level = Some(l);
                    continue;
                }
            }
            let (k, v) = part.split_once('=').ok_or_else(|| {
                format!(
                    "bad engine spec {s:?}: expected random, greedy, a level (beginner..max) or time=MS, depth=D, nodes=N, hash=MIB"
                )
            })?;
            let n: u64 = v.parse().map_err(|_| format!("bad number {v:?} in engine spec {s:?}"))?;
            match k {
                "time" => limits.time = Some(Duration::from_millis(n)),
                "depth" if n >= 1 => limits.depth = Some(n as u32),
                "nodes" => limits.nodes = Some(n),
                "hash" if (1..=MAX_HASH_MIB as u64).contains(&n) => hash_mib = n as usize,
                _ => {
                    return Err(format!(
                        "bad limit {part:?} in engine spec {s:?} (time=MS, depth=D>=1, nodes=N, hash=MIB from 1 to {MAX_HASH_MIB})"
                    ))
                }
            }
        }
        Ok(Spec::Search { level, limits, hash_mib, text: s.to_string() })
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Spec::Random => f.write_str("random"),
            Spec::Greedy => f.write_str("greedy"),
            Spec::Search { text, .. } | Spec::Mcts { text, .. } => f.write_str(text),
        }
    }
}

/// A player for one game.
struct Player {
    spec: Spec,
    engine: Engine,
    mcts: Option<Mcts>,
    rng: SmallRng,
}

impl Player {
    fn new(spec: &Spec, seed: u64) -> Player {
        let mcts = match spec {
            Spec::Mcts { config, .. } => Some(Mcts::with_config(seed, *config)),
            _ => None,
        };
        let hash_mib = match spec {
            Spec::Search { hash_mib, .. } => *hash_mib,
            _ => DEFAULT_HASH_MIB,
        };
        Player {
            spec: spec.clone(),
            engine: Engine::new(seed).with_hash_mib(hash_mib),
            mcts,
            rng: SmallRng::seed_from_u64(seed ^ 0x5eed),
        }
    }

    fn choose(&mut self, game: &Game) -> Option<Token> {
        let pos = game.position();
        let history = &game.positions()[..game.positions().len() - 1];
        let stop = AtomicBool::new(false);
        match &self.spec {
            Spec::Random => random_turn(pos, &mut self.rng),
            Spec::Greedy => greedy_turn(pos, &mut self.rng),
            Spec::Search { level, limits, .. } => {
                if let Some(l) = level {
                    if rand::Rng::random_bool(&mut self.rng, l.randomness()) {
                        return random_turn(pos, &mut self.rng);
                    }
                }
                let limits = search_limits(*level, *limits, pos.ruleset());
                self.engine.search_with(pos, limits, &stop, history, &[], &mut |_| {}).map(|r| r.best)
            }
            Spec::Mcts { limits, .. } => {
                let mcts = self.mcts.as_mut().expect("made for an mcts spec");
                mcts.search_with(pos, *limits, &stop, history).map(|r| r.best)
            }
        }
    }
}

/// The limits of a search spec on `ruleset`: its level's, with the written ones in their
/// place.
fn search_limits(level: Option<Level>, written: Limits, ruleset: Ruleset) -> Limits {
    level.map_or(written, |l| l.limits(ruleset).overridden_by(written))
}

/// The opening of every pair, in order; balanced ones are searched on `args.threads`
/// threads with a progress bar.
fn openings(args: &Args, pairs: usize) -> anyhow::Result<Vec<Position>> {
    let seed_of =
        |pair: u64| move |attempt: u64| args.seed.wrapping_mul(0x9e37_79b9).wrapping_add(pair << 16 | attempt);
    let Some(within) = args.balanced else {
        return Ok((0..pairs as u64).map(|p| opening(args.ruleset, args.opening_turns, seed_of(p))).collect());
    };
    let bar = super::progress(pairs as u64, "{bar:30} {pos}/{len} balanced openings  [{elapsed_precise}, eta {eta}]");
    let mut found: Vec<Option<Position>> = vec![None; pairs];
    matombo_lab::parallel(
        pairs,
        args.threads,
        |p| balanced_opening(args.ruleset, args.opening_turns, within, args.balance_nodes, seed_of(p as u64)),
        |p, r| -> anyhow::Result<ControlFlow<()>> {
            let pos =
                r.map_err(|e| anyhow::anyhow!("{e}; allow more with a larger --balanced, or change --opening-turns"))?;
            found[p] = Some(pos);
            bar.inc(1);
            Ok(ControlFlow::Continue(()))
        },
    )?;
    bar.finish_and_clear();
    Ok(found.into_iter().map(|p| p.expect("every pair searched")).collect())
}

/// The first engine's side in game `index` (from 0): colours swap within each pair.
fn first_side(index: usize) -> Side {
    if index % 2 == 0 {
        Side::South
    } else {
        Side::North
    }
}

/// Plays game `index` (from 0) from `start` to its end or the turn cap.
fn play(args: &Args, start: &Position, index: usize) -> Game {
    let first_side = first_side(index);
    let seed = args.seed.wrapping_mul(1_000_003).wrapping_add(index as u64 * 2);
    let mut first = Player::new(&args.first, seed);
    let mut second = Player::new(&args.second, seed + 1);
    let mut game = Game::new(start.clone());
    while !game.is_over() && game.moves().len() < args.max_turns {
        let mover = game.position().side_to_move();
        let player = if mover == first_side { &mut first } else { &mut second };
        let Some(t) = player.choose(&game) else { break };
        if let Err(e) = game.play(&t) {
            // Never expected: an engine bug. The game is recorded unfinished.
            tracing::error!("{} played an illegal turn {t} in {}: {e}", player.spec, game.position());
            break;
        }
    }
    game
}

/// Today's date as `YYYY.MM.DD` (UTC), for the records.
fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    matombo_core::date_tag(secs as i64)
}

/// Appends game `index` (from 0) to the records file, flushed so that it survives an
/// interruption.
fn write_record(f: &mut impl Write, args: &Args, index: usize, game: &Game, date: &str) -> anyhow::Result<()> {
    let (south, north) = if first_side(index) == Side::South {
        (args.first.to_string(), args.second.to_string())
    } else {
        (args.second.to_string(), args.first.to_string())
    };
    let mut r = Record::new(game.clone());
    r.set_tag("South", &south);
    r.set_tag("North", &north);
    r.set_tag("Date", date);
    r.set_tag("Round", &(index + 1).to_string());
    if game.outcome().is_none() {
        r.set_tag("Termination", "turn limit");
    }
    writeln!(f, "{r}\n").context("writing records")?;
    f.flush().context("writing records")
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(args.games >= 1, "--games must be at least 1");
    anyhow::ensure!(args.threads >= 1, "--threads must be at least 1");
    let games = args.games.div_ceil(2) * 2;
    // Before the records file is created: a failure here leaves nothing behind.
    let starts = openings(&args, games / 2)?;
    let mut out_file = match &args.records {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => None,
    };
    let bar = super::progress(games as u64, "{bar:30} {pos}/{len} games  {msg}  [{elapsed_precise}, eta {eta}]");
    let mut played: Vec<Option<Game>> = vec![None; games];
    let mut tally = Tally::default();
    let date = today();
    // Records are written as soon as every game before them has ended (threads finish out
    // of order), so that an interrupted match keeps the games it played.
    let mut written = 0;
    // The SPRT's state after the games so far; no verdict before --sprt-min-games.
    let judge = |t: &Tally| -> Option<Sprt> {
        let (elo0, elo1) = args.sprt?;
        let mut s = sprt(t, elo0, elo1);
        if t.games() < args.sprt_min_games {
            s.verdict = Verdict::Continue.as_str();
        }
        Some(s)
    };
    let all = matombo_lab::parallel(
        games,
        args.threads,
        |i| play(&args, &starts[i / 2], i),
        |i, game| -> anyhow::Result<ControlFlow<()>> {
            tally.record(game.outcome(), first_side(i));
            let score = format!("+{} -{} ={} *{}", tally.wins, tally.losses, tally.draws, tally.unfinished);
            tracing::info!("game {} of {games} ended; {} so far {score}", i + 1, args.first);
            bar.inc(1);
            bar.set_message(score);
            played[i] = Some(game);
            while let Some(Some(game)) = played.get(written) {
                if let Some(f) = out_file.as_mut() {
                    write_record(f, &args, written, game, &date)?;
                }
                written += 1;
            }
            let decided = judge(&tally).is_some_and(|s| s.verdict() != Verdict::Continue);
            Ok(if decided { ControlFlow::Break(()) } else { ControlFlow::Continue(()) })
        },
    )?;
    bar.finish_and_clear();
    let st = stats(&tally);
    let sp = judge(&tally);
    // Stopped at an SPRT verdict before every game was played.
    let stopped = !all;
    if stopped {
        tracing::info!("SPRT verdict after {} of {games} games: match stopped", tally.games());
    }
    if args.json {
        #[derive(Serialize)]
        struct Out<'a> {
            first: String,
            second: String,
            ruleset: String,
            games: usize,
            opening_turns: u32,
            /// The balance tolerance and its search's nodes, with --balanced.
            balanced: Option<u32>,
            balance_nodes: Option<u64>,
            #[serde(flatten)]
            tally: Tally,
            stats: Option<Stats>,
            sprt: Option<Sprt>,
            /// Whether the match stopped at the SPRT verdict before all its games.
            sprt_stopped: bool,
            /// Games played (fewer than `games` when stopped).
            played: u32,
            records: Option<&'a std::path::Path>,
        }
        let out = Out {
            first: args.first.to_string(),
            second: args.second.to_string(),
            ruleset: args.ruleset.to_string(),
            games,
            opening_turns: args.opening_turns,
            balanced: args.balanced,
            balance_nodes: args.balanced.map(|_| args.balance_nodes),
            tally,
            stats: st,
            sprt: sp,
            sprt_stopped: stopped,
            played: tally.games(),
            records: args.records.as_deref(),
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    print!("{} vs {} on {}, {} games", args.first, args.second, args.ruleset, games);
    match args.balanced {
        Some(cp) => println!(" from balanced openings (±{cp} at {} nodes)", args.balance_nodes),
        None => println!(),
    }
    println!("wins {}  losses {}  draws {}  unfinished {}", tally.wins, tally.losses, tally.draws, tally.unfinished);
    match st {
        Some(s) => println!(
            "score {:.1}%  Elo {:+.0} (95% interval {:+.0} .. {:+.0})",
            s.score * 100.0,
            s.elo,
            s.elo_low,
            s.elo_high
        ),
        None => println!("no finished game: no score"),
    }
    if let Some(s) = sp {
        println!(
            "SPRT [{}, {}]: LLR {:.2} (bounds {:.2}, {:.2}): {}",
            s.elo0, s.elo1, s.llr, s.lower, s.upper, s.verdict
        );
    }
    if stopped {
        println!("stopped at the SPRT verdict after {} of {games} games", tally.games());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        assert_eq!("random".parse::<Spec>(), Ok(Spec::Random));
        let Spec::Search { level, limits, .. } = "max,time=6000".parse::<Spec>().unwrap() else { panic!() };
        assert_eq!(level, Some(Level::Max));
        assert_eq!(limits.time, Some(Duration::from_millis(6000)));
        let Spec::Search { level, limits, hash_mib, .. } = "depth=3,nodes=500".parse::<Spec>().unwrap() else {
            panic!()
        };
        assert_eq!((level, limits.depth, limits.nodes, limits.time), (None, Some(3), Some(500), None));
        assert_eq!(hash_mib, DEFAULT_HASH_MIB);
        let Spec::Search { level, limits, hash_mib, .. } = "max,hash=256".parse::<Spec>().unwrap() else { panic!() };
        assert_eq!((level, limits, hash_mib), (Some(Level::Max), Limits::default(), 256));
        assert!("max,hash=0".parse::<Spec>().is_err());
        assert!("hash=99999999".parse::<Spec>().is_err());
        assert!("fast".parse::<Spec>().is_err());
        assert!("depth=0".parse::<Spec>().is_err());
        assert!("time=x".parse::<Spec>().is_err());
    }

    #[test]
    fn level_limits_follow_the_board_and_written_limits_win() {
        let limits = |spec: &str, ruleset: &str| {
            let Spec::Search { level, limits, .. } = spec.parse::<Spec>().unwrap() else { panic!() };
            let l = search_limits(level, limits, ruleset.parse().unwrap());
            (l.time.map(|t| t.as_millis()), l.depth, l.nodes)
        };
        assert_eq!(limits("hard", "tsoro:8"), (Some(1000), Some(Level::HARD_DEPTH), None));
        assert_eq!(limits("hard", "nsolo:12"), (Some(1000), Some(Level::HARD_DEPTH), None));
        assert_eq!(limits("hard", "nsolo:13"), (Some(1000), None, None));
        assert_eq!(limits("hard", "tsoro:21"), (Some(1000), None, None));
        assert_eq!(limits("hard", "nsolo:21"), (Some(1000), None, None));
        assert_eq!(limits("hard", "nsolo:22"), (Some(1000), None, Some(Level::HARD_WIDE_NODES)));
        assert_eq!(limits("hard", "nsolo:36"), (Some(1000), None, Some(Level::HARD_WIDE_NODES)));
        assert_eq!(limits("hard,nodes=1000000", "nsolo:36"), (Some(1000), None, Some(1_000_000)));
        assert_eq!(limits("hard,depth=20", "nsolo:8"), (Some(1000), Some(20), None));
        assert_eq!(limits("max,time=6000", "nsolo:8"), (Some(6000), None, None));
        assert_eq!(limits("medium,nodes=500", "nsolo:36"), (Some(200), Some(4), Some(500)));
        assert_eq!(limits("depth=3", "tsoro:8"), (None, Some(3), None));
    }

    #[test]
    fn mcts_specs_parse() {
        let Spec::Mcts { limits, config, .. } = "mcts".parse::<Spec>().unwrap() else { panic!() };
        assert_eq!(limits.time, Some(Level::Hard.time()));
        assert_eq!((limits.nodes, config), (None, MctsConfig::default()));
        let Spec::Mcts { limits, .. } = "mcts,time=100".parse::<Spec>().unwrap() else { panic!() };
        assert_eq!((limits.time, limits.nodes), (Some(Duration::from_millis(100)), None));
        // A node limit alone keeps the search reproducible: no default time.
        let Spec::Mcts { limits, .. } = "mcts,nodes=5000".parse::<Spec>().unwrap() else { panic!() };
        assert_eq!((limits.time, limits.nodes), (None, Some(5000)));
        let spec: Spec = "mcts,time=50,c=1.4,playout=8,scale=300,prior=0,mm=0.3".parse().unwrap();
        assert_eq!(spec.to_string(), "mcts,time=50,c=1.4,playout=8,scale=300,prior=0,mm=0.3");
        let Spec::Mcts { limits, config, .. } = spec else { panic!() };
        assert_eq!(limits.time, Some(Duration::from_millis(50)));
        let MctsConfig { exploration, playout_turns, eval_scale, prior_visits, minimax_weight } = config;
        assert_eq!((exploration, playout_turns, eval_scale, prior_visits, minimax_weight), (1.4, 8, 300.0, 0, 0.3));
        for bad in [
            "mcts,depth=3",
            "mcts,time=x",
            "mcts,nodes=0",
            "mcts,c=-1",
            "mcts,c=nan",
            "mcts,fast",
            "mcts,playout=1.5",
            "mcts,mm=2",
        ] {
            assert!(bad.parse::<Spec>().is_err(), "{bad}");
        }
        // A level name is not an mcts prefix.
        assert!("mctsx".parse::<Spec>().is_err());
    }

    #[test]
    fn date_format() {
        let d = today();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20"));
    }
}
