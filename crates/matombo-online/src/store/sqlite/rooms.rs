//! Rooms and turns in SQLite: creation, claims, turns, ends, expiry, and reading rooms back.

use matombo_core::{Outcome, Side};
use rusqlite::{params, Connection, OptionalExtension};

use super::teams::load_teams;
use super::SqliteStore;
use crate::room::Room;
use crate::store::{archive_entry, rebuild, room_row, side_name, ArchiveEntry, Binding, Op, StoreError, ROOM_COLUMNS};

/// Closes the rooms due (see [`Op::Expire`]); the ids closed.
fn expire(c: &Connection, now: u64, unclaimed_before: u64, idle_before: u64) -> rusqlite::Result<Vec<String>> {
    let mut st = c.prepare_cached(
        "UPDATE rooms SET closed=?1, creator_addr=NULL,
           closed_reason = CASE WHEN NOT (south_claimed AND north_claimed) THEN 'unclaimed'
                 WHEN NOT EXISTS(SELECT 1 FROM turns WHERE turns.room = rooms.id) THEN 'unstarted'
                 ELSE 'abandoned' END
         WHERE finished IS NULL AND closed IS NULL
           AND ((days_per_turn IS NULL
                 AND ((NOT EXISTS(SELECT 1 FROM turns WHERE turns.room = rooms.id) AND last_active < ?2)
                      OR last_active < ?3))
                -- A correspondence game ends by its deadline; only its invitation expires,
                -- after as many days as a turn has.
                OR (days_per_turn IS NOT NULL AND NOT (south_claimed AND north_claimed)
                    AND created + days_per_turn * 86400000 < ?1))
         RETURNING id",
    )?;
    let ids = st.query_map(params![now as i64, unclaimed_before as i64, idle_before as i64], |r| r.get(0))?;
    let ids = ids.collect();
    // A player's address is kept only for the hour that counts new identities per address.
    c.prepare_cached("UPDATE players SET creator_addr=NULL WHERE creator_addr IS NOT NULL AND created < ?1")?
        .execute([now.saturating_sub(3_600_000) as i64])?;
    ids
}

/// Marks a live room active; an error if it was closed meanwhile (the write is refused).
pub(super) fn touch(c: &Connection, id: &str, at: u64) -> Result<(), StoreError> {
    let n = c.execute("UPDATE rooms SET last_active=?2 WHERE id=?1 AND closed IS NULL", params![id, at as i64])?;
    if n == 0 {
        return Err(StoreError::Closed(id.to_string()));
    }
    Ok(())
}

fn write_outcome(tx: &Connection, id: &str, o: &Outcome, remaining: Option<[u64; 2]>, at: u64) -> rusqlite::Result<()> {
    super::players::rate(tx, id, o, at)?;
    tx.execute(
        "UPDATE rooms SET finished=?2, winner=?3, termination=?4, south_ms=?5, north_ms=?6, creator_addr=NULL,
           deadline=NULL WHERE id=?1",
        params![
            id,
            at as i64,
            o.winner.map(side_name),
            o.termination.tag(),
            remaining.map(|r| r[0] as i64),
            remaining.map(|r| r[1] as i64)
        ],
    )?;
    Ok(())
}

/// A room's write.
pub(super) fn apply(c: &Connection, op: &Op) -> Result<Vec<String>, StoreError> {
    match op {
        Op::Create {
            id,
            ruleset,
            start,
            tokens,
            invite,
            creator,
            name,
            control,
            days_per_turn,
            created,
            creator_addr,
        } => {
            c.execute(
                crate::store::CREATE_ROOM,
                params![
                    id,
                    ruleset,
                    start,
                    tokens[0],
                    tokens[1],
                    invite,
                    *creator == Side::South,
                    *creator == Side::North,
                    if *creator == Side::South { name.as_str() } else { "" },
                    if *creator == Side::North { name.as_str() } else { "" },
                    control.map(|c| c.initial_ms as i64),
                    control.map(|c| c.increment_ms as i64),
                    *created as i64,
                    creator_addr,
                    days_per_turn
                ],
            )?;
        }
        Op::Claim { id, side, name, at } => {
            touch(c, id, *at)?;
            let sql = match side {
                Side::South => "UPDATE rooms SET south_claimed=1, south_name=?2 WHERE id=?1",
                Side::North => "UPDATE rooms SET north_claimed=1, north_name=?2 WHERE id=?1",
            };
            c.execute(sql, params![id, name])?;
            c.execute(crate::store::START_DEADLINE, params![id, *at as i64])?;
        }
        Op::Turn { id, ply, token, remaining, at, end } => {
            touch(c, id, *at)?;
            c.execute(
                "INSERT INTO turns(room, ply, token, south_ms, north_ms, at) VALUES (?1,?2,?3,?4,?5,?6)",
                params![id, ply, token, remaining.map(|r| r[0] as i64), remaining.map(|r| r[1] as i64), *at as i64],
            )
            .map_err(|err| match err.sqlite_error_code() {
                // The `(room, ply)` key: another writer stored this ply first.
                Some(rusqlite::ErrorCode::ConstraintViolation) => StoreError::PlyTaken { room: id.clone(), ply: *ply },
                _ => StoreError::from(err),
            })?;
            if let Some(o) = end {
                write_outcome(c, id, o, *remaining, *at)?;
            }
            c.execute(crate::store::NEXT_DEADLINE, params![id, *at as i64])?;
            // A team's vote ends with the turn it chose (or that was played over it).
            c.execute("DELETE FROM team_votes WHERE room=?1", [id])?;
            c.execute("UPDATE teams SET vote_ply=NULL, vote_closes=NULL WHERE room=?1", [id])?;
        }
        Op::End { id, outcome, remaining, at } => {
            touch(c, id, *at)?;
            write_outcome(c, id, outcome, *remaining, *at)?;
        }
        Op::Expire { now, unclaimed_before, idle_before } => {
            return expire(c, *now, *unclaimed_before, *idle_before).map_err(StoreError::from);
        }
        Op::Bind { id, players, rated, listed } => {
            c.execute(
                "UPDATE rooms SET south_player=?2, north_player=?3, rated=?4, listed=?5 WHERE id=?1",
                params![id, players[0], players[1], rated, listed],
            )?;
        }
        Op::Abort { id, at } => {
            let n = c.execute(
                "UPDATE rooms SET closed=?2, closed_reason='aborted', creator_addr=NULL
                     WHERE id=?1 AND finished IS NULL AND closed IS NULL
                       AND NOT EXISTS(SELECT 1 FROM turns WHERE room=?1)",
                params![id, *at as i64],
            )?;
            if n == 0 {
                return Err(StoreError::NotAbortable(id.clone()));
            }
        }
        _ => unreachable!("not a room's op: {op:?}"),
    }
    Ok(Vec::new())
}

impl SqliteStore {
    /// A room's players and flags: (players by side, rated, listed).
    pub fn binding(&self, room: &str) -> Result<Option<Binding>, StoreError> {
        let c = self.read.lock().expect("store lock");
        Ok(c.query_row("SELECT south_player, north_player, rated, listed FROM rooms WHERE id=?1", [room], |r| {
            Ok(([r.get(0)?, r.get(1)?], r.get(2)?, r.get(3)?))
        })
        .optional()?)
    }
    /// Why a stored room was closed before its end (`unclaimed` or `abandoned`), if it was.
    pub fn closed(&self, id: &str) -> Result<Option<String>, StoreError> {
        let c = self.read.lock().expect("store lock");
        let r = c.query_row("SELECT closed_reason FROM rooms WHERE id=?1 AND closed IS NOT NULL", [id], |r| r.get(0));
        Ok(r.optional()?)
    }

    /// At startup: closes the rooms due (the time the server was down counts), then
    /// rebuilds every room still in play from its turns, with its creator's address.
    pub fn load_unfinished(
        &self,
        now: u64,
        unclaimed_before: u64,
        idle_before: u64,
    ) -> Result<Vec<(Room, Option<std::net::IpAddr>)>, StoreError> {
        let c = self.read.lock().expect("store lock");
        let closed = expire(&c, now, unclaimed_before, idle_before)?;
        if !closed.is_empty() {
            tracing::info!(rooms = closed.len(), "unclaimed or abandoned games closed");
        }
        let until = now + crate::store::RESTART_GRACE_MS;
        let graced = c.execute(crate::store::GRACE_DEADLINES, params![now as i64, until as i64])?;
        if graced > 0 {
            tracing::info!(rooms = graced, "correspondence deadlines passed while stopped: one more hour");
        }
        let ids: Vec<(String, Option<String>)> = c
            .prepare("SELECT id, creator_addr FROM rooms WHERE finished IS NULL AND closed IS NULL ORDER BY created")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let mut rooms = Vec::with_capacity(ids.len());
        for (id, creator) in ids {
            // One bad room must not keep every other game from being served.
            match load(&c, &id, now) {
                Ok(Some(r)) => rooms.push((r, creator.and_then(|a| a.parse().ok()))),
                Ok(None) => {}
                Err(e) => tracing::error!(room = %id, error = %e, "stored game skipped: it cannot be read back"),
            }
        }
        Ok(rooms)
    }

    /// One room by id, rebuilt from its turns (blocking).
    pub fn load_room(&self, id: &str, now: u64) -> Result<Option<Room>, StoreError> {
        let c = self.read.lock().expect("store lock");
        load(&c, id, now)
    }

    /// Finished games, newest first (blocking).
    pub fn archive(&self, limit: u32, offset: u32) -> Result<Vec<ArchiveEntry>, StoreError> {
        let c = self.read.lock().expect("store lock");
        let mut st = c.prepare_cached(crate::store::ARCHIVE)?;
        let rows = st.query_map(params![limit, offset], |r| archive_entry(r))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

fn load(c: &Connection, id: &str, now: u64) -> Result<Option<Room>, StoreError> {
    let row = c
        .query_row(&format!("SELECT {ROOM_COLUMNS} FROM rooms WHERE id=?1 AND closed IS NULL"), [id], |r| room_row(r))
        .optional()?;
    let Some(row) = row else { return Ok(None) };
    let mut st_turns =
        c.prepare_cached("SELECT ply, token, south_ms, north_ms FROM turns WHERE room=?1 ORDER BY ply")?;
    let turns =
        st_turns.query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?.collect::<Result<_, _>>()?;
    let mut room = rebuild(id, row, turns, now)?;
    room.teams = load_teams(c, id, room.ply())?;
    Ok(Some(room))
}
