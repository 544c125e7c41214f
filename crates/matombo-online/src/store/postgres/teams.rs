//! Team games in PostgreSQL: their rows, members, votes and marks.

use tokio_postgres::GenericClient;

use super::rooms::touch;
use super::{backend, ms, Fail, PgStore};
use crate::store::{
    dollars, public_team_row, side_name, teams_of, Op, PublicTeamRow, StoreError, TeamRow, DUE, PUBLIC_TEAMS,
};

/// A team game's write.
pub(super) async fn apply(c: &impl GenericClient, op: &Op) -> Result<Vec<String>, Fail> {
    match op {
        Op::Teams { id, mode, vote_ms, invites, public } => {
            c.execute(
                "INSERT INTO teams(room, mode, vote_ms, south_invite, north_invite, listed) VALUES ($1,$2,$3,$4,$5,$6)",
                &[id, &mode.as_str(), &(*vote_ms as i64), &invites[0], &invites[1], public],
            )
            .await?;
        }
        Op::Join { id, side, member, token, name, captain, at } => {
            touch(c, id, *at).await?;
            // The room's row is locked first, so that two joins of one side count in turn.
            c.execute("SELECT 1 FROM rooms WHERE id=$1 FOR UPDATE", &[id]).await?;
            let n = c
                .execute(
                    "INSERT INTO team_members(room, member, seq, side, token, name, captain, joined)
                     SELECT $1, $2, (SELECT COUNT(*) FROM team_members WHERE room=$1)::INTEGER, $3, $4, $5, $6, $7
                     WHERE (SELECT COUNT(*) FROM team_members WHERE room=$1 AND side=$3 AND NOT removed) < $8",
                    &[
                        id,
                        member,
                        &side_name(*side),
                        token,
                        name,
                        captain,
                        &ms(*at),
                        &(crate::team::MAX_MEMBERS as i64),
                    ],
                )
                .await?;
            if n == 0 {
                return Err(StoreError::TeamFull(id.clone()).into());
            }
            let sql = match side {
                matombo_core::Side::South => {
                    "UPDATE rooms SET south_claimed=TRUE, south_name=$2 WHERE id=$1 AND NOT south_claimed"
                }
                matombo_core::Side::North => {
                    "UPDATE rooms SET north_claimed=TRUE, north_name=$2 WHERE id=$1 AND NOT north_claimed"
                }
            };
            c.execute(sql, &[id, name]).await?;
            c.execute(&crate::store::dollars(crate::store::START_DEADLINE), &[id, &ms(*at)]).await?;
        }
        Op::Captain { id, side, member } => {
            c.execute(
                "UPDATE team_members SET captain = (member = $2) WHERE room=$1 AND side=$3",
                &[id, member, &side_name(*side)],
            )
            .await?;
        }
        Op::Remove { id, member } => {
            c.execute("UPDATE team_members SET removed=TRUE, captain=FALSE WHERE room=$1 AND member=$2", &[id, member])
                .await?;
            c.execute("DELETE FROM team_votes WHERE room=$1 AND member=$2", &[id, member]).await?;
            c.execute("DELETE FROM team_marks WHERE room=$1 AND member=$2", &[id, member]).await?;
        }
        Op::Vote { id, ply, member, token, closes_at } => {
            c.execute("SELECT 1 FROM teams WHERE room=$1 FOR UPDATE", &[id]).await?;
            c.execute("DELETE FROM team_votes WHERE room=$1 AND member=$2", &[id, member]).await?;
            c.execute(
                "INSERT INTO team_votes(room, member, seq, token)
                 VALUES ($1, $2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM team_votes WHERE room=$1), $3)",
                &[id, member, token],
            )
            .await?;
            c.execute(
                "UPDATE teams SET vote_ply=$2, vote_closes=$3 WHERE room=$1",
                &[id, &(*ply as i32), &ms(*closes_at)],
            )
            .await?;
        }
        Op::Marks { id, member, holes } => {
            if holes.is_empty() {
                c.execute("DELETE FROM team_marks WHERE room=$1 AND member=$2", &[id, member]).await?;
            } else {
                c.execute(
                    "INSERT INTO team_marks(room, member, holes) VALUES ($1,$2,$3)
                     ON CONFLICT(room, member) DO UPDATE SET holes=excluded.holes",
                    &[id, member, &holes.join(" ")],
                )
                .await?;
            }
        }
        _ => unreachable!("not a team op: {op:?}"),
    }
    Ok(Vec::new())
}

pub(super) async fn load_teams(c: &impl GenericClient, id: &str, ply: u32) -> Result<Option<crate::team::Teams>, Fail> {
    let t = c
        .query_opt(
            "SELECT mode, vote_ms, south_invite, north_invite, vote_ply, vote_closes FROM teams WHERE room=$1",
            &[&id],
        )
        .await?;
    let Some(t) = t else { return Ok(None) };
    let t = TeamRow {
        mode: t.get(0),
        vote_ms: t.get(1),
        invites: [t.get(2), t.get(3)],
        vote: (t.get::<_, Option<i32>>(4).map(i64::from), t.get(5)),
    };
    let members = c
        .query(
            "SELECT member, side, token, name, captain, removed FROM team_members WHERE room=$1 ORDER BY seq",
            &[&id],
        )
        .await?
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5)))
        .collect();
    let votes = c
        .query("SELECT member, token FROM team_votes WHERE room=$1 ORDER BY seq", &[&id])
        .await?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let marks = c
        .query("SELECT member, holes FROM team_marks WHERE room=$1 ORDER BY member", &[&id])
        .await?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    Ok(Some(teams_of(id, t, members, votes, marks, ply)?))
}

impl PgStore {
    pub(super) async fn due_votes(&self, now: u64) -> Result<Vec<String>, StoreError> {
        let rows = self.rows(&dollars(DUE), &[&ms(now)]).await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    pub(super) async fn public_teams(&self, limit: u32) -> Result<Vec<PublicTeamRow>, StoreError> {
        let rows = self.rows(&dollars(PUBLIC_TEAMS), &[&i64::from(limit)]).await?;
        rows.iter().map(public_team_row).collect::<Result<_, _>>().map_err(backend)
    }
}
