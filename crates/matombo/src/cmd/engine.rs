//! `matombo engine`: a line-based engine protocol on stdin/stdout, in the spirit of UCI.
//!
//! The whole protocol, with how each limit uses time, is in docs/engine-protocol.md.
//! Commands (one per line; answers on stdout, one per line):
//! - `matombo` → `id name …`, `id author …`, `option …` lines, then `matombook`
//! - `isready` → `readyok` (answered at once, even while searching)
//! - `newgame` → forgets the search tables
//! - `setoption name Seed|Hash|MultiPV value N`
//! - `position startpos|<ruleset>|<position> [moves <token> …]`; a refused one answers
//!   `info string error: …` and leaves no position: `go`, `turns` and `show` refuse until
//!   a valid `position` arrives
//! - `go [movetime MS] [time MS] [wtime MS] [btime MS] [winc MS] [binc MS] [movestogo N]
//!   [depth D] [nodes N] [level L] [infinite]` → `info …` lines, then `bestmove <token>`
//!   (or `bestmove none` when the side to move has no legal turn)
//! - `stop` → ends the search now; its `bestmove` follows
//! - `turns` → `turns <token> …` (every legal turn) or `turns none`
//! - `show` → `info string position …`, then `info string result <1-0|0-1|1/2-1/2|*> (…)`
//! - `quit`; `quit` and end of input are the same: a search with a limit is waited for
//!   and answers, an infinite one is stopped and answers its best so far
//!
//! Errors answer `info string error: …` and change nothing.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::Context;
use matombo_ai::{
    mate_in, Engine, Level, Limits, SearchOptions, SearchResult, DEFAULT_HASH_MIB, MAX_DEPTH, MAX_HASH_MIB,
};
use matombo_core::{Game, Position, Ruleset, Side, Token};

/// Arguments of `matombo engine`.
#[derive(clap::Args)]
#[command(after_help = "Example session (> sent to the engine, < answered):
  > matombo
  < id name matombo 0.1.0
  < matombook
  > position tsoro:8 moves B2= b2=
  > turns
  < turns B1= B3= …
  > go depth 4
  < info depth 1 score cp -4 nodes 8 nps 221809 time 0 pv B5=
  < …
  < info depth 4 score cp 0 nodes 466 nps 815262 time 0 pv B5= b5= B1= b1=
  < bestmove B5=
  > show
  < info string position tsoro:8 …
  < info string result * (North to move)
  > quit

Commands: matombo, isready, newgame, setoption name Seed|Hash|MultiPV value N,
position startpos|<ruleset>|<position> [moves <token> …], go, stop, turns, show, quit.
go limits: movetime MS (searches until MS is spent), time MS (a budget it does not
exceed, usually ending well before it), wtime/btime/winc/binc/movestogo (a clock: South
is w, North b; the turn gets time/movestogo + 3/4 of the increment, movestogo 30 when
not given, at most 9/10 of the time left less 10 ms, then searches until it is spent),
depth D, nodes N, level L, infinite (until stop).
A refused position leaves none: go, turns and show refuse until a valid position.
quit and end of input are the same: a search with a limit is waited for and answers its
bestmove; an infinite search is stopped and answers its best so far (send stop first to
end a limited search at once).
--seed, --hash and --egtb give the options Seed, Hash and EgtbPath their first values.

Try it: printf 'position nsolo:8\\ngo depth 3\\n' | matombo engine
Full protocol: docs/engine-protocol.md")]
pub struct Args {
    #[command(flatten)]
    pub engine: super::EngineOptions,
}

/// The most turns `turns` lists (an Nsolo capture can have astronomically many).
const MAX_LISTED: usize = 100_000;

/// The moves to go assumed by clock limits without `movestogo`.
const MOVES_TO_GO: u32 = 30;

/// Protocol state.
struct State {
    seed: u64,
    hash_mib: usize,
    multipv: usize,
    engine: Arc<Mutex<Engine>>,
    ruleset: Ruleset,
    game: Game,
    /// False after a refused `position`: nothing answers for the old position until a
    /// valid one arrives.
    valid: bool,
    stop: Arc<AtomicBool>,
    /// Set by the search thread just before it answers `bestmove`, so that a command sent
    /// right after the answer is not refused while the thread winds down.
    answered: Arc<AtomicBool>,
    search: Option<JoinHandle<()>>,
    /// The running search has no limit (`go infinite`): quitting stops it.
    unlimited: bool,
    /// Where endgame tables are looked for, and those of the current ruleset if found.
    egtb: Option<std::path::PathBuf>,
    tables: Option<Arc<matombo_egtb::Tables>>,
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    // A closed stdout ends the session; there is nobody to tell.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// `cp <hundredths of a stone>`, or `win N` / `loss N` (turns to the end) when forced.
fn score_words(score: i32) -> String {
    match mate_in(score) {
        Some(n) if n > 0 => format!("win {n}"),
        Some(n) => format!("loss {}", -n),
        None => format!("cp {score}"),
    }
}

/// An `info depth …` line; `multipv` is the line's rank when several are searched.
fn info_line(r: &SearchResult, multipv: Option<usize>) -> String {
    let secs = r.elapsed.as_secs_f64();
    let nps = if secs > 0.0 { (r.nodes as f64 / secs) as u64 } else { 0 };
    let pv: Vec<String> = r.pv.iter().map(|t| t.to_string()).collect();
    let rank = multipv.map(|i| format!(" multipv {i}")).unwrap_or_default();
    format!(
        "info depth {}{rank} score {} nodes {} nps {} time {} pv {}",
        r.depth,
        score_words(r.score),
        r.nodes,
        nps,
        r.elapsed.as_millis(),
        pv.join(" ")
    )
}

/// The time a clock gives this turn: `time / movestogo + 3/4 of the increment`, at most
/// 9/10 of the time left less 10 ms (so the clock never runs out on the engine's side),
/// at least 1 ms.
pub fn clock_budget(time_left: Duration, increment: Duration, moves_to_go: u32) -> Duration {
    let share = time_left / moves_to_go.max(1) + increment * 3 / 4;
    let cap = (time_left * 9 / 10).saturating_sub(Duration::from_millis(10));
    share.min(cap).max(Duration::from_millis(1))
}

fn millis(w: &str, v: &str) -> anyhow::Result<Duration> {
    Ok(Duration::from_millis(v.parse().with_context(|| format!("bad {w} {v:?} (milliseconds)"))?))
}

impl State {
    fn new(seed: u64, hash_mib: usize) -> State {
        let ruleset: Ruleset = "tsoro:8".parse().expect("valid ruleset");
        State {
            seed,
            hash_mib,
            multipv: 1,
            engine: Arc::new(Mutex::new(Engine::new(seed).with_hash_mib(hash_mib))),
            ruleset,
            game: Game::new(Position::start(ruleset)),
            valid: true,
            stop: Arc::new(AtomicBool::new(false)),
            answered: Arc::new(AtomicBool::new(false)),
            search: None,
            unlimited: false,
            egtb: None,
            tables: None,
        }
    }

    /// Reads the endgame tables of the current ruleset when it changed (or the directory
    /// did); missing tables mean none, damaged ones are reported and not used.
    fn load_tables(&mut self, force: bool) {
        let Some(dir) = self.egtb.clone() else { return };
        if !force && self.tables.as_ref().is_some_and(|t| t.ruleset() == self.ruleset) {
            return;
        }
        self.tables = match matombo_egtb::Tables::open(&dir, self.ruleset) {
            Ok(t) => {
                say(&format!("info string endgame tables of {} up to {} stones", self.ruleset, t.max_stones()));
                Some(Arc::new(t))
            }
            Err(matombo_egtb::Error::Missing(..)) => {
                say(&format!("info string no endgame tables of {} in {}", self.ruleset, dir.display()));
                None
            }
            Err(e) => {
                say(&format!("info string error: endgame tables not used: {}", e));
                None
            }
        };
        self.renew_engine();
    }

    fn searching(&self) -> bool {
        self.search.is_some() && !self.answered.load(Ordering::SeqCst)
    }

    fn wait(&mut self) {
        if let Some(h) = self.search.take() {
            let _ = h.join();
        }
    }

    /// `quit` and end of input: a search with a limit ends by it and answers; one without
    /// (`go infinite`) would never end, so it is stopped and answers its best so far.
    fn finish(&mut self) {
        if self.unlimited {
            self.stop.store(true, Ordering::Relaxed);
        }
        self.wait();
    }

    /// Replaces the engine by a new one with the current seed and table size (its tables
    /// forgotten).
    fn renew_engine(&mut self) {
        self.wait();
        let mut engine = Engine::new(self.seed).with_hash_mib(self.hash_mib);
        if let Some(t) = &self.tables {
            engine = engine.with_tables(t.clone());
        }
        *self.engine.lock().expect("engine lock") = engine;
    }

    fn ensure_position(&self) -> anyhow::Result<()> {
        anyhow::ensure!(self.valid, "no position: the last position command was refused; send a valid one");
        Ok(())
    }

    /// Handles one command line; `Ok(false)` means quit.
    fn handle(&mut self, line: &str) -> anyhow::Result<bool> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, rest)) = words.split_first() else { return Ok(true) };
        match cmd {
            "matombo" => {
                say(&format!("id name matombo {}", env!("CARGO_PKG_VERSION")));
                say("id author the matombo authors");
                say("option name Seed type spin default 1 min 0 max 18446744073709551615");
                say(&format!("option name Hash type spin default {DEFAULT_HASH_MIB} min 1 max {MAX_HASH_MIB}"));
                say("option name MultiPV type spin default 1 min 1 max 256");
                say("option name EgtbPath type string default <empty>");
                say("matombook");
            }
            "isready" => say("readyok"),
            "quit" => {
                self.finish();
                return Ok(false);
            }
            "stop" => {
                self.stop.store(true, Ordering::Relaxed);
                self.wait();
            }
            // Read-only: answered during a search too (a search never changes the position).
            "show" => {
                self.ensure_position()?;
                say(&format!("info string position {}", self.game.position()));
                say(&match self.game.outcome() {
                    Some(o) => format!("info string result {} ({o})", o.result()),
                    None => format!("info string result * ({} to move)", self.game.position().side_to_move()),
                });
                if let Some(v) = self.tables.as_ref().and_then(|t| t.probe(self.game.position())) {
                    say(&format!("info string tables {v}"));
                }
            }
            "turns" => self.turns()?,
            "position" => {
                // Any refused position, even one refused during a search, leaves none: a
                // `go` meant for it must not answer for the old one.
                let r = if self.searching() {
                    Err(anyhow::anyhow!("searching: send stop first"))
                } else {
                    self.position(rest)
                };
                self.valid = r.is_ok();
                r?;
                self.load_tables(false);
            }
            _ if self.searching() => anyhow::bail!("searching: send stop first"),
            "newgame" => self.renew_engine(),
            "setoption" => {
                match rest {
                    ["name", name, "value", v] if name.eq_ignore_ascii_case("seed") => {
                        self.seed = v.parse().with_context(|| format!("bad seed {v:?}"))?;
                    }
                    ["name", name, "value", v] if name.eq_ignore_ascii_case("hash") => {
                        let mib: usize = v.parse().with_context(|| format!("bad Hash {v:?}"))?;
                        anyhow::ensure!(
                            (1..=MAX_HASH_MIB).contains(&mib),
                            "Hash must be 1 to {MAX_HASH_MIB} (MiB), not {mib}"
                        );
                        self.hash_mib = mib;
                    }
                    ["name", name, "value", v] if name.eq_ignore_ascii_case("multipv") => {
                        let k: usize = v.parse().with_context(|| format!("bad MultiPV {v:?}"))?;
                        anyhow::ensure!((1..=256).contains(&k), "MultiPV must be 1 to 256, not {k}");
                        // Only the number of lines: the tables are kept.
                        self.multipv = k;
                        return Ok(true);
                    }
                    ["name", name, "value", dir @ ..] if name.eq_ignore_ascii_case("egtbpath") && !dir.is_empty() => {
                        self.egtb = Some(dir.join(" ").into());
                        self.load_tables(true);
                        return Ok(true);
                    }
                    _ => anyhow::bail!("unknown option: expected `setoption name Seed|Hash|MultiPV value N` or `setoption name EgtbPath value DIR`"),
                }
                self.renew_engine();
            }
            "go" => self.go(rest)?,
            _ => anyhow::bail!("unknown command {cmd:?}"),
        }
        Ok(true)
    }

    fn position(&mut self, rest: &[&str]) -> anyhow::Result<()> {
        let split = rest.iter().position(|w| *w == "moves").unwrap_or(rest.len());
        let (setup, moves) = rest.split_at(split);
        let start = match setup {
            [] => anyhow::bail!("position needs startpos, a ruleset or a position"),
            ["startpos"] => Position::start(self.ruleset),
            _ => setup.join(" ").parse::<Position>().with_context(|| format!("bad position {:?}", setup.join(" ")))?,
        };
        let mut game = Game::new(start);
        for m in moves.iter().skip(1) {
            let t: Token = m.parse().with_context(|| format!("bad turn {m:?}"))?;
            let before = game.position().to_string();
            game.play(&t).with_context(|| format!("turn {m} in {before}"))?;
        }
        self.ruleset = game.position().ruleset();
        self.game = game;
        Ok(())
    }

    /// `turns`: every legal turn on one line (none once the game is over).
    fn turns(&self) -> anyhow::Result<()> {
        self.ensure_position()?;
        let pos = self.game.position();
        if self.game.is_over() {
            say("turns none");
            return Ok(());
        }
        let total = pos.count_turns();
        if total > MAX_LISTED as u128 {
            say(&format!("info string {total} legal turns: listing the first {MAX_LISTED}"));
        }
        let tokens: Vec<String> = pos.turns().take(MAX_LISTED).map(|(t, _)| t.to_string()).collect();
        say(&format!("turns {}", if tokens.is_empty() { "none".to_string() } else { tokens.join(" ") }));
        Ok(())
    }

    fn go(&mut self, rest: &[&str]) -> anyhow::Result<()> {
        self.ensure_position()?;
        // Written limits win over a level's whatever their order, as UCI's `go` parameters
        // are unordered: `go time 500 level hard` is `hard` with half a second; `infinite`
        // wins over every limit, as in UCI, and searches until `stop`. A move time wins
        // over a clock.
        let mut limits = Limits::default();
        let mut level = None;
        let mut infinite = false;
        let mut movetime = None;
        let (mut clock, mut inc) = ([None::<Duration>; 2], [Duration::ZERO; 2]);
        let mut moves_to_go = None;
        let mut it = rest.iter();
        while let Some(&w) = it.next() {
            let mut value = || it.next().copied().with_context(|| format!("go {w} needs a value"));
            match w {
                "time" => limits.time = Some(millis(w, value()?)?),
                "movetime" => movetime = Some(millis(w, value()?)?),
                "wtime" => clock[0] = Some(millis(w, value()?)?),
                "btime" => clock[1] = Some(millis(w, value()?)?),
                "winc" => inc[0] = millis(w, value()?)?,
                "binc" => inc[1] = millis(w, value()?)?,
                "movestogo" => {
                    let v = value()?;
                    let n: u32 = v.parse().with_context(|| format!("bad movestogo {v:?}"))?;
                    anyhow::ensure!(n >= 1, "movestogo must be at least 1");
                    moves_to_go = Some(n);
                }
                "depth" => {
                    let v = value()?;
                    let d: u32 = v.parse().with_context(|| format!("bad depth {v:?}"))?;
                    anyhow::ensure!(d >= 1, "depth must be at least 1");
                    limits.depth = Some(d);
                }
                "nodes" => {
                    let v = value()?;
                    limits.nodes = Some(v.parse().with_context(|| format!("bad nodes {v:?}"))?);
                }
                "level" => {
                    let v = value()?;
                    level = Some(v.parse::<Level>()?);
                }
                "infinite" => infinite = true,
                _ => anyhow::bail!(
                    "unknown go parameter {w:?} (movetime, time, wtime, btime, winc, binc, movestogo, depth, nodes, level, infinite)"
                ),
            }
        }
        // South moves first, as white does in UCI: South's clock is w, North's b.
        let mover = match self.game.position().side_to_move() {
            Side::South => 0,
            Side::North => 1,
        };
        let clocked = clock.iter().any(Option::is_some) || moves_to_go.is_some() || inc.iter().any(|d| !d.is_zero());
        let mut whole_time = false;
        if let Some(t) = movetime {
            anyhow::ensure!(limits.time.is_none(), "go: movetime and time are two budgets; give one");
            limits.time = Some(t);
            whole_time = true;
        } else if clocked && limits.time.is_none() {
            let name = ["wtime", "btime"][mover];
            let left = clock[mover].with_context(|| format!("go: the side to move's clock ({name}) is missing"))?;
            limits.time = Some(clock_budget(left, inc[mover], moves_to_go.unwrap_or(MOVES_TO_GO)));
            whole_time = true;
        }
        if let Some(level) = level {
            limits = level.limits(self.game.position().ruleset()).overridden_by(limits);
        }
        if infinite {
            // Until `stop` (or a proven result): no time or node limit, the deepest search.
            limits = Limits { time: None, depth: Some(MAX_DEPTH), nodes: None };
        }
        let options = SearchOptions { lines: self.multipv, whole_time };
        self.wait();
        self.stop.store(false, Ordering::Relaxed);
        self.answered.store(false, Ordering::SeqCst);
        self.unlimited = infinite;
        let answered = Arc::clone(&self.answered);
        let engine = Arc::clone(&self.engine);
        let stop = Arc::clone(&self.stop);
        let pos = self.game.position().clone();
        let history: Vec<Position> = self.game.positions()[..self.game.positions().len() - 1].to_vec();
        self.search = Some(std::thread::spawn(move || {
            let mut engine = engine.lock().expect("engine lock");
            let several = options.lines > 1;
            let lines = engine.search_lines(&pos, limits, &stop, &history, options, &mut |lines| {
                for (i, r) in lines.iter().enumerate() {
                    say(&info_line(r, several.then_some(i + 1)));
                }
            });
            answered.store(true, Ordering::SeqCst);
            match lines.first() {
                Some(r) => say(&format!("bestmove {}", r.best)),
                None => say("bestmove none"),
            }
        }));
        Ok(())
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let options = args.engine;
    let mut state = State::new(options.seed, options.hash as usize);
    if options.egtb.is_some() {
        state.egtb = options.egtb;
        state.load_tables(true);
    }
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let line = line.context("reading stdin")?;
        match state.handle(line.trim()) {
            Ok(true) => {}
            Ok(false) => return Ok(()),
            Err(e) => say(&format!("info string error: {e:#}")),
        }
    }
    // End of input is `quit`.
    state.finish();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table_mib(state: &State) -> usize {
        state.engine.lock().unwrap().hash_mib()
    }

    #[test]
    fn hash_option_sizes_the_table_and_outlives_newgame_and_seed() {
        let mut state = State::new(1, DEFAULT_HASH_MIB);
        assert_eq!(table_mib(&state), DEFAULT_HASH_MIB);
        state.handle("setoption name Hash value 100").unwrap();
        assert_eq!(table_mib(&state), 64, "rounded down to a power of two");
        state.handle("newgame").unwrap();
        state.handle("setoption name Seed value 3").unwrap();
        assert_eq!((table_mib(&state), state.seed), (64, 3));
        // Bad values are refused and change nothing.
        for bad in ["0", "-1", "lots", &(MAX_HASH_MIB + 1).to_string()] {
            let err = state.handle(&format!("setoption name hash value {bad}")).unwrap_err();
            assert!(err.to_string().contains("Hash"), "{bad}: {err:#}");
            assert_eq!(table_mib(&state), 64);
        }
    }
}
