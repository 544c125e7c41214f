//! The PostgreSQL schema, one migration per version, applied under an advisory lock.

use super::backend;
use crate::store::StoreError;

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

pub(super) async fn migrate(c: &mut deadpool_postgres::Object) -> Result<(), StoreError> {
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
