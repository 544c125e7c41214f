//! The SQLite schema and its migrations, counted by `PRAGMA user_version`.

use rusqlite::Connection;

use crate::store::StoreError;

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS rooms(
  id TEXT PRIMARY KEY,
  ruleset TEXT NOT NULL,
  start TEXT NOT NULL,
  south_token TEXT NOT NULL,
  north_token TEXT NOT NULL,
  invite TEXT NOT NULL,
  south_claimed INTEGER NOT NULL,
  north_claimed INTEGER NOT NULL,
  south_name TEXT NOT NULL DEFAULT '',
  north_name TEXT NOT NULL DEFAULT '',
  initial_ms INTEGER,
  increment_ms INTEGER,
  created INTEGER NOT NULL,
  finished INTEGER,
  winner TEXT,
  termination TEXT,
  south_ms INTEGER,
  north_ms INTEGER
);
CREATE INDEX IF NOT EXISTS rooms_finished ON rooms(finished);
CREATE TABLE IF NOT EXISTS turns(
  room TEXT NOT NULL,
  ply INTEGER NOT NULL,
  token TEXT NOT NULL,
  south_ms INTEGER,
  north_ms INTEGER,
  at INTEGER NOT NULL,
  PRIMARY KEY(room, ply)
) WITHOUT ROWID;
";

/// Changes of the schema, in order; `PRAGMA user_version` counts those applied, so a
/// database made by an earlier version is brought up to date when opened.
const MIGRATIONS: &[&str] = &[
    // 1: expiry of unclaimed and abandoned rooms (`closed` set instead of `finished`: such
    // a game has no result) and the creator's address for quotas that survive a restart.
    "ALTER TABLE rooms ADD COLUMN last_active INTEGER;
     ALTER TABLE rooms ADD COLUMN closed INTEGER;
     ALTER TABLE rooms ADD COLUMN closed_reason TEXT;
     ALTER TABLE rooms ADD COLUMN creator_addr TEXT;
     UPDATE rooms SET last_active = MAX(created, COALESCE((SELECT MAX(at) FROM turns WHERE turns.room = rooms.id), 0));
     CREATE INDEX rooms_live ON rooms(finished, closed);",
    // 2: players (only the SHA-256 of their secret), Glicko-2 ratings per group, the
    // change each rated game made, one-time transfer codes (hashed), and games bound to
    // players, rated or not, listed in the lobby or not.
    "CREATE TABLE players(
       id TEXT PRIMARY KEY,
       key_hash TEXT NOT NULL UNIQUE,
       name TEXT NOT NULL,
       created INTEGER NOT NULL,
       creator_addr TEXT
     );
     CREATE INDEX players_addr ON players(creator_addr, created);
     CREATE TABLE ratings(
       player TEXT NOT NULL,
       grp TEXT NOT NULL,
       rating REAL NOT NULL,
       rd REAL NOT NULL,
       vol REAL NOT NULL,
       games INTEGER NOT NULL,
       updated INTEGER NOT NULL,
       PRIMARY KEY(player, grp)
     ) WITHOUT ROWID;
     CREATE INDEX ratings_board ON ratings(grp, rating);
     CREATE TABLE rating_changes(
       room TEXT NOT NULL,
       player TEXT NOT NULL,
       grp TEXT NOT NULL,
       side TEXT NOT NULL,
       before_rating REAL NOT NULL,
       before_rd REAL NOT NULL,
       after_rating REAL NOT NULL,
       after_rd REAL NOT NULL,
       PRIMARY KEY(room, player)
     ) WITHOUT ROWID;
     CREATE TABLE transfer_codes(
       code_hash TEXT PRIMARY KEY,
       player TEXT NOT NULL,
       expires INTEGER NOT NULL
     ) WITHOUT ROWID;
     ALTER TABLE rooms ADD COLUMN south_player TEXT;
     ALTER TABLE rooms ADD COLUMN north_player TEXT;
     ALTER TABLE rooms ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
     ALTER TABLE rooms ADD COLUMN listed INTEGER NOT NULL DEFAULT 0;
     CREATE INDEX rooms_south_player ON rooms(south_player, finished);
     CREATE INDEX rooms_north_player ON rooms(north_player, finished);",
    // 3: team games (issue 42): their mode and invitations, the vote in progress, each
    // member (his own token, captaincy, removal), the standing votes and members' marks.
    "CREATE TABLE teams(
       room TEXT PRIMARY KEY,
       mode TEXT NOT NULL,
       vote_ms INTEGER NOT NULL,
       south_invite TEXT NOT NULL,
       north_invite TEXT NOT NULL,
       vote_ply INTEGER,
       vote_closes INTEGER
     ) WITHOUT ROWID;
     CREATE TABLE team_members(
       room TEXT NOT NULL,
       member TEXT NOT NULL,
       seq INTEGER NOT NULL,
       side TEXT NOT NULL,
       token TEXT NOT NULL,
       name TEXT NOT NULL,
       captain INTEGER NOT NULL,
       removed INTEGER NOT NULL DEFAULT 0,
       joined INTEGER NOT NULL,
       PRIMARY KEY(room, member)
     ) WITHOUT ROWID;
     CREATE TABLE team_votes(
       room TEXT NOT NULL,
       member TEXT NOT NULL,
       seq INTEGER NOT NULL,
       token TEXT NOT NULL,
       PRIMARY KEY(room, member)
     ) WITHOUT ROWID;
     CREATE TABLE team_marks(
       room TEXT NOT NULL,
       member TEXT NOT NULL,
       holes TEXT NOT NULL,
       PRIMARY KEY(room, member)
     ) WITHOUT ROWID;",
    // 4: correspondence games (days per turn, the deadline of the side to move) and public
    // team games (listed for the lobby).
    "ALTER TABLE rooms ADD COLUMN days_per_turn INTEGER;
     ALTER TABLE rooms ADD COLUMN deadline INTEGER;
     CREATE INDEX rooms_deadline ON rooms(deadline) WHERE deadline IS NOT NULL;
     ALTER TABLE teams ADD COLUMN listed INTEGER NOT NULL DEFAULT 0;",
    // Puzzle ratings of identities (issue 36): the rating now, and each identity's one
    // counted attempt per puzzle with the rating before and after it.
    "CREATE TABLE puzzle_ratings(
       player TEXT PRIMARY KEY,
       rating REAL NOT NULL,
       rd REAL NOT NULL,
       vol REAL NOT NULL,
       attempts INTEGER NOT NULL,
       solved INTEGER NOT NULL,
       last_attempt INTEGER
     ) WITHOUT ROWID;
     CREATE TABLE puzzle_attempts(
       player TEXT NOT NULL,
       puzzle TEXT NOT NULL,
       solved INTEGER NOT NULL,
       at INTEGER NOT NULL,
       before_rating REAL NOT NULL,
       before_rd REAL NOT NULL,
       before_vol REAL NOT NULL,
       after_rating REAL NOT NULL,
       after_rd REAL NOT NULL,
       after_vol REAL NOT NULL,
       PRIMARY KEY(player, puzzle)
     ) WITHOUT ROWID;",
];

/// The schema version (`PRAGMA user_version`) of a store this build writes.
pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

pub(super) fn migrate(c: &Connection) -> Result<(), StoreError> {
    let version: usize = c.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))? as usize;
    if version > MIGRATIONS.len() {
        return Err(StoreError::Schema(format!(
            "the database has schema version {version}, made by a newer matombo (this one knows {})",
            MIGRATIONS.len()
        )));
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version) {
        // Each step whole or not at all.
        c.execute_batch(&format!("BEGIN IMMEDIATE; {sql}; PRAGMA user_version = {}; COMMIT;", i + 1)).map_err(|e| {
            let _ = c.execute_batch("ROLLBACK");
            StoreError::Schema(format!("migration {} failed: {e}", i + 1))
        })?;
    }
    Ok(())
}
