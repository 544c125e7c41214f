//! `matombo review` end to end, on games recorded by `matombo match --records`.

use std::path::{Path, PathBuf};

use matombo_core::{Game, Position, Record, Side, Token};
use serde_json::Value;

mod common;
use common::{run as matombo, run_with_input, temp_dir};

/// A fresh directory for one test.
fn dir(name: &str) -> PathBuf {
    temp_dir(&format!("review-{name}"))
}

/// The games of a `matombo match --records` file, one record text each.
fn recorded_games(dir: &Path, ruleset: &str, games: &str, seed: &str) -> Vec<String> {
    let file = dir.join(format!("{ruleset}.txt"));
    let (ok, _, err) = matombo(&[
        "match",
        "medium",
        "easy",
        "--ruleset",
        ruleset,
        "--games",
        games,
        "--seed",
        seed,
        "--max-turns",
        "120",
        "--records",
        file.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(&file).unwrap();
    let mut records: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with("[Ruleset ") {
            records.push(String::new());
        }
        let r = records.last_mut().expect("a record starts with its Ruleset tag");
        r.push_str(line);
        r.push('\n');
    }
    records
}

/// Reviews `record` at `nodes` nodes a position: the JSON and the annotated record.
fn review(dir: &Path, name: &str, record: &str, nodes: &str) -> (Value, String) {
    let input = dir.join(format!("{name}.txt"));
    let out = dir.join(format!("{name}-reviewed.txt"));
    std::fs::write(&input, record).unwrap();
    let (ok, json, err) =
        matombo(&["review", input.to_str().unwrap(), "--nodes", nodes, "--json", "--out", out.to_str().unwrap()]);
    assert!(ok, "{err}");
    (serde_json::from_str(&json).unwrap(), std::fs::read_to_string(&out).unwrap())
}

fn tokens(v: &Value) -> Vec<Token> {
    v.as_array().unwrap().iter().map(|t| t.as_str().unwrap().parse().unwrap()).collect()
}

#[test]
fn annotated_records_round_trip_and_every_best_turn_is_legal() {
    let d = dir("round-trip");
    let mut games = recorded_games(&d, "tsoro:8", "2", "5");
    games.extend(recorded_games(&d, "nsolo:8", "2", "5"));
    let mut classed = 0;
    for (g, text) in games.iter().enumerate() {
        let original: Record = text.parse().unwrap();
        let (v, annotated) = review(&d, &format!("game{g}"), text, "3000");
        // Read, written, read again: the same game, the same annotations.
        let read: Record = annotated.parse().unwrap();
        assert_eq!(read.game.moves(), original.game.moves(), "game {g}");
        assert_eq!(read.game.outcome(), original.game.outcome(), "game {g}");
        assert_eq!(read.tags, original.tags, "game {g}");
        assert_eq!(read.to_string(), annotated, "game {g}: written back differently");
        let again: Record = read.to_string().parse().unwrap();
        assert_eq!(again.annotations, read.annotations, "game {g}");
        assert_eq!(again.comments, read.comments, "game {g}");
        // The record says what the JSON says, turn by turn.
        let turns = v["turns"].as_array().unwrap();
        assert_eq!(turns.len(), original.game.moves().len());
        for (i, t) in turns.iter().enumerate() {
            let a = read.annotation(i);
            assert_eq!(a.and_then(|a| a.quality).map(|q| q.as_str()), t["suffix"].as_str(), "game {g} turn {i}");
            assert_eq!(a.and_then(|a| a.eval()).map(|e| e.to_string()).as_deref(), t["eval"].as_str());
            let loss = t["loss"].as_i64().expect("every turn scored");
            assert!(loss >= 0);
            if t["class"].is_string() {
                classed += 1;
                let text = &a.unwrap().comments.last().unwrap().text;
                assert!(text.starts_with(&format!("best: {}", t["best"].as_str().unwrap())), "{text}");
            }
        }
        // Every suggested best turn, and its line, is legal where it is suggested.
        let positions = original.game.positions();
        let scored = v["positions"].as_array().unwrap();
        assert_eq!(scored.len(), positions.len());
        for (p, s) in positions.iter().zip(scored) {
            if s["best"].is_null() {
                assert!(original.game.is_over(), "only a finished game's last position goes unscored");
                continue;
            }
            let best: Token = s["best"].as_str().unwrap().parse().unwrap();
            assert!(p.play(&best).is_ok(), "{best} in {p}");
            let mut q: Position = p.clone();
            for m in tokens(&s["pv"]) {
                q = q.play(&m).unwrap_or_else(|e| panic!("pv {m} in {q}: {e}"));
            }
        }
        for side in ["south", "north"] {
            let acc = v[side]["accuracy"].as_f64().unwrap();
            assert!((0.0..=100.0).contains(&acc), "{acc}");
        }
    }
    // Games between `medium` and `easy` (which plays a random turn now and then) have bad turns.
    assert!(classed > 0, "no turn classed in {} games", games.len());
    let _ = std::fs::remove_dir_all(&d);
}

/// The biggest capture the side to move can make at once.
fn best_capture(p: &Position) -> u32 {
    let them = p.side_to_move().opponent();
    p.turns().map(|(_, q)| p.stones(them) - q.stones(them)).max().unwrap_or(0)
}

#[test]
fn a_turn_that_gives_away_a_capture_is_a_blunder() {
    let d = dir("blunder");
    // In a recorded game, the first position with a safe turn (after which the opponent
    // captures nothing) and a turn after which he captures at least eight stones.
    let text = &recorded_games(&d, "tsoro:8", "2", "7")[0];
    let record: Record = text.parse().unwrap();
    // The giveaway captures nothing itself.
    let found = record.game.positions().iter().enumerate().find_map(|(i, p)| {
        let them = p.side_to_move().opponent();
        let after: Vec<(Token, u32, u32)> =
            p.turns().map(|(t, q)| (t, p.stones(them) - q.stones(them), best_capture(&q))).collect();
        let safe = after.iter().any(|&(_, _, given)| given == 0);
        let bad = after.into_iter().find(|&(_, took, given)| took == 0 && given >= 8).map(|(t, _, given)| (t, given));
        let even = p.stones(Side::South) >= 8 && p.stones(Side::North) >= 8;
        (safe && even).then_some(bad).flatten().map(|b| (i, b))
    });
    let (i, (bad, given)) = found.expect("a position with a safe turn and a giveaway");
    let mut game = Game::new(record.game.start().clone());
    for m in &record.game.moves()[..i] {
        game.play(m).unwrap();
    }
    game.play(&bad).unwrap();
    let (v, annotated) = review(&d, "blunder", &Record::new(game).to_string(), "2000");
    let last = v["turns"].as_array().unwrap().last().unwrap();
    assert_eq!(last["class"], "blunder", "{bad} gives away {given} stones: {last}");
    assert!(annotated.contains(&format!("{bad}??")), "{annotated}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn review_scores_agree_with_analyse_at_the_same_budget() {
    let d = dir("analyse");
    let text = &recorded_games(&d, "tsoro:8", "2", "9")[1];
    let record: Record = text.parse().unwrap();
    let (v, _) = review(&d, "agree", text, "20000");
    let positions = record.game.positions();
    let scored = v["positions"].as_array().unwrap();
    for i in [0, 1, 4, 9, positions.len() / 2] {
        let (ok, out, err) = matombo(&["analyse", &positions[i].to_string(), "--nodes", "20000", "--json"]);
        assert!(ok, "{err}");
        let a: Value = serde_json::from_str(&out).unwrap();
        let line = &a["lines"][0];
        assert_eq!(scored[i]["score"], line["score"], "position {i}: {}", positions[i]);
        assert_eq!(scored[i]["best"], line["best"], "position {i}");
        assert_eq!(scored[i]["pv"], line["pv"], "position {i}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn review_reads_stdin_and_prints_the_record_and_a_summary() {
    let record = "[Ruleset \"tsoro:8\"]\n\n1. B2= {a note} b2= 2. B7 *\n";
    let (ok, text, err) = run_with_input(&["review", "-", "--nodes", "500"], record);
    assert!(ok, "{err}");
    let read: Record = text.parse().unwrap();
    assert_eq!(read.game.moves().len(), 3);
    // The player's note stays, before the review's evaluation.
    let first = &read.annotation(0).unwrap().comments;
    assert_eq!(first[0].text, "a note");
    assert!(first.last().unwrap().eval.is_some(), "{text}");
    assert!(err.contains("South: accuracy") && err.contains("North: accuracy"), "{err}");
}

#[test]
fn review_rejects_broken_records_and_writes_nothing() {
    let d = dir("broken");
    let out = d.join("out.txt");
    let cases = [
        ("[Ruleset \"tsoro:8\"]\n\n1. B2= b2= 2. A1 *\n", "record line 3"),
        ("[Ruleset \"tsoro:99\"]\n\n1. B2= *\n", "Ruleset"),
        ("[Ruleset \"tsoro:8\"]\n\n1. B2= {[%eval 12]} *\n", "bad eval"),
        ("[Ruleset \"tsoro:8\"]\n\n1. B2= *\n\n[Ruleset \"tsoro:8\"]\n\n1. B1 *\n", "2 games"),
    ];
    for (i, (record, expected)) in cases.iter().enumerate() {
        let input = d.join(format!("bad{i}.txt"));
        std::fs::write(&input, record).unwrap();
        let (ok, stdout, err) = matombo(&["review", input.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert!(!ok, "case {i} accepted");
        assert!(err.contains(expected), "case {i}: {err}");
        assert!(stdout.is_empty() && !out.exists(), "case {i} wrote something");
    }
    let (ok, _, err) = matombo(&["review", d.join("missing.txt").to_str().unwrap()]);
    assert!(!ok && err.contains("missing.txt"), "{err}");
    let (ok, _, err) = matombo(&["review", "-", "--nodes", "0"]);
    assert!(!ok && err.contains("--nodes"), "{err}");
    let (ok, _, err) = matombo(&["review", "-", "--nodes", "5", "--time", "5"]);
    assert!(!ok && err.contains("--time"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}
