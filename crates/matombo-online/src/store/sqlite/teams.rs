//! Team games in SQLite: their rows, members, votes and marks.

use matombo_core::Side;
use rusqlite::{params, Connection, OptionalExtension};

use super::rooms::touch;
use super::SqliteStore;
use crate::store::{public_team_row, side_name, teams_of, Op, PublicTeamRow, StoreError, TeamRow};

/// A team game's write.
pub(super) fn apply(c: &Connection, op: &Op) -> Result<Vec<String>, StoreError> {
    match op {
        Op::Teams { id, mode, vote_ms, invites, public } => {
            c.execute(
                "INSERT INTO teams(room, mode, vote_ms, south_invite, north_invite, listed) VALUES (?1,?2,?3,?4,?5,?6)",
                params![id, mode.as_str(), *vote_ms as i64, invites[0], invites[1], public],
            )?;
        }
        Op::Join { id, side, member, token, name, captain, at } => {
            touch(c, id, *at)?;
            let n = c.execute(
                "INSERT INTO team_members(room, member, seq, side, token, name, captain, joined)
                     SELECT ?1, ?2, (SELECT COUNT(*) FROM team_members WHERE room=?1), ?3, ?4, ?5, ?6, ?7
                     WHERE (SELECT COUNT(*) FROM team_members WHERE room=?1 AND side=?3 AND removed=0) < ?8",
                params![
                    id,
                    member,
                    side_name(*side),
                    token,
                    name,
                    captain,
                    *at as i64,
                    crate::team::MAX_MEMBERS as i64
                ],
            )?;
            if n == 0 {
                return Err(StoreError::TeamFull(id.clone()));
            }
            let sql = match side {
                Side::South => "UPDATE rooms SET south_claimed=1, south_name=?2 WHERE id=?1 AND south_claimed=0",
                Side::North => "UPDATE rooms SET north_claimed=1, north_name=?2 WHERE id=?1 AND north_claimed=0",
            };
            c.execute(sql, params![id, name])?;
            c.execute(crate::store::START_DEADLINE, params![id, *at as i64])?;
        }
        Op::Captain { id, side, member } => {
            c.execute(
                "UPDATE team_members SET captain = (member = ?2) WHERE room=?1 AND side=?3",
                params![id, member, side_name(*side)],
            )?;
        }
        Op::Remove { id, member } => {
            c.execute("UPDATE team_members SET removed=1, captain=0 WHERE room=?1 AND member=?2", params![id, member])?;
            c.execute("DELETE FROM team_votes WHERE room=?1 AND member=?2", params![id, member])?;
            c.execute("DELETE FROM team_marks WHERE room=?1 AND member=?2", params![id, member])?;
        }
        Op::Vote { id, ply, member, token, closes_at } => {
            c.execute("DELETE FROM team_votes WHERE room=?1 AND member=?2", params![id, member])?;
            c.execute(
                "INSERT INTO team_votes(room, member, seq, token)
                 VALUES (?1, ?2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM team_votes WHERE room=?1), ?3)",
                params![id, member, token],
            )?;
            c.execute(
                "UPDATE teams SET vote_ply=?2, vote_closes=?3 WHERE room=?1",
                params![id, ply, *closes_at as i64],
            )?;
        }
        Op::Marks { id, member, holes } => {
            if holes.is_empty() {
                c.execute("DELETE FROM team_marks WHERE room=?1 AND member=?2", params![id, member])?;
            } else {
                c.execute(
                    "INSERT INTO team_marks(room, member, holes) VALUES (?1,?2,?3)
                     ON CONFLICT(room, member) DO UPDATE SET holes=excluded.holes",
                    params![id, member, holes.join(" ")],
                )?;
            }
        }
        _ => unreachable!("not a team op: {op:?}"),
    }
    Ok(Vec::new())
}

impl SqliteStore {
    /// Team games in play whose vote closes at `now` or before (blocking).
    pub fn due_votes(&self, now: u64) -> Result<Vec<String>, StoreError> {
        let c = self.read.lock().expect("store lock");
        let ids =
            c.prepare_cached(crate::store::DUE)?.query_map([now as i64], |r| r.get(0))?.collect::<Result<_, _>>()?;
        Ok(ids)
    }

    /// Public team games in play, newest first (blocking).
    pub fn public_teams(&self, limit: u32) -> Result<Vec<PublicTeamRow>, StoreError> {
        let c = self.read.lock().expect("store lock");
        let mut st = c.prepare_cached(crate::store::PUBLIC_TEAMS)?;
        let rows = st.query_map([limit], |r| public_team_row(r))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

/// A room's teams, if it is a team game.
pub(super) fn load_teams(c: &Connection, id: &str, ply: u32) -> Result<Option<crate::team::Teams>, StoreError> {
    let t = c
        .query_row(
            "SELECT mode, vote_ms, south_invite, north_invite, vote_ply, vote_closes FROM teams WHERE room=?1",
            [id],
            |r| {
                Ok(TeamRow {
                    mode: r.get(0)?,
                    vote_ms: r.get(1)?,
                    invites: [r.get(2)?, r.get(3)?],
                    vote: (r.get(4)?, r.get(5)?),
                })
            },
        )
        .optional()?;
    let Some(t) = t else { return Ok(None) };
    let members = c
        .prepare_cached(
            "SELECT member, side, token, name, captain, removed FROM team_members WHERE room=?1 ORDER BY seq",
        )?
        .query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))?
        .collect::<Result<_, _>>()?;
    let votes = c
        .prepare_cached("SELECT member, token FROM team_votes WHERE room=?1 ORDER BY seq")?
        .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let marks = c
        .prepare_cached("SELECT member, holes FROM team_marks WHERE room=?1 ORDER BY member")?
        .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    Ok(Some(teams_of(id, t, members, votes, marks, ply)?))
}
