//! `matombo egtb` and `analyse --egtb` end to end.

use std::path::PathBuf;

mod common;
use common::{run as matombo, run_with_input};

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("matombo-egtb-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A fresh directory `name` with the tables of [`RULESET`] built by `egtb build ARGS…`.
fn built(name: &str, args: &[&str]) -> PathBuf {
    let dir = temp(name);
    let mut build = vec!["egtb", "build", RULESET, "--dir", dir.to_str().unwrap()];
    build.extend_from_slice(args);
    let (ok, _, err) = matombo(&build);
    assert!(ok, "{err}");
    dir
}

const RULESET: &str = "tsoro:6,heads=0,bonus=0";
/// South's single stone captures North's last: a win in 1.
const WIN_IN_1: &str = "tsoro:6,heads=0,bonus=0 0*6/0*5,1/0*6/0*5,1 S";

#[test]
fn build_resume_info_probe_and_analyse() {
    let dir = temp("cli");
    let d = dir.to_str().unwrap();
    let (ok, out, err) = matombo(&["egtb", "build", RULESET, "--stones", "3", "--dir", d, "--json"]);
    assert!(ok, "{err}");
    let layers: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(layers.len(), 4);
    assert!(layers.iter().all(|l| l["built"] == true));
    assert_eq!(layers[1]["positions"], 48);
    for l in &layers {
        let sum = l["wins"].as_u64().unwrap() + l["losses"].as_u64().unwrap() + l["draws"].as_u64().unwrap();
        assert_eq!(sum, l["positions"].as_u64().unwrap());
    }
    // Resumed: the layers there are read, one more is built.
    let (ok, out, err) = matombo(&["egtb", "build", RULESET, "--stones", "4", "--dir", d]);
    assert!(ok, "{err}");
    assert_eq!(out.lines().filter(|l| l.ends_with("read")).count(), 4, "{out}");
    assert_eq!(out.lines().filter(|l| l.contains("built in")).count(), 1, "{out}");
    let (ok, out, err) = matombo(&["egtb", "info", RULESET, "--dir", d]);
    assert!(ok && out.contains("5 layers checked"), "{out}{err}");

    let (ok, out, err) = matombo(&["egtb", "probe", WIN_IN_1, "--dir", d, "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((v["value"].as_str(), v["distance"].as_u64()), (Some("win"), Some(1)));
    assert_eq!(v["best"], serde_json::json!(["B6"]));

    let (ok, out, err) = matombo(&["analyse", WIN_IN_1, "--depth", "3", "--egtb", d, "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["tables"]["text"], "win in 1");
    assert_eq!(v["lines"][0]["score_text"], "win in 1");
    let (ok, out, _) = matombo(&["analyse", WIN_IN_1, "--depth", "3", "--egtb", d]);
    assert!(ok && out.contains("tables: win in 1 (best: B6)"), "{out}");

    // Too many stones for the tables.
    let (ok, _, err) = matombo(&["egtb", "probe", "tsoro:6,heads=0,bonus=0", "--dir", d]);
    assert!(!ok && err.contains("hold at most 4"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn damaged_or_missing_tables_are_refused() {
    let dir = temp("bad");
    let d = dir.to_str().unwrap();
    let (ok, _, err) = matombo(&["analyse", WIN_IN_1, "--depth", "2", "--egtb", d]);
    assert!(!ok && err.contains("no tables") && err.contains("matombo egtb build"), "{err}");
    // The server will not start without the tables it was told to use (nor open its database).
    let db = dir.with_extension("sqlite3");
    let serve = |d: &str| matombo(&["serve", "--port", "0", "--db", db.to_str().unwrap(), "--egtb", d]);
    let (ok, out, err) = serve(d);
    assert!(!ok && out.is_empty() && err.contains("no tables") && err.contains("serve without --egtb"), "{err}");
    let (ok, _, err) = matombo(&["egtb", "build", RULESET, "--stones", "2", "--dir", d]);
    assert!(ok, "{err}");
    let file = std::fs::read_dir(std::fs::read_dir(&dir).unwrap().next().unwrap().unwrap().path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with("layer-002.mtb"))
        .unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x10;
    std::fs::write(&file, bytes).unwrap();
    for args in [vec!["analyse", WIN_IN_1, "--depth", "2", "--egtb", d], vec!["egtb", "info", RULESET, "--dir", d]] {
        let (ok, _, err) = matombo(&args);
        assert!(!ok && err.contains("checksum"), "{err}");
    }
    let (ok, out, err) = serve(d);
    assert!(!ok && out.is_empty() && err.contains("checksum") && err.contains("layer-002.mtb"), "{err}");
    assert!(!db.exists());
    let (ok, _, err) = matombo(&["egtb", "build", RULESET, "--stones", "99", "--dir", d]);
    assert!(!ok && err.contains("starts with 24 stones"), "{err}");
    let (ok, _, err) = matombo(&["egtb", "build", "tsoro:6", "--stones", "4", "--dir", d, "--memory", "0.00001"]);
    assert!(!ok && err.contains("needs more than"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn solve_agrees_with_the_tables_and_reports_what_it_did_not_prove() {
    let dir = built("solve", &["--stones", "4"]);
    let d = dir.to_str().unwrap();
    let pos = "tsoro:6,heads=0,bonus=0 0*6/0*4,1,1/0*6/0*4,1,1 S";
    let (ok, out, err) = matombo(&["egtb", "probe", pos, "--dir", d, "--json"]);
    assert!(ok, "{err}");
    let table: serde_json::Value = serde_json::from_str(&out).unwrap();
    for extra in [vec![], vec!["--egtb", d]] {
        let mut args = vec!["solve", pos, "--json"];
        args.extend(extra);
        let (ok, out, err) = matombo(&args);
        assert!(ok, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!((&v["value"], &v["distance"]), (&table["value"], &table["distance"]), "{out}");
        assert_eq!(v["line"].as_array().unwrap().len() as u64, v["distance"].as_u64().unwrap());
    }
    let (ok, out, err) = matombo(&["solve", RULESET, "--nodes", "20000", "--json", "--method", "deepen"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["value"], "open");
    assert!(v["searched_depth"].as_u64().unwrap() >= 3, "{out}");
    let (ok, out, _) = matombo(&["solve", RULESET, "--nodes", "20000", "--method", "deepen"]);
    assert!(ok && out.starts_with("not proved within the budget"), "{out}");
    // The proof-number search: how far it got, in numbers.
    let (ok, out, err) = matombo(&["solve", RULESET, "--nodes", "20000", "--memory", "8", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((&v["value"], &v["method"]), (&"open".into(), &"pns".into()), "{out}");
    assert!(v["pns_mover"].is_array() && v["table_bytes"].as_u64().unwrap() <= 8 << 20, "{out}");
    // Bad input: a clear error, nothing searched.
    for (args, says) in [
        (vec!["solve", RULESET, "--method", "bfs"], "invalid value 'bfs'"),
        (vec!["solve", RULESET, "--memory", "0"], "--memory"),
        (vec!["solve", "tsoro:6,heads=0,bonus=0 0*6/0*4,1,1/0*6/0*6 S"], "game is over"),
        (vec!["solve", "tsoro:5"], ""),
    ] {
        let (ok, _, err) = matombo(&args);
        assert!(!ok && err.contains(says), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_engine_protocol_uses_tables() {
    let dir = built("engine", &["--stones", "2"]);
    let d = dir.to_str().unwrap();
    let script = format!(
        "setoption name EgtbPath value {d}\nposition {WIN_IN_1}\nshow\ngo depth 3\nstop\nposition nsolo:8\nquit\n"
    );
    let (ok, out, err) = run_with_input(&["engine"], &script);
    assert!(ok, "{err}");
    assert!(out.contains(&format!("info string endgame tables of {RULESET} up to 2 stones")), "{out}");
    assert!(out.contains("info string tables win in 1"), "{out}");
    assert!(out.contains("bestmove B6"), "{out}");
    assert!(out.contains("info string no endgame tables of nsolo:8"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_match_engine_can_probe_the_tables() {
    let dir = built("match", &["--stones", "4"]);
    let d = dir.to_str().unwrap();
    let (ok, out, err) =
        matombo(&["match", "depth=2,egtb", "depth=2", "--ruleset", RULESET, "--games", "2", "--egtb", d, "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["games"], 2, "{out}");
    let (ok, _, err) = matombo(&["match", "depth=2,egtb", "depth=2", "--ruleset", RULESET, "--games", "2"]);
    assert!(!ok && err.contains("needs --egtb"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn review_scores_the_positions_the_tables_hold_exactly() {
    // Six stones, two legal turns for South, lost in 22 by the tables: far beyond what a
    // 2,000-node search proves.
    const POS: &str = "tsoro:6,heads=0,bonus=0 0,0,1,0,1,0/0,0,0,0,0,1/0,0,0,1,1,0/0,0,0,0,1,0 S";
    let dir = built("review", &["--stones", "6", "--threads", "1"]);
    let d = dir.to_str().unwrap();
    let (ok, out, err) = matombo(&["egtb", "probe", POS, "--dir", d, "--json"]);
    assert!(ok, "{err}");
    let probe: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((probe["value"].as_str(), probe["distance"].as_u64()), (Some("loss"), Some(22)));

    let record = dir.join("game.txt");
    std::fs::write(&record, format!("[Ruleset \"{RULESET}\"]\n[Position \"{POS}\"]\n\n1. B5 *\n")).unwrap();
    let review = |extra: &[&str]| {
        let mut args = vec!["review", record.to_str().unwrap(), "--nodes", "2000", "--json"];
        args.extend_from_slice(extra);
        let (ok, out, err) = matombo(&args);
        assert!(ok, "{err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let with = review(&["--egtb", d]);
    let without = review(&[]);
    // South to move loses in 22 turns; after the best turn North wins in 21.
    assert_eq!(with["positions"][0]["mate"], -22, "{with}");
    assert_eq!(with["positions"][1]["mate"], -21, "{with}");
    assert!(probe["best"].as_array().unwrap().contains(&with["positions"][0]["best"]), "{with}");
    assert!(without["positions"][0]["mate"].is_null(), "a 2,000-node search proves nothing: {without}");
    // A missing table directory is refused, not ignored.
    let (ok, _, err) = matombo(&["review", record.to_str().unwrap(), "--egtb", "/nonexistent-egtb-dir"]);
    assert!(!ok && err.contains("endgame tables"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
