//! SQLite storage of rooms and turns: one row per room, one row per turn; the default.
//!
//! All writes go through one writer thread that commits them in groups (WAL mode,
//! `synchronous=FULL`): a caller's write is durable on disk when its future resolves,
//! and turns of many rooms arriving together share one fsync. The single writer also
//! makes a game's end and its ratings one serialized transaction. Reads run on a blocking
//! thread with a connection of their own.
//!
//! By concern: `schema` the tables and their migrations, `rooms` rooms and turns,
//! `teams` team games, `players` identities and ratings, `puzzles` puzzle ratings.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};

use rusqlite::Connection;

use super::{
    ArchiveEntry, Binding, GameStore, HistoryRow, LeaderRow, Op, PlayerInfo, PublicTeamRow, RatingChange, StoreError,
    StoreFuture,
};
use crate::room::Room;

mod players;
mod puzzles;
mod rooms;
mod schema;
mod teams;

pub use schema::SCHEMA_VERSION;
use schema::{migrate, SCHEMA};

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
fn connect(path: &Path) -> Result<Connection, StoreError> {
    let c = Connection::open(path)?;
    c.busy_timeout(std::time::Duration::from_secs(5))?;
    c.pragma_update(None, "journal_mode", "WAL")?;
    // FULL: a committed turn survives not only a killed process but a power cut.
    c.pragma_update(None, "synchronous", "FULL")?;
    Ok(c)
}

/// One write: each op to the module of its concern.
fn apply(c: &Connection, op: &Op) -> Result<Vec<String>, StoreError> {
    match op {
        Op::Many(ops) => {
            let mut out = Vec::new();
            for op in ops {
                out.extend(apply(c, op)?);
            }
            Ok(out)
        }
        Op::Teams { .. }
        | Op::Join { .. }
        | Op::Captain { .. }
        | Op::Remove { .. }
        | Op::Vote { .. }
        | Op::Marks { .. } => teams::apply(c, op),
        Op::CreatePlayer { .. } | Op::RenamePlayer { .. } | Op::TransferCode { .. } | Op::UseTransfer { .. } => {
            players::apply(c, op)
        }
        _ => rooms::apply(c, op),
    }
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

    fn puzzle_rating(&self, player: String) -> StoreFuture<'_, crate::store::puzzles::PuzzleRating> {
        read(self, move |s| s.puzzle_rating(&player))
    }

    fn puzzle_attempt(
        &self,
        a: crate::store::puzzles::PuzzleAttempt,
    ) -> StoreFuture<'_, crate::store::puzzles::AttemptOutcome> {
        read(self, move |s| s.puzzle_attempt(&a))
    }
}
