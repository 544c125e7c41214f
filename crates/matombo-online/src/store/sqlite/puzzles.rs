//! Puzzle ratings in SQLite. An attempt is one `BEGIN IMMEDIATE` transaction on the read
//! connection: SQLite's write lock serializes it with the writer thread and with other
//! attempts, so its read-rate-write loses no update.

use rusqlite::{params, Connection, OptionalExtension};

use super::super::puzzles::{next, AttemptOutcome, PuzzleAttempt, PuzzleRating};
use super::SqliteStore;
use crate::rating::Rating;
use crate::store::StoreError;

/// The identity's rating row (the start rating if none).
fn load(c: &Connection, player: &str) -> rusqlite::Result<PuzzleRating> {
    let r = c
        .query_row(
            "SELECT rating, rd, vol, attempts, solved, last_attempt FROM puzzle_ratings WHERE player=?1",
            [player],
            |r| {
                Ok(PuzzleRating {
                    rating: Rating { rating: r.get(0)?, rd: r.get(1)?, vol: r.get(2)? },
                    attempts: r.get::<_, i64>(3)? as u32,
                    solved: r.get::<_, i64>(4)? as u32,
                    last_attempt: r.get::<_, Option<i64>>(5)?.map(|t| t as u64),
                })
            },
        )
        .optional()?;
    Ok(r.unwrap_or_default())
}

fn attempt_in(c: &Connection, a: &PuzzleAttempt) -> rusqlite::Result<AttemptOutcome> {
    let before = load(c, &a.player)?;
    let earlier = c
        .query_row(
            "SELECT solved, before_rating, before_rd, before_vol, after_rating, after_rd, after_vol
             FROM puzzle_attempts WHERE player=?1 AND puzzle=?2",
            [&a.player, &a.puzzle],
            |r| {
                Ok((
                    r.get::<_, bool>(0)?,
                    Rating { rating: r.get(1)?, rd: r.get(2)?, vol: r.get(3)? },
                    Rating { rating: r.get(4)?, rd: r.get(5)?, vol: r.get(6)? },
                ))
            },
        )
        .optional()?;
    if let Some((solved, b, after)) = earlier {
        return Ok(AttemptOutcome { counted: false, solved, before: b, after, now: before });
    }
    let now = next(before, a);
    let (b, n) = (before.rating, now.rating);
    c.execute(
        "INSERT INTO puzzle_attempts(player, puzzle, solved, at, before_rating, before_rd, before_vol,
           after_rating, after_rd, after_vol) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
        params![a.player, a.puzzle, a.solved, a.at as i64, b.rating, b.rd, b.vol, n.rating, n.rd, n.vol],
    )?;
    c.execute(
        "INSERT INTO puzzle_ratings(player, rating, rd, vol, attempts, solved, last_attempt)
         VALUES (?1,?2,?3,?4,?5,?6,?7)
         ON CONFLICT(player) DO UPDATE SET rating=?2, rd=?3, vol=?4, attempts=?5, solved=?6, last_attempt=?7",
        params![a.player, n.rating, n.rd, n.vol, now.attempts, now.solved, a.at as i64],
    )?;
    Ok(AttemptOutcome { counted: true, solved: a.solved, before: b, after: n, now })
}

impl SqliteStore {
    /// An identity's puzzle rating.
    pub fn puzzle_rating(&self, player: &str) -> Result<PuzzleRating, StoreError> {
        let c = self.read.lock().map_err(|_| StoreError::Backend("store lock poisoned".into()))?;
        Ok(load(&c, player)?)
    }

    /// Rates an attempt, all or nothing.
    pub fn puzzle_attempt(&self, a: &PuzzleAttempt) -> Result<AttemptOutcome, StoreError> {
        let c = self.read.lock().map_err(|_| StoreError::Backend("store lock poisoned".into()))?;
        c.execute_batch("BEGIN IMMEDIATE")?;
        match attempt_in(&c, a).and_then(|o| c.execute_batch("COMMIT").map(|_| o)) {
            Ok(o) => Ok(o),
            Err(e) => {
                let _ = c.execute_batch("ROLLBACK");
                Err(e.into())
            }
        }
    }
}
