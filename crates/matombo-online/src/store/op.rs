//! The writes a store takes.

use matombo_core::{Outcome, Side};

use crate::room::TimeControl;
use crate::team::TeamMode;

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
    /// player's id, or fails with [`StoreError::BadCode`](super::StoreError::BadCode).
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
    /// ([`StoreError::TeamFull`](super::StoreError::TeamFull)) when the side has [`crate::team::MAX_MEMBERS`] members.
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
