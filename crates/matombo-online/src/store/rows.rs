//! What both backends do with stored rows, whatever the database: rebuilding rooms and
//! teams from them, results and ratings from outcomes.

use matombo_core::{Game, Outcome, Position, Ruleset, Side, Termination, Token};

use super::{ArchiveEntry, HistoryRow, LeaderRow, PublicTeamRow, RatingChange, StoreError};
use crate::rating::Rating;
use crate::room::{Clocks, Room, Seat, TimeControl};
use crate::team::{Member, TeamMode, Teams, Vote};

/// Turns a stored time control into its pair (both columns set, else none).
pub(super) fn control_of(i: Option<i64>, n: Option<i64>) -> Option<TimeControl> {
    match (i, n) {
        (Some(i), Some(n)) => Some(TimeControl { initial_ms: i as u64, increment_ms: n as u64 }),
        _ => None,
    }
}

/// Rounded to two decimals, as the API writes ratings.
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

pub(super) fn side_name(s: Side) -> &'static str {
    match s {
        Side::South => "south",
        Side::North => "north",
    }
}

pub(super) fn result_of(winner: Option<&str>) -> &'static str {
    match winner {
        Some("south") => "1-0",
        Some("north") => "0-1",
        _ => "1/2-1/2",
    }
}

/// Both players' ratings after a game: `before` by side, the outcome's score for South.
pub(super) fn rated_after(before: [Rating; 2], o: &Outcome) -> [Rating; 2] {
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
pub(super) struct RoomRow {
    pub(super) ruleset: String,
    pub(super) start: String,
    pub(super) tokens: [String; 2],
    pub(super) invite: String,
    pub(super) claimed: [bool; 2],
    pub(super) names: [String; 2],
    pub(super) control: (Option<i64>, Option<i64>),
    pub(super) created: i64,
    pub(super) finished: Option<i64>,
    pub(super) winner: Option<String>,
    pub(super) termination: Option<String>,
    pub(super) final_ms: (Option<i64>, Option<i64>),
    /// A correspondence game's days per turn.
    pub(super) days_per_turn: Option<i64>,
    /// Its deadline for the side to move (Unix ms).
    pub(super) deadline: Option<i64>,
}

/// A stored turn: ply, token, clocks after it.
pub(super) type TurnRow = (u32, String, Option<i64>, Option<i64>);

/// Rebuilds a room from its row and its turns (in ply order), its clock started at `now`.
pub(super) fn rebuild(id: &str, r: RoomRow, turns: Vec<TurnRow>, now: u64) -> Result<Room, StoreError> {
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
pub(super) struct TeamRow {
    pub(super) mode: String,
    pub(super) vote_ms: i64,
    pub(super) invites: [String; 2],
    pub(super) vote: (Option<i64>, Option<i64>),
}

/// A member's row: id, side, token, name, captain, removed (in the order they joined).
pub(super) type MemberRow = (String, String, String, String, bool, bool);

/// A standing vote (member, turn) in the order cast, and a member's marks (member, holes
/// separated by spaces).
pub(super) type PairRow = (String, String);

/// Rebuilds a room's teams from their rows; a vote kept only if it is on the ply to play.
pub(super) fn teams_of(
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

/// A stored value both databases read the same way.
pub(super) trait Stored: rusqlite::types::FromSql + for<'a> tokio_postgres::types::FromSql<'a> {}

impl<T: rusqlite::types::FromSql + for<'a> tokio_postgres::types::FromSql<'a>> Stored for T {}

/// A result row read by column, whatever the database: the mappings below serve both.
pub(super) trait Cols {
    /// The database's error (a column missing or of another type).
    type Error;
    /// Column `i`.
    fn col<T: Stored>(&self, i: usize) -> Result<T, Self::Error>;
}

impl Cols for rusqlite::Row<'_> {
    type Error = rusqlite::Error;
    fn col<T: Stored>(&self, i: usize) -> Result<T, rusqlite::Error> {
        self.get(i)
    }
}

impl Cols for tokio_postgres::Row {
    type Error = tokio_postgres::Error;
    fn col<T: Stored>(&self, i: usize) -> Result<T, tokio_postgres::Error> {
        self.try_get(i)
    }
}

/// The columns of a room's row, in [`room_row`]'s order.
pub(super) const ROOM_COLUMNS: &str = "ruleset, start, south_token, north_token, invite, south_claimed, north_claimed,
    south_name, north_name, initial_ms, increment_ms, created, finished, winner, termination, south_ms, north_ms,
    days_per_turn, deadline";

/// A room's row from [`ROOM_COLUMNS`].
pub(super) fn room_row<R: Cols>(r: &R) -> Result<RoomRow, R::Error> {
    Ok(RoomRow {
        ruleset: r.col(0)?,
        start: r.col(1)?,
        tokens: [r.col(2)?, r.col(3)?],
        invite: r.col(4)?,
        claimed: [r.col(5)?, r.col(6)?],
        names: [r.col(7)?, r.col(8)?],
        control: (r.col(9)?, r.col(10)?),
        created: r.col(11)?,
        finished: r.col(12)?,
        winner: r.col(13)?,
        termination: r.col(14)?,
        final_ms: (r.col(15)?, r.col(16)?),
        days_per_turn: r.col(17)?,
        deadline: r.col(18)?,
    })
}

/// A rating from three columns from `i`: rating, deviation, volatility.
pub(super) fn rating_at<R: Cols>(r: &R, i: usize) -> Result<Rating, R::Error> {
    Ok(Rating { rating: r.col(i)?, rd: r.col(i + 1)?, vol: r.col(i + 2)? })
}

/// A player's rating in a group: group, rating, deviation, volatility, games.
pub(super) fn group_rating<R: Cols>(r: &R) -> Result<(String, Rating, u32), R::Error> {
    Ok((r.col(0)?, rating_at(r, 1)?, r.col::<i64>(4)? as u32))
}

/// A leaderboard line of [`LEADERBOARD`](super::sql::LEADERBOARD).
pub(super) fn leader_row<R: Cols>(r: &R) -> Result<LeaderRow, R::Error> {
    Ok((r.col(0)?, r.col(1)?, rating_at(r, 2)?, r.col::<i64>(5)? as u32))
}

/// A game of [`HISTORY`](super::sql::HISTORY), from `player`'s side.
pub(super) fn history_row<R: Cols>(r: &R, player: &str) -> Result<HistoryRow, R::Error> {
    let sp: Option<String> = r.col(2)?;
    let np: Option<String> = r.col(3)?;
    let south = sp.as_deref() == Some(player);
    let fallback: String = r.col(if south { 5 } else { 4 })?;
    let pair = |a: Option<f64>, b: Option<f64>| a.zip(b);
    Ok(HistoryRow {
        room: r.col(0)?,
        ruleset: r.col(1)?,
        south,
        opponent_id: if south { np } else { sp },
        opponent_name: r.col::<Option<String>>(14)?.unwrap_or(fallback),
        winner: r.col(6)?,
        termination: r.col(7)?,
        rated: r.col(8)?,
        before: pair(r.col(10)?, r.col(11)?),
        after: pair(r.col(12)?, r.col(13)?),
        finished: r.col::<i64>(9)? as u64,
    })
}

/// A rating change: player, group, side, rating and deviation before, then after.
pub(super) fn rating_change<R: Cols>(r: &R) -> Result<RatingChange, R::Error> {
    Ok(RatingChange {
        player: r.col(0)?,
        group: r.col(1)?,
        side: r.col(2)?,
        before: (r.col(3)?, r.col(4)?),
        after: (r.col(5)?, r.col(6)?),
    })
}

/// A public team game of [`PUBLIC_TEAMS`](super::sql::PUBLIC_TEAMS).
pub(super) fn public_team_row<R: Cols>(r: &R) -> Result<PublicTeamRow, R::Error> {
    Ok(PublicTeamRow {
        id: r.col(0)?,
        ruleset: r.col(1)?,
        mode: r.col(2)?,
        vote_ms: r.col::<i64>(3)? as u64,
        control: control_of(r.col(4)?, r.col(5)?),
        days_per_turn: r.col::<Option<i64>>(6)?.map(|d| d as u32),
        created: r.col::<i64>(7)? as u64,
        creator: r.col::<Option<String>>(8)?.unwrap_or_default(),
        invites: [r.col(9)?, r.col(10)?],
        members: [r.col::<i64>(11)? as usize, r.col::<i64>(12)? as usize],
    })
}

/// A finished game of [`ARCHIVE`](super::sql::ARCHIVE).
pub(super) fn archive_entry<R: Cols>(r: &R) -> Result<ArchiveEntry, R::Error> {
    Ok(ArchiveEntry {
        id: r.col(0)?,
        ruleset: r.col(1)?,
        south: r.col(2)?,
        north: r.col(3)?,
        result: result_of(r.col::<Option<String>>(4)?.as_deref()).into(),
        termination: r.col::<Option<String>>(5)?.as_deref().and_then(Termination::from_tag),
        created: r.col::<i64>(6)? as u64,
        finished: r.col::<i64>(7)? as u64,
        turns: r.col::<i64>(8)? as u32,
    })
}
