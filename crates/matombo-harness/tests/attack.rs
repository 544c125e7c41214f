//! The attack harness against an in-process server: the cheap attacks run for a second and
//! their bounds hold (latency is not judged here: the test machine may be busy).

use std::time::Duration;

use matombo_harness::attack::{run, Config, Scale, Thresholds};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_origins_and_room_filling_are_refused() {
    let config = Config {
        urls: Vec::new(),
        duration: Duration::from_secs(1),
        scale: Scale::Short,
        only: vec!["foreign-origin".into(), "room-fill".into()],
        thresholds: Thresholds::default(),
    };
    let mut started = Vec::new();
    let reports = run(&config, |name| started.push(name.to_string())).await.unwrap();
    assert_eq!(started, ["foreign-origin", "room-fill"]);
    let foreign = &reports[0];
    assert!(foreign.bound_held, "{foreign:?}");
    assert!(!foreign.outcomes.is_empty());
    for kind in foreign.outcomes.keys() {
        assert!(kind.ends_with(": 403") || kind.ends_with("text/plain: 415"), "{kind}");
    }
    let fill = &reports[1];
    assert!(fill.bound_held, "{fill:?}");
    assert!(fill.outcomes.get("201").is_some_and(|&n| n > 0), "{:?}", fill.outcomes);
    // The honest client was served meanwhile.
    assert!(foreign.honest.gets > 0 && fill.honest.gets > 0);
    // An unknown attack is refused before anything runs.
    let bad = Config { only: vec!["nope".into()], ..config };
    assert!(run(&bad, |_| {}).await.unwrap_err().contains("foreign-origin"));
}
