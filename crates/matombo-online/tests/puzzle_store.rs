//! Puzzle ratings of identities through the store's trait, on a real SQLite file and on
//! PostgreSQL when `MATOMBO_TEST_PG` names a server (under CI a missing one fails).

mod common;

use std::sync::Arc;

use matombo_online::store::puzzles::{PuzzleAttempt, PuzzleRating};
use matombo_online::store::{self, GameStore, Op};

/// A fresh store of each backend, with one identity `p1`.
async fn stores(name: &str) -> Vec<(&'static str, Arc<dyn GameStore>)> {
    let dbs = common::backends("puzzle_store", name).await;
    let mut out = Vec::new();
    for (kind, db) in dbs {
        let s = store::open(&db).await.unwrap();
        let op =
            Op::CreatePlayer { id: "p1".into(), key_hash: "k1".into(), name: "Rudo".into(), created: 1, addr: None };
        s.write(op).await.unwrap();
        out.push((kind, s));
    }
    out
}

fn attempt(puzzle: &str, rating: f64, solved: bool, at: u64) -> PuzzleAttempt {
    PuzzleAttempt { player: "p1".into(), puzzle: puzzle.into(), puzzle_rating: rating, solved, at }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_solve_raises_a_miss_lowers_and_a_repeat_changes_nothing() {
    for (kind, s) in stores("moves").await {
        assert_eq!(s.puzzle_rating("p1".into()).await.unwrap(), PuzzleRating::default(), "{kind}");
        let up = s.puzzle_attempt(attempt("a", 1500.0, true, 10)).await.unwrap();
        assert!(up.counted && up.solved, "{kind}");
        assert!(up.after.rating > 1500.0 && up.now.rating == up.after, "{kind}: {up:?}");
        assert_eq!((up.now.attempts, up.now.solved, up.now.last_attempt), (1, 1, Some(10)), "{kind}");
        // The same puzzle again, failed this time: the first attempt stands.
        let again = s.puzzle_attempt(attempt("a", 1500.0, false, 20)).await.unwrap();
        assert!(!again.counted && again.solved, "{kind}");
        assert_eq!((again.before, again.after, again.now), (up.before, up.after, up.now), "{kind}");
        let down = s.puzzle_attempt(attempt("b", 1500.0, false, 30)).await.unwrap();
        assert!(down.counted && !down.solved && down.after.rating < up.after.rating, "{kind}: {down:?}");
        assert_eq!(down.before, up.after, "{kind}: rated from the stored rating");
        let now = s.puzzle_rating("p1".into()).await.unwrap();
        assert_eq!(now, down.now, "{kind}");
        assert_eq!((now.attempts, now.solved, now.last_attempt), (2, 1, Some(30)), "{kind}");
        // Another identity's rating is its own.
        assert_eq!(s.puzzle_rating("nobody".into()).await.unwrap(), PuzzleRating::default(), "{kind}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_attempts_of_one_identity_are_all_counted() {
    for (kind, s) in stores("concurrent").await {
        let n = 24;
        let tasks: Vec<_> = (0..n)
            .map(|i| {
                let s = s.clone();
                // Every fourth one repeats a puzzle of another task: counted once.
                let puzzle = format!("p{}", i % 20);
                tokio::spawn(async move { s.puzzle_attempt(attempt(&puzzle, 1400.0, i % 2 == 0, 100 + i)).await })
            })
            .collect();
        let mut counted = 0;
        for t in tasks {
            counted += u32::from(t.await.unwrap().unwrap().counted);
        }
        assert_eq!(counted, 20, "{kind}");
        let now = s.puzzle_rating("p1".into()).await.unwrap();
        assert_eq!(now.attempts, 20, "{kind}: no attempt lost");
        assert_eq!(now.solved, 10, "{kind}");
        // The stored rating is the chain of the counted attempts, each from the one before:
        // every attempt's `before` is some other's `after` (or the start), none twice.
        let mut befores = Vec::new();
        for i in 0..20 {
            let o = s.puzzle_attempt(attempt(&format!("p{i}"), 1400.0, true, 999)).await.unwrap();
            assert!(!o.counted, "{kind}");
            befores.push(o.before.rating.to_bits());
        }
        befores.sort_unstable();
        befores.dedup();
        assert_eq!(befores.len(), 20, "{kind}: two attempts rated from the same rating (a lost update)");
    }
}
