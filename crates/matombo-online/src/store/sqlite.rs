//! SQLite storage of rooms and turns: one row per room, one row per turn; the default.
//!
//! All writes go through one writer thread that commits them in groups (WAL mode,
//! `synchronous=FULL`): a caller's write is durable on disk when its future resolves,
//! and turns of many rooms arriving together share one fsync. The single writer also
//! makes a game's end and its ratings one serialized transaction. Reads run on a blocking
//! thread with a connection of their own.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};

use matombo_core::{Outcome, Ruleset, Side, Termination};
use rusqlite::{params, Connection, OptionalExtension};

use super::{
    rated_after, rebuild, result_of, side_name, teams_of, ArchiveEntry, Binding, GameStore, HistoryRow, LeaderRow, Op,
    PlayerInfo, PublicTeamRow, RatingChange, RoomRow, StoreError, StoreFuture, TeamRow,
};
use crate::rating::Rating;
use crate::room::Room;

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::Backend(e.to_string())
    }
}

type Job = (Op, tokio::sync::oneshot::Sender<Result<Vec<String>, StoreError>>);

/// The SQLite store: a writer thread and a connection for reads.
#[derive(Clone)]
pub struct SqliteStore {
    tx: mpsc::Sender<Job>,
    read: Arc<Mutex<Connection>>,
    path: PathBuf,
    _checkpoint: Arc<mpsc::Sender<()>>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").field("path", &self.path).finish()
    }
}

const SCHEMA: &str = "
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
];

/// The schema version (`PRAGMA user_version`) of a store this build writes.
pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

fn migrate(c: &Connection) -> Result<(), StoreError> {
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
fn touch(c: &Connection, id: &str, at: u64) -> Result<(), StoreError> {
    let n = c.execute("UPDATE rooms SET last_active=?2 WHERE id=?1 AND closed IS NULL", params![id, at as i64])?;
    if n == 0 {
        return Err(StoreError::Closed(id.to_string()));
    }
    Ok(())
}

fn connect(path: &Path) -> Result<Connection, StoreError> {
    let c = Connection::open(path)?;
    c.busy_timeout(std::time::Duration::from_secs(5))?;
    c.pragma_update(None, "journal_mode", "WAL")?;
    // FULL: a committed turn survives not only a killed process but a power cut.
    c.pragma_update(None, "synchronous", "FULL")?;
    Ok(c)
}

/// Applies a rated game's result to both players' ratings of its group, once.
fn rate(c: &Connection, id: &str, o: &Outcome, at: u64) -> rusqlite::Result<()> {
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
            Ok((Rating { rating: r.get(0)?, rd: r.get(1)?, vol: r.get(2)? }, r.get(3)?))
        })
        .optional()?;
    Ok(r.unwrap_or((Rating::default(), 0)))
}

fn write_outcome(tx: &Connection, id: &str, o: &Outcome, remaining: Option<[u64; 2]>, at: u64) -> rusqlite::Result<()> {
    rate(tx, id, o, at)?;
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

fn apply(c: &Connection, op: &Op) -> Result<Vec<String>, StoreError> {
    let e = StoreError::from;
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
                "INSERT INTO rooms(id, ruleset, start, south_token, north_token, invite, south_claimed,
                 north_claimed, south_name, north_name, initial_ms, increment_ms, created, last_active, creator_addr,
                 days_per_turn)
                 VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?13,?14,?15)",
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
            )
            .map_err(e)?;
        }
        Op::Claim { id, side, name, at } => {
            touch(c, id, *at)?;
            let sql = match side {
                Side::South => "UPDATE rooms SET south_claimed=1, south_name=?2 WHERE id=?1",
                Side::North => "UPDATE rooms SET north_claimed=1, north_name=?2 WHERE id=?1",
            };
            c.execute(sql, params![id, name]).map_err(e)?;
            c.execute(super::START_DEADLINE, params![id, *at as i64]).map_err(e)?;
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
                _ => e(err),
            })?;
            if let Some(o) = end {
                write_outcome(c, id, o, *remaining, *at).map_err(e)?;
            }
            c.execute(super::NEXT_DEADLINE, params![id, *at as i64]).map_err(e)?;
            // A team's vote ends with the turn it chose (or that was played over it).
            c.execute("DELETE FROM team_votes WHERE room=?1", [id]).map_err(e)?;
            c.execute("UPDATE teams SET vote_ply=NULL, vote_closes=NULL WHERE room=?1", [id]).map_err(e)?;
        }
        Op::Teams { id, mode, vote_ms, invites, public } => {
            c.execute(
                "INSERT INTO teams(room, mode, vote_ms, south_invite, north_invite, listed) VALUES (?1,?2,?3,?4,?5,?6)",
                params![id, mode.as_str(), *vote_ms as i64, invites[0], invites[1], public],
            )
            .map_err(e)?;
        }
        Op::Join { id, side, member, token, name, captain, at } => {
            touch(c, id, *at)?;
            let n = c
                .execute(
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
                )
                .map_err(e)?;
            if n == 0 {
                return Err(StoreError::TeamFull(id.clone()));
            }
            let sql = match side {
                Side::South => "UPDATE rooms SET south_claimed=1, south_name=?2 WHERE id=?1 AND south_claimed=0",
                Side::North => "UPDATE rooms SET north_claimed=1, north_name=?2 WHERE id=?1 AND north_claimed=0",
            };
            c.execute(sql, params![id, name]).map_err(e)?;
            c.execute(super::START_DEADLINE, params![id, *at as i64]).map_err(e)?;
        }
        Op::Captain { id, side, member } => {
            c.execute(
                "UPDATE team_members SET captain = (member = ?2) WHERE room=?1 AND side=?3",
                params![id, member, side_name(*side)],
            )
            .map_err(e)?;
        }
        Op::Remove { id, member } => {
            c.execute("UPDATE team_members SET removed=1, captain=0 WHERE room=?1 AND member=?2", params![id, member])
                .map_err(e)?;
            c.execute("DELETE FROM team_votes WHERE room=?1 AND member=?2", params![id, member]).map_err(e)?;
            c.execute("DELETE FROM team_marks WHERE room=?1 AND member=?2", params![id, member]).map_err(e)?;
        }
        Op::Vote { id, ply, member, token, closes_at } => {
            c.execute("DELETE FROM team_votes WHERE room=?1 AND member=?2", params![id, member]).map_err(e)?;
            c.execute(
                "INSERT INTO team_votes(room, member, seq, token)
                 VALUES (?1, ?2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM team_votes WHERE room=?1), ?3)",
                params![id, member, token],
            )
            .map_err(e)?;
            c.execute(
                "UPDATE teams SET vote_ply=?2, vote_closes=?3 WHERE room=?1",
                params![id, ply, *closes_at as i64],
            )
            .map_err(e)?;
        }
        Op::Marks { id, member, holes } => {
            if holes.is_empty() {
                c.execute("DELETE FROM team_marks WHERE room=?1 AND member=?2", params![id, member]).map_err(e)?;
            } else {
                c.execute(
                    "INSERT INTO team_marks(room, member, holes) VALUES (?1,?2,?3)
                     ON CONFLICT(room, member) DO UPDATE SET holes=excluded.holes",
                    params![id, member, holes.join(" ")],
                )
                .map_err(e)?;
            }
        }
        Op::End { id, outcome, remaining, at } => {
            touch(c, id, *at)?;
            write_outcome(c, id, outcome, *remaining, *at).map_err(e)?;
        }
        Op::Expire { now, unclaimed_before, idle_before } => {
            return expire(c, *now, *unclaimed_before, *idle_before).map_err(e);
        }
        Op::Bind { id, players, rated, listed } => {
            c.execute(
                "UPDATE rooms SET south_player=?2, north_player=?3, rated=?4, listed=?5 WHERE id=?1",
                params![id, players[0], players[1], rated, listed],
            )
            .map_err(e)?;
        }
        Op::Many(ops) => {
            let mut out = Vec::new();
            for op in ops {
                out.extend(apply(c, op)?);
            }
            return Ok(out);
        }
        Op::Abort { id, at } => {
            let n = c
                .execute(
                    "UPDATE rooms SET closed=?2, closed_reason='aborted', creator_addr=NULL
                     WHERE id=?1 AND finished IS NULL AND closed IS NULL
                       AND NOT EXISTS(SELECT 1 FROM turns WHERE room=?1)",
                    params![id, *at as i64],
                )
                .map_err(e)?;
            if n == 0 {
                return Err(StoreError::NotAbortable(id.clone()));
            }
        }
        Op::CreatePlayer { id, key_hash, name, created, addr } => {
            c.execute(
                "INSERT INTO players(id, key_hash, name, created, creator_addr) VALUES (?1,?2,?3,?4,?5)",
                params![id, key_hash, name, *created as i64, addr],
            )
            .map_err(e)?;
        }
        Op::RenamePlayer { id, name } => {
            c.execute("UPDATE players SET name=?2 WHERE id=?1", params![id, name]).map_err(e)?;
        }
        Op::TransferCode { code_hash, player, expires } => {
            c.execute("DELETE FROM transfer_codes WHERE player=?1", [player]).map_err(e)?;
            c.execute(
                "INSERT INTO transfer_codes(code_hash, player, expires) VALUES (?1,?2,?3)",
                params![code_hash, player, *expires as i64],
            )
            .map_err(e)?;
        }
        Op::UseTransfer { code_hash, key_hash, now } => {
            let player: Option<String> = c
                .query_row(
                    "DELETE FROM transfer_codes WHERE code_hash=?1 AND expires>?2 RETURNING player",
                    params![code_hash, *now as i64],
                    |r| r.get(0),
                )
                .optional()
                .map_err(e)?;
            let Some(player) = player else { return Err(StoreError::BadCode) };
            c.execute("UPDATE players SET key_hash=?2 WHERE id=?1", params![player, key_hash]).map_err(e)?;
            return Ok(vec![player]);
        }
    }
    Ok(Vec::new())
}

/// The writer loop: take every job waiting, run them in one transaction, answer each.
fn writer(conn: Connection, rx: mpsc::Receiver<Job>) {
    while let Ok(first) = rx.recv() {
        let mut jobs = vec![first];
        while jobs.len() < 1024 {
            match rx.try_recv() {
                Ok(j) => jobs.push(j),
                Err(_) => break,
            }
        }
        let mut results: Vec<Result<Vec<String>, StoreError>> = Vec::with_capacity(jobs.len());
        let begun = conn.execute_batch("BEGIN IMMEDIATE");
        match begun {
            Ok(()) => {
                for (op, _) in &jobs {
                    // Each write in its own savepoint, so one failure leaves the others whole.
                    let r = conn
                        .execute_batch("SAVEPOINT w")
                        .map_err(StoreError::from)
                        .and_then(|_| apply(&conn, op))
                        .and_then(|ids| conn.execute_batch("RELEASE w").map(|_| ids).map_err(StoreError::from));
                    if r.is_err() {
                        let _ = conn.execute_batch("ROLLBACK TO w; RELEASE w");
                    }
                    results.push(r);
                }
                if let Err(e) = conn.execute_batch("COMMIT") {
                    let _ = conn.execute_batch("ROLLBACK");
                    results.iter_mut().for_each(|r| *r = Err(StoreError::Backend(e.to_string())));
                }
            }
            Err(e) => results.extend(jobs.iter().map(|_| Err(StoreError::Backend(e.to_string())))),
        }
        for ((_, reply), r) in jobs.into_iter().zip(results) {
            let _ = reply.send(r);
        }
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| StoreError::Backend(format!("cannot create {}: {e}", dir.display())))?;
        }
        let w = connect(path)?;
        w.execute_batch(SCHEMA)?;
        migrate(&w)?;
        // Checkpoints copy the WAL into the database file with an fsync; run them on their
        // own thread so that no turn waits behind one.
        w.pragma_update(None, "wal_autocheckpoint", 0)?;
        // A read-only file or directory would otherwise only show at the first turn.
        w.execute_batch("CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT);")?;
        w.execute("INSERT OR REPLACE INTO meta(k, v) VALUES('opened', ?1)", [crate::handle::now_ms() as i64])
            .map_err(|e| StoreError::Backend(format!("the database is not writable: {e}")))?;
        let ck = connect(path)?;
        // The thread ends when the last handle on the store is dropped (its sender with it).
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        std::thread::Builder::new()
            .name("online-checkpoint".into())
            .spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stop_rx.recv_timeout(std::time::Duration::from_secs(1))
                {
                    if let Err(e) = ck.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
                        tracing::warn!(error = %e, "checkpoint failed");
                    }
                }
            })
            .map_err(|e| StoreError::Backend(e.to_string()))?;
        let read = connect(path)?;
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("online-store".into())
            .spawn(move || writer(w, rx))
            .map_err(|e| StoreError::Backend(e.to_string()))?;
        Ok(SqliteStore {
            tx,
            read: Arc::new(Mutex::new(read)),
            path: path.to_path_buf(),
            _checkpoint: Arc::new(stop_tx),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A trivial read: whether the database answers (`/readyz`).
    pub fn ping(&self) -> Result<(), StoreError> {
        let c = self.read.lock().map_err(|_| StoreError::Backend("store lock poisoned".into()))?;
        c.query_row("SELECT count(*) FROM meta", [], |_| Ok(()))?;
        Ok(())
    }

    /// Writes durably; resolves once committed, with the ids the write answers.
    pub async fn write(&self, op: Op) -> Result<Vec<String>, StoreError> {
        let stopped = || StoreError::Backend("the writer has stopped".into());
        let turn = matches!(op, Op::Turn { .. });
        let t0 = std::time::Instant::now();
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.tx.send((op, tx)).map_err(|_| stopped())?;
        let r = rx.await.map_err(|_| stopped())?;
        crate::metrics::store_write(t0.elapsed(), turn && r.is_ok());
        r
    }

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
        let ratings = st
            .query_map([id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    Rating { rating: r.get(1)?, rd: r.get(2)?, vol: r.get(3)? },
                    r.get::<_, i64>(4)? as u32,
                ))
            })?
            .collect::<Result<_, _>>()?;
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
        let mut st = c.prepare_cached(
            "SELECT p.id, p.name, r.rating, r.rd, r.vol, r.games FROM ratings r JOIN players p ON p.id = r.player
             WHERE r.grp=?1 AND r.updated>=?2 ORDER BY r.rd > ?5, r.rating DESC, p.id LIMIT ?3 OFFSET ?4",
        )?;
        // Established players first, provisional ones after (issue 37).
        let rows = st.query_map(params![grp, since as i64, limit, offset, crate::rating::PROVISIONAL_RD], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                Rating { rating: r.get(2)?, rd: r.get(3)?, vol: r.get(4)? },
                r.get::<_, i64>(5)? as u32,
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// A player's finished games, newest first.
    pub fn history(&self, player: &str, limit: u32, offset: u32) -> Result<Vec<HistoryRow>, StoreError> {
        let c = self.read.lock().expect("store lock");
        let mut st = c.prepare_cached(
            "SELECT r.id, r.ruleset, r.south_player, r.north_player, r.south_name, r.north_name, r.winner,
                    r.termination, r.rated, r.finished, ch.before_rating, ch.before_rd, ch.after_rating, ch.after_rd,
                    (SELECT name FROM players WHERE id = CASE WHEN r.south_player=?1 THEN r.north_player ELSE r.south_player END)
             FROM rooms r LEFT JOIN rating_changes ch ON ch.room = r.id AND ch.player = ?1
             WHERE (r.south_player=?1 OR r.north_player=?1) AND r.finished IS NOT NULL
             ORDER BY r.finished DESC LIMIT ?2 OFFSET ?3",
        )?;
        let rows = st.query_map(params![player, limit, offset], |r| {
            let sp: Option<String> = r.get(2)?;
            let np: Option<String> = r.get(3)?;
            let south = sp.as_deref() == Some(player);
            let fallback: String = if south { r.get(5)? } else { r.get(4)? };
            let pair = |a: Option<f64>, b: Option<f64>| a.zip(b);
            Ok(HistoryRow {
                room: r.get(0)?,
                ruleset: r.get(1)?,
                south,
                opponent_id: if south { np } else { sp },
                opponent_name: r.get::<_, Option<String>>(14)?.unwrap_or(fallback),
                winner: r.get(6)?,
                termination: r.get(7)?,
                rated: r.get(8)?,
                before: pair(r.get(10)?, r.get(11)?),
                after: pair(r.get(12)?, r.get(13)?),
                finished: r.get::<_, i64>(9)? as u64,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The rating changes a room's end made: (player, group, side, before, after).
    pub fn rating_changes(&self, room: &str) -> Result<Vec<RatingChange>, StoreError> {
        let c = self.read.lock().expect("store lock");
        let mut st = c.prepare_cached(
            "SELECT player, grp, side, before_rating, before_rd, after_rating, after_rd FROM rating_changes
             WHERE room=?1",
        )?;
        let rows = st.query_map([room], |r| {
            Ok(RatingChange {
                player: r.get(0)?,
                group: r.get(1)?,
                side: r.get(2)?,
                before: (r.get(3)?, r.get(4)?),
                after: (r.get(5)?, r.get(6)?),
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// A room's players and flags: (players by side, rated, listed).
    pub fn binding(&self, room: &str) -> Result<Option<Binding>, StoreError> {
        let c = self.read.lock().expect("store lock");
        Ok(c.query_row("SELECT south_player, north_player, rated, listed FROM rooms WHERE id=?1", [room], |r| {
            Ok(([r.get(0)?, r.get(1)?], r.get(2)?, r.get(3)?))
        })
        .optional()?)
    }

    /// Team games in play whose vote closes at `now` or before (blocking).
    pub fn due_votes(&self, now: u64) -> Result<Vec<String>, StoreError> {
        let c = self.read.lock().expect("store lock");
        let ids = c
            .prepare_cached(
                "SELECT t.room FROM teams t JOIN rooms r ON r.id = t.room
                 WHERE t.vote_closes <= ?1 AND r.finished IS NULL AND r.closed IS NULL
                 UNION SELECT id FROM rooms WHERE deadline <= ?1 AND finished IS NULL AND closed IS NULL",
            )?
            .query_map([now as i64], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    /// Public team games in play, newest first (blocking).
    pub fn public_teams(&self, limit: u32) -> Result<Vec<PublicTeamRow>, StoreError> {
        let c = self.read.lock().expect("store lock");
        let mut st = c.prepare_cached(super::PUBLIC_TEAMS)?;
        let rows = st.query_map([limit], |r| {
            Ok(PublicTeamRow {
                id: r.get(0)?,
                ruleset: r.get(1)?,
                mode: r.get(2)?,
                vote_ms: r.get::<_, i64>(3)? as u64,
                control: super::control_of(r.get(4)?, r.get(5)?),
                days_per_turn: r.get::<_, Option<i64>>(6)?.map(|d| d as u32),
                created: r.get::<_, i64>(7)? as u64,
                creator: r.get::<_, Option<String>>(8)?.unwrap_or_default(),
                invites: [r.get(9)?, r.get(10)?],
                members: [r.get::<_, i64>(11)? as usize, r.get::<_, i64>(12)? as usize],
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
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
        let until = now + super::RESTART_GRACE_MS;
        let graced = c.execute(super::GRACE_DEADLINES, params![now as i64, until as i64])?;
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
        let mut st = c.prepare(
            "SELECT r.id, r.ruleset, r.south_name, r.north_name, r.winner, r.termination, r.created, r.finished,
                    (SELECT COUNT(*) FROM turns t WHERE t.room = r.id)
             FROM rooms r WHERE r.finished IS NOT NULL ORDER BY r.finished DESC LIMIT ?1 OFFSET ?2",
        )?;
        let rows = st.query_map(params![limit, offset], |r| {
            let winner: Option<String> = r.get(4)?;
            Ok(ArchiveEntry {
                id: r.get(0)?,
                ruleset: r.get(1)?,
                south: r.get(2)?,
                north: r.get(3)?,
                result: result_of(winner.as_deref()).into(),
                termination: r.get::<_, Option<String>>(5)?.as_deref().and_then(Termination::from_tag),
                created: r.get::<_, i64>(6)? as u64,
                finished: r.get::<_, i64>(7)? as u64,
                turns: r.get(8)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

fn load(c: &Connection, id: &str, now: u64) -> Result<Option<Room>, StoreError> {
    let row = c
        .query_row(
            "SELECT ruleset, start, south_token, north_token, invite, south_claimed, north_claimed, south_name,
                    north_name, initial_ms, increment_ms, created, finished, winner, termination, south_ms, north_ms,
                    days_per_turn, deadline
             FROM rooms WHERE id=?1 AND closed IS NULL",
            [id],
            |r| {
                Ok(RoomRow {
                    ruleset: r.get(0)?,
                    start: r.get(1)?,
                    tokens: [r.get(2)?, r.get(3)?],
                    invite: r.get(4)?,
                    claimed: [r.get(5)?, r.get(6)?],
                    names: [r.get(7)?, r.get(8)?],
                    control: (r.get(9)?, r.get(10)?),
                    created: r.get(11)?,
                    finished: r.get(12)?,
                    winner: r.get(13)?,
                    termination: r.get(14)?,
                    final_ms: (r.get(15)?, r.get(16)?),
                    days_per_turn: r.get(17)?,
                    deadline: r.get(18)?,
                })
            },
        )
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

/// A room's teams, if it is a team game.
fn load_teams(c: &Connection, id: &str, ply: u32) -> Result<Option<crate::team::Teams>, StoreError> {
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

/// Runs blocking reads of `s` off the async threads.
fn read<'a, T: Send + 'static>(
    s: &'a SqliteStore,
    f: impl FnOnce(&SqliteStore) -> Result<T, StoreError> + Send + 'static,
) -> StoreFuture<'a, T> {
    let s = s.clone();
    Box::pin(async move {
        tokio::task::spawn_blocking(move || f(&s)).await.map_err(|e| StoreError::Backend(e.to_string()))?
    })
}

impl GameStore for SqliteStore {
    fn describe(&self) -> String {
        self.path.display().to_string()
    }

    fn write(&self, op: Op) -> StoreFuture<'_, Vec<String>> {
        Box::pin(SqliteStore::write(self, op))
    }

    fn ping(&self) -> StoreFuture<'_, ()> {
        read(self, |s| s.ping())
    }

    fn finish(&self) {
        // Copies the write-ahead log into the database file, so that the file alone is
        // whole (a copy made by hand after the stop then holds every game). The log is
        // replayed at the next open anyway.
        let done = rusqlite::Connection::open(&self.path).and_then(|c| {
            c.busy_timeout(std::time::Duration::from_secs(1))?;
            c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        });
        if let Err(e) = done {
            tracing::warn!(error = %e, "final checkpoint failed (the log is replayed at the next start)");
        }
    }

    fn player_by_key(&self, key_hash: String) -> StoreFuture<'_, Option<(String, String, u64)>> {
        read(self, move |s| s.player_by_key(&key_hash))
    }

    fn player(&self, id: String) -> StoreFuture<'_, Option<PlayerInfo>> {
        read(self, move |s| s.player(&id))
    }

    fn players_from(&self, addr: String, since: u64) -> StoreFuture<'_, u32> {
        read(self, move |s| s.players_from(&addr, since))
    }

    fn leaderboard(&self, grp: String, since: u64, limit: u32, offset: u32) -> StoreFuture<'_, Vec<LeaderRow>> {
        read(self, move |s| s.leaderboard(&grp, since, limit, offset))
    }

    fn history(&self, player: String, limit: u32, offset: u32) -> StoreFuture<'_, Vec<HistoryRow>> {
        read(self, move |s| s.history(&player, limit, offset))
    }

    fn rating_changes(&self, room: String) -> StoreFuture<'_, Vec<RatingChange>> {
        read(self, move |s| s.rating_changes(&room))
    }

    fn binding(&self, room: String) -> StoreFuture<'_, Option<Binding>> {
        read(self, move |s| s.binding(&room))
    }

    fn closed(&self, id: String) -> StoreFuture<'_, Option<String>> {
        read(self, move |s| s.closed(&id))
    }

    fn due_votes(&self, now: u64) -> StoreFuture<'_, Vec<String>> {
        read(self, move |s| s.due_votes(now))
    }

    fn public_teams(&self, limit: u32) -> StoreFuture<'_, Vec<PublicTeamRow>> {
        read(self, move |s| s.public_teams(limit))
    }

    fn load_unfinished(
        &self,
        now: u64,
        unclaimed_before: u64,
        idle_before: u64,
    ) -> StoreFuture<'_, Vec<(Room, Option<IpAddr>)>> {
        read(self, move |s| s.load_unfinished(now, unclaimed_before, idle_before))
    }

    fn load_room(&self, id: String, now: u64) -> StoreFuture<'_, Option<Room>> {
        read(self, move |s| s.load_room(&id, now))
    }

    fn archive(&self, limit: u32, offset: u32) -> StoreFuture<'_, Vec<ArchiveEntry>> {
        read(self, move |s| s.archive(limit, offset))
    }
}
