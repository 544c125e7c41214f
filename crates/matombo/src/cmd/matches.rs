//! `matombo match`: two engines play colour-swapped pairs of games; score, Elo, SPRT.

use anyhow::Context;
use matombo_core::Ruleset;
use matombo_lab::arena::{self, MatchConfig, MatchResult, Player, Spec};
use matombo_lab::{Sprt, Stats, Tally};
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
  matombo match mcts,time=100 time=100 --ruleset nsolo:36 --games 40 --json
  matombo match hard,egtb hard --ruleset tsoro:8 --egtb egtb --games 200 --balanced 150

A search engine written with `egtb` (e.g. `hard,egtb`) probes the endgame tables of --egtb;
one written with `weights=FILE` evaluates with the weights of FILE (as `matombo tune` writes
them) instead of the game's own, never with a network. A search evaluates with its board's
built-in network where there is one (nsolo:8), with the network of FILE if written `net=FILE`
(as `matombo train net` writes it; trained for the match's game and board size), or with the
weights alone if written `net=none`.

With --positions FILE the games start from the file's positions instead (one a line, the
ruleset taken from them; `#` starts a comment), each played twice with colours swapped,
and the length and result of every game are listed: how fast an engine converts given
endgames, e.g. the single-stone set crates/matombo-ai/tests/data/singles.txt:
  matombo match time=10 hard --positions crates/matombo-ai/tests/data/singles.txt")]
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
    /// Start the games from these positions (one a line) instead of random openings, each
    /// twice with colours swapped; lists every game's length and result.
    #[arg(long, value_name = "FILE", conflicts_with = "balanced")]
    pub positions: Option<std::path::PathBuf>,
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
    /// Endgame tables (the directory `matombo egtb build --dir` wrote), probed by the
    /// engines written with `egtb`.
    #[arg(long, value_name = "DIR")]
    pub egtb: Option<std::path::PathBuf>,
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

impl Args {
    /// The match these arguments describe (the tables read if an engine asks for them).
    fn config(&self) -> anyhow::Result<MatchConfig> {
        let wanted = Player::wants_tables(&self.first) || Player::wants_tables(&self.second);
        let tables = match (&self.egtb, wanted) {
            (Some(dir), true) => Some(super::open_tables(dir, self.ruleset)?),
            (None, true) => anyhow::bail!("an engine written with `egtb` needs --egtb DIR"),
            (_, false) => None,
        };
        Ok(MatchConfig {
            first: self.first.clone(),
            second: self.second.clone(),
            ruleset: self.ruleset,
            opening_turns: self.opening_turns,
            balanced: self.balanced,
            balance_nodes: self.balance_nodes,
            max_turns: self.max_turns,
            seed: self.seed,
            sprt: self.sprt,
            sprt_min_games: self.sprt_min_games,
            tables,
        })
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(args.games >= 1, "--games must be at least 1");
    anyhow::ensure!(args.threads >= 1, "--threads must be at least 1");
    let mut config = args.config()?;
    let given = args.positions.as_deref().map(read_positions).transpose()?;
    if let Some(p) = &given {
        config.ruleset = p[0].ruleset();
    }
    for spec in [&config.first, &config.second] {
        spec.check_net(config.ruleset).map_err(anyhow::Error::msg)?;
    }
    let games = given.as_ref().map_or(args.games.div_ceil(2) * 2, |p| p.len() * 2);
    // Before the records file is created: a failure here leaves nothing behind.
    let starts = if let Some(p) = given {
        Ok(p)
    } else if config.balanced.is_some() {
        let bar = super::progress(
            (games / 2) as u64,
            "{bar:30} {pos}/{len} balanced openings  [{elapsed_precise}, eta {eta}]",
        );
        let starts = arena::openings(&config, games / 2, args.threads, || bar.inc(1));
        bar.finish_and_clear();
        starts
    } else {
        arena::openings(&config, games / 2, args.threads, || {})
    }
    .map_err(|e| anyhow::anyhow!("{e}; allow more with a larger --balanced, or change --opening-turns"))?;
    let mut out_file = match &args.records {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => None,
    };
    let bar = super::progress(games as u64, "{bar:30} {pos}/{len} games  {msg}  [{elapsed_precise}, eta {eta}]");
    let date = arena::today();
    let mut listed = Vec::new();
    let result = arena::run_match(
        &config,
        &starts,
        args.threads,
        |i, tally| {
            let score = format!("+{} -{} ={} *{}", tally.wins, tally.losses, tally.draws, tally.unfinished);
            tracing::info!("game {} of {games} ended; {} so far {score}", i + 1, args.first);
            bar.inc(1);
            bar.set_message(score);
        },
        |i, game| -> anyhow::Result<()> {
            if args.positions.is_some() {
                listed.push(Listed::of(i, game));
            }
            if let Some(f) = out_file.as_mut() {
                arena::write_record(f, &config, i, game, &date).context("writing records")?;
            }
            Ok(())
        },
    )?;
    bar.finish_and_clear();
    let MatchResult { tally, stats: st, sprt: sp, stopped } = result;
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
            /// With --positions: every game's start, length and result.
            #[serde(skip_serializing_if = "Option::is_none")]
            positions: Option<&'a [Listed]>,
        }
        let out = Out {
            first: args.first.to_string(),
            second: args.second.to_string(),
            ruleset: config.ruleset.to_string(),
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
            positions: args.positions.as_ref().map(|_| listed.as_slice()),
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    print!("{} vs {} on {}, {} games", args.first, args.second, config.ruleset, games);
    match args.balanced {
        Some(cp) => println!(" from balanced openings (±{cp} at {} nodes)", args.balance_nodes),
        None => println!(),
    }
    if args.positions.is_some() {
        println!("position  first plays  winner  turns");
        for l in &listed {
            let winner = l.winner.unwrap_or(if l.finished { "draw" } else { "-" });
            let turns = if l.finished { l.turns.to_string() } else { format!("{}*", l.turns) };
            println!("{:>8}  {:>11}  {:>6}  {:>5}", l.position, l.first_plays, winner, turns);
        }
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

/// One game of a match from given positions.
#[derive(Serialize)]
struct Listed {
    /// The position's line among the file's positions, from 1.
    position: usize,
    /// The side the first engine plays, `S` or `N`.
    first_plays: &'static str,
    /// The winning side, `S` or `N`; none for a draw or an unfinished game.
    winner: Option<&'static str>,
    finished: bool,
    /// Turns played from the given position.
    turns: usize,
}

impl Listed {
    fn of(index: usize, game: &matombo_core::Game) -> Listed {
        let letter = |s: matombo_core::Side| if s == matombo_core::Side::South { "S" } else { "N" };
        Listed {
            position: index / 2 + 1,
            first_plays: letter(arena::first_side(index)),
            winner: game.outcome().and_then(|o| o.winner).map(letter),
            finished: game.outcome().is_some(),
            turns: game.moves().len(),
        }
    }
}

/// The positions of a --positions file: one a line, `#` to the end of a line a comment,
/// all of one ruleset.
fn read_positions(path: &std::path::Path) -> anyhow::Result<Vec<matombo_core::Position>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut out: Vec<matombo_core::Position> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let pos = super::parse_position(line).with_context(|| format!("{}:{}", path.display(), n + 1))?;
        if let Some(first) = out.first() {
            anyhow::ensure!(
                first.ruleset() == pos.ruleset(),
                "{}:{}: {} is not the ruleset of the first position, {}",
                path.display(),
                n + 1,
                pos.ruleset(),
                first.ruleset()
            );
        }
        out.push(pos);
    }
    anyhow::ensure!(!out.is_empty(), "{} holds no position", path.display());
    Ok(out)
}
