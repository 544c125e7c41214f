//! `matombo analyse` and `matombo match` end to end.

use matombo_core::{Position, Record, Token};

mod common;
use common::run as matombo;

#[test]
fn analyse_json_gives_a_legal_line() {
    let pos = "nsolo:8 2*8/0,2*7/2*7,0/2*8 S";
    let (ok, out, err) = matombo(&["analyse", pos, "--depth", "3", "--multipv", "2", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let lines = v["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 2);
    let p: Position = pos.parse().unwrap();
    for l in lines {
        assert_eq!(l["depth"], 3);
        let mut q = p.clone();
        for t in l["pv"].as_array().unwrap() {
            q = q.play(&t.as_str().unwrap().parse::<Token>().unwrap()).unwrap();
        }
        assert!(l["nodes"].as_u64().unwrap() > 0);
    }
    assert_ne!(lines[0]["best"], lines[1]["best"]);
}

#[test]
fn analyse_rejects_bad_input() {
    let (ok, _, err) = matombo(&["analyse", "tsoro:99"]);
    assert!(!ok && err.contains("position"), "{err}");
    let (ok, _, err) = matombo(&["analyse", "tsoro:8", "--depth", "0"]);
    assert!(!ok && err.contains("depth"), "{err}");
    let (ok, _, err) = matombo(&["analyse", "tsoro:8", "--hash", "0"]);
    assert!(!ok && err.contains("--hash"), "{err}");
}

/// `--hash` sizes the transposition table: at the same depth a table of 1 MiB, too small
/// for the search, costs more nodes than one of 64 MiB, for the same best turn.
#[test]
fn analyse_hash_sizes_the_table() {
    let nodes_and_best = |mib: &str| {
        let (ok, out, err) = matombo(&["analyse", "tsoro:8", "--depth", "10", "--hash", mib, "--json"]);
        assert!(ok, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        (v["lines"][0]["nodes"].as_u64().unwrap(), v["lines"][0]["best"].as_str().unwrap().to_string())
    };
    let (small, best_small) = nodes_and_best("1");
    let (big, best_big) = nodes_and_best("64");
    assert!(big < small, "64 MiB: {big} nodes, 1 MiB: {small}");
    assert_eq!(best_small, best_big);
}

#[test]
fn match_reports_and_records_every_game() {
    let dir = std::env::temp_dir().join(format!("matombo-match-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("games.pgn");
    let (ok, out, err) = matombo(&[
        "match",
        "depth=2",
        "random",
        "--ruleset",
        "tsoro:8",
        "--games",
        "6",
        "--threads",
        "2",
        "--max-turns",
        "60",
        "--sprt",
        "0,100",
        "--json",
        "--records",
        file.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let total: u64 = ["wins", "losses", "draws", "unfinished"].iter().map(|k| v[k].as_u64().unwrap()).sum();
    assert_eq!(total, 6);
    assert!(v["stats"]["score"].as_f64().is_some());
    assert!(["H0", "H1", "continue"].contains(&v["sprt"]["verdict"].as_str().unwrap()));
    // Every game is a record that replays legally, with colours swapped in each pair.
    let text = std::fs::read_to_string(&file).unwrap();
    let records: Vec<Record> =
        text.split("\n\n\n").filter(|s| !s.trim().is_empty()).map(|s| s.parse().unwrap()).collect();
    assert_eq!(records.len(), 6);
    let rounds: Vec<String> = records.iter().map(|r| r.tag("Round").unwrap().to_string()).collect();
    assert_eq!(rounds, ["1", "2", "3", "4", "5", "6"]);
    for pair in records.chunks(2) {
        assert_eq!(pair[0].tag("South"), pair[1].tag("North"));
        assert_eq!(pair[0].game.start(), pair[1].game.start());
    }
    let wins_recorded = records
        .iter()
        .filter(|r| {
            let first_south = r.tag("South") == Some("depth=2");
            (first_south && r.result() == "1-0") || (!first_south && r.result() == "0-1")
        })
        .count();
    assert_eq!(wins_recorded as u64, v["wins"].as_u64().unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Records are written as the games end: a match stopped half-way keeps what it played.
#[test]
fn an_interrupted_match_keeps_its_records() {
    let dir = std::env::temp_dir().join(format!("matombo-stopped-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("games.pgn");
    let mut child = common::matombo()
        .args(["match", "depth=3", "greedy", "--ruleset", "nsolo:8", "--games", "100000", "--records"])
        .arg(&file)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("matombo runs");
    // A record is complete once the blank lines that end it are written.
    let complete = |text: &str| text.matches("\n\n\n").count();
    let started = std::time::Instant::now();
    while complete(&std::fs::read_to_string(&file).unwrap_or_default()) < 3 {
        assert!(started.elapsed().as_secs() < 60, "no records written after a minute");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let records: Vec<Record> = text.split("\n\n\n").take(complete(&text)).map(|s| s.parse().unwrap()).collect();
    assert!(records.len() >= 3 && records.len() < 100000);
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r.tag("Round"), Some((i + 1).to_string().as_str()));
        assert!(r.game.is_over() || r.tag("Termination") == Some("turn limit"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn match_rejects_bad_specs() {
    let (ok, _, err) = matombo(&["match", "wizard", "random"]);
    assert!(!ok && err.contains("engine spec"), "{err}");
}

/// Output into a pipe that is already closed (`matombo analyse … | head -0`) ends the
/// program quietly, without a panic message.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_quietly() {
    use std::process::Stdio;
    let mut child = common::matombo()
        .args(["analyse", "tsoro:8", "--time", "300"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("matombo runs");
    // Closed before the search ends, so that its first line meets a closed pipe.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("matombo ends");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert!(!out.status.success(), "the first line cannot have been written");
}

/// The start positions of a records file, one per game.
fn record_starts(text: &str) -> Vec<String> {
    text.split("\n\n\n")
        .filter(|g| !g.trim().is_empty())
        .map(|g| g.parse::<Record>().expect("a legal record").game.start().to_string())
        .collect()
}

fn balance_score(pos: &str, nodes: &str) -> i64 {
    let (ok, out, err) = matombo(&["analyse", pos, "--nodes", nodes, "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["lines"][0]["score"].as_i64().unwrap()
}

/// `--balanced CP` keeps only openings that `analyse` at the same node budget scores within
/// ±CP, the same ones on any number of threads; without it, the same seed gives openings
/// outside (so the filter is doing work).
#[test]
fn balanced_openings_score_near_even() {
    let dir = std::env::temp_dir().join(format!("matombo-balanced-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |name: &str, extra: &[&str]| {
        let file = dir.join(name);
        let f = file.to_str().unwrap();
        let mut args =
            vec!["match", "greedy", "random", "--ruleset", "nsolo:8", "--games", "12", "--records", f, "--json"];
        args.extend_from_slice(extra);
        let (ok, out, err) = matombo(&args);
        assert!(ok, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        (v, record_starts(&std::fs::read_to_string(&file).unwrap()))
    };
    let (v, balanced) = run("balanced.pgn", &["--balanced", "60", "--balance-nodes", "20000"]);
    assert_eq!((v["balanced"].as_u64(), v["balance_nodes"].as_u64()), (Some(60), Some(20000)));
    assert_eq!(balanced.len(), 12);
    for pair in balanced.chunks(2) {
        assert_eq!(pair[0], pair[1], "both games of a pair start alike");
        let score = balance_score(&pair[0], "20000");
        assert!(score.abs() <= 60, "{} scores {score}", pair[0]);
    }
    // The same openings whatever the number of threads that search them.
    let (_, threaded) = run("threaded.pgn", &["--balanced", "60", "--balance-nodes", "20000", "--threads", "3"]);
    assert_eq!(threaded, balanced);
    let (v, plain) = run("plain.pgn", &[]);
    assert!(v["balanced"].is_null());
    let outside = plain.iter().step_by(2).filter(|p| balance_score(p, "20000").abs() > 60).count();
    assert!(outside > 0, "every random opening was balanced: the test shows nothing");
    std::fs::remove_dir_all(&dir).ok();
}

/// A tolerance no opening can meet is a clear error, and no records file is left.
#[test]
fn balanced_openings_that_cannot_be_found_are_an_error() {
    // With no random turns the only opening is the start, whose score is known.
    let start = balance_score("nsolo:8", "20000");
    assert_ne!(start, 0, "the start must score off even for this test");
    let within = (start.abs() - 1).to_string();
    let file = std::env::temp_dir().join(format!("matombo-unbalanced-{}.pgn", std::process::id()));
    let f = file.to_str().unwrap();
    let (ok, _, err) = matombo(&[
        "match",
        "random",
        "random",
        "--ruleset",
        "nsolo:8",
        "--opening-turns",
        "0",
        "--balanced",
        &within,
        "--balance-nodes",
        "20000",
        "--records",
        f,
    ]);
    assert!(!ok && err.contains("no opening") && err.contains("--balanced"), "{err}");
    assert!(!file.exists(), "a failed match leaves no records file");
    // A balance budget alone would be ignored: it is refused instead.
    let (ok, _, err) = matombo(&["match", "random", "random", "--balance-nodes", "5000"]);
    assert!(!ok && err.contains("--balanced"), "{err}");
}

#[test]
fn show_reports_a_bad_ruleset_in_its_own_words() {
    for (arg, says) in [("tsoro:5", "holes per row, not 5"), ("tsoro:8,heads=3", "bad ruleset option heads=3")] {
        let (ok, out, err) = matombo(&["show", arg]);
        assert!(!ok && out.is_empty(), "{arg}: {out}");
        assert!(err.contains("in the ruleset") && err.contains(says), "{arg}: {err}");
        assert!(!err.contains("<row b>"), "{arg}: the generic position-shape error: {err}");
        assert_eq!(err.matches(says).count(), 1, "{arg}: said once: {err}");
    }
    // A good ruleset name still shows its start position.
    let (ok, out, err) = matombo(&["show", "nsolo:36"]);
    assert!(ok && out.starts_with("nsolo:36  (36 holes per row)"), "{err}{out}");
}

#[test]
fn match_sprt_stops_at_a_verdict_after_the_minimum_games() {
    let run = |extra: &[&str]| {
        let mut args = vec!["match", "depth=2", "random", "--ruleset", "tsoro:6", "--games", "60", "--threads", "2"];
        args.extend_from_slice(&["--max-turns", "80", "--sprt=-400,0"]);
        args.extend_from_slice(extra);
        let (ok, out, err) = matombo(&args);
        assert!(ok, "{err}");
        out
    };
    // depth=2 beats random nearly every game: H1 of "about equal" against "400 weaker"
    // comes quickly, but not before the minimum.
    let v: serde_json::Value = serde_json::from_str(&run(&["--sprt-min-games", "10", "--json"])).unwrap();
    assert_eq!(v["sprt_stopped"], true, "{v}");
    assert_eq!(v["sprt"]["verdict"], "H1", "{v}");
    let played = v["played"].as_u64().unwrap();
    let total: u64 = ["wins", "losses", "draws", "unfinished"].iter().map(|k| v[k].as_u64().unwrap()).sum();
    assert_eq!(total, played);
    assert!((10..60).contains(&played), "{v}");
    let text = run(&["--sprt-min-games", "10"]);
    assert!(text.contains("stopped at the SPRT verdict after ") && text.contains(" of 60 games"), "{text}");
    // No verdict, so no stop, before the minimum.
    let v: serde_json::Value = serde_json::from_str(&run(&["--sprt-min-games", "1000", "--json"])).unwrap();
    assert_eq!((v["sprt_stopped"].as_bool(), v["played"].as_u64()), (Some(false), Some(60)), "{v}");
    assert_eq!(v["sprt"]["verdict"], "continue", "{v}");
}

#[test]
fn bench_prints_the_search_signature() {
    let (ok, out, err) = matombo(&["bench", "--signature", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let sig = matombo_ai::bench::signature();
    assert_eq!(v["signature"], sig.total());
    assert_eq!(v["nodes"], serde_json::json!(sig.nodes));
    let (ok, out, _) = matombo(&["bench", "--signature"]);
    assert!(ok);
    assert_eq!(out.trim(), format!("signature: {} nodes", sig.total()));
}

#[test]
fn bench_net_takes_a_file_or_none_and_refuses_a_bad_one() {
    let (ok, out, err) = matombo(&["bench", "--ruleset", "nsolo:8", "--net", "none", "--seconds", "0.05", "--json"]);
    assert!(ok, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(rows[0]["ruleset"], "nsolo:8");
    let (ok, _, err) = matombo(&["bench", "--net", "no-such-file.nnue"]);
    assert!(!ok && err.contains("cannot read network file"), "{err}");
}

/// `--positions`: every position is played twice, colours swapped, from the file's own
/// position, and each game's length and result are listed as the records show them.
#[test]
fn match_from_given_positions_lists_every_game() {
    let dir = std::env::temp_dir().join(format!("matombo-positions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (list, file) = (dir.join("endgames.txt"), dir.join("games.pgn"));
    // Two won single-stone endgames for South (comments and blank lines are skipped).
    let starts = [
        "tsoro:6,heads=0,bonus=0 0*6/1,0*5/0*4,1,0/1,0*5 S",
        "tsoro:6,heads=0,bonus=0 0*3,1,0*2/0*6/0*6/1,0*2,1,0*2 N",
    ];
    std::fs::write(&list, format!("# South wins\n{}  # 2 against 1\n\n{}\n", starts[0], starts[1])).unwrap();
    let (ok, out, err) = matombo(&[
        "match",
        "depth=4",
        "depth=2",
        "--positions",
        list.to_str().unwrap(),
        "--json",
        "--records",
        file.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ruleset"], "tsoro:6,heads=0,bonus=0");
    let games = v["positions"].as_array().unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let records: Vec<Record> =
        text.split("\n\n\n").filter(|s| !s.trim().is_empty()).map(|s| s.parse().unwrap()).collect();
    assert_eq!((games.len(), records.len()), (4, 4));
    for (i, (g, r)) in games.iter().zip(&records).enumerate() {
        assert_eq!(g["position"].as_u64(), Some(i as u64 / 2 + 1));
        assert_eq!(g["first_plays"], if i % 2 == 0 { "S" } else { "N" });
        assert_eq!(r.game.start().to_string(), starts[i / 2]);
        assert_eq!(g["turns"].as_u64(), Some(r.game.moves().len() as u64));
        // The side with two stones to one wins whichever engine plays it.
        assert_eq!((g["winner"].as_str(), r.result()), (Some("S"), "1-0"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
