//! Players and ratings in SQLite: identities, transfer codes, rated results and their reads.

use matombo_core::{Outcome, Ruleset};
use rusqlite::{params, Connection, OptionalExtension};

use super::SqliteStore;
use crate::rating::Rating;
use crate::store::{
    group_rating, history_row, leader_row, rated_after, rating_at, rating_change, HistoryRow, LeaderRow, Op,
    PlayerInfo, RatingChange, StoreError,
};

/// A player's write.
pub(super) fn apply(c: &Connection, op: &Op) -> Result<Vec<String>, StoreError> {
    match op {
        Op::CreatePlayer { id, key_hash, name, created, addr } => {
            c.execute(
                "INSERT INTO players(id, key_hash, name, created, creator_addr) VALUES (?1,?2,?3,?4,?5)",
                params![id, key_hash, name, *created as i64, addr],
            )?;
        }
        Op::RenamePlayer { id, name } => {
            c.execute("UPDATE players SET name=?2 WHERE id=?1", params![id, name])?;
        }
        Op::TransferCode { code_hash, player, expires } => {
            c.execute("DELETE FROM transfer_codes WHERE player=?1", [player])?;
            c.execute(
                "INSERT INTO transfer_codes(code_hash, player, expires) VALUES (?1,?2,?3)",
                params![code_hash, player, *expires as i64],
            )?;
        }
        Op::UseTransfer { code_hash, key_hash, now } => {
            let player: Option<String> = c
                .query_row(
                    "DELETE FROM transfer_codes WHERE code_hash=?1 AND expires>?2 RETURNING player",
                    params![code_hash, *now as i64],
                    |r| r.get(0),
                )
                .optional()?;
            let Some(player) = player else { return Err(StoreError::BadCode) };
            c.execute("UPDATE players SET key_hash=?2 WHERE id=?1", params![player, key_hash])?;
            return Ok(vec![player]);
        }
        _ => unreachable!("not a player's op: {op:?}"),
    }
    Ok(Vec::new())
}

/// Applies a rated game's result to both players' ratings of its group, once.
pub(super) fn rate(c: &Connection, id: &str, o: &Outcome, at: u64) -> rusqlite::Result<()> {
    let row: Option<(bool, Option<String>, Option<String>, String)> = c
        .query_row("SELECT rated, south_player, north_player, ruleset FROM rooms WHERE id=?1", [id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .optional()?;
    let Some((true, Some(sp), Some(np), ruleset)) = row else { return Ok(()) };
    if sp == np {
        return Ok(());
    }
    let done: bool = c.query_row("SELECT EXISTS(SELECT 1 FROM rating_changes WHERE room=?1)", [id], |r| r.get(0))?;
    if done {
        return Ok(());
    }
    // Issue 37: too short a game, or too many rated games of this pair today: unrated.
    let plies: i64 = c.query_row("SELECT COUNT(*) FROM turns WHERE room=?1", [id], |r| r.get(0))?;
    if plies < 2 * crate::rating::MIN_TURNS_EACH {
        return Ok(());
    }
    let today: i64 = c.query_row(
        "SELECT COUNT(*) FROM rooms r
         WHERE ((r.south_player=?1 AND r.north_player=?2) OR (r.south_player=?2 AND r.north_player=?1))
           AND r.finished >= ?3 AND EXISTS(SELECT 1 FROM rating_changes ch WHERE ch.room = r.id)",
        params![sp, np, at.saturating_sub(crate::rating::PAIR_WINDOW_MS) as i64],
        |r| r.get(0),
    )?;
    if today >= crate::rating::RATED_PER_PAIR_PER_DAY {
        return Ok(());
    }
    let Ok(rs) = ruleset.parse::<Ruleset>() else { return Ok(()) };
    let grp = crate::rating::group_of(rs);
    let before = [rating_of(c, &sp, grp)?, rating_of(c, &np, grp)?];
    let after = rated_after([before[0].0, before[1].0], o);
    for (i, (player, side)) in [(&sp, "south"), (&np, "north")].into_iter().enumerate() {
        let (b, games) = before[i];
        let a = after[i];
        c.execute(
            "INSERT INTO ratings(player, grp, rating, rd, vol, games, updated) VALUES (?1,?2,?3,?4,?5,?6,?7)
             ON CONFLICT(player, grp) DO UPDATE SET rating=?3, rd=?4, vol=?5, games=?6, updated=?7",
            params![player, grp, a.rating, a.rd, a.vol, games + 1, at as i64],
        )?;
        c.execute(
            "INSERT INTO rating_changes(room, player, grp, side, before_rating, before_rd, after_rating, after_rd)
             VALUES (?1,?2,?3,?4,?5,?6,?7,?8)",
            params![id, player, grp, side, b.rating, b.rd, a.rating, a.rd],
        )?;
    }
    Ok(())
}

/// A player's rating in a group and his rated games there (the start rating if none).
fn rating_of(c: &Connection, player: &str, grp: &str) -> rusqlite::Result<(Rating, i64)> {
    let r = c
        .query_row("SELECT rating, rd, vol, games FROM ratings WHERE player=?1 AND grp=?2", [player, grp], |r| {
            Ok((rating_at(r, 0)?, r.get(3)?))
        })
        .optional()?;
    Ok(r.unwrap_or((Rating::default(), 0)))
}

impl SqliteStore {
    /// The player whose secret has this hash: (id, name, created).
    pub fn player_by_key(&self, key_hash: &str) -> Result<Option<(String, String, u64)>, StoreError> {
        let c = self.read.lock().expect("store lock");
        let r = c
            .query_row("SELECT id, name, created FROM players WHERE key_hash=?1", [key_hash], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as u64))
            })
            .optional()?;
        Ok(r)
    }

    /// A player's public profile: name, creation time and ratings by group.
    pub fn player(&self, id: &str) -> Result<Option<PlayerInfo>, StoreError> {
        let c = self.read.lock().expect("store lock");
        let r: Option<(String, i64)> = c
            .query_row("SELECT name, created FROM players WHERE id=?1", [id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let Some((name, created)) = r else { return Ok(None) };
        let mut st = c.prepare_cached("SELECT grp, rating, rd, vol, games FROM ratings WHERE player=?1")?;
        let ratings = st.query_map([id], |r| group_rating(r))?.collect::<Result<_, _>>()?;
        Ok(Some(PlayerInfo { id: id.to_string(), name, created: created as u64, ratings }))
    }

    /// Players created from `addr` since `since` (Unix ms).
    pub fn players_from(&self, addr: &str, since: u64) -> Result<u32, StoreError> {
        let c = self.read.lock().expect("store lock");
        Ok(c.query_row(
            "SELECT COUNT(*) FROM players WHERE creator_addr=?1 AND created>=?2",
            params![addr, since as i64],
            |r| r.get(0),
        )?)
    }

    /// A group's players by rating, best first: (id, name, rating, games); rated games since
    /// `since` only.
    pub fn leaderboard(&self, grp: &str, since: u64, limit: u32, offset: u32) -> Result<Vec<LeaderRow>, StoreError> {
        let c = self.read.lock().expect("store lock");
        let mut st = c.prepare_cached(crate::store::LEADERBOARD)?;
        // Established players first, provisional ones after (issue 37).
        let rows =
            st.query_map(params![grp, since as i64, limit, offset, crate::rating::PROVISIONAL_RD], |r| leader_row(r))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// A player's finished games, newest first.
    pub fn history(&self, player: &str, limit: u32, offset: u32) -> Result<Vec<HistoryRow>, StoreError> {
        let c = self.read.lock().expect("store lock");
        let mut st = c.prepare_cached(crate::store::HISTORY)?;
        let rows = st.query_map(params![player, limit, offset], |r| history_row(r, player))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The rating changes a room's end made: (player, group, side, before, after).
    pub fn rating_changes(&self, room: &str) -> Result<Vec<RatingChange>, StoreError> {
        let c = self.read.lock().expect("store lock");
        let mut st = c.prepare_cached(
            "SELECT player, grp, side, before_rating, before_rd, after_rating, after_rd FROM rating_changes
             WHERE room=?1",
        )?;
        let rows = st.query_map([room], |r| rating_change(r))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
