//! SQL both backends run as written, in SQLite's spelling; [`dollars`] turns it into
//! PostgreSQL's.

/// A new room, one seat claimed by its creator: `?1` id, `?2` ruleset, `?3` start, `?4`/`?5`
/// the seats' tokens, `?6` invite, `?7`/`?8` claimed, `?9`/`?10` names, `?11`/`?12` the
/// clock, `?13` created (and last active), `?14` the creator's address, `?15` days per turn.
pub(super) const CREATE_ROOM: &str =
    "INSERT INTO rooms(id, ruleset, start, south_token, north_token, invite, south_claimed,
     north_claimed, south_name, north_name, initial_ms, increment_ms, created, last_active, creator_addr,
     days_per_turn)
     VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?13,?14,?15)";

/// The SQL (SQLite's spelling; [`dollars`] for PostgreSQL's) that starts a correspondence
/// game's first deadline once both seats are held: `?1` the room, `?2` the time.
pub(super) const START_DEADLINE: &str = "UPDATE rooms SET deadline = ?2 + days_per_turn * 86400000
     WHERE id=?1 AND days_per_turn IS NOT NULL AND deadline IS NULL AND finished IS NULL
       AND south_claimed AND north_claimed";

/// The SQL that moves a correspondence game's deadline after a turn at `?2` (none once over).
pub(super) const NEXT_DEADLINE: &str = "UPDATE rooms SET deadline = CASE WHEN finished IS NULL
       THEN ?2 + days_per_turn * 86400000 END
     WHERE id=?1 AND days_per_turn IS NOT NULL";

/// The SQL that gives deadlines passed before `?1` their grace, until `?2`, at a start.
pub(super) const GRACE_DEADLINES: &str = "UPDATE rooms SET deadline = ?2
     WHERE deadline < ?1 AND finished IS NULL AND closed IS NULL";

/// Public team games in play, newest first (`?1` the limit): id, ruleset, mode, vote
/// length, initial and increment, days per turn, created, the creator's name, invitations,
/// active members by side.
pub(super) const PUBLIC_TEAMS: &str =
    "SELECT r.id, r.ruleset, t.mode, t.vote_ms, r.initial_ms, r.increment_ms, r.days_per_turn,
       r.created,
       (SELECT m.name FROM team_members m WHERE m.room = r.id ORDER BY m.seq LIMIT 1),
       t.south_invite, t.north_invite,
       (SELECT COUNT(*) FROM team_members m WHERE m.room = r.id AND m.side = 'south' AND NOT m.removed),
       (SELECT COUNT(*) FROM team_members m WHERE m.room = r.id AND m.side = 'north' AND NOT m.removed)
     FROM teams t JOIN rooms r ON r.id = t.room
     WHERE t.listed AND r.finished IS NULL AND r.closed IS NULL
     ORDER BY r.created DESC, r.id LIMIT ?1";

/// SQLite's placeholders (`?1`) in PostgreSQL's spelling (`$1`).
pub(super) fn dollars(sql: &str) -> String {
    sql.replace('?', "$")
}

/// A group's players by rating (`?1` the group), rated games since `?2` only, established
/// players first (`?5` the deviation above which a rating is provisional, issue 37); `?3`
/// the limit, `?4` the offset: id, name, rating, deviation, volatility, games.
pub(super) const LEADERBOARD: &str =
    "SELECT p.id, p.name, r.rating, r.rd, r.vol, r.games FROM ratings r JOIN players p ON p.id = r.player
     WHERE r.grp=?1 AND r.updated>=?2 ORDER BY r.rd > ?5, r.rating DESC, p.id LIMIT ?3 OFFSET ?4";

/// Player `?1`'s finished games, newest first (`?2` the limit, `?3` the offset).
pub(super) const HISTORY: &str =
    "SELECT r.id, r.ruleset, r.south_player, r.north_player, r.south_name, r.north_name, r.winner,
            r.termination, r.rated, r.finished, ch.before_rating, ch.before_rd, ch.after_rating, ch.after_rd,
            (SELECT name FROM players WHERE id = CASE WHEN r.south_player=?1 THEN r.north_player ELSE r.south_player END)
     FROM rooms r LEFT JOIN rating_changes ch ON ch.room = r.id AND ch.player = ?1
     WHERE (r.south_player=?1 OR r.north_player=?1) AND r.finished IS NOT NULL
     ORDER BY r.finished DESC LIMIT ?2 OFFSET ?3";

/// Finished games, newest first (`?1` the limit, `?2` the offset), with their turns counted.
pub(super) const ARCHIVE: &str =
    "SELECT r.id, r.ruleset, r.south_name, r.north_name, r.winner, r.termination, r.created, r.finished,
            (SELECT COUNT(*) FROM turns t WHERE t.room = r.id)
     FROM rooms r WHERE r.finished IS NOT NULL ORDER BY r.finished DESC LIMIT ?1 OFFSET ?2";

/// Rooms in play whose team vote closes, or whose correspondence deadline falls, at `?1`
/// or before.
pub(super) const DUE: &str = "SELECT t.room FROM teams t JOIN rooms r ON r.id = t.room
     WHERE t.vote_closes <= ?1 AND r.finished IS NULL AND r.closed IS NULL
     UNION SELECT id FROM rooms WHERE deadline <= ?1 AND finished IS NULL AND closed IS NULL";
