//! Storage of online play behind one trait, [`GameStore`], with two implementations: SQLite
//! ([`sqlite`], the embedded default: one file, one writer thread committing in groups) and
//! PostgreSQL ([`postgres`], for a database several nodes share; `--db postgres://…`).
//!
//! Every write is durable when its future resolves: a turn is stored before anyone hears
//! of it. A rated game's end and both players' new ratings are one transaction.

pub mod postgres;
pub mod puzzles;
pub mod sqlite;

use std::future::Future;
use std::net::IpAddr;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

use matombo_core::{Game, Outcome, Position, Ruleset, Side, Termination, Token};

use crate::rating::Rating;
use crate::room::{Clocks, Room, Seat, TimeControl};
use crate::team::{Member, TeamMode, Teams, Vote};

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

/// One write.
#[derive(Debug)]
pub enum Op {
    /// A new room.
    Create {
        /// Its id.
        id: String,
        /// Ruleset name.
        ruleset: String,
        /// Start position.
        start: String,
        /// Seat tokens by side.
        tokens: [String; 2],
        /// Invitation code.
        invite: String,
        /// The creator's side.
        creator: Side,
        /// The creator's name.
        name: String,
        /// Time control (a correspondence game's: its days as `initial_ms`, no increment).
        control: Option<TimeControl>,
        /// A correspondence game's days per turn (its deadline is kept from the start).
        days_per_turn: Option<u32>,
        /// Unix ms.
        created: u64,
        /// The creator's address, kept while the game is unfinished so that the rooms per
        /// address are still counted after a restart.
        creator_addr: Option<String>,
    },
    /// A seat taken.
    Claim {
        /// Room id.
        id: String,
        /// The seat.
        side: Side,
        /// The player's name.
        name: String,
        /// Unix ms.
        at: u64,
    },
    /// A turn, with the end of the game if it ended the game.
    Turn {
        /// Room id.
        id: String,
        /// Ply.
        ply: u32,
        /// Canonical token.
        token: String,
        /// Clocks after the turn.
        remaining: Option<[u64; 2]>,
        /// Unix ms.
        at: u64,
        /// The end it brought, if any.
        end: Option<Outcome>,
    },
    /// The end of a game outside the board (resignation, time).
    End {
        /// Room id.
        id: String,
        /// Outcome.
        outcome: Outcome,
        /// Clocks at the end.
        remaining: Option<[u64; 2]>,
        /// Unix ms.
        at: u64,
    },
    /// Binds a new room's seats to players (in the same write as its [`Op::Create`], through
    /// [`Op::Many`]).
    Bind {
        /// Room id.
        id: String,
        /// Player ids by side.
        players: [Option<String>; 2],
        /// Whether the game changes ratings.
        rated: bool,
        /// Whether the lobby lists it.
        listed: bool,
    },
    /// Several writes, all or none.
    Many(Vec<Op>),
    /// Closes a game before its first turn (`aborted`); refused once a turn is stored.
    Abort {
        /// Room id.
        id: String,
        /// Unix ms.
        at: u64,
    },
    /// A new player.
    CreatePlayer {
        /// Public id.
        id: String,
        /// SHA-256 of the secret, hex.
        key_hash: String,
        /// Display name.
        name: String,
        /// Unix ms.
        created: u64,
        /// The address it came from (for the creations per address).
        addr: Option<String>,
    },
    /// A new display name.
    RenamePlayer {
        /// Player id.
        id: String,
        /// Name.
        name: String,
    },
    /// A transfer code (hashed) for a player, replacing any earlier one.
    TransferCode {
        /// SHA-256 of the code, hex.
        code_hash: String,
        /// Player id.
        player: String,
        /// Unix ms.
        expires: u64,
    },
    /// Uses a transfer code: the player answers to `key_hash` from now on; answers the
    /// player's id, or fails with [`StoreError::BadCode`].
    UseTransfer {
        /// SHA-256 of the code, hex.
        code_hash: String,
        /// SHA-256 of the new secret, hex.
        key_hash: String,
        /// Unix ms.
        now: u64,
    },
    /// A team game's teams (in the same write as its [`Op::Create`], through [`Op::Many`]).
    Teams {
        /// Room id.
        id: String,
        /// Who moves.
        mode: TeamMode,
        /// A vote's length.
        vote_ms: u64,
        /// Each side's invitation, by `Side::index`.
        invites: [String; 2],
        /// Listed by `GET /api/online/teams` while unfinished.
        public: bool,
    },
    /// A member joins a side; the side's seat, if free, is taken in his name. Refused
    /// ([`StoreError::TeamFull`]) when the side has [`crate::team::MAX_MEMBERS`] members.
    Join {
        /// Room id.
        id: String,
        /// His side.
        side: Side,
        /// His public id.
        member: String,
        /// His secret token.
        token: String,
        /// His name.
        name: String,
        /// Whether he is the captain (the creator).
        captain: bool,
        /// Unix ms.
        at: u64,
    },
    /// The captaincy of `side` passes to `member`.
    Captain {
        /// Room id.
        id: String,
        /// The side.
        side: Side,
        /// The new captain.
        member: String,
    },
    /// A member removed (with his vote and marks).
    Remove {
        /// Room id.
        id: String,
        /// The member.
        member: String,
    },
    /// A member's vote on ply `ply` (replacing his earlier one), and the vote's closing time.
    Vote {
        /// Room id.
        id: String,
        /// The ply voted on.
        ply: u32,
        /// The member.
        member: String,
        /// The canonical turn.
        token: String,
        /// When the vote closes (Unix ms).
        closes_at: u64,
    },
    /// A member's marks (empty: cleared).
    Marks {
        /// Room id.
        id: String,
        /// The member.
        member: String,
        /// The holes.
        holes: Vec<String>,
    },
    /// Closes every unfinished room created before `unclaimed_before` and not joined, or
    /// without activity since `idle_before`; answers the ids closed.
    Expire {
        /// Unix ms.
        now: u64,
        /// Unix ms.
        unclaimed_before: u64,
        /// Unix ms.
        idle_before: u64,
    },
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

/// Turns a stored time control into its pair (both columns set, else none).
fn control_of(i: Option<i64>, n: Option<i64>) -> Option<TimeControl> {
    match (i, n) {
        (Some(i), Some(n)) => Some(TimeControl { initial_ms: i as u64, increment_ms: n as u64 }),
        _ => None,
    }
}

/// The SQL (SQLite's spelling; [`dollars`] for PostgreSQL's) that starts a correspondence
/// game's first deadline once both seats are held: `?1` the room, `?2` the time.
const START_DEADLINE: &str = "UPDATE rooms SET deadline = ?2 + days_per_turn * 86400000
     WHERE id=?1 AND days_per_turn IS NOT NULL AND deadline IS NULL AND finished IS NULL
       AND south_claimed AND north_claimed";

/// The SQL that moves a correspondence game's deadline after a turn at `?2` (none once over).
const NEXT_DEADLINE: &str = "UPDATE rooms SET deadline = CASE WHEN finished IS NULL
       THEN ?2 + days_per_turn * 86400000 END
     WHERE id=?1 AND days_per_turn IS NOT NULL";

/// The SQL that gives deadlines passed before `?1` their grace, until `?2`, at a start.
const GRACE_DEADLINES: &str = "UPDATE rooms SET deadline = ?2
     WHERE deadline < ?1 AND finished IS NULL AND closed IS NULL";

/// Public team games in play, newest first (`?1` the limit): id, ruleset, mode, vote
/// length, initial and increment, days per turn, created, the creator's name, invitations,
/// active members by side.
const PUBLIC_TEAMS: &str = "SELECT r.id, r.ruleset, t.mode, t.vote_ms, r.initial_ms, r.increment_ms, r.days_per_turn,
       r.created,
       (SELECT m.name FROM team_members m WHERE m.room = r.id ORDER BY m.seq LIMIT 1),
       t.south_invite, t.north_invite,
       (SELECT COUNT(*) FROM team_members m WHERE m.room = r.id AND m.side = 'south' AND NOT m.removed),
       (SELECT COUNT(*) FROM team_members m WHERE m.room = r.id AND m.side = 'north' AND NOT m.removed)
     FROM teams t JOIN rooms r ON r.id = t.room
     WHERE t.listed AND r.finished IS NULL AND r.closed IS NULL
     ORDER BY r.created DESC, r.id LIMIT ?1";

/// SQLite's placeholders (`?1`) in PostgreSQL's spelling (`$1`).
fn dollars(sql: &str) -> String {
    sql.replace('?', "$")
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

/// Rounded to two decimals, as the API writes ratings.
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn side_name(s: Side) -> &'static str {
    match s {
        Side::South => "south",
        Side::North => "north",
    }
}

fn result_of(winner: Option<&str>) -> &'static str {
    match winner {
        Some("south") => "1-0",
        Some("north") => "0-1",
        _ => "1/2-1/2",
    }
}

/// Both players' ratings after a game: `before` by side, the outcome's score for South.
fn rated_after(before: [Rating; 2], o: &Outcome) -> [Rating; 2] {
    let score = match o.winner {
        Some(Side::South) => 1.0,
        Some(Side::North) => 0.0,
        None => 0.5,
    };
    [
        crate::rating::update(before[0], &[(before[1], score)]),
        crate::rating::update(before[1], &[(before[0], 1.0 - score)]),
    ]
}

/// A room's row as stored, whatever the database.
struct RoomRow {
    ruleset: String,
    start: String,
    tokens: [String; 2],
    invite: String,
    claimed: [bool; 2],
    names: [String; 2],
    control: (Option<i64>, Option<i64>),
    created: i64,
    finished: Option<i64>,
    winner: Option<String>,
    termination: Option<String>,
    final_ms: (Option<i64>, Option<i64>),
    /// A correspondence game's days per turn.
    days_per_turn: Option<i64>,
    /// Its deadline for the side to move (Unix ms).
    deadline: Option<i64>,
}

/// A stored turn: ply, token, clocks after it.
type TurnRow = (u32, String, Option<i64>, Option<i64>);

/// Rebuilds a room from its row and its turns (in ply order), its clock started at `now`.
fn rebuild(id: &str, r: RoomRow, turns: Vec<TurnRow>, now: u64) -> Result<Room, StoreError> {
    let _: Ruleset = r.ruleset.parse().map_err(|e| StoreError::corrupt(id, e))?;
    let start: Position = r.start.parse().map_err(|e| StoreError::corrupt(id, e))?;
    let mut game = Game::new(start);
    let control = control_of(r.control.0, r.control.1);
    let mut remaining = control.map(|c| [c.initial_ms, c.initial_ms]);
    for (i, (ply, token, s, n)) in turns.into_iter().enumerate() {
        if ply as usize != i {
            return Err(StoreError::corrupt(id, format!("turn {i} missing")));
        }
        let t: Token = token.parse().map_err(|e| StoreError::corrupt(id, e))?;
        game.play(&t).map_err(|e| StoreError::corrupt(id, e))?;
        if let (Some(r), Some(s), Some(n)) = (&mut remaining, s, n) {
            *r = [s as u64, n as u64];
        }
    }
    if r.finished.is_some() {
        if let (Some(rem), Some(s), Some(n)) = (&mut remaining, r.final_ms.0, r.final_ms.1) {
            *rem = [s as u64, n as u64];
        }
        if !game.is_over() {
            let termination = r
                .termination
                .as_deref()
                .and_then(Termination::from_tag)
                .ok_or_else(|| StoreError::corrupt(id, "finished without a termination"))?;
            let winner = match r.winner.as_deref() {
                Some("south") => Some(Side::South),
                Some("north") => Some(Side::North),
                _ => None,
            };
            game.end(Outcome { winner, termination }).map_err(|e| StoreError::corrupt(id, e))?;
        }
    }
    let [st, nt] = r.tokens;
    let [sn, nn] = r.names;
    let mut room = Room {
        id: id.to_string(),
        game,
        seats: [
            Seat { token: st, claimed: r.claimed[0], name: sn },
            Seat { token: nt, claimed: r.claimed[1], name: nn },
        ],
        invite: r.invite,
        clocks: control.map(|c| Clocks {
            control: c,
            remaining: remaining.expect("set with control"),
            running_since: None,
            days_per_turn: r.days_per_turn.map(|d| d as u32),
        }),
        created: r.created as u64,
        teams: None,
    };
    // Time while the server was down is not charged to anyone, except in a correspondence
    // game: its deadline is a date (see `load_unfinished` for the grace after a restart).
    room.start_clock(now);
    if let (Some(c), Some(deadline)) = (&mut room.clocks, r.deadline) {
        if c.days_per_turn.is_some() && c.running_since.is_some() {
            let span = c.remaining[room.game.position().side_to_move().index()];
            c.running_since = Some((deadline as u64).saturating_sub(span));
        }
    }
    Ok(room)
}

/// A team game's row: mode, vote length, invitations, the vote in progress (ply, closing).
struct TeamRow {
    mode: String,
    vote_ms: i64,
    invites: [String; 2],
    vote: (Option<i64>, Option<i64>),
}

/// A member's row: id, side, token, name, captain, removed (in the order they joined).
type MemberRow = (String, String, String, String, bool, bool);

/// A standing vote (member, turn) in the order cast, and a member's marks (member, holes
/// separated by spaces).
type PairRow = (String, String);

/// Rebuilds a room's teams from their rows; a vote kept only if it is on the ply to play.
fn teams_of(
    id: &str,
    t: TeamRow,
    members: Vec<MemberRow>,
    votes: Vec<PairRow>,
    marks: Vec<PairRow>,
    ply: u32,
) -> Result<Teams, StoreError> {
    let mode = TeamMode::parse(&t.mode).ok_or_else(|| StoreError::corrupt(id, format!("team mode {:?}", t.mode)))?;
    let mut teams = Teams::new(mode, t.vote_ms as u64, t.invites);
    for (mid, side, token, name, captain, removed) in members {
        let side = match side.as_str() {
            "south" => Side::South,
            "north" => Side::North,
            _ => return Err(StoreError::corrupt(id, format!("member side {side:?}"))),
        };
        teams.members.push(Member { id: mid, side, token, name, captain, removed });
    }
    if let (Some(vply), Some(closes)) = t.vote {
        if vply as u32 == ply && !votes.is_empty() {
            teams.vote = Some(Vote { ply, votes, closes_at: closes as u64 });
        }
    }
    for (m, holes) in marks {
        let holes: Vec<String> = holes.split_whitespace().map(str::to_string).collect();
        if !holes.is_empty() {
            teams.marks.insert(m, holes);
        }
    }
    Ok(teams)
}

/// The default database file: `<data dir>/matombo/online.sqlite3`.
pub fn default_db_path() -> Option<PathBuf> {
    dirs::data_dir()
        .or_else(|| dirs::home_dir().map(|h| h.join(".local/share")))
        .map(|base| base.join("matombo").join("online.sqlite3"))
}
