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
    stdin: ChildStdin,
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
        EngineProcess { child, stdin, lines }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
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
    let shown = e.until("info string position");
    let expected = Game::new(Position::start("tsoro:8".parse().unwrap()));
    let mut game = expected;
    game.play(&"B2=".parse().unwrap()).unwrap();
    game.play(&"b2=".parse().unwrap()).unwrap();
    assert_eq!(shown.last().unwrap(), &format!("info string position {}", game.position()));
    e.send("go depth 3");
    let (lines, best) = e.bestmove();
    assert!(lines.iter().all(|l| l.starts_with("info depth ") || l.starts_with("bestmove ")), "{lines:?}");
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth")).collect();
    assert_eq!(infos.len(), 3, "{lines:?}");
    assert!(infos[2].contains(" score cp ") && infos[2].contains(" pv "), "{lines:?}");
    let token: Token = best.parse().unwrap();
    assert!(game.position().play(&token).is_ok(), "illegal bestmove {best}");

    // Errors are reported and change nothing.
    e.send("position tsoro:8 moves B2= B2=");
    assert!(e.until("info string error").last().unwrap().contains("B2="));
    e.send("go sideways");
    e.until("info string error");
    e.send("frobnicate");
    e.until("info string error");
    e.send("show");
    assert_eq!(e.until("info string position").last().unwrap(), &format!("info string position {}", game.position()));

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
