//! The load-test client at a small size: rooms open, both clients play legal turns, the
//! opponent receives them, and nothing goes wrong. (Speed is measured by `matombo
//! loadtest`, not asserted here.)

use std::sync::Arc;
use std::time::Duration;

use matombo_harness::loadtest::{run, Config, Live};

/// `rooms` rooms of `ruleset` against the harness's own server for `secs` seconds, opened
/// over half a second, a turn every `think_ms`.
fn config(rooms: usize, secs: u64, ruleset: &str, think_ms: u64, seed: u64) -> Config {
    Config {
        urls: Vec::new(),
        rooms,
        duration: Duration::from_secs(secs),
        ramp: Duration::from_millis(500),
        ruleset: ruleset.parse().unwrap(),
        think: Duration::from_millis(think_ms),
        seed,
        lobby: false,
        reconnect: false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_load_test_plays_without_errors() {
    let config = config(8, 2, "nsolo:8", 200, 5);
    let report = run(config, Arc::new(Live::default())).await.unwrap();
    assert_eq!(report.errors, 0, "{:?}", report.error_kinds);
    assert_eq!(report.clients, 16);
    assert!(report.turns > 0, "turns were delivered");
    assert!(report.p50_ms <= report.p99_ms && report.p99_ms <= report.max_ms);
    assert!(report.lobby.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_lobby_load_test_pairs_everyone_without_errors() {
    // Games last longer than the run (a turn every 400 ms or so), so every pair meets
    // exactly once and every meeting ends in the room.
    let config = Config { lobby: true, ..config(10, 3, "tsoro:21", 400, 7) };
    let report = run(config, Arc::new(Live::default())).await.unwrap();
    assert_eq!(report.errors, 0, "{:?}", report.error_kinds);
    assert_eq!(report.clients, 20);
    let lobby = report.lobby.expect("lobby figures");
    assert_eq!(lobby.players, 20);
    assert_eq!(lobby.pairs_met, 10, "all ten pairs met: {lobby:?}");
    assert_eq!(lobby.joined, 10, "both players of every pair reached the room: {lobby:?}");
    assert!(
        lobby.join_p50_ms > 0.0 && lobby.join_p50_ms <= lobby.join_p99_ms && lobby.join_p99_ms <= lobby.join_max_ms
    );
    assert_eq!(report.games_finished, 0);
    assert!(report.turns > 0, "the pairs played in their rooms");
    assert!(report.p50_ms <= report.p99_ms && report.p99_ms <= report.max_ms);
}

#[tokio::test]
async fn only_loopback_servers_are_tested() {
    let config =
        Config { urls: vec!["http://192.0.2.1:8080".into()], ramp: Duration::ZERO, ..config(1, 1, "tsoro:8", 100, 1) };
    let err = run(config, Arc::new(Live::default())).await.unwrap_err();
    assert!(err.contains("loopback"), "{err}");
}
