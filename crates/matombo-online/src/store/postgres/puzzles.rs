//! Puzzle ratings in PostgreSQL. An attempt is one transaction that first locks the
//! identity's rating row (made if missing), so that concurrent attempts of one identity, on
//! any node, rate one after the other: none loses another's update.

use std::time::Duration;

use tokio_postgres::{GenericClient, Row};

use super::super::puzzles::{next, AttemptOutcome, PuzzleAttempt, PuzzleRating};
use super::{backend, retryable, Fail, PgStore, RETRIES};
use crate::rating::Rating;

fn rating_row(r: &Row) -> PuzzleRating {
    PuzzleRating {
        rating: Rating { rating: r.get(0), rd: r.get(1), vol: r.get(2) },
        attempts: r.get::<_, i32>(3) as u32,
        solved: r.get::<_, i32>(4) as u32,
        last_attempt: r.get::<_, Option<i64>>(5).map(|t| t as u64),
    }
}

const SELECT: &str = "SELECT rating, rd, vol, attempts, solved, last_attempt FROM puzzle_ratings WHERE player=$1";

async fn attempt_in(c: &impl GenericClient, a: &PuzzleAttempt) -> Result<AttemptOutcome, Fail> {
    let d = Rating::default();
    c.execute(
        "INSERT INTO puzzle_ratings(player, rating, rd, vol, attempts, solved) VALUES ($1,$2,$3,$4,0,0)
         ON CONFLICT(player) DO NOTHING",
        &[&a.player, &d.rating, &d.rd, &d.vol],
    )
    .await?;
    // The row lock: a concurrent attempt of this identity waits here until this one commits.
    let before = rating_row(&c.query_one(&format!("{SELECT} FOR UPDATE"), &[&a.player]).await?);
    let earlier = c
        .query_opt(
            "SELECT solved, before_rating, before_rd, before_vol, after_rating, after_rd, after_vol
             FROM puzzle_attempts WHERE player=$1 AND puzzle=$2",
            &[&a.player, &a.puzzle],
        )
        .await?;
    if let Some(r) = earlier {
        let b = Rating { rating: r.get(1), rd: r.get(2), vol: r.get(3) };
        let after = Rating { rating: r.get(4), rd: r.get(5), vol: r.get(6) };
        return Ok(AttemptOutcome { counted: false, solved: r.get(0), before: b, after, now: before });
    }
    let now = next(before, a);
    let (b, n) = (before.rating, now.rating);
    let at = a.at as i64;
    c.execute(
        "INSERT INTO puzzle_attempts(player, puzzle, solved, at, before_rating, before_rd, before_vol,
           after_rating, after_rd, after_vol) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)",
        &[&a.player, &a.puzzle, &a.solved, &at, &b.rating, &b.rd, &b.vol, &n.rating, &n.rd, &n.vol],
    )
    .await?;
    c.execute(
        "UPDATE puzzle_ratings SET rating=$2, rd=$3, vol=$4, attempts=$5, solved=$6, last_attempt=$7 WHERE player=$1",
        &[&a.player, &n.rating, &n.rd, &n.vol, &(now.attempts as i32), &(now.solved as i32), &at],
    )
    .await?;
    Ok(AttemptOutcome { counted: true, solved: a.solved, before: b, after: n, now })
}

impl PgStore {
    pub(super) async fn puzzle_rating_of(&self, player: &str) -> Result<PuzzleRating, super::StoreError> {
        let c = self.conn().await?;
        let r = c.query_opt(SELECT, &[&player]).await.map_err(backend)?;
        Ok(r.as_ref().map(rating_row).unwrap_or_default())
    }

    pub(super) async fn rate_attempt(&self, a: &PuzzleAttempt) -> Result<AttemptOutcome, super::StoreError> {
        let mut attempt = 0;
        loop {
            let mut c = self.conn().await?;
            let r = async {
                let tx = c.transaction().await?;
                let o = attempt_in(&*tx, a).await?;
                tx.commit().await?;
                Ok::<_, Fail>(o)
            }
            .await;
            match r {
                Ok(o) => return Ok(o),
                // Two first attempts at one puzzle racing past the check: the key refuses
                // the second, which is tried again and then answers the first.
                Err(f) if (retryable(&f) || unique_violation(&f)) && attempt < RETRIES => {
                    attempt += 1;
                    tokio::time::sleep(Duration::from_millis(rand::random_range(1..10u64 << attempt.min(5)))).await;
                }
                Err(f) => return Err(f.into()),
            }
        }
    }
}

fn unique_violation(f: &Fail) -> bool {
    matches!(f, Fail::Pg(e) if e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION))
}
