//! `matombo puzzles generate --db`: a self-play game that the recipe mines, stored through
//! the store API as a finished online game in a real SQLite file, gives the same puzzle,
//! marked with its room; an unreadable stored game is skipped and counted.

use std::process::Command;

use matombo_core::{Game, Outcome, Side, Termination};
use matombo_lab::puzzles::{self, MineConfig, Puzzle};
use matombo_online::store::{self, Db, Op};

fn create(id: &str, game: &Game) -> Op {
    Op::Create {
        id: id.into(),
        ruleset: game.start().ruleset().to_string(),
        start: game.start().to_string(),
        tokens: [format!("{id}s"), format!("{id}n")],
        invite: format!("{id}i"),
        creator: Side::South,
        name: "Rudo".into(),
        control: None,
        days_per_turn: None,
        created: 1_000,
        creator_addr: None,
    }
}

/// Writes `game` (finished) as room `id`, turn by turn, the last one with its end.
async fn store_game(s: &dyn store::GameStore, id: &str, game: &Game) {
    s.write(create(id, game)).await.unwrap();
    s.write(Op::Claim { id: id.into(), side: Side::North, name: "Tendai".into(), at: 2_000 }).await.unwrap();
    let n = game.moves().len();
    for (ply, t) in game.moves().iter().enumerate() {
        let end = if ply + 1 == n { game.outcome() } else { None };
        let op = Op::Turn { id: id.into(), ply: ply as u32, token: t.to_string(), remaining: None, at: 3_000, end };
        s.write(op).await.unwrap();
    }
}

#[test]
fn finished_online_games_are_mined_like_self_play() {
    let config = MineConfig { ruleset: "tsoro:6".parse().unwrap(), seed: 1, nodes: 200_000, tables: None, per_game: 1 };
    let (game, expected) = (0..20)
        .map(|i| puzzles::self_play(&config, i))
        .filter(Game::is_over)
        .map(|g| {
            let ps = puzzles::mine_game(&config, &g);
            (g, ps)
        })
        .find(|(_, ps)| !ps.is_empty())
        .expect("a puzzle in 20 self-play games");
    let dir = std::env::temp_dir().join(format!("matombo-puzzles-db-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let file = dir.join("online.sqlite3");
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let s = store::open(&Db::Sqlite(file.clone())).await.unwrap();
        store_game(s.as_ref(), "g1", &game).await;
        // A finished game whose turn cannot be read back: skipped, counted.
        s.write(create("bad", &game)).await.unwrap();
        s.write(Op::Claim { id: "bad".into(), side: Side::North, name: "T".into(), at: 2_000 }).await.unwrap();
        let end = Some(Outcome { winner: Some(Side::South), termination: Termination::NoLegalMove });
        let op = Op::Turn { id: "bad".into(), ply: 0, token: "zz9".into(), remaining: None, at: 3_000, end };
        s.write(op).await.unwrap();
        s.finish();
    });
    let run = || {
        let out = Command::new(env!("CARGO_BIN_EXE_matombo"))
            .args(["puzzles", "generate", "--games", "0", "--rulesets", "tsoro:6", "--nodes", "200000"])
            .args(["--per-game", "1", "--db", file.to_str().unwrap()])
            .output()
            .expect("matombo runs");
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{err}");
        (String::from_utf8(out.stdout).unwrap(), err)
    };
    let (text, err) = run();
    let got = puzzles::parse_jsonl(&text).unwrap();
    let want: Vec<Puzzle> = expected.into_iter().map(|p| Puzzle { origin: Some("online:g1".into()), ..p }).collect();
    assert_eq!(got, want);
    assert!(text.contains(r#""origin":"online:g1""#), "{text}");
    assert!(err.contains("1 skipped"), "{err}");
    // Seeded: the same store gives the same lines.
    assert_eq!(run().0, text);
    // --games 0 without --db is refused.
    let out =
        Command::new(env!("CARGO_BIN_EXE_matombo")).args(["puzzles", "generate", "--games", "0"]).output().unwrap();
    assert!(!out.status.success());
    let _ = std::fs::remove_dir_all(&dir);
}
