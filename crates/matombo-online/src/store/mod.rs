//! Storage of online play behind one trait, [`GameStore`], with two implementations: SQLite
//! ([`sqlite`], the embedded default: one file, one writer thread committing in groups) and
//! PostgreSQL ([`postgres`], for a database several nodes share; `--db postgres://…`).
//!
//! Every write is durable when its future resolves: a turn is stored before anyone hears
//! of it. A rated game's end and both players' new ratings are one transaction.

mod op;
pub mod postgres;
pub mod puzzles;
mod rows;
mod sql;
pub mod sqlite;

pub use op::Op;
pub use rows::round2;
use rows::{
    archive_entry, group_rating, history_row, leader_row, public_team_row, rated_after, rating_at, rating_change,
    rebuild, room_row, side_name, teams_of, TeamRow, ROOM_COLUMNS,
};
use sql::{
    dollars, ARCHIVE, CREATE_ROOM, DUE, GRACE_DEADLINES, HISTORY, LEADERBOARD, NEXT_DEADLINE, PUBLIC_TEAMS,
    START_DEADLINE,
};

use std::future::Future;
use std::net::IpAddr;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

use matombo_core::Termination;

use crate::rating::Rating;
use crate::room::{Room, TimeControl};

/// Why a store operation failed; nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A transfer code that is wrong, used or expired.
    #[error("this transfer code is wrong, used or expired")]
    BadCode,
    /// A write to a room closed meanwhile (expired or aborted).
    #[error("room {0} is closed")]
    Closed(String),
    /// An abort refused: the room has a turn, or is over.
    #[error("room {0} cannot be aborted")]
    NotAbortable(String),
    /// The turn of this ply is stored already (another writer was first).
    #[error("turn {ply} of room {room} is stored already")]
    PlyTaken {
        /// Room id.
        room: String,
        /// Ply.
        ply: u32,
    },
    /// A stored room that cannot be read back.
    #[error("room {room}: {what}")]
    Corrupt {
        /// Room id.
        room: String,
        /// What is wrong.
        what: String,
    },
    /// The schema is newer than this program, or a migration failed.
    #[error("schema: {0}")]
    Schema(String),
    /// The database cannot be opened, reached or written (the message says why).
    #[error("storage: {0}")]
    Backend(String),
    /// A join refused: the side has its most members (another node was first).
    #[error("room {0}: the side has its most members")]
    TeamFull(String),
    /// A claim refused: the seat was claimed already (through another node).
    #[error("room {0}: the seat is taken")]
    SeatTaken(String),
}

impl StoreError {
    fn corrupt(room: &str, what: impl std::fmt::Display) -> StoreError {
        StoreError::Corrupt { room: room.to_string(), what: what.to_string() }
    }
}

/// The future of a store call.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Where online play keeps its games: a SQLite file or a PostgreSQL URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Db {
    /// A SQLite file (created if missing, parent directories too).
    Sqlite(PathBuf),
    /// A PostgreSQL URL, `postgres://user@host:port/db` (or `postgresql://`).
    Postgres(String),
}

impl Db {
    /// `--db`: a `postgres://` or `postgresql://` URL, else a file path.
    pub fn parse(s: &str) -> Db {
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            Db::Postgres(s.to_string())
        } else {
            Db::Sqlite(PathBuf::from(s))
        }
    }

    /// For messages and logs: the file, or the URL without its password.
    pub fn describe(&self) -> String {
        match self {
            Db::Sqlite(p) => p.display().to_string(),
            Db::Postgres(url) => postgres::redact(url),
        }
    }
}

/// A store of online play. Every method is a future; a write resolves once it is durable.
pub trait GameStore: Send + Sync + 'static {
    /// The database, for logs: the file, or the URL without its password.
    fn describe(&self) -> String;
    /// Writes `op` durably, all or nothing; answers the ids it returns (closed rooms of
    /// [`Op::Expire`], the player of [`Op::UseTransfer`]), else nothing.
    fn write(&self, op: Op) -> StoreFuture<'_, Vec<String>>;
    /// A trivial read: whether the database answers (`/readyz`).
    fn ping(&self) -> StoreFuture<'_, ()>;
    /// Makes what is stored whole in the database's own files at a stop (SQLite: the
    /// write-ahead log checkpointed); best effort.
    fn finish(&self) {}
    /// The player whose secret has this hash: (id, name, created).
    fn player_by_key(&self, key_hash: String) -> StoreFuture<'_, Option<(String, String, u64)>>;
    /// A player's public profile: name, creation time and ratings by group.
    fn player(&self, id: String) -> StoreFuture<'_, Option<PlayerInfo>>;
    /// Players created from `addr` since `since` (Unix ms).
    fn players_from(&self, addr: String, since: u64) -> StoreFuture<'_, u32>;
    /// A group's players by rating, best first; rated games since `since` only.
    fn leaderboard(&self, grp: String, since: u64, limit: u32, offset: u32) -> StoreFuture<'_, Vec<LeaderRow>>;
    /// A player's finished games, newest first.
    fn history(&self, player: String, limit: u32, offset: u32) -> StoreFuture<'_, Vec<HistoryRow>>;
    /// The rating changes a room's end made.
    fn rating_changes(&self, room: String) -> StoreFuture<'_, Vec<RatingChange>>;
    /// A room's players and flags.
    fn binding(&self, room: String) -> StoreFuture<'_, Option<Binding>>;
    /// Why a stored room was closed before its end (`unclaimed`, `abandoned`, `aborted`).
    fn closed(&self, id: String) -> StoreFuture<'_, Option<String>>;
    /// Games in play with something due at `now` or before: a team's vote in progress that
    /// closes, a correspondence game's deadline (the leader ends them, whichever node held
    /// them).
    fn due_votes(&self, now: u64) -> StoreFuture<'_, Vec<String>>;
    /// Public team games neither finished nor closed, newest first, at most `limit`.
    fn public_teams(&self, limit: u32) -> StoreFuture<'_, Vec<PublicTeamRow>>;
    /// Closes the rooms due (the time the server was down counts), gives correspondence
    /// deadlines passed meanwhile [`RESTART_GRACE_MS`] from `now`, then rebuilds every room
    /// still in play from its turns, with its creator's address.
    fn load_unfinished(
        &self,
        now: u64,
        unclaimed_before: u64,
        idle_before: u64,
    ) -> StoreFuture<'_, Vec<(Room, Option<IpAddr>)>>;
    /// One room by id, rebuilt from its turns.
    fn load_room(&self, id: String, now: u64) -> StoreFuture<'_, Option<Room>>;
    /// Finished games, newest first.
    fn archive(&self, limit: u32, offset: u32) -> StoreFuture<'_, Vec<ArchiveEntry>>;
    /// An identity's puzzle rating (the start rating if none yet).
    fn puzzle_rating(&self, player: String) -> StoreFuture<'_, puzzles::PuzzleRating>;
    /// Rates an attempt in one transaction: the identity's first at the puzzle moves its
    /// rating, a later one changes nothing (see [`puzzles`]).
    fn puzzle_attempt(&self, a: puzzles::PuzzleAttempt) -> StoreFuture<'_, puzzles::AttemptOutcome>;
    /// The store several nodes share (PostgreSQL): the lobby's rows and the budgets and
    /// quotas counted across nodes. None for SQLite, which is one node.
    fn shared(&self) -> Option<&postgres::PgStore> {
        None
    }
}

/// Opens the store `db`: creates the file or connects, and brings the schema up to date.
/// A PostgreSQL URL that is wrong or unreachable fails here, before anything listens.
pub async fn open(db: &Db) -> Result<Arc<dyn GameStore>, StoreError> {
    match db {
        Db::Sqlite(path) => {
            let path = path.clone();
            let s = tokio::task::spawn_blocking(move || sqlite::SqliteStore::open(&path))
                .await
                .map_err(|e| StoreError::Backend(e.to_string()))??;
            Ok(Arc::new(s))
        }
        Db::Postgres(url) => Ok(Arc::new(postgres::PgStore::open(url).await?)),
    }
}

/// A finished game in the archive list.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ArchiveEntry {
    /// Room id.
    pub id: String,
    /// Ruleset.
    pub ruleset: String,
    /// Player names.
    pub south: String,
    /// Player names.
    pub north: String,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// Why it ended, as in an outcome: `no_legal_move`, `repetition`, `resignation` or
    /// `time_forfeit` (null if the stored word cannot be read).
    pub termination: Option<Termination>,
    /// Turns played.
    pub turns: u32,
    /// Unix ms.
    pub created: u64,
    /// Unix ms.
    pub finished: u64,
}

/// A correspondence deadline found passed when a server starts (none ran to make the flag
/// fall) is moved this long after the start.
pub const RESTART_GRACE_MS: u64 = 3_600_000;

/// A public team game as stored, for `GET /api/online/teams`.
#[derive(Clone, Debug)]
pub struct PublicTeamRow {
    /// Room id.
    pub id: String,
    /// Ruleset name.
    pub ruleset: String,
    /// Team mode (`any`, `captain`, `vote`).
    pub mode: String,
    /// A vote's length.
    pub vote_ms: u64,
    /// Initial time and increment, if the game has a clock.
    pub control: Option<TimeControl>,
    /// A correspondence game's days per turn.
    pub days_per_turn: Option<u32>,
    /// Unix ms.
    pub created: u64,
    /// The creator's name (the first member).
    pub creator: String,
    /// Each side's invitation, by `Side::index`.
    pub invites: [String; 2],
    /// Active members by side.
    pub members: [usize; 2],
}

/// A room's players by side, rated, listed.
pub type Binding = ([Option<String>; 2], bool, bool);

/// A leaderboard line: player id, name, rating, rated games.
pub type LeaderRow = (String, String, Rating, u32);

/// A player as stored: id, name, creation time and ratings by group (with rated games).
#[derive(Clone, Debug)]
pub struct PlayerInfo {
    /// Public id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Unix ms.
    pub created: u64,
    /// (group, rating, games).
    pub ratings: Vec<(String, Rating, u32)>,
}

/// What a rated game did to one player's rating.
#[derive(Clone, Debug)]
pub struct RatingChange {
    /// Player id.
    pub player: String,
    /// Rating group.
    pub group: String,
    /// The player's side.
    pub side: String,
    /// (rating, rd) before.
    pub before: (f64, f64),
    /// (rating, rd) after.
    pub after: (f64, f64),
}

/// One finished game of a player, from the player's side.
#[derive(Clone, Debug)]
pub struct HistoryRow {
    /// Room id.
    pub room: String,
    /// Ruleset name.
    pub ruleset: String,
    /// Whether the player sat South.
    pub south: bool,
    /// The opponent's player id.
    pub opponent_id: Option<String>,
    /// The opponent's name (the player's current one, else the seat's).
    pub opponent_name: String,
    /// `south`, `north` or none (a draw).
    pub winner: Option<String>,
    /// The stored termination word.
    pub termination: Option<String>,
    /// Whether the game was rated.
    pub rated: bool,
    /// (rating, rd) before and after, for a rated game.
    pub before: Option<(f64, f64)>,
    /// (rating, rd) after.
    pub after: Option<(f64, f64)>,
    /// Unix ms.
    pub finished: u64,
}

/// The default database file: `<data dir>/matombo/online.sqlite3`.
pub fn default_db_path() -> Option<PathBuf> {
    dirs::data_dir()
        .or_else(|| dirs::home_dir().map(|h| h.join(".local/share")))
        .map(|base| base.join("matombo").join("online.sqlite3"))
}
