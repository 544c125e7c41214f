//! Rooms and turns in PostgreSQL: creation, claims, turns, ends, expiry, and reading rooms
//! back.

use std::net::IpAddr;

use matombo_core::Outcome;
use tokio_postgres::GenericClient;

use super::teams::load_teams;
use super::{backend, ms, opt_ms, Fail, PgStore};
use crate::room::Room;
use crate::store::{
    archive_entry, dollars, rebuild, room_row, side_name, ArchiveEntry, Binding, Op, StoreError, ARCHIVE, ROOM_COLUMNS,
};

/// Marks a live room active; [`StoreError::Closed`] if it was closed or ended meanwhile
/// (by another node: one end per game, and no turn after it).
pub(super) async fn touch(c: &impl GenericClient, id: &str, at: u64) -> Result<(), Fail> {
    let n = c
        .execute("UPDATE rooms SET last_active=$2 WHERE id=$1 AND closed IS NULL AND finished IS NULL", &[&id, &ms(at)])
        .await?;
    if n == 0 {
        return Err(StoreError::Closed(id.to_string()).into());
    }
    Ok(())
}

async fn expire(
    c: &impl GenericClient,
    now: u64,
    unclaimed_before: u64,
    idle_before: u64,
) -> Result<Vec<String>, Fail> {
    let rows = c
        .query(
            "UPDATE rooms SET closed=$1, creator_addr=NULL,
               closed_reason = CASE WHEN NOT (south_claimed AND north_claimed) THEN 'unclaimed'
                 WHEN NOT EXISTS(SELECT 1 FROM turns WHERE turns.room = rooms.id) THEN 'unstarted'
                 ELSE 'abandoned' END
             WHERE finished IS NULL AND closed IS NULL
               AND ((days_per_turn IS NULL
                     AND ((NOT EXISTS(SELECT 1 FROM turns WHERE turns.room = rooms.id) AND last_active < $2)
                          OR last_active < $3))
                    -- A correspondence game ends by its deadline; only its invitation
                    -- expires, after as many days as a turn has.
                    OR (days_per_turn IS NOT NULL AND NOT (south_claimed AND north_claimed)
                        AND created + days_per_turn * 86400000 < $1))
             RETURNING id",
            &[&ms(now), &ms(unclaimed_before), &ms(idle_before)],
        )
        .await?;
    c.execute(
        "UPDATE players SET creator_addr=NULL WHERE creator_addr IS NOT NULL AND created < $1",
        &[&ms(now.saturating_sub(3_600_000))],
    )
    .await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

async fn write_outcome(
    c: &impl GenericClient,
    id: &str,
    o: &Outcome,
    remaining: Option<[u64; 2]>,
    at: u64,
) -> Result<(), Fail> {
    super::players::rate(c, id, o, at).await?;
    c.execute(
        "UPDATE rooms SET finished=$2, winner=$3, termination=$4, south_ms=$5, north_ms=$6, creator_addr=NULL,
           deadline=NULL WHERE id=$1",
        &[&id, &ms(at), &o.winner.map(side_name), &o.termination.tag(), &opt_ms(remaining, 0), &opt_ms(remaining, 1)],
    )
    .await?;
    Ok(())
}

/// A room's write.
pub(super) async fn apply(c: &impl GenericClient, op: &Op) -> Result<Vec<String>, Fail> {
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
            let south = *creator == matombo_core::Side::South;
            c.execute(
                &crate::store::dollars(crate::store::CREATE_ROOM),
                &[
                    id,
                    ruleset,
                    start,
                    &tokens[0],
                    &tokens[1],
                    invite,
                    &south,
                    &!south,
                    &if south { name.as_str() } else { "" },
                    &if south { "" } else { name.as_str() },
                    &control.map(|c| c.initial_ms as i64),
                    &control.map(|c| c.increment_ms as i64),
                    &ms(*created),
                    creator_addr,
                    &days_per_turn.map(i64::from),
                ],
            )
            .await?;
        }
        Op::Claim { id, side, name, at } => {
            touch(c, id, *at).await?;
            // Only a free seat: two nodes may each hold the room with the seat free in
            // memory (one claim through each); the row decides.
            let sql = match side {
                matombo_core::Side::South => {
                    "UPDATE rooms SET south_claimed=TRUE, south_name=$2 WHERE id=$1 AND NOT south_claimed"
                }
                matombo_core::Side::North => {
                    "UPDATE rooms SET north_claimed=TRUE, north_name=$2 WHERE id=$1 AND NOT north_claimed"
                }
            };
            if c.execute(sql, &[id, name]).await? == 0 {
                return Err(StoreError::SeatTaken(id.clone()).into());
            }
            c.execute(&crate::store::dollars(crate::store::START_DEADLINE), &[id, &ms(*at)]).await?;
        }
        Op::Turn { id, ply, token, remaining, at, end } => {
            touch(c, id, *at).await?;
            let n = c
                .execute(
                    "INSERT INTO turns(room, ply, token, south_ms, north_ms, at) VALUES ($1,$2,$3,$4,$5,$6)
                     ON CONFLICT (room, ply) DO NOTHING",
                    &[id, &(*ply as i32), token, &opt_ms(*remaining, 0), &opt_ms(*remaining, 1), &ms(*at)],
                )
                .await?;
            if n == 0 {
                return Err(StoreError::PlyTaken { room: id.clone(), ply: *ply }.into());
            }
            if let Some(o) = end {
                write_outcome(c, id, o, *remaining, *at).await?;
            }
            c.execute(&crate::store::dollars(crate::store::NEXT_DEADLINE), &[id, &ms(*at)]).await?;
            // A team's vote ends with the turn it chose (or that was played over it).
            c.execute("DELETE FROM team_votes WHERE room=$1", &[id]).await?;
            c.execute("UPDATE teams SET vote_ply=NULL, vote_closes=NULL WHERE room=$1", &[id]).await?;
        }
        Op::End { id, outcome, remaining, at } => {
            touch(c, id, *at).await?;
            write_outcome(c, id, outcome, *remaining, *at).await?;
        }
        Op::Expire { now, unclaimed_before, idle_before } => {
            return expire(c, *now, *unclaimed_before, *idle_before).await;
        }
        Op::Bind { id, players, rated, listed } => {
            c.execute(
                "UPDATE rooms SET south_player=$2, north_player=$3, rated=$4, listed=$5 WHERE id=$1",
                &[id, &players[0], &players[1], rated, listed],
            )
            .await?;
        }
        Op::Abort { id, at } => {
            let n = c
                .execute(
                    "UPDATE rooms SET closed=$2, closed_reason='aborted', creator_addr=NULL
                     WHERE id=$1 AND finished IS NULL AND closed IS NULL
                       AND NOT EXISTS(SELECT 1 FROM turns WHERE room=$1)",
                    &[id, &ms(*at)],
                )
                .await?;
            if n == 0 {
                return Err(StoreError::NotAbortable(id.clone()).into());
            }
        }
        _ => unreachable!("not a room's op: {op:?}"),
    }
    Ok(Vec::new())
}

async fn load(c: &impl GenericClient, id: &str, now: u64) -> Result<Option<Room>, Fail> {
    let row = c.query_opt(&format!("SELECT {ROOM_COLUMNS} FROM rooms WHERE id=$1 AND closed IS NULL"), &[&id]).await?;
    let Some(row) = row else { return Ok(None) };
    let turns = c
        .query("SELECT ply, token, south_ms, north_ms FROM turns WHERE room=$1 ORDER BY ply", &[&id])
        .await?
        .iter()
        .map(|r| (r.get::<_, i32>(0) as u32, r.get(1), r.get(2), r.get(3)))
        .collect();
    let mut room = rebuild(id, room_row(&row).map_err(backend)?, turns, now)?;
    room.teams = load_teams(c, id, room.ply()).await?;
    Ok(Some(room))
}

/// A room's teams, if it is a team game.
impl PgStore {
    pub(super) async fn binding(&self, room: String) -> Result<Option<Binding>, StoreError> {
        let r = self.row("SELECT south_player, north_player, rated, listed FROM rooms WHERE id=$1", &[&room]).await?;
        Ok(r.map(|r| ([r.get(0), r.get(1)], r.get(2), r.get(3))))
    }

    pub(super) async fn closed(&self, id: String) -> Result<Option<String>, StoreError> {
        let r = self.row("SELECT closed_reason FROM rooms WHERE id=$1 AND closed IS NOT NULL", &[&id]).await?;
        Ok(r.and_then(|r| r.get(0)))
    }

    pub(super) async fn load_unfinished(
        &self,
        now: u64,
        unclaimed_before: u64,
        idle_before: u64,
    ) -> Result<Vec<(Room, Option<IpAddr>)>, StoreError> {
        let closed = self.write_op(Op::Expire { now, unclaimed_before, idle_before }).await?;
        if !closed.is_empty() {
            tracing::info!(rooms = closed.len(), "unclaimed or abandoned games closed");
        }
        let c = self.conn().await?;
        let until = now + crate::store::RESTART_GRACE_MS;
        let graced = c
            .execute(&crate::store::dollars(crate::store::GRACE_DEADLINES), &[&ms(now), &ms(until)])
            .await
            .map_err(backend)?;
        if graced > 0 {
            tracing::info!(rooms = graced, "correspondence deadlines passed while stopped: one more hour");
        }
        let ids: Vec<(String, Option<String>)> = c
            .query("SELECT id, creator_addr FROM rooms WHERE finished IS NULL AND closed IS NULL ORDER BY created", &[])
            .await
            .map_err(backend)?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        let mut rooms = Vec::with_capacity(ids.len());
        for (id, creator) in ids {
            // One bad room must not keep every other game from being served.
            match load(&**c, &id, now).await {
                Ok(Some(r)) => rooms.push((r, creator.and_then(|a| a.parse().ok()))),
                Ok(None) => {}
                Err(e) => {
                    let e = StoreError::from(e);
                    tracing::error!(room = %id, error = %e, "stored game skipped: it cannot be read back")
                }
            }
        }
        Ok(rooms)
    }

    pub(super) async fn load_room(&self, id: String, now: u64) -> Result<Option<Room>, StoreError> {
        let c = self.conn().await?;
        Ok(load(&**c, &id, now).await?)
    }

    pub(super) async fn archive(&self, limit: u32, offset: u32) -> Result<Vec<ArchiveEntry>, StoreError> {
        let rows = self.rows(&dollars(ARCHIVE), &[&i64::from(limit), &i64::from(offset)]).await?;
        rows.iter().map(archive_entry).collect::<Result<_, _>>().map_err(backend)
    }
}
