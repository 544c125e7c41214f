//! Drives `matombo engine` as a subprocess over its line protocol.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use matombo_core::{Game, Position, Token};

/// The depths of a search's `info depth D …` lines.
fn info_depths(lines: &[String]) -> Vec<u32> {
    lines.iter().filter_map(|l| l.strip_prefix("info depth ")?.split(' ').next()?.parse().ok()).collect()
}

struct EngineProcess {
    child: Child,
    /// `None` once closed (end of input).
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl EngineProcess {
    fn start() -> EngineProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_matombo"))
            .args(["engine", "--seed", "5"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("matombo engine starts");
        let stdin = child.stdin.take().unwrap();
        let stdout: ChildStdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line.unwrap()).is_err() {
                    break;
                }
            }
        });
        EngineProcess { child, stdin: Some(stdin), lines }
    }

    /// Ends the input: with `quit`, or by closing it (`end of input`).
    fn end(&mut self, how: &str) {
        if how == "quit" {
            self.send("quit");
        } else {
            self.stdin = None;
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("input open");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Lines up to and including the first one starting with `prefix`.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut out = Vec::new();
        loop {
            let line = self.lines.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|_| {
                panic!("no line starting with {prefix:?} (got {out:?})");
            });
            let done = line.starts_with(prefix);
            out.push(line);
            if done {
                return out;
            }
        }
    }

    fn bestmove(&mut self) -> (Vec<String>, String) {
        let lines = self.until("bestmove ");
        let best = lines.last().unwrap()["bestmove ".len()..].to_string();
        (lines, best)
    }
}

#[test]
fn a_whole_session() {
    let mut e = EngineProcess::start();
    e.send("matombo");
    let hello = e.until("matombook");
    assert!(hello[0].starts_with("id name matombo"), "{hello:?}");
    assert!(hello.iter().any(|l| l.starts_with("option name Hash type spin default 16 ")), "{hello:?}");
    e.send("setoption name Hash value 32");
    e.send("isready");
    assert_eq!(e.until("readyok"), vec!["readyok"], "a good Hash value is taken silently");
    e.send("setoption name Hash value 0");
    assert!(e.until("info string error").last().unwrap().contains("Hash"));
    e.send("isready");
    assert_eq!(e.until("readyok"), vec!["readyok"]);

    // A position with turns played since, then a depth-limited search.
    e.send("position tsoro:8 moves B2= b2=");
    e.send("show");
    let shown = e.until("info string result");
    let expected = Game::new(Position::start("tsoro:8".parse().unwrap()));
    let mut game = expected;
    game.play(&"B2=".parse().unwrap()).unwrap();
    game.play(&"b2=".parse().unwrap()).unwrap();
    assert_eq!(shown[shown.len() - 2], format!("info string position {}", game.position()));
    assert_eq!(shown.last().unwrap(), "info string result * (South to move)");
    e.send("go depth 3");
    let (lines, best) = e.bestmove();
    assert!(lines.iter().all(|l| l.starts_with("info depth ") || l.starts_with("bestmove ")), "{lines:?}");
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth")).collect();
    assert_eq!(infos.len(), 3, "{lines:?}");
    assert!(infos[2].contains(" score cp ") && infos[2].contains(" pv "), "{lines:?}");
    let token: Token = best.parse().unwrap();
    assert!(game.position().play(&token).is_ok(), "illegal bestmove {best}");

    // Errors are reported and change nothing.
    e.send("go sideways");
    e.until("info string error");
    e.send("frobnicate");
    e.until("info string error");
    e.send("show");
    assert_eq!(e.until("info string position").last().unwrap(), &format!("info string position {}", game.position()));
    e.until("info string result");

    // An infinite search ends on stop, answers isready meanwhile, and gives a legal turn.
    e.send("position nsolo:36");
    e.send("go infinite");
    e.send("isready");
    e.until("readyok");
    e.send("stop");
    let (_, best) = e.bestmove();
    let start = Position::start("nsolo:36".parse().unwrap());
    assert!(start.play(&best.parse().unwrap()).is_ok(), "illegal bestmove {best}");

    // `infinite` wins over a level's limits whatever their order: `beginner` alone
    // answers after depth 1 within 50 ms, but here the search runs until stop.
    for go in ["go level beginner infinite", "go infinite level beginner"] {
        e.send(go);
        std::thread::sleep(Duration::from_millis(500));
        e.send("isready");
        let mut lines = e.until("readyok");
        assert!(!lines.iter().any(|l| l.starts_with("bestmove")), "{go}: answered before stop: {lines:?}");
        e.send("stop");
        let (after, best) = e.bestmove();
        lines.extend(after);
        assert!(info_depths(&lines).iter().max() > Some(&1), "{go}: {lines:?}");
        assert!(start.play(&best.parse().unwrap()).is_ok(), "illegal bestmove {best}");
    }

    // A lost position: no legal turn.
    e.send("position tsoro:8 2*8/0*8/0*8/0*8 S");
    e.send("go depth 2");
    assert_eq!(e.bestmove().1, "none");

    // A node-limited search with a seed option.
    e.send("setoption name Seed value 9");
    e.send("position startpos moves B2=");
    e.send("go nodes 300");
    let (_, best) = e.bestmove();
    let p = Position::start("tsoro:8".parse().unwrap()).play(&"B2=".parse().unwrap()).unwrap();
    assert!(p.play(&best.parse().unwrap()).is_ok());

    // A level's limits on the position's board, then a written limit in place of its
    // time: on tsoro:8 `hard` stops at its depth cap, long before the minute is up.
    e.send("go level hard time 60000");
    let (lines, best) = e.bestmove();
    let depths = info_depths(&lines);
    assert_eq!(depths.iter().max(), Some(&12), "depths {depths:?}");
    assert!(p.play(&best.parse().unwrap()).is_ok());

    // Written limits win whatever their order: the depth before the level holds.
    e.send("go depth 3 level hard");
    let (lines, best) = e.bestmove();
    let depths = info_depths(&lines);
    assert_eq!(depths.iter().max(), Some(&3), "depths {depths:?}");
    assert!(p.play(&best.parse().unwrap()).is_ok());

    e.send("quit");
    let status = e.child.wait().unwrap();
    assert!(status.success());
}

/// The `info string …` or other single answer to `line`.
fn ask(e: &mut EngineProcess, line: &str, prefix: &str) -> String {
    e.send(line);
    e.until(prefix).pop().unwrap()
}

#[test]
fn a_refused_position_leaves_none_until_a_valid_one() {
    let mut e = EngineProcess::start();
    e.send("position tsoro:8 moves B2=");
    for bad in ["position tsoro:8 moves B2= B2=", "position tsoro:5", "position", "position tsoro:8 moves Z9="] {
        let err = ask(&mut e, bad, "info string error: ");
        assert!(err.starts_with("info string error: "), "{bad}: {err}");
        for refused in ["go depth 2", "turns", "show"] {
            let answer = ask(&mut e, refused, "info string error: ");
            assert!(answer.contains("no position"), "{bad} then {refused}: {answer}");
        }
    }
    // A valid position: all answer again, for it and not the old one.
    e.send("position tsoro:8 moves B2= b2=");
    e.send("go depth 2");
    let (lines, best) = e.bestmove();
    assert!(!lines.iter().any(|l| l.starts_with("info string")), "{lines:?}");
    let mut game = Game::new(Position::start("tsoro:8".parse().unwrap()));
    game.play(&"B2=".parse().unwrap()).unwrap();
    game.play(&"b2=".parse().unwrap()).unwrap();
    assert!(game.position().play(&best.parse().unwrap()).is_ok(), "{best}");
    e.send("quit");
    assert!(e.child.wait().unwrap().success());
}

#[test]
fn turns_lists_every_legal_turn_and_show_tells_the_result() {
    let mut e = EngineProcess::start();
    for pos in ["tsoro:8", "nsolo:8 2*8/0,2*7/2*7,0/2*8 S", "tsoro:8 2*8/0*8/0*6,1*2/2,0,3,0,3*2,0,3 N"] {
        e.send(&format!("position {pos}"));
        let line = ask(&mut e, "turns", "turns ");
        let listed: Vec<&str> = line["turns ".len()..].split(' ').collect();
        let p: Position = pos.parse().unwrap();
        let legal: Vec<String> = p.turns().map(|(t, _)| t.to_string()).collect();
        assert_eq!(listed, legal, "{pos}");
        assert!(!legal.is_empty());
    }
    // Over: South has no stone to move.
    let over = "tsoro:8 2*8/0*8/0*8/0*8 S";
    e.send(&format!("position {over}"));
    assert_eq!(ask(&mut e, "turns", "turns"), "turns none");
    e.send("show");
    let shown = e.until("info string result");
    assert_eq!(shown[0], format!("info string position {}", over.parse::<Position>().unwrap()));
    assert!(shown[1].starts_with("info string result 0-1 (North wins"), "{shown:?}");
    e.send("position tsoro:8");
    e.send("show");
    assert_eq!(e.until("info string result").last().unwrap(), "info string result * (South to move)");
    e.send("quit");
    assert!(e.child.wait().unwrap().success());
}

/// The `time` of the last `info depth` line, in milliseconds.
fn last_time(lines: &[String]) -> u64 {
    let info = lines.iter().rev().find(|l| l.starts_with("info depth")).expect("an info line");
    let words: Vec<&str> = info.split(' ').collect();
    let at = words.iter().position(|w| *w == "time").unwrap();
    words[at + 1].parse().unwrap()
}

#[test]
fn movetime_and_clocks_use_the_time_given() {
    let mut e = EngineProcess::start();
    e.send("position tsoro:21");
    // movetime: searches until the time is spent (the bestmove answers near it).
    let t0 = std::time::Instant::now();
    e.send("go movetime 600");
    let (_, best) = e.bestmove();
    let took = t0.elapsed();
    assert!(took >= Duration::from_millis(550), "movetime 600 answered after {took:?}");
    let start = Position::start("tsoro:21".parse().unwrap());
    assert!(start.play(&best.parse().unwrap()).is_ok());
    // A clock: South to move with 3 s left and 2 moves to go gets 1.5 s, North's clock
    // is not its own.
    let t0 = std::time::Instant::now();
    e.send("go wtime 3000 btime 10 movestogo 2");
    let (lines, _) = e.bestmove();
    let took = t0.elapsed();
    assert!(took >= Duration::from_millis(1400), "clock budget 1.5 s answered after {took:?}: {lines:?}");
    assert!(last_time(&lines) <= 1500, "{lines:?}");
    // The side to move's clock must be given.
    let err = ask(&mut e, "go btime 1000", "info string error");
    assert!(err.contains("wtime"), "{err}");
    for bad in ["go movetime soon", "go wtime 100 movestogo 0", "go movetime 10 time 10"] {
        assert!(ask(&mut e, bad, "info string error").starts_with("info string error: "), "{bad}");
    }
    e.send("quit");
    assert!(e.child.wait().unwrap().success());
}

#[test]
fn multipv_option_reports_ranked_lines() {
    let mut e = EngineProcess::start();
    e.send("setoption name MultiPV value 3");
    e.send("position tsoro:8");
    e.send("go depth 3");
    let (lines, best) = e.bestmove();
    let last: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth 3 ")).collect();
    assert_eq!(last.len(), 3, "{lines:?}");
    for (i, l) in last.iter().enumerate() {
        assert!(l.starts_with(&format!("info depth 3 multipv {} ", i + 1)), "{l}");
    }
    assert!(last[0].contains(&format!(" pv {best}")), "{lines:?}");
    assert!(ask(&mut e, "setoption name MultiPV value 0", "info string error").contains("MultiPV"));
    e.send("quit");
    assert!(e.child.wait().unwrap().success());
}

/// `quit` and end of input are one: a limited search is waited for and answers at its
/// depth; an infinite one is stopped and answers.
#[test]
fn quit_and_end_of_input_are_the_same() {
    for end in ["quit", "end of input"] {
        let mut e = EngineProcess::start();
        e.send("position tsoro:8");
        e.send("go depth 7");
        e.end(end);
        let (lines, _) = e.bestmove();
        assert_eq!(info_depths(&lines).iter().max(), Some(&7), "{end}: {lines:?}");
        assert!(e.child.wait().unwrap().success(), "{end}");
    }
    for end in ["quit", "end of input"] {
        let mut e = EngineProcess::start();
        e.send("position nsolo:36");
        e.send("go infinite");
        e.send("isready");
        e.until("readyok");
        e.end(end);
        let (_, best) = e.bestmove();
        assert!(Position::start("nsolo:36".parse().unwrap()).play(&best.parse().unwrap()).is_ok(), "{end}");
        assert!(e.child.wait().unwrap().success(), "{end}");
    }
}
