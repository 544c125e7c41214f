//! Players and ratings in PostgreSQL: identities, transfer codes, rated results and their
//! reads.

use matombo_core::{Outcome, Ruleset};
use tokio_postgres::GenericClient;

use super::{backend, ms, Fail, PgStore};
use crate::rating::{group_of, Rating};
use tokio_postgres::types::ToSql;

use crate::store::{
    dollars, group_rating, history_row, leader_row, rated_after, rating_change, HistoryRow, LeaderRow, Op, PlayerInfo,
    RatingChange, StoreError, HISTORY, LEADERBOARD,
};

/// A player's write.
pub(super) async fn apply(c: &impl GenericClient, op: &Op) -> Result<Vec<String>, Fail> {
    match op {
        Op::CreatePlayer { id, key_hash, name, created, addr } => {
            c.execute(
                "INSERT INTO players(id, key_hash, name, created, creator_addr) VALUES ($1,$2,$3,$4,$5)",
                &[id, key_hash, name, &ms(*created), addr],
            )
            .await?;
        }
        Op::RenamePlayer { id, name } => {
            c.execute("UPDATE players SET name=$2 WHERE id=$1", &[id, name]).await?;
        }
        Op::TransferCode { code_hash, player, expires } => {
            c.execute("DELETE FROM transfer_codes WHERE player=$1", &[player]).await?;
            c.execute(
                "INSERT INTO transfer_codes(code_hash, player, expires) VALUES ($1,$2,$3)",
                &[code_hash, player, &ms(*expires)],
            )
            .await?;
        }
        Op::UseTransfer { code_hash, key_hash, now } => {
            let row = c
                .query_opt(
                    "DELETE FROM transfer_codes WHERE code_hash=$1 AND expires>$2 RETURNING player",
                    &[code_hash, &ms(*now)],
                )
                .await?;
            let Some(row) = row else { return Err(StoreError::BadCode.into()) };
            let player: String = row.get(0);
            c.execute("UPDATE players SET key_hash=$2 WHERE id=$1", &[&player, key_hash]).await?;
            return Ok(vec![player]);
        }
        _ => unreachable!("not a player's op: {op:?}"),
    }
    Ok(Vec::new())
}

/// Applies a rated game's result to both players' ratings of its group, once; the room's
/// row and both rating rows locked until the transaction ends.
pub(super) async fn rate(c: &impl GenericClient, id: &str, o: &Outcome, at: u64) -> Result<(), Fail> {
    let row = c
        .query_opt("SELECT rated, south_player, north_player, ruleset FROM rooms WHERE id=$1 FOR UPDATE", &[&id])
        .await?;
    let Some(row) = row else { return Ok(()) };
    let (rated, sp, np, ruleset): (bool, Option<String>, Option<String>, String) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    let (true, Some(sp), Some(np)) = (rated, sp, np) else { return Ok(()) };
    if sp == np {
        return Ok(());
    }
    let done: bool = c.query_one("SELECT EXISTS(SELECT 1 FROM rating_changes WHERE room=$1)", &[&id]).await?.get(0);
    if done {
        return Ok(());
    }
    // Issue 37: too short a game, or too many rated games of this pair today: unrated.
    let plies: i64 = c.query_one("SELECT COUNT(*) FROM turns WHERE room=$1", &[&id]).await?.get(0);
    if plies < 2 * crate::rating::MIN_TURNS_EACH {
        return Ok(());
    }
    let today: i64 = c
        .query_one(
            "SELECT COUNT(*) FROM rooms r
             WHERE ((r.south_player=$1 AND r.north_player=$2) OR (r.south_player=$2 AND r.north_player=$1))
               AND r.finished >= $3 AND EXISTS(SELECT 1 FROM rating_changes ch WHERE ch.room = r.id)",
            &[&sp, &np, &ms(at.saturating_sub(crate::rating::PAIR_WINDOW_MS))],
        )
        .await?
        .get(0);
    if today >= crate::rating::RATED_PER_PAIR_PER_DAY {
        return Ok(());
    }
    let Ok(rs) = ruleset.parse::<Ruleset>() else { return Ok(()) };
    let grp = group_of(rs);
    let start = Rating::default();
    let mut ordered = [sp.as_str(), np.as_str()];
    ordered.sort_unstable();
    for p in ordered {
        c.execute(
            "INSERT INTO ratings(player, grp, rating, rd, vol, games, updated) VALUES ($1,$2,$3,$4,$5,0,$6)
             ON CONFLICT (player, grp) DO NOTHING",
            &[&p, &grp, &start.rating, &start.rd, &start.vol, &ms(at)],
        )
        .await?;
    }
    let rows = c
        .query(
            "SELECT player, rating, rd, vol, games FROM ratings WHERE grp=$1 AND player = ANY($2)
             ORDER BY player FOR UPDATE",
            &[&grp, &vec![sp.clone(), np.clone()]],
        )
        .await?;
    let find = |p: &str| {
        rows.iter()
            .find(|r| r.get::<_, String>(0) == p)
            .map(|r| (Rating { rating: r.get(1), rd: r.get(2), vol: r.get(3) }, r.get::<_, i64>(4)))
    };
    let (Some(bs), Some(bn)) = (find(&sp), find(&np)) else {
        return Err(StoreError::Backend(format!("room {id}: rating rows missing")).into());
    };
    let after = rated_after([bs.0, bn.0], o);
    for (i, (player, side, (b, games))) in [(&sp, "south", bs), (&np, "north", bn)].into_iter().enumerate() {
        let a = after[i];
        c.execute(
            "UPDATE ratings SET rating=$3, rd=$4, vol=$5, games=$6, updated=$7 WHERE player=$1 AND grp=$2",
            &[player, &grp, &a.rating, &a.rd, &a.vol, &(games + 1), &ms(at)],
        )
        .await?;
        c.execute(
            "INSERT INTO rating_changes(room, player, grp, side, before_rating, before_rd, after_rating, after_rd)
             VALUES ($1,$2,$3,$4,$5,$6,$7,$8)",
            &[&id, player, &grp, &side, &b.rating, &b.rd, &a.rating, &a.rd],
        )
        .await?;
    }
    Ok(())
}

impl PgStore {
    pub(super) async fn player_by_key(&self, key_hash: String) -> Result<Option<(String, String, u64)>, StoreError> {
        let r = self.row("SELECT id, name, created FROM players WHERE key_hash=$1", &[&key_hash]).await?;
        Ok(r.map(|r| (r.get(0), r.get(1), r.get::<_, i64>(2) as u64)))
    }

    pub(super) async fn player(&self, id: String) -> Result<Option<PlayerInfo>, StoreError> {
        let Some(r) = self.row("SELECT name, created FROM players WHERE id=$1", &[&id]).await? else { return Ok(None) };
        let ratings =
            self.rows("SELECT grp, rating, rd, vol, games FROM ratings WHERE player=$1 ORDER BY grp", &[&id]).await?;
        let ratings = ratings.iter().map(group_rating).collect::<Result<_, _>>().map_err(backend)?;
        Ok(Some(PlayerInfo { id, name: r.get(0), created: r.get::<_, i64>(1) as u64, ratings }))
    }

    pub(super) async fn players_from(&self, addr: String, since: u64) -> Result<u32, StoreError> {
        let r = self
            .rows("SELECT COUNT(*) FROM players WHERE creator_addr=$1 AND created>=$2", &[&addr, &ms(since)])
            .await?;
        Ok(r[0].get::<_, i64>(0) as u32)
    }

    pub(super) async fn leaderboard(
        &self,
        grp: String,
        since: u64,
        limit: u32,
        offset: u32,
    ) -> Result<Vec<LeaderRow>, StoreError> {
        // Established players first, provisional ones after (issue 37).
        let params: [&(dyn ToSql + Sync); 5] =
            [&grp, &ms(since), &i64::from(limit), &i64::from(offset), &crate::rating::PROVISIONAL_RD];
        let rows = self.rows(&dollars(LEADERBOARD), &params).await?;
        rows.iter().map(leader_row).collect::<Result<_, _>>().map_err(backend)
    }

    pub(super) async fn history(&self, player: String, limit: u32, offset: u32) -> Result<Vec<HistoryRow>, StoreError> {
        let rows = self.rows(&dollars(HISTORY), &[&player, &i64::from(limit), &i64::from(offset)]).await?;
        rows.iter().map(|r| history_row(r, &player)).collect::<Result<_, _>>().map_err(backend)
    }

    pub(super) async fn rating_changes(&self, room: String) -> Result<Vec<RatingChange>, StoreError> {
        let rows = self
            .rows(
                "SELECT player, grp, side, before_rating, before_rd, after_rating, after_rd FROM rating_changes
                 WHERE room=$1 ORDER BY side DESC",
                &[&room],
            )
            .await?;
        rows.iter().map(rating_change).collect::<Result<_, _>>().map_err(backend)
    }
}
