//! The pure core of a room: seats bound to secret tokens, ply numbers, clocks and turn
//! validation with the rules engine. No I/O and no clock of its own: every call that
//! depends on time takes `now` in milliseconds (any monotonic origin), so it is fully
//! unit-testable.

use matombo_core::{Game, Outcome, Position, Ruleset, Side, Termination, Token};
use subtle::ConstantTimeEq;

pub use matombo_api::online::TimeControl;

/// Longest time control accepted (one day per side), so that sums never overflow.
pub const MAX_CLOCK_MS: u64 = 24 * 3600 * 1000;

/// One day in milliseconds.
pub const DAY_MS: u64 = 24 * 3600 * 1000;

/// The days per turn a correspondence game may have.
pub const DAYS_PER_TURN: (u32, u32) = (1, 14);

/// The server-side clocks of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clocks {
    /// The time control.
    pub control: TimeControl,
    /// Time left per side (indexed by `Side::index`), as of `running_since`.
    pub remaining: [u64; 2],
    /// When the side to move's clock started running; `None` while stopped (before both
    /// seats are taken, and after the end).
    pub running_since: Option<u64>,
    /// A correspondence game's days per turn: each side's time is the whole span again
    /// after every turn, so the deadline is the last turn (or the start) plus the span.
    pub days_per_turn: Option<u32>,
}

impl Clocks {
    /// Stopped clocks of `control` (a clock per side).
    pub fn of(control: TimeControl) -> Clocks {
        Clocks { control, remaining: [control.initial_ms; 2], running_since: None, days_per_turn: None }
    }

    /// Stopped clocks of a correspondence game: `days` per turn, no increment.
    pub fn days(days: u32) -> Clocks {
        let span = u64::from(days) * DAY_MS;
        Clocks {
            control: TimeControl { initial_ms: span, increment_ms: 0 },
            remaining: [span; 2],
            running_since: None,
            days_per_turn: Some(days),
        }
    }

    /// The same time control, stopped at its start (for a rematch).
    pub fn fresh(&self) -> Clocks {
        self.days_per_turn.map_or(Clocks::of(self.control), Clocks::days)
    }

    /// Time left for `side` at `now` (the running side's clock counts down).
    pub fn left(&self, side: Side, to_move: Side, now: u64) -> u64 {
        let r = self.remaining[side.index()];
        match self.running_since {
            Some(t) if side == to_move => r.saturating_sub(now.saturating_sub(t)),
            _ => r,
        }
    }

    /// When the running clock reaches zero, if one runs.
    pub fn deadline(&self, to_move: Side) -> Option<u64> {
        self.running_since.map(|t| t.saturating_add(self.remaining[to_move.index()]))
    }
}

/// One seat (side) of a room.
#[derive(Clone, Debug)]
pub struct Seat {
    /// The secret that lets its holders play this side.
    pub token: String,
    /// Whether someone holds the seat (the creator's seat at once, the other when claimed).
    pub claimed: bool,
    /// A display name chosen by the player (may be empty).
    pub name: String,
}

/// Why a request to a room was refused. Each refusal changes nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RoomError {
    /// The connection holds no seat of this room.
    #[error("you hold no seat in this game: only players can move")]
    NotAPlayer,
    /// A player tried to move for the other side.
    #[error("it is not your turn: {0} is to move")]
    NotYourTurn(Side),
    /// The ply does not follow the last turn: the client is behind.
    #[error("stale turn: ply {sent} but {current} turns have been played; resynchronise")]
    Stale {
        /// Ply sent by the client.
        sent: u32,
        /// Turns played so far.
        current: u32,
    },
    /// The ply is ahead of the game.
    #[error("ply {sent} is ahead of the game ({current} turns played)")]
    Ahead {
        /// Ply sent by the client.
        sent: u32,
        /// Turns played so far.
        current: u32,
    },
    /// The turn text is not a turn token.
    #[error("{0:?} is not a turn (expected notation such as B2+ or a3xb1)")]
    BadToken(String),
    /// The turn is not legal here.
    #[error("{0}")]
    Illegal(String),
    /// The game has ended.
    #[error("the game is over: {0}")]
    GameOver(String),
    /// The opponent's seat is still free.
    #[error("waiting for an opponent to take the free seat")]
    WaitingForOpponent,
    /// The invitation is wrong.
    #[error("wrong invitation code")]
    BadInvite,
    /// Both seats are taken.
    #[error("both seats are already taken; you can watch")]
    SeatsTaken,
}

/// What a valid turn message amounts to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TurnCheck {
    /// The same turn was already applied at this ply: acknowledge again, change nothing.
    Duplicate,
    /// A new turn, checked and ready to store, then to commit with [`Room::commit_turn`].
    New(PreparedTurn),
}

/// A checked turn with its effects, not yet applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreparedTurn {
    /// Its ply (turns played before it).
    pub ply: u32,
    /// The turn, canonical.
    pub token: Token,
    /// The mover.
    pub side: Side,
    /// Clock times after the turn (increment included), if the game has clocks.
    pub remaining: Option<[u64; 2]>,
    /// When it was played.
    pub at: u64,
}

/// A room: one game between two seats, watched by anyone.
#[derive(Clone, Debug)]
pub struct Room {
    /// Public identifier (in the watch link).
    pub id: String,
    /// The game.
    pub game: Game,
    /// Seats by `Side::index`.
    pub seats: [Seat; 2],
    /// Secret code of the invitation link, which claims the free seat.
    pub invite: String,
    /// Clocks, if the game has a time control.
    pub clocks: Option<Clocks>,
    /// Creation time (Unix ms), for the archive.
    pub created: u64,
    /// A team game's teams (issue 42); `None` for a game of two people.
    pub teams: Option<super::team::Teams>,
}

/// Compares two secrets in constant time (for equal lengths; lengths are not secret).
pub fn secret_eq(a: &str, b: &str) -> bool {
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

impl Room {
    /// A new room from the standard start of `ruleset`; `creator` holds his seat at once.
    pub fn new(
        id: String,
        ruleset: Ruleset,
        creator: Side,
        tokens: [String; 2],
        invite: String,
        control: Option<TimeControl>,
        created: u64,
    ) -> Room {
        let [s, n] = tokens;
        let mut seats = [
            Seat { token: s, claimed: false, name: String::new() },
            Seat { token: n, claimed: false, name: String::new() },
        ];
        seats[creator.index()].claimed = true;
        let clocks = control.map(Clocks::of);
        Room { id, game: Game::new(Position::start(ruleset)), seats, invite, clocks, created, teams: None }
    }

    /// The ruleset.
    pub fn ruleset(&self) -> Ruleset {
        self.game.start().ruleset()
    }

    /// Turns played.
    pub fn ply(&self) -> u32 {
        self.game.moves().len() as u32
    }

    /// The side to move.
    pub fn to_move(&self) -> Side {
        self.game.position().side_to_move()
    }

    /// Whether both seats are held.
    pub fn full(&self) -> bool {
        self.seats.iter().all(|s| s.claimed)
    }

    /// The seat a token holds, checked in constant time against both seats. Unclaimed
    /// seats grant nothing, so a token guessed before the claim is useless.
    pub fn seat_of(&self, token: &str) -> Option<Side> {
        if let Some(t) = &self.teams {
            // A team game's sides are held by their active members' own tokens only.
            return t.member_of(token).map(|m| m.side);
        }
        let mut found = None;
        for side in [Side::South, Side::North] {
            let seat = &self.seats[side.index()];
            // Both comparisons always run, so timing tells nothing about which matched.
            if secret_eq(&seat.token, token) && seat.claimed {
                found = Some(side);
            }
        }
        found
    }

    /// The free seat an invitation code would claim (nothing changes).
    pub fn check_claim(&self, invite: &str) -> Result<Side, RoomError> {
        // A team game's sides are joined with their own invitations (see `team`).
        if self.teams.is_some() || !secret_eq(&self.invite, invite) {
            return Err(RoomError::BadInvite);
        }
        [Side::South, Side::North].into_iter().find(|s| !self.seats[s.index()].claimed).ok_or(RoomError::SeatsTaken)
    }

    /// Claims the free seat (after [`Room::check_claim`] and storage); starts the clock.
    pub fn commit_claim(&mut self, side: Side, name: &str, now: u64) {
        let seat = &mut self.seats[side.index()];
        seat.claimed = true;
        seat.name = name.to_string();
        self.start_clock(now);
    }

    /// Starts the side to move's clock if the game is on with both seats held.
    pub fn start_clock(&mut self, now: u64) {
        let on = self.full() && !self.game.is_over();
        if let Some(c) = &mut self.clocks {
            if on && c.running_since.is_none() {
                c.running_since = Some(now);
            }
        }
    }

    /// The loss on time due at `now`, if the side to move's clock has run out.
    pub fn flag_due(&self, now: u64) -> Option<Outcome> {
        if self.game.is_over() {
            return None;
        }
        let c = self.clocks.as_ref()?;
        let to_move = self.to_move();
        (c.deadline(to_move)? <= now)
            .then_some(Outcome { winner: Some(to_move.opponent()), termination: Termination::TimeForfeit })
    }

    /// Ends the game (time forfeit, resignation) after storage; stops the clocks.
    pub fn commit_end(&mut self, outcome: Outcome, now: u64) {
        if let Some(c) = &mut self.clocks {
            if let Some(t) = c.running_since.take() {
                let i = self.game.position().side_to_move().index();
                c.remaining[i] = c.remaining[i].saturating_sub(now.saturating_sub(t));
            }
        }
        let _ = self.game.end(outcome);
    }

    /// Checks a resignation by the holder of `seat` (any time while the game is on).
    pub fn check_resign(&self, seat: Option<Side>) -> Result<Outcome, RoomError> {
        let side = seat.ok_or(RoomError::NotAPlayer)?;
        if let Some(o) = self.game.outcome() {
            return Err(RoomError::GameOver(o.to_string()));
        }
        Ok(Outcome { winner: Some(side.opponent()), termination: Termination::Resignation })
    }

    /// Checks a turn sent by the holder of `seat` as ply `ply`; changes nothing. The
    /// caller stores a [`TurnCheck::New`] and then commits it. A flag that is due must be
    /// handled first (see [`Room::flag_due`]); here an expired clock refuses the turn.
    pub fn check_turn(&self, seat: Option<Side>, ply: u32, text: &str, now: u64) -> Result<TurnCheck, RoomError> {
        let side = seat.ok_or(RoomError::NotAPlayer)?;
        let token: Token = text.trim().parse().map_err(|_| RoomError::BadToken(truncate(text, 40)))?;
        let current = self.ply();
        if ply < current {
            // A turn sent twice (a retry after a lost acknowledgement) is applied once.
            let same =
                self.game.moves()[ply as usize] == token && self.game.positions()[ply as usize].side_to_move() == side;
            return if same { Ok(TurnCheck::Duplicate) } else { Err(RoomError::Stale { sent: ply, current }) };
        }
        if ply > current {
            return Err(RoomError::Ahead { sent: ply, current });
        }
        if let Some(o) = self.game.outcome() {
            return Err(RoomError::GameOver(o.to_string()));
        }
        if !self.full() {
            return Err(RoomError::WaitingForOpponent);
        }
        let to_move = self.to_move();
        if side != to_move {
            return Err(RoomError::NotYourTurn(to_move));
        }
        self.game.position().play(&token).map_err(|e| RoomError::Illegal(e.to_string()))?;
        if let Some(o) = self.flag_due(now) {
            return Err(RoomError::GameOver(o.to_string()));
        }
        let remaining = self.clocks.as_ref().map(|c| {
            let mut r = c.remaining;
            let i = side.index();
            if c.days_per_turn.is_some() {
                // Correspondence: the next side to move has the whole span again.
                return [c.control.initial_ms; 2];
            }
            let spent = c.running_since.map_or(0, |t| now.saturating_sub(t));
            r[i] = (r[i].saturating_sub(spent) + c.control.increment_ms).min(2 * MAX_CLOCK_MS);
            r
        });
        // The canonical spelling is stored, whatever spacing the client sent.
        let canonical: Token = token.to_string().parse().expect("a token's display parses back");
        Ok(TurnCheck::New(PreparedTurn { ply, token: canonical, side, remaining, at: now }))
    }

    /// Applies a checked and stored turn.
    pub fn commit_turn(&mut self, t: &PreparedTurn) {
        debug_assert_eq!(t.ply, self.ply());
        self.game.play(&t.token).expect("checked before storage");
        // A team's vote on this turn is over.
        if let Some(teams) = &mut self.teams {
            teams.vote = None;
        }
        let over = self.game.is_over();
        if let (Some(c), Some(r)) = (&mut self.clocks, t.remaining) {
            c.remaining = r;
            c.running_since = (!over).then_some(t.at);
        }
    }
}

/// At most `n` characters of `s`, for error messages that echo client input.
pub fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn room(control: Option<TimeControl>) -> Room {
        Room::new(
            "r1".into(),
            "tsoro:8".parse().unwrap(),
            Side::South,
            ["s".repeat(32), "n".repeat(32)],
            "i".repeat(32),
            control,
            0,
        )
    }

    fn play(r: &mut Room, side: Side, ply: u32, tok: &str, now: u64) {
        match r.check_turn(Some(side), ply, tok, now).unwrap() {
            TurnCheck::New(p) => r.commit_turn(&p),
            TurnCheck::Duplicate => panic!("unexpected duplicate"),
        }
    }

    #[test]
    fn seats_and_tokens() {
        let mut r = room(None);
        assert_eq!(r.seat_of(&"s".repeat(32)), Some(Side::South));
        // The free seat's token grants nothing until claimed.
        assert_eq!(r.seat_of(&"n".repeat(32)), None);
        assert_eq!(r.seat_of("x"), None);
        assert_eq!(r.check_claim("wrong"), Err(RoomError::BadInvite));
        assert_eq!(r.check_claim(&"i".repeat(32)), Ok(Side::North));
        r.commit_claim(Side::North, "Tendai", 0);
        assert_eq!(r.seat_of(&"n".repeat(32)), Some(Side::North));
        assert_eq!(r.check_claim(&"i".repeat(32)), Err(RoomError::SeatsTaken));
    }

    #[test]
    fn turns_are_checked() {
        let mut r = room(None);
        assert_eq!(r.check_turn(Some(Side::South), 0, "B2=", 0), Err(RoomError::WaitingForOpponent));
        r.commit_claim(Side::North, "", 0);
        assert_eq!(r.check_turn(None, 0, "B2=", 0), Err(RoomError::NotAPlayer));
        assert_eq!(r.check_turn(Some(Side::North), 0, "b2=", 0), Err(RoomError::NotYourTurn(Side::South)));
        assert!(matches!(r.check_turn(Some(Side::South), 0, "zz", 0), Err(RoomError::BadToken(_))));
        assert!(matches!(r.check_turn(Some(Side::South), 0, "A1", 0), Err(RoomError::Illegal(_))));
        assert_eq!(r.check_turn(Some(Side::South), 1, "B2=", 0), Err(RoomError::Ahead { sent: 1, current: 0 }));
        play(&mut r, Side::South, 0, "B2=", 0);
        assert_eq!(r.ply(), 1);
        // Sent twice: acknowledged, applied once.
        assert_eq!(r.check_turn(Some(Side::South), 0, "B2=", 0), Ok(TurnCheck::Duplicate));
        // A different turn at an old ply is stale, and so is North claiming South's turn.
        assert_eq!(r.check_turn(Some(Side::South), 0, "B3", 0), Err(RoomError::Stale { sent: 0, current: 1 }));
        assert_eq!(r.check_turn(Some(Side::North), 0, "B2=", 0), Err(RoomError::Stale { sent: 0, current: 1 }));
        assert_eq!(r.ply(), 1);
    }

    #[test]
    fn clocks_run_on_the_server() {
        let tc = TimeControl { initial_ms: 1000, increment_ms: 100 };
        let mut r = room(Some(tc));
        assert_eq!(r.flag_due(1_000_000), None, "no clock runs before the opponent comes");
        r.commit_claim(Side::North, "", 10);
        play(&mut r, Side::South, 0, "B2=", 310); // South spent 300 ms
        let c = r.clocks.clone().unwrap();
        assert_eq!(c.remaining, [800, 1000]);
        assert_eq!(c.left(Side::North, Side::North, 410), 900);
        assert_eq!(r.flag_due(1309), None);
        let o = r.flag_due(1310).unwrap();
        assert_eq!(o.winner, Some(Side::South));
        assert_eq!(o.termination, Termination::TimeForfeit);
        let north_turn = r.game.position().turns().next().unwrap().0.to_string();
        assert!(matches!(r.check_turn(Some(Side::North), 1, &north_turn, 1310), Err(RoomError::GameOver(_))));
        r.commit_end(o, 1310);
        assert!(r.game.is_over());
        assert_eq!(r.clocks.unwrap().remaining, [800, 0]);
    }

    #[test]
    fn days_per_turn_restart_the_span_at_each_turn() {
        let mut r = room(None);
        r.clocks = Some(Clocks::days(2));
        let span = 2 * DAY_MS;
        r.commit_claim(Side::North, "", 1000);
        assert_eq!(r.clocks.as_ref().unwrap().deadline(Side::South), Some(1000 + span));
        play(&mut r, Side::South, 0, "B2=", 1000 + DAY_MS);
        let c = r.clocks.clone().unwrap();
        assert_eq!(c.remaining, [span, span]);
        assert_eq!(c.deadline(Side::North), Some(1000 + DAY_MS + span));
        assert_eq!(r.flag_due(1000 + DAY_MS + span - 1), None);
        let o = r.flag_due(1000 + DAY_MS + span).unwrap();
        assert_eq!((o.winner, o.termination), (Some(Side::South), Termination::TimeForfeit));
    }

    #[test]
    fn resignation() {
        let r = room(None);
        assert_eq!(r.check_resign(None), Err(RoomError::NotAPlayer));
        let o = r.check_resign(Some(Side::South)).unwrap();
        assert_eq!(o.winner, Some(Side::North));
    }
}
