//! `matombo tune` end to end: a tiny tuning run and a tiny validation match.

use std::path::Path;

mod common;
use common::{run as matombo, temp_dir};

/// Runs `matombo tune ARGS --out OUT --json`, which must succeed, and returns its summary
/// and the weights file it wrote, which must be the summary's `weights`.
fn tune(args: &[&str], out: &Path) -> (serde_json::Value, serde_json::Value) {
    let mut all = vec!["tune"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--out", out.to_str().unwrap(), "--json"]);
    let (ok, stdout, err) = matombo(&all);
    assert!(ok, "{err}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    assert_eq!(summary["weights"], file);
    (summary, file)
}

const NAMES: [&str; 6] = ["material", "mobility", "threat_to_move", "threat_waiting", "heads", "singles"];

#[test]
fn a_tiny_tune_writes_weights_near_the_start() {
    let dir = temp_dir("tune-spsa");
    let start = dir.join("start.json");
    std::fs::write(&start, r#"{"mobility": 30, "heads": 50}"#).unwrap();
    let out = dir.join("tuned.json");
    let (summary, file) = tune(
        &[
            "--ruleset",
            "tsoro:6",
            "--iterations",
            "2",
            "--games-per-iteration",
            "2",
            "--nodes",
            "150",
            "--max-turns",
            "60",
            "--perturbation",
            "8",
            "--learning-rate",
            "1",
            "--start",
            start.to_str().unwrap(),
        ],
        &out,
    );
    assert_eq!(summary["games"], 4);
    let begin = &summary["start"];
    assert_eq!(
        (begin["mobility"].as_i64(), begin["heads"].as_i64(), begin["singles"].as_i64()),
        (Some(30), Some(50), Some(25))
    );
    // Material is the unit and never moves; each tuned weight moves at most a·c per
    // iteration (a ≤ 1, c ≤ 8 here), so by at most 16 in two.
    assert_eq!(file["material"], begin["material"]);
    for name in NAMES {
        let (a, b) = (begin[name].as_i64().unwrap(), file[name].as_i64().unwrap());
        assert!((a - b).abs() <= 16 && (0..=1000).contains(&b), "{name}: {a} -> {b}");
    }
    // The written file is accepted as a start and by --validate.
    let (ok, stdout, err) = matombo(&[
        "tune",
        "--ruleset",
        "tsoro:6",
        "--validate",
        out.to_str().unwrap(),
        "--games",
        "2",
        "--nodes",
        "150",
        "--max-turns",
        "60",
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["games"], 2);
    assert_eq!(v["weights"], file);
    assert_eq!(v["against"]["mobility"], 12);
    let score = v["stats"]["score"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&score));
}

#[test]
fn bad_arguments_are_refused_and_write_nothing() {
    let dir = temp_dir("tune-bad");
    let out = dir.join("never.json");
    let (ok, _, err) = matombo(&["tune", "--games-per-iteration", "3", "--out", out.to_str().unwrap()]);
    assert!(!ok && err.contains("--games-per-iteration"), "{err}");
    assert!(!out.exists());
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"mobility": -5}"#).unwrap();
    let (ok, _, err) = matombo(&["tune", "--start", bad.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(!ok && err.contains("mobility") && err.contains("bad.json"), "{err}");
    assert!(!out.exists());
    let (ok, _, err) = matombo(&["tune", "--validate", "/nonexistent/w.json"]);
    assert!(!ok && err.contains("/nonexistent/w.json"), "{err}");
}

#[test]
fn a_tiny_texel_fit_writes_weights_a_match_can_play() {
    let out = temp_dir("tune-texel").join("texel.json");
    let (summary, file) = tune(&["--ruleset", "nsolo:8", "--texel", "6", "--nodes", "150", "--max-turns", "200"], &out);
    assert_eq!(summary["games"], 6);
    assert!(summary["positions"].as_u64().unwrap() > 0, "{summary}");
    // The fit starts from Nsolo's own weights and never makes the error worse; material is
    // the unit and heads unused in Nsolo, so neither moves.
    assert_eq!(summary["start"]["singles"], matombo_ai::Weights::NSOLO.singles);
    let (before, after) = (summary["error_before"].as_f64().unwrap(), summary["error_after"].as_f64().unwrap());
    assert!(after <= before && summary["k"].as_f64().unwrap() > 0.0, "{summary}");
    assert_eq!((file["material"].as_i64(), file["heads"].as_i64()), (Some(100), Some(4)));
    // A match plays the file through `weights=FILE`.
    let spec = format!("nodes=100,weights={}", out.display());
    let (ok, stdout, err) = matombo(&["match", &spec, "nodes=100", "--ruleset", "nsolo:8", "--games", "2", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        v["wins"].as_u64().unwrap()
            + v["losses"].as_u64().unwrap()
            + v["draws"].as_u64().unwrap()
            + v["unfinished"].as_u64().unwrap(),
        2,
        "{v}"
    );
}
