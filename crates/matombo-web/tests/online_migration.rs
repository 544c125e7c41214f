//! Schema migrations: a database written by the release before players and ratings
//! (`tests/fixtures/online-v1.sqlite3`, schema version 1, made by `make_fixture` below with
//! that release's store) opens with today's code and keeps its games.

use std::path::PathBuf;

use matombo_core::{Outcome, Side, Termination};
use matombo_web::online::store::{Op, Store};

fn fixture() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/online-v1.sqlite3"))
}

/// Writes the fixture (run once with the release's code:
/// `cargo test -p matombo-web --test online_migration -- --ignored make_fixture`).
#[tokio::test]
#[ignore]
async fn make_fixture() {
    let path = std::env::temp_dir().join(format!("matombo-fixture-{}", std::process::id())).join("online.sqlite3");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
    let store = Store::open(&path).unwrap();
    let t0 = 1_790_000_000_000u64;
    let create = |id: &str, ruleset: &str, clock: bool| Op::Create {
        id: id.into(),
        ruleset: ruleset.into(),
        start: matombo_core::Position::start(ruleset.parse().unwrap()).to_string(),
        tokens: [format!("S{id}").repeat(4), format!("N{id}").repeat(4)],
        invite: format!("I{id}").repeat(3),
        creator: Side::South,
        name: "Rudo".into(),
        control: clock.then_some(matombo_web::online::room::TimeControl { initial_ms: 300_000, increment_ms: 5_000 }),
        created: t0,
        creator_addr: Some("192.0.2.7".into()),
    };
    // A finished game (resigned after three turns), a game in progress, an unclaimed room.
    for (id, rs, clock) in [("fixdone01", "tsoro:8", true), ("fixplay02", "nsolo:8", false), ("fixfree03", "tsoro:21", false)]
    {
        store.write(create(id, rs, clock)).await.unwrap();
    }
    for id in ["fixdone01", "fixplay02"] {
        store.write(Op::Claim { id: id.into(), side: Side::North, name: "Tendai".into(), at: t0 + 10 }).await.unwrap();
    }
    let mut game = matombo_core::Game::new(matombo_core::Position::start("tsoro:8".parse().unwrap()));
    for ply in 0..3u32 {
        let t = game.position().turns().next().unwrap().0;
        game.play(&t).unwrap();
        let op = Op::Turn {
            id: "fixdone01".into(),
            ply,
            token: t.to_string(),
            remaining: Some([290_000, 295_000]),
            at: t0 + 1000 * u64::from(ply + 1),
            end: None,
        };
        store.write(op).await.unwrap();
    }
    let o = Outcome { winner: Some(Side::South), termination: Termination::Resignation };
    store
        .write(Op::End { id: "fixdone01".into(), outcome: o, remaining: Some([290_000, 295_000]), at: t0 + 5000 })
        .await
        .unwrap();
    let mut game = matombo_core::Game::new(matombo_core::Position::start("nsolo:8".parse().unwrap()));
    for ply in 0..2u32 {
        let t = game.position().turns().next().unwrap().0;
        game.play(&t).unwrap();
        let op = Op::Turn { id: "fixplay02".into(), ply, token: t.to_string(), remaining: None, at: t0 + 20, end: None };
        store.write(op).await.unwrap();
    }
    drop(store);
    std::thread::sleep(std::time::Duration::from_millis(300));
    // One self-contained file (the write-ahead log folded in).
    let _ = std::fs::remove_file(fixture());
    let out = std::process::Command::new("sqlite3")
        .arg(&path)
        .arg(format!(".backup '{}'", fixture().display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}
