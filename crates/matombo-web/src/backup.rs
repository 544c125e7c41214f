//! Backups of online play's SQLite store while `serve` runs (`matombo db backup`), and
//! checks of a store (`matombo db check`). The copy is made with SQLite's online backup
//! API into a file beside the target, checked, synced and renamed into place: a failed
//! backup (a full disk, an unwritable place) leaves no half file and never touches the
//! store. A backup is restored by serving it (`matombo serve --db COPY`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

/// A backup or check that failed, with the reason in words.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct DbError(pub String);

/// What a store holds.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Summary {
    /// The file.
    pub db: PathBuf,
    /// `PRAGMA integrity_check` found nothing wrong.
    pub integrity_ok: bool,
    /// What the integrity check said, when not `ok` (at most 20 lines).
    pub problems: Vec<String>,
    /// The schema version of the file.
    pub schema_version: usize,
    /// The schema version this build writes (a lower one is migrated when served).
    pub schema_current: usize,
    /// Games in all.
    pub games: u64,
    /// Games still in play (neither finished nor closed).
    pub games_in_progress: u64,
    /// Finished games.
    pub games_finished: u64,
    /// Turns stored.
    pub turns: u64,
    /// Player identities.
    pub players: u64,
    /// Size of the file, in bytes.
    pub bytes: u64,
}

impl Summary {
    /// Whether the store is whole and this build can serve it.
    pub fn ok(&self) -> bool {
        self.integrity_ok && self.schema_version <= self.schema_current
    }
}

fn open_existing(db: &Path, flags: OpenFlags) -> Result<Connection, DbError> {
    if !db.is_file() {
        return Err(DbError(format!("{}: no such database file", db.display())));
    }
    let c =
        Connection::open_with_flags(db, flags).map_err(|e| DbError(format!("{}: cannot open: {e}", db.display())))?;
    // The server writes meanwhile: wait for its short transactions rather than fail.
    c.busy_timeout(Duration::from_secs(10)).map_err(|e| DbError(e.to_string()))?;
    Ok(c)
}

/// Checks the store at `db`: integrity, schema version, and what it holds. Changes nothing.
pub fn check(db: &Path) -> Result<Summary, DbError> {
    let c = open_existing(db, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    let e = |e: rusqlite::Error| DbError(format!("{}: {e}", db.display()));
    let mut st = c
        .prepare("PRAGMA integrity_check(20)")
        .map_err(|e| DbError(format!("{}: not a readable SQLite database ({e})", db.display())))?;
    let lines: Vec<String> = st.query_map([], |r| r.get(0)).map_err(e)?.collect::<Result<_, _>>().map_err(e)?;
    let integrity_ok = lines == ["ok"];
    let schema_version = c.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0)).map_err(e)? as usize;
    let has_rooms: bool = c
        .query_row("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='rooms'", [], |r| r.get::<_, i64>(0))
        .map_err(e)?
        > 0;
    if !has_rooms {
        return Err(DbError(format!("{}: not a matombo store (no table of games)", db.display())));
    }
    let count = |sql: &str| c.query_row(sql, [], |r| r.get::<_, i64>(0)).map(|n| n as u64).map_err(e);
    let (in_progress, players) = if schema_version >= 2 {
        (
            count("SELECT count(*) FROM rooms WHERE finished IS NULL AND closed IS NULL")?,
            count("SELECT count(*) FROM players")?,
        )
    } else {
        (count("SELECT count(*) FROM rooms WHERE finished IS NULL")?, 0)
    };
    Ok(Summary {
        db: db.to_path_buf(),
        integrity_ok,
        problems: if integrity_ok { Vec::new() } else { lines },
        schema_version,
        schema_current: crate::online::store::sqlite::SCHEMA_VERSION,
        games: count("SELECT count(*) FROM rooms")?,
        games_in_progress: in_progress,
        games_finished: count("SELECT count(*) FROM rooms WHERE finished IS NOT NULL")?,
        turns: count("SELECT count(*) FROM turns")?,
        players,
        bytes: std::fs::metadata(db).map(|m| m.len()).unwrap_or(0),
    })
}

/// Copies the store at `db` to `out` (which must not exist, unless `replace`), consistently
/// while it is being written; answers the copy's summary.
pub fn backup(db: &Path, out: &Path, replace: bool) -> Result<Summary, DbError> {
    if out.exists() && !replace {
        return Err(DbError(format!("{} exists already (pass --force to replace it)", out.display())));
    }
    if same_file(db, out) {
        return Err(DbError(format!("{} is the store itself", out.display())));
    }
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        return Err(DbError(format!("cannot write {}: the folder {} does not exist", out.display(), dir.display())));
    }
    // Read-write, so that a log left by a stopped server is replayed; never created.
    let src = open_existing(db, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "backup".into());
    let part = dir.join(format!(".{name}.partial-{}", std::process::id()));
    let result = copy_into(&src, &part).and_then(|()| {
        let s = check(&part)?;
        if !s.integrity_ok {
            return Err(DbError(format!("the copy failed its integrity check: {}", s.problems.join("; "))));
        }
        std::fs::rename(&part, out).map_err(|e| DbError(format!("cannot write {}: {e}", out.display())))?;
        Ok(Summary { db: out.to_path_buf(), ..s })
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&part);
        let _ = std::fs::remove_file(part.with_extension("partial-journal"));
    }
    result
}

fn copy_into(src: &Connection, part: &Path) -> Result<(), DbError> {
    let fail = |e: &dyn std::fmt::Display| DbError(format!("cannot write {}: {e}", part.display()));
    let _ = std::fs::remove_file(part);
    let mut dst = Connection::open(part).map_err(|e| fail(&e))?;
    {
        let b = rusqlite::backup::Backup::new(src, &mut dst).map_err(|e| fail(&e))?;
        // All pages in one step, under one read transaction: in WAL mode the server's
        // writers go on meanwhile, and the copy is the store at one moment (in steps, every
        // write between two steps would restart the copy).
        let t0 = std::time::Instant::now();
        loop {
            match b.step(-1).map_err(|e| fail(&e))? {
                rusqlite::backup::StepResult::Done => break,
                // The server holds a lock for a moment: try again, within reason.
                _ if t0.elapsed() < Duration::from_secs(30) => std::thread::sleep(Duration::from_millis(10)),
                _ => return Err(fail(&"the store stayed locked for 30 s")),
            }
        }
    }
    // One file, no log beside it: the copy stands alone until served.
    dst.query_row("PRAGMA journal_mode=DELETE", [], |_| Ok(())).map_err(|e| fail(&e))?;
    drop(dst);
    std::fs::File::open(part).and_then(|f| f.sync_all()).map_err(|e| fail(&e))?;
    Ok(())
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
