//! `matombo train` end to end: a tiny dataset, a network trained on it, and bad arguments.

mod common;
use common::{run as matombo, temp_dir};

use matombo_ai::nnue::Network;

#[test]
fn a_tiny_dataset_trains_a_network_that_reads_back() {
    let dir = temp_dir("train");
    let data = dir.join("tiny.tsv");
    let (ok, stdout, err) = matombo(&[
        "train",
        "data",
        "--ruleset",
        "tsoro:6",
        "--games",
        "6",
        "--nodes",
        "200",
        "--max-turns",
        "200",
        "--threads",
        "2",
        "--out",
        data.to_str().unwrap(),
        "--json",
    ]);
    assert!(ok, "{err}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let lines = std::fs::read_to_string(&data).unwrap().lines().count();
    assert_eq!(summary["samples"].as_u64(), Some(lines as u64));
    assert!(lines >= 20, "{lines} samples");
    assert!(!dir.join("tiny.tsv.tmp").exists());

    let net = dir.join("tiny.nnue");
    let (ok, stdout, err) = matombo(&[
        "train",
        "net",
        "--data",
        data.to_str().unwrap(),
        "--out",
        net.to_str().unwrap(),
        "--epochs",
        "2",
        "--json",
    ]);
    assert!(ok, "{err}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["per_epoch"].as_array().unwrap().len(), 2);
    assert_eq!(summary["samples"].as_u64(), Some(lines as u64));
    // (A handful of games may be told apart by the search's score alone: K then saturates
    // and every loss is 0, so only their presence is checked.)
    for key in ["k", "baseline_loss", "initial_validation_loss", "validation_loss"] {
        assert!(summary[key].as_f64().is_some_and(|x| x >= 0.0), "{key}: {summary}");
    }
    let network = Network::from_bytes(&std::fs::read(&net).unwrap()).unwrap();
    assert!(network.fits("tsoro:6".parse().unwrap()));

    // Without --json: one line per epoch, then the summary.
    let (ok, stdout, err) =
        matombo(&["train", "net", "--data", data.to_str().unwrap(), "--out", net.to_str().unwrap(), "--epochs", "2"]);
    assert!(ok, "{err}");
    assert!(stdout.contains("epoch   2") && stdout.contains("hand-written evaluation"), "{stdout}");
}

#[test]
fn bad_arguments_and_datasets_are_refused() {
    let dir = temp_dir("train-bad");
    let out = dir.join("n.nnue");
    let bad = dir.join("bad.tsv");
    std::fs::write(&bad, "tsoro:6\t10\t1\ntsoro:6\t10\t0.3\n").unwrap();
    let cases: [(Vec<&str>, &str); 4] = [
        (vec!["train", "data", "--games", "0", "--out", out.to_str().unwrap()], "--games"),
        (vec!["train", "net", "--data", "/nonexistent.tsv", "--out", out.to_str().unwrap()], "not a file"),
        (vec!["train", "net", "--data", bad.to_str().unwrap(), "--out", out.to_str().unwrap(), "--lr", "0"], "--lr"),
        (vec!["train", "net", "--data", bad.to_str().unwrap(), "--out", out.to_str().unwrap()], "line 2"),
    ];
    for (line, word) in cases {
        let (ok, _, err) = matombo(&line);
        assert!(!ok && err.contains(word), "{line:?}: {err}");
    }
    assert!(!out.exists());
}
