//! PostgreSQL storage, for a database several `matombo serve` nodes share
//! (`--db postgres://user@host:port/db`).
//!
//! Every write is one transaction (READ COMMITTED). A game's end locks its room row, then
//! both players' rating rows (made first if missing, locked in player order so that two
//! games ending at once cannot deadlock), so that concurrent games of one player never
//! lose an update; a transaction that still fails to serialize or is chosen as a
//! deadlock's victim is retried. The `(room, ply)` key refuses a second turn of one ply.
//! Migrations are numbered in `schema_version`, applied under an advisory lock so that
//! nodes starting together apply each once.

use std::net::IpAddr;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use matombo_core::{Outcome, Ruleset, Termination};
use tokio_postgres::error::SqlState;
use tokio_postgres::{GenericClient, NoTls, Row};

mod shared;
pub use shared::{ChallengeRow, Counted, Refusal, SeekRow};

use super::{
    rated_after, rebuild, result_of, side_name, teams_of, ArchiveEntry, Binding, GameStore, HistoryRow, LeaderRow, Op,
    PlayerInfo, PublicTeamRow, RatingChange, RoomRow, StoreError, StoreFuture, TeamRow,
};
use crate::rating::{group_of, Rating};
use crate::room::Room;

mod puzzles;

/// The schema, one step per version; `schema_version` holds the steps applied.
const MIGRATIONS: &[&str] = &[
    // 1: the schema of SQLite's version 2 (rooms, turns, players, ratings, rating changes,
    // transfer codes).
    "CREATE TABLE rooms(
       id TEXT PRIMARY KEY,
       ruleset TEXT NOT NULL,
       start TEXT NOT NULL,
       south_token TEXT NOT NULL,
       north_token TEXT NOT NULL,
       invite TEXT NOT NULL,
       south_claimed BOOLEAN NOT NULL,
       north_claimed BOOLEAN NOT NULL,
       south_name TEXT NOT NULL DEFAULT '',
       north_name TEXT NOT NULL DEFAULT '',
       initial_ms BIGINT,
       increment_ms BIGINT,
       created BIGINT NOT NULL,
       finished BIGINT,
       winner TEXT,
       termination TEXT,
       south_ms BIGINT,
       north_ms BIGINT,
       last_active BIGINT,
       closed BIGINT,
       closed_reason TEXT,
       creator_addr TEXT,
       south_player TEXT,
       north_player TEXT,
       rated BOOLEAN NOT NULL DEFAULT FALSE,
       listed BOOLEAN NOT NULL DEFAULT FALSE
     );
     CREATE INDEX rooms_finished ON rooms(finished);
     CREATE INDEX rooms_live ON rooms(finished, closed);
     CREATE INDEX rooms_south_player ON rooms(south_player, finished);
     CREATE INDEX rooms_north_player ON rooms(north_player, finished);
     CREATE TABLE turns(
       room TEXT NOT NULL,
       ply INTEGER NOT NULL,
       token TEXT NOT NULL,
       south_ms BIGINT,
       north_ms BIGINT,
       at BIGINT NOT NULL,
       PRIMARY KEY(room, ply)
     );
     CREATE TABLE players(
       id TEXT PRIMARY KEY,
       key_hash TEXT NOT NULL UNIQUE,
       name TEXT NOT NULL,
       created BIGINT NOT NULL,
       creator_addr TEXT
     );
     CREATE INDEX players_addr ON players(creator_addr, created);
     CREATE TABLE ratings(
       player TEXT NOT NULL,
       grp TEXT NOT NULL,
       rating DOUBLE PRECISION NOT NULL,
       rd DOUBLE PRECISION NOT NULL,
       vol DOUBLE PRECISION NOT NULL,
       games BIGINT NOT NULL,
       updated BIGINT NOT NULL,
       PRIMARY KEY(player, grp)
     );
     CREATE INDEX ratings_board ON ratings(grp, rating);
     CREATE TABLE rating_changes(
       room TEXT NOT NULL,
       player TEXT NOT NULL,
       grp TEXT NOT NULL,
       side TEXT NOT NULL,
       before_rating DOUBLE PRECISION NOT NULL,
       before_rd DOUBLE PRECISION NOT NULL,
       after_rating DOUBLE PRECISION NOT NULL,
       after_rd DOUBLE PRECISION NOT NULL,
       PRIMARY KEY(room, player)
     );
     CREATE TABLE transfer_codes(
       code_hash TEXT PRIMARY KEY,
       player TEXT NOT NULL,
       expires BIGINT NOT NULL
     );",
    // 2: team games (issue 42), as SQLite's version 3: their mode and invitations, the
    // vote in progress, each member, the standing votes and members' marks.
    "CREATE TABLE teams(
       room TEXT PRIMARY KEY,
       mode TEXT NOT NULL,
       vote_ms BIGINT NOT NULL,
       south_invite TEXT NOT NULL,
       north_invite TEXT NOT NULL,
       vote_ply INTEGER,
       vote_closes BIGINT
     );
     CREATE TABLE team_members(
       room TEXT NOT NULL,
       member TEXT NOT NULL,
       seq INTEGER NOT NULL,
       side TEXT NOT NULL,
       token TEXT NOT NULL,
       name TEXT NOT NULL,
       captain BOOLEAN NOT NULL,
       removed BOOLEAN NOT NULL DEFAULT FALSE,
       joined BIGINT NOT NULL,
       PRIMARY KEY(room, member)
     );
     CREATE TABLE team_votes(
       room TEXT NOT NULL,
       member TEXT NOT NULL,
       seq INTEGER NOT NULL,
       token TEXT NOT NULL,
       PRIMARY KEY(room, member)
     );
     CREATE TABLE team_marks(
       room TEXT NOT NULL,
       member TEXT NOT NULL,
       holes TEXT NOT NULL,
       PRIMARY KEY(room, member)
     );",
    // 3: correspondence games and public team games, as SQLite's version 4.
    "ALTER TABLE rooms ADD COLUMN days_per_turn BIGINT;
     ALTER TABLE rooms ADD COLUMN deadline BIGINT;
     CREATE INDEX rooms_deadline ON rooms(deadline) WHERE deadline IS NOT NULL;
     ALTER TABLE teams ADD COLUMN listed BOOLEAN NOT NULL DEFAULT FALSE;",
    // 4: what the nodes share (issue 35): the lobby's open challenges and seeks, tagged
    // with the node holding their maker's connection, and creation budgets by key.
    "CREATE TABLE lobby_challenges(
       id TEXT PRIMARY KEY,
       node BIGINT NOT NULL,
       player TEXT NOT NULL,
       open BOOLEAN NOT NULL,
       body TEXT NOT NULL,
       created BIGINT NOT NULL
     );
     CREATE INDEX lobby_challenges_node ON lobby_challenges(node, player);
     CREATE TABLE lobby_seeks(
       node BIGINT NOT NULL,
       conn BIGINT NOT NULL,
       player TEXT NOT NULL UNIQUE,
       body TEXT NOT NULL,
       since BIGINT NOT NULL,
       PRIMARY KEY(node, conn)
     );
     CREATE TABLE budgets(
       key TEXT PRIMARY KEY,
       tokens DOUBLE PRECISION NOT NULL,
       at BIGINT NOT NULL
     );",
    // 5: puzzle ratings of identities (issue 36), as SQLite's version 5.
    "CREATE TABLE puzzle_ratings(
       player TEXT PRIMARY KEY,
       rating DOUBLE PRECISION NOT NULL,
       rd DOUBLE PRECISION NOT NULL,
       vol DOUBLE PRECISION NOT NULL,
       attempts INTEGER NOT NULL,
       solved INTEGER NOT NULL,
       last_attempt BIGINT
     );
     CREATE TABLE puzzle_attempts(
       player TEXT NOT NULL,
       puzzle TEXT NOT NULL,
       solved BOOLEAN NOT NULL,
       at BIGINT NOT NULL,
       before_rating DOUBLE PRECISION NOT NULL,
       before_rd DOUBLE PRECISION NOT NULL,
       before_vol DOUBLE PRECISION NOT NULL,
       after_rating DOUBLE PRECISION NOT NULL,
       after_rd DOUBLE PRECISION NOT NULL,
       after_vol DOUBLE PRECISION NOT NULL,
       PRIMARY KEY(player, puzzle)
     );",
];

/// The schema version this program writes.
pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

/// An arbitrary key of the advisory lock migrations run under.
const MIGRATION_LOCK: i64 = 0x6d61_746f_6d62_6f01;

/// Times a transaction that failed to serialize (or lost a deadlock) is tried again.
const RETRIES: usize = 8;

/// The URL without its password, for messages.
pub fn redact(url: &str) -> String {
    // postgres://user:password@host… → postgres://user:***@host…
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    match rest.split_once('@') {
        Some((userinfo, host)) if userinfo.contains(':') => {
            let user = userinfo.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}:***@{host}")
        }
        _ => url.to_string(),
    }
}

/// The PostgreSQL store: a pool of connections.
pub struct PgStore {
    pool: Pool,
    url: String,
}

/// A failure inside a transaction: the store's own, or the database's (maybe retried).
enum Fail {
    Store(StoreError),
    Pg(tokio_postgres::Error),
}

impl From<tokio_postgres::Error> for Fail {
    fn from(e: tokio_postgres::Error) -> Self {
        Fail::Pg(e)
    }
}

impl From<StoreError> for Fail {
    fn from(e: StoreError) -> Self {
        Fail::Store(e)
    }
}

fn backend(e: tokio_postgres::Error) -> StoreError {
    // The database's own message (e.g. "relation … does not exist") says more than
    // `Display` of the error alone ("db error").
    match e.as_db_error() {
        Some(db) => StoreError::Backend(format!("{}: {}", db.code().code(), db.message())),
        None => StoreError::Backend(e.to_string()),
    }
}

impl From<Fail> for StoreError {
    fn from(f: Fail) -> Self {
        match f {
            Fail::Store(e) => e,
            Fail::Pg(e) => backend(e),
        }
    }
}

fn retryable(f: &Fail) -> bool {
    matches!(f, Fail::Pg(e) if matches!(e.code(), Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE
        || *c == SqlState::T_R_DEADLOCK_DETECTED))
}

impl PgStore {
    /// Connects to `url` (within a few seconds, or fails saying why) and brings the schema
    /// up to date.
    pub async fn open(url: &str) -> Result<PgStore, StoreError> {
        let shown = redact(url);
        let mut cfg: tokio_postgres::Config =
            url.parse().map_err(|e| StoreError::Backend(format!("{shown} is not a PostgreSQL URL: {e}")))?;
        if cfg.get_connect_timeout().is_none() {
            cfg.connect_timeout(Duration::from_secs(5));
        }
        if cfg.get_application_name().is_none() {
            cfg.application_name("matombo");
        }
        let mgr = Manager::from_config(cfg, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
        let pool = Pool::builder(mgr)
            .max_size(16)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(Duration::from_secs(10)))
            .create_timeout(Some(Duration::from_secs(10)))
            .build()
            .map_err(|e| StoreError::Backend(e.to_string()))?;
        let store = PgStore { pool, url: url.to_string() };
        let mut c = store.conn().await.map_err(|e| StoreError::Backend(format!("cannot connect to {shown}: {e}")))?;
        migrate(&mut c).await?;
        Ok(store)
    }

    async fn conn(&self) -> Result<deadpool_postgres::Object, StoreError> {
        self.pool.get().await.map_err(|e| match e {
            deadpool_postgres::PoolError::Backend(e) => backend(e),
            e => StoreError::Backend(e.to_string()),
        })
    }

    async fn write_op(&self, op: Op) -> Result<Vec<String>, StoreError> {
        let mut attempt = 0;
        loop {
            let mut c = self.conn().await?;
            let r = async {
                let tx = c.transaction().await?;
                let ids = apply(&*tx, &op).await?;
                tx.commit().await?;
                Ok::<_, Fail>(ids)
            }
            .await;
            match r {
                Ok(ids) => return Ok(ids),
                Err(f) if retryable(&f) && attempt < RETRIES => {
                    attempt += 1;
                    // A short random pause so that the transactions that collided do not
                    // collide again.
                    let ms = rand::random_range(1..10u64 << attempt.min(5));
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                }
                Err(f) => return Err(f.into()),
            }
        }
    }
}

async fn migrate(c: &mut deadpool_postgres::Object) -> Result<(), StoreError> {
    let tx = c.transaction().await.map_err(backend)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).await.map_err(backend)?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS schema_version(version INTEGER NOT NULL)").await.map_err(backend)?;
    let v: Option<i32> =
        tx.query_opt("SELECT version FROM schema_version", &[]).await.map_err(backend)?.map(|r| r.get(0));
    let version = v.unwrap_or(0) as usize;
    if version > MIGRATIONS.len() {
        return Err(StoreError::Schema(format!(
            "the database has schema version {version}, made by a newer matombo (this one knows {})",
            MIGRATIONS.len()
        )));
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version) {
        tx.batch_execute(sql)
            .await
            .map_err(|e| StoreError::Schema(format!("migration {} failed: {}", i + 1, backend(e))))?;
    }
    if version < MIGRATIONS.len() {
        tx.execute("DELETE FROM schema_version", &[]).await.map_err(backend)?;
        tx.execute("INSERT INTO schema_version(version) VALUES ($1)", &[&(MIGRATIONS.len() as i32)])
            .await
            .map_err(backend)?;
    }
    tx.commit().await.map_err(backend)?;
    Ok(())
}

fn ms(x: u64) -> i64 {
    x as i64
}

fn opt_ms(r: Option<[u64; 2]>, i: usize) -> Option<i64> {
    r.map(|r| r[i] as i64)
}

/// Marks a live room active; [`StoreError::Closed`] if it was closed or ended meanwhile
/// (by another node: one end per game, and no turn after it).
async fn touch(c: &impl GenericClient, id: &str, at: u64) -> Result<(), Fail> {
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

/// Applies a rated game's result to both players' ratings of its group, once; the room's
/// row and both rating rows locked until the transaction ends.
async fn rate(c: &impl GenericClient, id: &str, o: &Outcome, at: u64) -> Result<(), Fail> {
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

async fn write_outcome(
    c: &impl GenericClient,
    id: &str,
    o: &Outcome,
    remaining: Option<[u64; 2]>,
    at: u64,
) -> Result<(), Fail> {
    rate(c, id, o, at).await?;
    c.execute(
        "UPDATE rooms SET finished=$2, winner=$3, termination=$4, south_ms=$5, north_ms=$6, creator_addr=NULL,
           deadline=NULL WHERE id=$1",
        &[&id, &ms(at), &o.winner.map(side_name), &o.termination.tag(), &opt_ms(remaining, 0), &opt_ms(remaining, 1)],
    )
    .await?;
    Ok(())
}

fn flatten<'a>(op: &'a Op, out: &mut Vec<&'a Op>) {
    match op {
        Op::Many(ops) => ops.iter().for_each(|o| flatten(o, out)),
        op => out.push(op),
    }
}

async fn apply(c: &impl GenericClient, op: &Op) -> Result<Vec<String>, Fail> {
    let mut ops = Vec::new();
    flatten(op, &mut ops);
    let mut out = Vec::new();
    for op in ops {
        out.extend(apply_one(c, op).await?);
    }
    Ok(out)
}

async fn apply_one(c: &impl GenericClient, op: &Op) -> Result<Vec<String>, Fail> {
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
                "INSERT INTO rooms(id, ruleset, start, south_token, north_token, invite, south_claimed,
                 north_claimed, south_name, north_name, initial_ms, increment_ms, created, last_active, creator_addr,
                 days_per_turn)
                 VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$13,$14,$15)",
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
            c.execute(&super::dollars(super::START_DEADLINE), &[id, &ms(*at)]).await?;
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
            c.execute(&super::dollars(super::NEXT_DEADLINE), &[id, &ms(*at)]).await?;
            // A team's vote ends with the turn it chose (or that was played over it).
            c.execute("DELETE FROM team_votes WHERE room=$1", &[id]).await?;
            c.execute("UPDATE teams SET vote_ply=NULL, vote_closes=NULL WHERE room=$1", &[id]).await?;
        }
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
            c.execute(&super::dollars(super::START_DEADLINE), &[id, &ms(*at)]).await?;
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
        Op::Many(_) => unreachable!("flattened"),
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
    }
    Ok(Vec::new())
}

const ROOM_COLUMNS: &str = "ruleset, start, south_token, north_token, invite, south_claimed, north_claimed,
    south_name, north_name, initial_ms, increment_ms, created, finished, winner, termination, south_ms, north_ms,
    days_per_turn, deadline";

fn room_row(r: &Row) -> RoomRow {
    RoomRow {
        ruleset: r.get(0),
        start: r.get(1),
        tokens: [r.get(2), r.get(3)],
        invite: r.get(4),
        claimed: [r.get(5), r.get(6)],
        names: [r.get(7), r.get(8)],
        control: (r.get(9), r.get(10)),
        created: r.get(11),
        finished: r.get(12),
        winner: r.get(13),
        termination: r.get(14),
        final_ms: (r.get(15), r.get(16)),
        days_per_turn: r.get(17),
        deadline: r.get(18),
    }
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
    let mut room = rebuild(id, room_row(&row), turns, now)?;
    room.teams = load_teams(c, id, room.ply()).await?;
    Ok(Some(room))
}

/// A room's teams, if it is a team game.
async fn load_teams(c: &impl GenericClient, id: &str, ply: u32) -> Result<Option<crate::team::Teams>, Fail> {
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

impl GameStore for PgStore {
    fn shared(&self) -> Option<&PgStore> {
        Some(self)
    }

    fn describe(&self) -> String {
        redact(&self.url)
    }

    fn write(&self, op: Op) -> StoreFuture<'_, Vec<String>> {
        Box::pin(self.write_op(op))
    }

    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            self.conn().await?.query_one("SELECT 1", &[]).await.map_err(backend)?;
            Ok(())
        })
    }

    fn player_by_key(&self, key_hash: String) -> StoreFuture<'_, Option<(String, String, u64)>> {
        Box::pin(async move {
            let c = self.conn().await?;
            let r = c
                .query_opt("SELECT id, name, created FROM players WHERE key_hash=$1", &[&key_hash])
                .await
                .map_err(backend)?;
            Ok(r.map(|r| (r.get(0), r.get(1), r.get::<_, i64>(2) as u64)))
        })
    }

    fn player(&self, id: String) -> StoreFuture<'_, Option<PlayerInfo>> {
        Box::pin(async move {
            let c = self.conn().await?;
            let r = c.query_opt("SELECT name, created FROM players WHERE id=$1", &[&id]).await.map_err(backend)?;
            let Some(r) = r else { return Ok(None) };
            let ratings = c
                .query("SELECT grp, rating, rd, vol, games FROM ratings WHERE player=$1 ORDER BY grp", &[&id])
                .await
                .map_err(backend)?
                .iter()
                .map(|r| {
                    (r.get(0), Rating { rating: r.get(1), rd: r.get(2), vol: r.get(3) }, r.get::<_, i64>(4) as u32)
                })
                .collect();
            Ok(Some(PlayerInfo { id, name: r.get(0), created: r.get::<_, i64>(1) as u64, ratings }))
        })
    }

    fn players_from(&self, addr: String, since: u64) -> StoreFuture<'_, u32> {
        Box::pin(async move {
            let c = self.conn().await?;
            let r = c
                .query_one("SELECT COUNT(*) FROM players WHERE creator_addr=$1 AND created>=$2", &[&addr, &ms(since)])
                .await
                .map_err(backend)?;
            Ok(r.get::<_, i64>(0) as u32)
        })
    }

    fn leaderboard(&self, grp: String, since: u64, limit: u32, offset: u32) -> StoreFuture<'_, Vec<LeaderRow>> {
        Box::pin(async move {
            let c = self.conn().await?;
            let rows = c
                .query(
                    "SELECT p.id, p.name, r.rating, r.rd, r.vol, r.games FROM ratings r JOIN players p ON p.id = r.player
                     WHERE r.grp=$1 AND r.updated>=$2 ORDER BY r.rd > $5, r.rating DESC, p.id LIMIT $3 OFFSET $4",
                    // Established players first, provisional ones after (issue 37).
                    &[&grp, &ms(since), &i64::from(limit), &i64::from(offset), &crate::rating::PROVISIONAL_RD],
                )
                .await
                .map_err(backend)?;
            Ok(rows
                .iter()
                .map(|r| {
                    (
                        r.get(0),
                        r.get(1),
                        Rating { rating: r.get(2), rd: r.get(3), vol: r.get(4) },
                        r.get::<_, i64>(5) as u32,
                    )
                })
                .collect())
        })
    }

    fn history(&self, player: String, limit: u32, offset: u32) -> StoreFuture<'_, Vec<HistoryRow>> {
        Box::pin(async move {
            let c = self.conn().await?;
            let rows = c
                .query(
                    "SELECT r.id, r.ruleset, r.south_player, r.north_player, r.south_name, r.north_name, r.winner,
                        r.termination, r.rated, r.finished, ch.before_rating, ch.before_rd, ch.after_rating,
                        ch.after_rd,
                        (SELECT name FROM players WHERE id = CASE WHEN r.south_player=$1 THEN r.north_player
                                                                  ELSE r.south_player END)
                     FROM rooms r LEFT JOIN rating_changes ch ON ch.room = r.id AND ch.player = $1
                     WHERE (r.south_player=$1 OR r.north_player=$1) AND r.finished IS NOT NULL
                     ORDER BY r.finished DESC LIMIT $2 OFFSET $3",
                    &[&player, &i64::from(limit), &i64::from(offset)],
                )
                .await
                .map_err(backend)?;
            Ok(rows
                .iter()
                .map(|r| {
                    let sp: Option<String> = r.get(2);
                    let np: Option<String> = r.get(3);
                    let south = sp.as_deref() == Some(player.as_str());
                    let pair = |a: Option<f64>, b: Option<f64>| a.zip(b);
                    let fallback: String = if south { r.get(5) } else { r.get(4) };
                    HistoryRow {
                        room: r.get(0),
                        ruleset: r.get(1),
                        south,
                        opponent_id: if south { np } else { sp },
                        opponent_name: r.get::<_, Option<String>>(14).unwrap_or(fallback),
                        winner: r.get(6),
                        termination: r.get(7),
                        rated: r.get(8),
                        before: pair(r.get(10), r.get(11)),
                        after: pair(r.get(12), r.get(13)),
                        finished: r.get::<_, i64>(9) as u64,
                    }
                })
                .collect())
        })
    }

    fn rating_changes(&self, room: String) -> StoreFuture<'_, Vec<RatingChange>> {
        Box::pin(async move {
            let c = self.conn().await?;
            let rows = c
                .query(
                    "SELECT player, grp, side, before_rating, before_rd, after_rating, after_rd FROM rating_changes
                     WHERE room=$1 ORDER BY side DESC",
                    &[&room],
                )
                .await
                .map_err(backend)?;
            Ok(rows
                .iter()
                .map(|r| RatingChange {
                    player: r.get(0),
                    group: r.get(1),
                    side: r.get(2),
                    before: (r.get(3), r.get(4)),
                    after: (r.get(5), r.get(6)),
                })
                .collect())
        })
    }

    fn binding(&self, room: String) -> StoreFuture<'_, Option<Binding>> {
        Box::pin(async move {
            let c = self.conn().await?;
            let r = c
                .query_opt("SELECT south_player, north_player, rated, listed FROM rooms WHERE id=$1", &[&room])
                .await
                .map_err(backend)?;
            Ok(r.map(|r| ([r.get(0), r.get(1)], r.get(2), r.get(3))))
        })
    }

    fn due_votes(&self, now: u64) -> StoreFuture<'_, Vec<String>> {
        Box::pin(async move {
            let c = self.conn().await?;
            let rows = c
                .query(
                    "SELECT t.room FROM teams t JOIN rooms r ON r.id = t.room
                     WHERE t.vote_closes <= $1 AND r.finished IS NULL AND r.closed IS NULL
                     UNION SELECT id FROM rooms WHERE deadline <= $1 AND finished IS NULL AND closed IS NULL",
                    &[&ms(now)],
                )
                .await
                .map_err(backend)?;
            Ok(rows.iter().map(|r| r.get(0)).collect())
        })
    }

    fn public_teams(&self, limit: u32) -> StoreFuture<'_, Vec<PublicTeamRow>> {
        Box::pin(async move {
            let c = self.conn().await?;
            let rows = c.query(&super::dollars(super::PUBLIC_TEAMS), &[&i64::from(limit)]).await.map_err(backend)?;
            Ok(rows
                .iter()
                .map(|r| PublicTeamRow {
                    id: r.get(0),
                    ruleset: r.get(1),
                    mode: r.get(2),
                    vote_ms: r.get::<_, i64>(3) as u64,
                    control: super::control_of(r.get(4), r.get(5)),
                    days_per_turn: r.get::<_, Option<i64>>(6).map(|d| d as u32),
                    created: r.get::<_, i64>(7) as u64,
                    creator: r.get::<_, Option<String>>(8).unwrap_or_default(),
                    invites: [r.get(9), r.get(10)],
                    members: [r.get::<_, i64>(11) as usize, r.get::<_, i64>(12) as usize],
                })
                .collect())
        })
    }

    fn closed(&self, id: String) -> StoreFuture<'_, Option<String>> {
        Box::pin(async move {
            let c = self.conn().await?;
            let r = c
                .query_opt("SELECT closed_reason FROM rooms WHERE id=$1 AND closed IS NOT NULL", &[&id])
                .await
                .map_err(backend)?;
            Ok(r.and_then(|r| r.get(0)))
        })
    }

    fn load_unfinished(
        &self,
        now: u64,
        unclaimed_before: u64,
        idle_before: u64,
    ) -> StoreFuture<'_, Vec<(Room, Option<IpAddr>)>> {
        Box::pin(async move {
            let closed = self.write_op(Op::Expire { now, unclaimed_before, idle_before }).await?;
            if !closed.is_empty() {
                tracing::info!(rooms = closed.len(), "unclaimed or abandoned games closed");
            }
            let c = self.conn().await?;
            let until = now + super::RESTART_GRACE_MS;
            let graced =
                c.execute(&super::dollars(super::GRACE_DEADLINES), &[&ms(now), &ms(until)]).await.map_err(backend)?;
            if graced > 0 {
                tracing::info!(rooms = graced, "correspondence deadlines passed while stopped: one more hour");
            }
            let ids: Vec<(String, Option<String>)> = c
                .query(
                    "SELECT id, creator_addr FROM rooms WHERE finished IS NULL AND closed IS NULL ORDER BY created",
                    &[],
                )
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
        })
    }

    fn load_room(&self, id: String, now: u64) -> StoreFuture<'_, Option<Room>> {
        Box::pin(async move {
            let c = self.conn().await?;
            Ok(load(&**c, &id, now).await?)
        })
    }

    fn archive(&self, limit: u32, offset: u32) -> StoreFuture<'_, Vec<ArchiveEntry>> {
        Box::pin(async move {
            let c = self.conn().await?;
            let rows = c
                .query(
                    "SELECT r.id, r.ruleset, r.south_name, r.north_name, r.winner, r.termination, r.created,
                        r.finished, (SELECT COUNT(*) FROM turns t WHERE t.room = r.id)
                     FROM rooms r WHERE r.finished IS NOT NULL ORDER BY r.finished DESC LIMIT $1 OFFSET $2",
                    &[&i64::from(limit), &i64::from(offset)],
                )
                .await
                .map_err(backend)?;
            Ok(rows
                .iter()
                .map(|r| ArchiveEntry {
                    id: r.get(0),
                    ruleset: r.get(1),
                    south: r.get(2),
                    north: r.get(3),
                    result: result_of(r.get::<_, Option<String>>(4).as_deref()).into(),
                    termination: r.get::<_, Option<String>>(5).as_deref().and_then(Termination::from_tag),
                    created: r.get::<_, i64>(6) as u64,
                    finished: r.get::<_, i64>(7) as u64,
                    turns: r.get::<_, i64>(8) as u32,
                })
                .collect())
        })
    }

    fn puzzle_rating(&self, player: String) -> StoreFuture<'_, super::puzzles::PuzzleRating> {
        Box::pin(async move { self.puzzle_rating_of(&player).await })
    }

    fn puzzle_attempt(&self, a: super::puzzles::PuzzleAttempt) -> StoreFuture<'_, super::puzzles::AttemptOutcome> {
        Box::pin(async move { self.rate_attempt(&a).await })
    }
}
