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
//!
//! By concern: `schema` the migrations, `rooms` rooms and turns, `teams` team
//! games, `players` identities and ratings, `puzzles` puzzle ratings, and `shared` what
//! the nodes of a cluster share besides the games.

use std::net::IpAddr;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;
use tokio_postgres::{GenericClient, NoTls, Row};

mod players;
mod puzzles;
mod rooms;
mod schema;
mod shared;
mod teams;

use schema::migrate;
pub use schema::SCHEMA_VERSION;
pub use shared::{ChallengeRow, Counted, Refusal, SeekRow};

use super::{
    ArchiveEntry, Binding, GameStore, HistoryRow, LeaderRow, Op, PlayerInfo, PublicTeamRow, RatingChange, StoreError,
    StoreFuture,
};
use crate::room::Room;

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

    /// The rows a read finds, on a connection of the pool.
    async fn rows(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, StoreError> {
        self.conn().await?.query(sql, params).await.map_err(backend)
    }

    /// The row a read finds, if any.
    async fn row(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Option<Row>, StoreError> {
        self.conn().await?.query_opt(sql, params).await.map_err(backend)
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

fn ms(x: u64) -> i64 {
    x as i64
}

fn opt_ms(r: Option<[u64; 2]>, i: usize) -> Option<i64> {
    r.map(|r| r[i] as i64)
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
        // Each op by the module of its concern.
        out.extend(match op {
            Op::Teams { .. }
            | Op::Join { .. }
            | Op::Captain { .. }
            | Op::Remove { .. }
            | Op::Vote { .. }
            | Op::Marks { .. } => teams::apply(c, op).await?,
            Op::CreatePlayer { .. } | Op::RenamePlayer { .. } | Op::TransferCode { .. } | Op::UseTransfer { .. } => {
                players::apply(c, op).await?
            }
            _ => rooms::apply(c, op).await?,
        });
    }
    Ok(out)
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
        Box::pin(PgStore::player_by_key(self, key_hash))
    }

    fn player(&self, id: String) -> StoreFuture<'_, Option<PlayerInfo>> {
        Box::pin(PgStore::player(self, id))
    }

    fn players_from(&self, addr: String, since: u64) -> StoreFuture<'_, u32> {
        Box::pin(PgStore::players_from(self, addr, since))
    }

    fn leaderboard(&self, grp: String, since: u64, limit: u32, offset: u32) -> StoreFuture<'_, Vec<LeaderRow>> {
        Box::pin(PgStore::leaderboard(self, grp, since, limit, offset))
    }

    fn history(&self, player: String, limit: u32, offset: u32) -> StoreFuture<'_, Vec<HistoryRow>> {
        Box::pin(PgStore::history(self, player, limit, offset))
    }

    fn rating_changes(&self, room: String) -> StoreFuture<'_, Vec<RatingChange>> {
        Box::pin(PgStore::rating_changes(self, room))
    }

    fn binding(&self, room: String) -> StoreFuture<'_, Option<Binding>> {
        Box::pin(PgStore::binding(self, room))
    }

    fn due_votes(&self, now: u64) -> StoreFuture<'_, Vec<String>> {
        Box::pin(PgStore::due_votes(self, now))
    }

    fn public_teams(&self, limit: u32) -> StoreFuture<'_, Vec<PublicTeamRow>> {
        Box::pin(PgStore::public_teams(self, limit))
    }

    fn closed(&self, id: String) -> StoreFuture<'_, Option<String>> {
        Box::pin(PgStore::closed(self, id))
    }

    fn load_unfinished(
        &self,
        now: u64,
        unclaimed_before: u64,
        idle_before: u64,
    ) -> StoreFuture<'_, Vec<(Room, Option<IpAddr>)>> {
        Box::pin(PgStore::load_unfinished(self, now, unclaimed_before, idle_before))
    }

    fn load_room(&self, id: String, now: u64) -> StoreFuture<'_, Option<Room>> {
        Box::pin(PgStore::load_room(self, id, now))
    }

    fn archive(&self, limit: u32, offset: u32) -> StoreFuture<'_, Vec<ArchiveEntry>> {
        Box::pin(PgStore::archive(self, limit, offset))
    }

    fn puzzle_rating(&self, player: String) -> StoreFuture<'_, crate::store::puzzles::PuzzleRating> {
        Box::pin(async move { self.puzzle_rating_of(&player).await })
    }

    fn puzzle_attempt(
        &self,
        a: crate::store::puzzles::PuzzleAttempt,
    ) -> StoreFuture<'_, crate::store::puzzles::AttemptOutcome> {
        Box::pin(async move { self.rate_attempt(&a).await })
    }
}
