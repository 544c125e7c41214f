//! The load-test client at a small size: rooms open, both clients play legal turns, the
//! opponent receives them, and nothing goes wrong. (Speed is measured by `matombo
//! loadtest`, not asserted here.)

use std::sync::Arc;
use std::time::Duration;

use matombo_harness::loadtest::{run, Config, Live};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_load_test_plays_without_errors() {
    let config = Config {
        urls: Vec::new(),
        rooms: 8,
        duration: Duration::from_secs(2),
        ramp: Duration::from_millis(500),
        ruleset: "nsolo:8".parse().unwrap(),
        think: Duration::from_millis(200),
        seed: 5,
        lobby: false,
        reconnect: false,
    };
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
    let config = Config {
        urls: Vec::new(),
        rooms: 10,
        duration: Duration::from_secs(3),
        ramp: Duration::from_millis(500),
        ruleset: "tsoro:21".parse().unwrap(),
        think: Duration::from_millis(400),
        seed: 7,
        lobby: true,
        reconnect: false,
    };
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
    let config = Config {
        urls: vec!["http://192.0.2.1:8080".into()],
        rooms: 1,
        duration: Duration::from_secs(1),
        ramp: Duration::ZERO,
        ruleset: "tsoro:8".parse().unwrap(),
        think: Duration::from_millis(100),
        seed: 1,
        lobby: false,
        reconnect: false,
    };
    let err = run(config, Arc::new(Live::default())).await.unwrap_err();
    assert!(err.contains("loopback"), "{err}");
}
