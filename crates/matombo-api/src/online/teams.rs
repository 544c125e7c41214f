//! Team games on the wire: the public list, the members, the teams and their votes.

use serde::Serialize;

use super::*;

/// One side of a public team game in the list: its members and the link that joins it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PublicSide {
    /// Active members now.
    pub members: usize,
    /// `/online/game/{id}#join=…` (the creator's `join_south`/`join_north`), or null when
    /// the side is full.
    pub join: Option<String>,
}

/// A public team game not finished (`GET /api/online/teams`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PublicTeamGame {
    /// The room.
    pub id: String,
    /// The ruleset.
    pub ruleset: String,
    /// `any`, `captain` or `vote`.
    pub mode: String,
    /// A vote's length (vote mode), or null.
    pub vote_ms: Option<u64>,
    /// The time control, or null (no clock).
    pub clock: Option<ControlJson>,
    /// Unix ms.
    pub created_ms: u64,
    /// The creator's name.
    pub creator: String,
    /// South's team.
    pub south: PublicSide,
    /// North's team.
    pub north: PublicSide,
}

/// The answer of `GET /api/online/teams`: newest first, at most 50.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PublicTeamGames {
    /// The games.
    pub games: Vec<PublicTeamGame>,
}

/// One member of a team as every client sees him (never with his token).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemberJson {
    /// His public id.
    pub member: String,
    /// His name.
    pub name: String,
    /// Whether a connection of his is open now.
    pub online: bool,
    /// Whether he is his side's captain.
    pub captain: bool,
}

/// One side's team.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TeamJson {
    /// Its members, in the order they joined (removed ones left out).
    pub members: Vec<MemberJson>,
}

/// A vote in progress: its tally as the voting side's members see it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VotesJson {
    /// The ply voted on.
    pub ply: u32,
    /// Votes by turn.
    pub tally: BTreeMap<String, u32>,
    /// Members who voted.
    pub voted: u32,
    /// Active members of the side.
    pub members: u32,
    /// When the vote closes at the latest (Unix ms).
    pub closes_at: u64,
}

/// The teams of a team game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TeamsJson {
    /// `any`, `captain` or `vote`.
    pub mode: &'static str,
    /// How long a vote stays open after its first vote (vote mode), or null.
    pub vote_ms: Option<u64>,
    /// South's team.
    pub south: TeamJson,
    /// North's team.
    pub north: TeamJson,
}
