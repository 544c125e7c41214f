//! `matombo engine`: a line-based engine protocol on stdin/stdout, in the spirit of UCI.
//!
//! Commands (one per line; answers on stdout, one per line):
//! - `matombo` → `id name …`, `id author …`, `option …` lines, then `matombook`
//! - `isready` → `readyok` (answered at once, even while searching)
//! - `newgame` → forgets the search tables
//! - `setoption name Seed value N`, `setoption name Hash value MIB`
//! - `position startpos|<ruleset>|<position> [moves <token> …]`
//! - `go [time MS] [depth D] [nodes N] [level L] [infinite]` → `info …` lines, then
//!   `bestmove <token>` (or `bestmove none` when the side to move has no legal turn);
//!   `info depth D score cp S|win N|loss N nodes N nps N time MS pv T…`
//! - `stop` → ends the search now; its `bestmove` follows
//! - `show` → `info string position …`
//! - `quit`
//!
//! Errors answer `info string error: …` and change nothing.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::Context;
use matombo_ai::{Engine, Level, Limits, SearchResult, DEFAULT_HASH_MIB, MATE, MATE_BOUND, MAX_DEPTH, MAX_HASH_MIB};
use matombo_core::{Game, Position, Ruleset, Token};

/// Arguments of `matombo engine`.
#[derive(clap::Args)]
#[command(after_help = "Example session (> sent to the engine, < answered):
  > matombo
  < id name matombo 0.1.0
  < matombook
  > position tsoro:8 moves B2= b2=
  > go depth 4
  < info depth 1 score cp -4 nodes 8 nps 221809 time 0 pv B5=
  < …
  < info depth 4 score cp 0 nodes 466 nps 815262 time 0 pv B5= b5= B1= b1=
  < bestmove B5=
  > quit

Try it (end of input waits for the running search): printf 'position nsolo:8\\ngo depth 3\\n' | matombo engine")]
pub struct Args {
    /// Seed of the engine's random choices (also `setoption name Seed value N`).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Size of the transposition table in MiB, rounded down to a power of two (also
    /// `setoption name Hash value MIB`).
    #[arg(long, value_name = "MIB", default_value_t = DEFAULT_HASH_MIB as u64,
          value_parser = clap::value_parser!(u64).range(1..=MAX_HASH_MIB as u64))]
    pub hash: u64,
}

/// Protocol state.
struct State {
    seed: u64,
    hash_mib: usize,
    engine: Arc<Mutex<Engine>>,
    ruleset: Ruleset,
    game: Game,
    stop: Arc<AtomicBool>,
    /// Set by the search thread just before it answers `bestmove`, so that a command sent
    /// right after the answer is not refused while the thread winds down.
    answered: Arc<AtomicBool>,
    search: Option<JoinHandle<()>>,
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    // A closed stdout ends the session; there is nobody to tell.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// `cp <hundredths of a stone>`, or `win N` / `loss N` (turns to the end) when forced.
fn score_words(score: i32) -> String {
    if score > MATE_BOUND {
        format!("win {}", MATE - score)
    } else if score < -MATE_BOUND {
        format!("loss {}", MATE + score)
    } else {
        format!("cp {score}")
    }
}

fn info_line(r: &SearchResult) -> String {
    let secs = r.elapsed.as_secs_f64();
    let nps = if secs > 0.0 { (r.nodes as f64 / secs) as u64 } else { 0 };
    let pv: Vec<String> = r.pv.iter().map(|t| t.to_string()).collect();
    format!(
        "info depth {} score {} nodes {} nps {} time {} pv {}",
        r.depth,
        score_words(r.score),
        r.nodes,
        nps,
        r.elapsed.as_millis(),
        pv.join(" ")
    )
}

impl State {
    fn new(seed: u64, hash_mib: usize) -> State {
        let ruleset: Ruleset = "tsoro:8".parse().expect("valid ruleset");
        State {
            seed,
            hash_mib,
            engine: Arc::new(Mutex::new(Engine::new(seed).with_hash_mib(hash_mib))),
            ruleset,
            game: Game::new(Position::start(ruleset)),
            stop: Arc::new(AtomicBool::new(false)),
            answered: Arc::new(AtomicBool::new(false)),
            search: None,
        }
    }

    fn searching(&self) -> bool {
        self.search.is_some() && !self.answered.load(Ordering::SeqCst)
    }

    fn wait(&mut self) {
        if let Some(h) = self.search.take() {
            let _ = h.join();
        }
    }

    /// Replaces the engine by a new one with the current seed and table size (its tables
    /// forgotten).
    fn renew_engine(&mut self) {
        self.wait();
        *self.engine.lock().expect("engine lock") = Engine::new(self.seed).with_hash_mib(self.hash_mib);
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
                say("matombook");
            }
            "isready" => say("readyok"),
            "quit" => {
                self.stop.store(true, Ordering::Relaxed);
                self.wait();
                return Ok(false);
            }
            "stop" => {
                self.stop.store(true, Ordering::Relaxed);
                self.wait();
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
                    _ => anyhow::bail!(
                        "unknown option: expected `setoption name Seed value N` or `setoption name Hash value MIB`"
                    ),
                }
                self.renew_engine();
            }
            "position" => self.position(rest)?,
            "show" => say(&format!("info string position {}", self.game.position())),
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

    fn go(&mut self, rest: &[&str]) -> anyhow::Result<()> {
        // Written limits win over a level's whatever their order, as UCI's `go` parameters
        // are unordered: `go time 500 level hard` is `hard` with half a second; `infinite`
        // wins over every limit, as in UCI, and searches until `stop`.
        let mut limits = Limits::default();
        let mut level = None;
        let mut infinite = false;
        let mut it = rest.iter();
        while let Some(&w) = it.next() {
            let mut value = || it.next().copied().with_context(|| format!("go {w} needs a value"));
            match w {
                "time" | "movetime" => {
                    let v = value()?;
                    limits.time = Some(Duration::from_millis(v.parse().with_context(|| format!("bad time {v:?}"))?));
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
                _ => anyhow::bail!("unknown go parameter {w:?} (time, depth, nodes, level, infinite)"),
            }
        }
        if let Some(level) = level {
            limits = level.limits(self.game.position().ruleset()).overridden_by(limits);
        }
        if infinite {
            // Until `stop` (or a proven result): no time or node limit, the deepest search.
            limits = Limits { time: None, depth: Some(MAX_DEPTH), nodes: None };
        }
        self.wait();
        self.stop.store(false, Ordering::Relaxed);
        self.answered.store(false, Ordering::SeqCst);
        let answered = Arc::clone(&self.answered);
        let engine = Arc::clone(&self.engine);
        let stop = Arc::clone(&self.stop);
        let pos = self.game.position().clone();
        let history: Vec<Position> = self.game.positions()[..self.game.positions().len() - 1].to_vec();
        self.search = Some(std::thread::spawn(move || {
            let mut engine = engine.lock().expect("engine lock");
            let r = engine.search_with(&pos, limits, &stop, &history, &[], &mut |r| say(&info_line(r)));
            answered.store(true, Ordering::SeqCst);
            match r {
                Some(r) => say(&format!("bestmove {}", r.best)),
                None => say("bestmove none"),
            }
        }));
        Ok(())
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let mut state = State::new(args.seed, args.hash as usize);
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let line = line.context("reading stdin")?;
        match state.handle(line.trim()) {
            Ok(true) => {}
            Ok(false) => return Ok(()),
            Err(e) => say(&format!("info string error: {e:#}")),
        }
    }
    // End of input: let a running search finish and answer.
    state.wait();
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
